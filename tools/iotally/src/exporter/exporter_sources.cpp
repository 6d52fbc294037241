// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/exporter_sources.hpp"

#include <fmt/format.h>

namespace iotally {

void SourceStates::set(const std::string& source, bool up, const std::string& why) {
    auto [it, first] = up_.try_emplace(source, up);
    const bool changed = !first && it->second != up;
    it->second = up;
    if (!on_change || !(changed || (first && !up)))
        return;
    if (up)
        on_change(fmt::format("{}: available again", source));
    else
        on_change(fmt::format("{}: {}; serving without it until it appears", source,
                              why.empty() ? std::string("cannot be read") : why));
}

bool SourceStates::up(const std::string& source) const {
    auto it = up_.find(source);
    return it != up_.end() && it->second;
}

void SourceStates::write(ExpositionWriter& w) const {
    w.family("iotally_source_up", MetricType::gauge, "",
             "1 if this scrape could read the source (dm, block, tasks, cgroups, statistics), 0 "
             "if it is missing or not permitted: its families are empty until it appears.");
    for (const auto& [source, up] : up_) {
        Labels l;
        l.add("source", source);
        w.sample(l, std::uint64_t{up ? 1u : 0u});
    }
}

}  // namespace iotally
