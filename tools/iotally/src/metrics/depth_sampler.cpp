// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/depth_sampler.hpp"

#include <algorithm>
#include <stdexcept>

#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

static_assert(std::tuple_size_v<decltype(DerivedRates::depth_pct)> == depth_thresholds.size());

namespace {

// The same device as tracked: its dev_t is the key; a kernel name, dm name
// or uuid that changed is another device (or a rename, which serve shows as
// another series too).
bool same_device(const DeviceId& a, const DeviceId& b) {
    return a.same_dev(b) && a.kernel_name == b.kernel_name && a.dm_name == b.dm_name &&
           a.dm_uuid == b.dm_uuid;
}

}  // namespace

DepthSampler::DepthSampler(DeviceLayer* layer, DepthSamplerOptions options,
                           std::function<double()> clock)
    : layer_(layer), options_(std::move(options)), clock_(std::move(clock)) {
    if (options_.regions && !layer_)
        throw std::invalid_argument("DepthSampler: regions need a device layer");
}

void DepthSampler::track(std::span<const JoinedDevice> devices) {
    std::map<DevT, Device> kept;
    std::map<RegionKey, RegionTally> regions;
    std::map<RegionKey, DepthTally> groups;
    for (const auto& j : devices) {
        if (!j.block)
            continue;  // no inflight file to read
        const DevT dev = dev_of(j.id);
        auto it = devices_.find(dev);
        const bool same = it != devices_.end() && same_device(it->second.id, j.id);
        Device d = same ? std::move(it->second) : Device{};
        d.id = j.id;
        d.disk = j.block->is_partition() ? j.block->parent : j.block->id.kernel_name;
        d.partition = j.block->is_partition() ? j.block->id.kernel_name : "";
        kept.emplace(dev, std::move(d));
        if (!options_.regions || !j.dm)
            continue;
        for (const auto& r : j.dm->regions) {
            const RegionKey key{dev, r.id};
            auto rt = regions_.find(key);
            RegionTally t;
            if (same && rt != regions_.end() && rt->second.start == r.start &&
                rt->second.length == r.length && rt->second.step == r.step)
                t = std::move(rt->second);
            t.start = r.start;
            t.length = r.length;
            t.step = r.step;
            t.group = r.group_id;
            t.areas.resize(r.areas.size());
            regions.emplace(key, std::move(t));
        }
        for (const auto& g : j.dm->groups) {
            const RegionKey key{dev, g.id};
            auto gt = groups_.find(key);
            groups.emplace(key, same && gt != groups_.end() ? std::move(gt->second) : DepthTally{});
        }
    }
    devices_ = std::move(kept);
    regions_ = std::move(regions);
    groups_ = std::move(groups);
}

std::vector<DepthTarget> DepthSampler::targets() const {
    std::vector<DepthTarget> out;
    out.reserve(devices_.size());
    for (const auto& [dev, d] : devices_)
        out.push_back({dev, d.disk, d.partition, "", {}});
    // regions_ is sorted by dev_t as devices_ is: one pass over both.
    auto t = out.begin();
    for (const auto& [key, r] : regions_) {
        const DevT dev = std::get<0>(key);
        while (t != out.end() && t->dev < dev)
            ++t;
        if (t == out.end())
            break;
        if (t->dev != dev)
            continue;
        t->dm_name = devices_.at(dev).id.dm_name;
        t->regions.push_back(std::get<1>(key));
    }
    return out;
}

DepthReadings DepthSampler::read(std::span<const DepthTarget> targets) const {
    DepthReadings out;
    out.t_s = clock_();
    out.devices.reserve(targets.size());
    for (const auto& t : targets) {
        DepthReading reading{
            t.dev, read_block_inflight(options_.sysfs_root, t.disk, t.partition), {}};
        for (std::uint64_t id : t.regions) {
            std::vector<PrintLine> lines;
            try {
                // device-mapper addresses a device by its name: the region
                // is the one tracked as long as the name is the device's.
                lines = StatsClient(*layer_, t.dm_name).print(id);
            } catch (const Error& e) {
                if (e.kind() != ErrorKind::no_region && e.kind() != ErrorKind::no_device)
                    throw;
                continue;  // deleted meanwhile: left out until track() drops it
            }
            DepthReading::Region r{id, {}};
            r.areas.reserve(lines.size());
            for (const auto& l : lines)
                r.areas.push_back(l.counters.in_flight);
            reading.regions.push_back(std::move(r));
        }
        out.devices.push_back(std::move(reading));
    }
    return out;
}

void DepthSampler::apply(const DepthReadings& readings) {
    const double t = readings.t_s;
    std::map<RegionKey, std::int64_t> group_sums;
    for (const auto& reading : readings.devices) {
        auto d = devices_.find(reading.dev);
        if (d == devices_.end())
            continue;  // no longer tracked
        if (reading.in_flight)
            d->second.tally.sample(t, *reading.in_flight);
        for (const auto& rr : reading.regions) {
            auto r = regions_.find({reading.dev, rr.id});
            if (r == regions_.end())
                continue;
            std::int64_t sum = 0;
            for (std::size_t i = 0; i < rr.areas.size(); ++i) {
                sum += rr.areas[i];
                if (i < r->second.areas.size())
                    r->second.areas[i].sample(t, rr.areas[i]);
            }
            r->second.tally.sample(t, sum);
            if (r->second.group)
                group_sums[{reading.dev, *r->second.group}] += sum;
        }
    }
    for (auto& [key, g] : groups_)
        if (auto it = group_sums.find(key); it != group_sums.end())
            g.sample(t, it->second);
}

void DepthSampler::sample() {
    apply(read(targets()));
}

void DepthSampler::run_until(double until, double period_s,
                             const std::function<void(double)>& sleep) {
    while (true) {
        sample();
        const double left = until - clock_();
        if (left <= 0)
            break;
        sleep(std::min(period_s, left));
    }
}

const DepthSampler::Device* DepthSampler::tracked(const DeviceId& id) const {
    auto it = devices_.find(dev_of(id));
    return it != devices_.end() && same_device(it->second.id, id) ? &it->second : nullptr;
}

const DepthTally* DepthSampler::device(const DeviceId& id) const {
    const Device* d = tracked(id);
    return d ? &d->tally : nullptr;
}

const DepthTally* DepthSampler::region(const DeviceId& id, std::uint64_t region) const {
    if (!tracked(id))
        return nullptr;
    auto it = regions_.find({dev_of(id), region});
    return it != regions_.end() ? &it->second.tally : nullptr;
}

const DepthTally* DepthSampler::area(const DeviceId& id, std::uint64_t region,
                                     std::uint64_t area) const {
    if (!tracked(id))
        return nullptr;
    auto it = regions_.find({dev_of(id), region});
    if (it == regions_.end() || area >= it->second.areas.size())
        return nullptr;
    return &it->second.areas[area];
}

const DepthTally* DepthSampler::group(const DeviceId& id, std::uint64_t group) const {
    if (!tracked(id))
        return nullptr;
    auto it = groups_.find({dev_of(id), group});
    return it != groups_.end() ? &it->second : nullptr;
}

namespace {

void set_pct(DerivedRates& s, const DepthTally* tally) {
    if (!tally)
        return;
    if (auto f = tally->fractions())
        for (std::size_t i = 0; i < f->size(); ++i)
            s.depth_pct[i] = (*f)[i] * 100.0;
}

}  // namespace

void DepthSampler::fill(std::vector<ReportRow>& rows) {
    for (auto& row : rows) {
        switch (row.level) {
            case ReportLevel::device:
                set_pct(row.stats, device(row.id));
                break;
            case ReportLevel::group:
                if (row.group)
                    set_pct(row.stats, group(row.id, *row.group));
                break;
            case ReportLevel::region:
                if (row.region)
                    set_pct(row.stats, region(row.id, *row.region));
                break;
            case ReportLevel::area:
                if (row.region && row.area)
                    set_pct(row.stats, area(row.id, *row.region, *row.area));
                break;
        }
    }
    for (auto& [dev, d] : devices_)
        d.tally.restart();
    for (auto& [key, r] : regions_) {
        r.tally.restart();
        for (auto& a : r.areas)
            a.restart();
    }
    for (auto& [key, g] : groups_)
        g.restart();
}

}  // namespace iotally
