// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/queue_depth.hpp"

#include <array>
#include <exception>
#include <utility>
#include <vector>

#include "iotally/exporter/exporter.hpp"

namespace iotally {

QueueDepthMonitor::QueueDepthMonitor(DeviceLayer* layer, DepthSamplerOptions options,
                                     std::function<double()> clock)
    : regions_(options.regions), sampler_(layer, std::move(options), std::move(clock)) {}

void QueueDepthMonitor::sample() {
    std::vector<DepthTarget> targets;
    {
        std::lock_guard lock(mutex_);
        targets = sampler_.targets();
    }
    try {
        // The reads (sysfs files, @stats_print) without the lock: a scrape
        // meanwhile changes what is tracked, and apply() drops what it no
        // longer is.
        DepthReadings readings = sampler_.read(targets);
        std::lock_guard lock(mutex_);
        sampler_.apply(readings);
    } catch (const std::exception& e) {  // Error, or out of memory
        std::lock_guard lock(mutex_);
        ++failures_.count;
        failures_.last = e.what();
    }
}

QueueDepthMonitor::Failures QueueDepthMonitor::take_failures() {
    std::lock_guard lock(mutex_);
    return std::exchange(failures_, Failures{});
}

namespace {

using Seconds = std::array<double, depth_thresholds.size()>;

void write_family(ExpositionWriter& w, std::string_view family, std::string_view help,
                  const std::vector<std::pair<Labels, Seconds>>& rows) {
    w.family(family, MetricType::counter, "seconds", help);
    for (const auto& [labels, seconds] : rows) {
        for (std::size_t i = 0; i < depth_thresholds.size(); ++i) {
            Labels l = labels;
            l.add("at_least", depth_thresholds[i]);
            w.sample(l, seconds[i]);
        }
    }
}

}  // namespace

void QueueDepthMonitor::write(ExpositionWriter& w, std::span<const JoinedDevice> devices) {
    std::vector<std::pair<const JoinedDevice*, Seconds>> device_rows;
    std::vector<std::pair<std::pair<const DeviceSnapshot*, const Region*>, Seconds>> region_rows;
    {
        std::lock_guard lock(mutex_);
        sampler_.track(devices);
        for (const auto& j : devices) {
            if (const DepthTally* t = sampler_.device(j.id))
                device_rows.emplace_back(&j, t->at_least_s());
            if (!j.dm)
                continue;
            for (const auto& r : j.dm->regions)
                if (const DepthTally* t = sampler_.region(j.id, r.id))
                    region_rows.emplace_back(std::pair(j.dm, &r), t->at_least_s());
        }
    }
    std::vector<std::pair<Labels, Seconds>> rows;
    for (const auto& [j, seconds] : device_rows)
        rows.emplace_back(device_labels(j->id), seconds);
    write_family(w, device_queue_depth_family,
                 "Time with at least at_least I/Os in flight, sampled every --qd-sample; "
                 "rate() is the fraction of time (%qdN).",
                 rows);
    if (!regions_)
        return;
    rows.clear();
    for (const auto& [dr, seconds] : region_rows)
        rows.emplace_back(region_labels(*dr.first, *dr.second), seconds);
    write_family(w, region_queue_depth_family,
                 "Time the region had at least at_least I/Os in flight, sampled every "
                 "--qd-sample; rate() is the fraction of time (%qdN).",
                 rows);
}

}  // namespace iotally
