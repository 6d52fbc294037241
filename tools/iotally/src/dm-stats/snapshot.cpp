// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/snapshot.hpp"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>

#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

namespace iotally {

double monotonic_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::uint64_t Region::area_count() const {
    return step ? (length + step - 1) / step : 0;
}

IoCounters Region::total() const {
    IoCounters sum;
    for (const auto& a : areas)
        sum += a.counters;
    return sum;
}

std::vector<std::uint64_t> Region::histogram_total() const {
    std::vector<std::uint64_t> sum;
    if (histogram_bounds_ns.empty())
        return sum;
    sum.assign(histogram_bounds_ns.size() + 1, 0);
    for (const auto& a : areas)
        for (std::size_t i = 0; i < sum.size() && i < a.histogram.size(); ++i)
            sum[i] += a.histogram[i];
    return sum;
}

bool Region::same_region(const Region& o) const {
    return id == o.id && start == o.start && length == o.length && step == o.step &&
           precise_timestamps == o.precise_timestamps &&
           histogram_bounds_ns == o.histogram_bounds_ns && program_id == o.program_id;
}

const Region* DeviceSnapshot::find_region(std::uint64_t id) const {
    auto it = std::lower_bound(regions.begin(), regions.end(), id,
                               [](const Region& r, std::uint64_t v) { return r.id < v; });
    return it != regions.end() && it->id == id ? &*it : nullptr;
}

IoCounters DeviceSnapshot::total() const {
    // Regions may overlap; the device total is the sum over regions, which
    // counts an I/O once per region that covers it.
    IoCounters sum;
    for (const auto& r : regions)
        sum += r.total();
    return sum;
}

const DeviceSnapshot* Snapshot::find_device(const std::string& name) const {
    for (const auto& d : devices)
        if (d.id.dm_name == name)
            return &d;
    return nullptr;
}

Region listed_region(const ListEntry& entry) {
    Region r;
    r.id = entry.region_id;
    r.start = entry.start;
    r.length = entry.length;
    r.step = entry.step;
    r.program_id = entry.program_id;
    r.aux_data = entry.aux_data;
    r.precise_timestamps = entry.precise_timestamps;
    try {
        r.user_aux = user_aux_data(entry.aux_data);
    } catch (const Error&) {
        r.user_aux = entry.aux_data;  // resolve_groups() reports the bad tag
    }
    return r;
}

Region make_region(const ListEntry& entry, const std::vector<PrintLine>& lines) {
    Region r = listed_region(entry);
    for (auto b : entry.histogram) {
        try {
            r.histogram_bounds_ns.push_back(region_time_to_ns(b, entry.precise_timestamps));
        } catch (const Error&) {
            throw Error(ErrorKind::parse,
                        fmt::format("region {}: histogram boundary {} out of range", r.id, b));
        }
    }
    const std::uint64_t n = r.area_count();
    if (lines.size() != n)
        throw Error(ErrorKind::parse, fmt::format("region {}: @stats_print gave {} areas, "
                                                  "@stats_list implies {}",
                                                  r.id, lines.size(), n));
    const std::size_t buckets = entry.histogram.empty() ? 0 : entry.histogram.size() + 1;
    r.areas.reserve(lines.size());
    for (std::uint64_t i = 0; i < n; ++i) {
        const auto& line = lines[i];
        const std::uint64_t start = r.start + i * r.step;
        if (line.start != start || line.step != r.step)
            throw Error(ErrorKind::parse,
                        fmt::format("region {}: area {} is {}+{}, expected {}+{}", r.id, i,
                                    line.start, line.step, start, r.step));
        if (line.histogram.size() != buckets)
            throw Error(ErrorKind::parse,
                        fmt::format("region {}: area {} has {} histogram buckets, expected {}",
                                    r.id, i, line.histogram.size(), buckets));
        Area a;
        a.index = i;
        a.start = start;
        a.length = std::min(r.step, r.start + r.length - start);
        a.counters = normalize(line.counters, r.precise_timestamps);
        a.histogram = line.histogram;
        r.areas.push_back(std::move(a));
    }
    return r;
}

void resolve_groups(DeviceSnapshot& device) {
    device.groups.clear();
    for (auto& r : device.regions)
        r.group_id.reset();
    for (const auto& r : device.regions) {
        std::optional<GroupTag> tag;
        try {
            tag = parse_group_tag(r.aux_data);
        } catch (const Error& e) {
            device.warnings.push_back(
                fmt::format("{}: region {}: {}", device.id.dm_name, r.id, e.what()));
            continue;
        }
        if (!tag)
            continue;
        if (tag->members.front() != r.id) {
            device.warnings.push_back(
                fmt::format("{}: region {}: group descriptor names {} as its first member",
                            device.id.dm_name, r.id, tag->members.front()));
            continue;
        }
        Group g;
        g.id = r.id;
        g.alias = tag->alias;
        for (auto id : tag->members) {
            if (!device.find_region(id)) {
                device.warnings.push_back(fmt::format("{}: group {} names missing region {}",
                                                      device.id.dm_name, g.id, id));
                continue;
            }
            g.members.push_back(id);
        }
        device.groups.push_back(std::move(g));
    }
    for (const auto& g : device.groups)
        for (auto id : g.members) {
            auto it = std::lower_bound(device.regions.begin(), device.regions.end(), id,
                                       [](const Region& r, std::uint64_t v) { return r.id < v; });
            if (it != device.regions.end() && it->id == id && !it->group_id)
                it->group_id = g.id;
        }
}

namespace {

std::string region_identity(const std::string& device, const Region& r) {
    return fmt::format("r {} {} {}+{}/{} {} {} {}", device, r.id, r.start, r.length, r.step,
                       r.precise_timestamps, fmt::join(r.histogram_bounds_ns, ","), r.program_id);
}

// Reads one device; regions deleted meanwhile are skipped, a region re-created
// with other geometry makes the caller retry.
DeviceSnapshot read_device(DeviceLayer& layer, const DeviceId& id,
                           const std::optional<std::string>& program_id,
                           const std::function<double()>& clock) {
    StatsClient client(layer, id.dm_name);
    DeviceSnapshot dev;
    dev.id = id;
    double before = clock();
    for (const auto& entry : client.list(program_id)) {
        std::vector<PrintLine> lines;
        try {
            lines = client.print(entry.region_id);
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::no_region)
                continue;  // deleted after @stats_list
            throw;
        }
        dev.regions.push_back(make_region(entry, lines));
    }
    dev.taken_s = (before + clock()) / 2;
    std::sort(dev.regions.begin(), dev.regions.end(),
              [](const Region& a, const Region& b) { return a.id < b.id; });
    resolve_groups(dev);
    return dev;
}

}  // namespace

Snapshot Snapshotter::take(const std::vector<std::string>& names,
                           const std::optional<std::string>& program_id) {
    Snapshot snap;
    double before = clock_();
    std::vector<DeviceId> ids;
    const bool all = names.empty();
    if (all) {
        ids = layer_.list_devices();
    } else {
        for (const auto& n : names)
            ids.push_back(layer_.device(n));
    }
    for (const auto& id : ids) {
        for (int attempt = 0;; ++attempt) {
            try {
                snap.devices.push_back(read_device(layer_, id, program_id, clock_));
                break;
            } catch (const Error& e) {
                // A device removed while we walk the list is not an error.
                if (all && e.kind() == ErrorKind::no_device)
                    break;
                if (e.kind() == ErrorKind::parse && attempt == 0)
                    continue;  // a region changed between list and print: retry once
                throw;
            }
        }
    }
    snap.taken_s = (before + clock_()) / 2;

    std::vector<std::string> identity;
    for (const auto& d : snap.devices) {
        identity.push_back(
            fmt::format("d {} {}:{} {}", d.id.dm_name, d.id.major, d.id.minor, d.id.dm_uuid));
        for (const auto& r : d.regions)
            identity.push_back(region_identity(d.id.dm_name, r));
    }
    if (first_ || identity != last_identity_)
        ++generation_;
    first_ = false;
    last_identity_ = std::move(identity);
    snap.generation = generation_;
    return snap;
}

}  // namespace iotally
