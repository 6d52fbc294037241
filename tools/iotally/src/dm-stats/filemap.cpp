// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/filemap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

CreateRequest request_for(const SectorRange& range, const std::string& program_id, bool precise,
                          const std::vector<std::uint64_t>& histogram) {
    CreateRequest req;
    req.range = range;
    req.step = AreaCount{1};
    req.precise_timestamps = precise;
    req.histogram = histogram;
    req.program_id = program_id;
    return req;
}

}  // namespace

std::vector<std::uint64_t> create_file_regions(StatsClient& client,
                                               const std::vector<SectorRange>& ranges,
                                               const FileMapOptions& options) {
    if (ranges.empty())
        throw Error(ErrorKind::usage, "the file has no allocated extents to map");
    GroupTag tag;
    tag.alias = options.alias;
    format_group_aux(GroupTag{tag.alias, {0}, ""});  // validates the alias before any change
    RegionTransaction tx(client);
    for (const auto& r : ranges)
        tx.create(
            request_for(r, options.program_id, options.precise_timestamps, options.histogram));
    std::vector<std::uint64_t> ids = tx.ids();
    tag.members = ids;
    std::sort(tag.members.begin(), tag.members.end());
    client.set_aux(tag.members.front(), format_group_aux(tag));
    tx.commit();
    std::vector<std::uint64_t> sorted = tag.members;
    return sorted;
}

std::vector<std::uint64_t> update_file_regions(StatsClient& client, std::uint64_t group_id,
                                               const std::vector<SectorRange>& ranges) {
    if (ranges.empty())
        throw Error(ErrorKind::usage, "the file has no allocated extents to map");
    const auto entries = client.list(std::nullopt);
    std::map<std::uint64_t, ListEntry> by_id;
    for (const auto& e : entries)
        by_id[e.region_id] = e;
    auto leader_it = by_id.find(group_id);
    if (leader_it == by_id.end())
        throw Error(ErrorKind::no_region,
                    fmt::format("region {} does not exist on {}", group_id, client.device()));
    const ListEntry leader = leader_it->second;
    auto tag = parse_group_tag(leader.aux_data);
    if (!tag || tag->members.front() != group_id)
        throw Error(ErrorKind::no_region,
                    fmt::format("{}: region {} does not lead a group", client.device(), group_id));

    // Members that still map an extent stay, with their counters.
    std::vector<std::uint64_t> keep, drop;
    std::vector<SectorRange> missing = ranges;
    for (auto id : tag->members) {
        auto it = by_id.find(id);
        if (it == by_id.end())
            continue;
        SectorRange r{it->second.start, it->second.length};
        auto m = std::find(missing.begin(), missing.end(), r);
        if (m != missing.end()) {
            keep.push_back(id);
            missing.erase(m);
        } else {
            drop.push_back(id);
        }
    }

    RegionTransaction tx(client);
    for (const auto& r : missing)
        tx.create(request_for(r, leader.program_id == "-" ? "" : leader.program_id,
                              leader.precise_timestamps, leader.histogram));
    GroupTag updated = *tag;
    updated.members = keep;
    updated.members.insert(updated.members.end(), tx.ids().begin(), tx.ids().end());
    std::sort(updated.members.begin(), updated.members.end());
    const std::uint64_t new_leader = updated.members.front();
    const std::string new_leader_old_aux =
        by_id.count(new_leader) ? by_id[new_leader].aux_data : "-";

    client.set_aux(new_leader, format_group_aux(updated));
    if (new_leader != group_id && std::find(drop.begin(), drop.end(), group_id) == drop.end()) {
        // The old leader stays as a plain member: take the tag off it.
        try {
            client.set_aux(group_id, "-");
        } catch (...) {
            if (new_leader != group_id)
                client.set_aux(new_leader, new_leader_old_aux);
            throw;
        }
    }
    tx.commit();
    for (auto id : drop)
        client.remove(id);
    return updated.members;
}

}  // namespace iotally
