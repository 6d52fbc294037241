// SPDX-License-Identifier: GPL-2.0-or-later
#include "promql.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace iotally::mixin {

std::string region_latency_quantile(double q, const std::string& selector,
                                    const std::string& window, const Grouping& g) {
    auto one = [&](const std::string& series, bool classic) {
        std::string rate = fmt::format("rate({}{}[{}])", series, selector, window);
        if (!g.by.empty())
            rate = fmt::format("sum by ({}{}) ({})", g.by, classic ? ", le" : "", rate);
        else if (!g.without.empty())
            rate = fmt::format("sum without ({}) ({})", g.without, rate);
        return fmt::format("histogram_quantile({}, {})", q, rate);
    };
    return fmt::format("({} or {})", one(std::string(region_latency) + "_bucket", true),
                       one(region_latency, false));
}

const BlockStatField& block_field(std::uint64_t BlockStat::*member) {
    for (const auto& f : block_stat_fields)
        if (f.member == member)
            return f;
    throw std::logic_error("block_stat_fields has no such member");
}

std::vector<std::pair<const BlockStatField*, const BlockStatField*>> block_time_per_op() {
    return {
        {&block_field(&BlockStat::read_ticks_ms), &block_field(&BlockStat::read_ios)},
        {&block_field(&BlockStat::write_ticks_ms), &block_field(&BlockStat::write_ios)},
        {&block_field(&BlockStat::discard_ticks_ms), &block_field(&BlockStat::discard_ios)},
        {&block_field(&BlockStat::flush_ticks_ms), &block_field(&BlockStat::flush_ios)},
    };
}

}  // namespace iotally::mixin
