// SPDX-License-Identifier: GPL-2.0-or-later
#include "depth_sampler.hpp"

#include <algorithm>

#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/util/error.hpp"

namespace iotally::cli {

static_assert(std::tuple_size_v<decltype(DerivedRates::depth_pct)> == depth_thresholds.size());

DepthSampler::DepthSampler(Context& ctx, double period_s, bool regions)
    : ctx_(ctx), period_s_(period_s), regions_(regions) {}

void DepthSampler::track(const Sample& sample) {
    std::map<std::string, Device> devices;
    for (const auto& d : sample.disks.devices) {
        auto it = devices_.find(d.id.kernel_name);
        Device dev = it != devices_.end() ? std::move(it->second) : Device{};
        dev.disk = d.is_partition() ? d.parent : d.id.kernel_name;
        dev.partition = d.is_partition() ? d.id.kernel_name : "";
        devices.emplace(d.id.kernel_name, std::move(dev));
    }
    devices_ = std::move(devices);
    if (!regions_ || !sample.dm)
        return;
    std::map<RegionKey, Region> regions;
    std::map<RegionKey, DepthTally> groups;
    for (const auto& d : sample.dm->devices) {
        for (const auto& r : d.regions) {
            RegionKey key{d.id.dm_name, r.id};
            auto it = region_tallies_.find(key);
            Region reg = it != region_tallies_.end() ? std::move(it->second) : Region{};
            reg.group = r.group_id;
            reg.areas.resize(r.areas.size());
            regions.emplace(key, std::move(reg));
        }
        for (const auto& g : d.groups) {
            RegionKey key{d.id.dm_name, g.id};
            auto it = groups_.find(key);
            groups.emplace(key, it != groups_.end() ? std::move(it->second) : DepthTally{});
        }
    }
    region_tallies_ = std::move(regions);
    groups_ = std::move(groups);
}

void DepthSampler::tick() {
    const double t = ctx_.clock();
    for (auto& [name, d] : devices_)
        if (auto n = read_block_inflight(ctx_.sysfs, d.disk, d.partition))
            d.tally.sample(t, *n);
    std::map<RegionKey, std::int64_t> group_sums;
    for (auto& [key, r] : region_tallies_) {
        std::vector<PrintLine> lines;
        try {
            lines = StatsClient(ctx_.layer(), std::get<0>(key)).print(std::get<1>(key));
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::no_region && e.kind() != ErrorKind::no_device)
                throw;
            continue;  // deleted meanwhile: the next report leaves it out
        }
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            sum += lines[i].counters.in_flight;
            if (i < r.areas.size())
                r.areas[i].sample(t, lines[i].counters.in_flight);
        }
        r.tally.sample(t, sum);
        if (r.group)
            group_sums[{std::get<0>(key), *r.group}] += sum;
    }
    for (auto& [key, g] : groups_)
        if (auto it = group_sums.find(key); it != group_sums.end())
            g.sample(t, it->second);
}

void DepthSampler::run_until(double until) {
    while (true) {
        tick();
        const double left = until - ctx_.clock();
        if (left <= 0)
            break;
        ctx_.sleep(std::min(period_s_, left));
    }
}

namespace {

void set_pct(DerivedRates& s, const DepthTally& tally) {
    if (auto f = tally.fractions())
        for (std::size_t i = 0; i < f->size(); ++i)
            s.depth_pct[i] = (*f)[i] * 100.0;
}

}  // namespace

void DepthSampler::fill(std::vector<ReportRow>& rows) {
    for (auto& row : rows) {
        if (row.level == ReportLevel::device) {
            if (auto it = devices_.find(row.id.kernel_name); it != devices_.end())
                set_pct(row.stats, it->second.tally);
            continue;
        }
        const std::string& dm = row.id.dm_name;
        if (row.level == ReportLevel::group) {
            if (!row.group)
                continue;
            if (auto it = groups_.find({dm, *row.group}); it != groups_.end())
                set_pct(row.stats, it->second);
            continue;
        }
        if (!row.region)
            continue;
        auto it = region_tallies_.find({dm, *row.region});
        if (it == region_tallies_.end())
            continue;
        if (row.level == ReportLevel::region)
            set_pct(row.stats, it->second.tally);
        else if (row.area && *row.area < it->second.areas.size())
            set_pct(row.stats, it->second.areas[*row.area]);
    }
    for (auto& [name, d] : devices_)
        d.tally.restart();
    for (auto& [key, r] : region_tallies_) {
        r.tally.restart();
        for (auto& a : r.areas)
            a.restart();
    }
    for (auto& [key, g] : groups_)
        g.restart();
}

}  // namespace iotally::cli
