// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/block/saturation.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

#include "fields.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

void DepthTally::sample(double t_s, std::int64_t in_flight) {
    if (in_flight < 0 || (last_t_ && t_s < *last_t_))
        return;
    if (last_t_) {
        const double held = t_s - *last_t_;
        span_s_ += held;
        for (std::size_t i = 0; i < depth_thresholds.size(); ++i)
            if (last_n_ >= static_cast<std::int64_t>(depth_thresholds[i]))
                at_least_s_[i] += held;
    }
    last_t_ = t_s;
    last_n_ = in_flight;
    ++samples_;
}

std::optional<DepthFractions> DepthTally::fractions() const {
    if (span_s_ <= 0)
        return std::nullopt;
    DepthFractions f{};
    for (std::size_t i = 0; i < f.size(); ++i)
        f[i] = at_least_s_[i] / span_s_;
    return f;
}

void DepthTally::restart() {
    span_s_ = 0;
    at_least_s_ = {};
    samples_ = last_t_ ? 1 : 0;
}

std::int64_t parse_inflight(std::string_view text) {
    const auto fields = blank_separated_fields(text);
    std::int64_t sum = 0;
    for (std::string_view field : fields) {
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
        if (ec != std::errc() || p != field.data() + field.size() || v > INT32_MAX)
            throw Error(ErrorKind::parse, fmt::format("inflight: not a count: '{}'", field));
        sum += static_cast<std::int64_t>(v);
    }
    if (fields.size() != 2)
        throw Error(ErrorKind::parse,
                    fmt::format("inflight: {} fields where the kernel writes 2 (reads writes)",
                                fields.size()));
    return sum;
}

std::optional<std::int64_t> read_block_inflight(const std::string& sysfs_root,
                                                const std::string& disk,
                                                const std::string& partition) {
    std::string path = sysfs_root + "/block/" + disk;
    if (!partition.empty())
        path += "/" + partition;
    path += "/inflight";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
            return std::nullopt;
        throw Error(kind_from_errno(errno), fmt::format("{}: cannot read", path));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        return parse_inflight(ss.str());
    } catch (const Error& e) {
        throw Error(e.kind(), fmt::format("{}: {}", path, e.what()));
    }
}

}  // namespace iotally
