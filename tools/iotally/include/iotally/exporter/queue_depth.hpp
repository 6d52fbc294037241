// SPDX-License-Identifier: GPL-2.0-or-later
// serve's saturation families: how long each device (and, when asked, each
// dm-stats region) had at least N I/Os in flight, from in-flight counts
// sampled by a thread of its own between scrapes (DepthSampler). Counters
// in seconds, one series per threshold N (label at_least): their rate() is
// the fraction of time at or above N, report's %qdN over the rate's window.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "iotally/exporter/exposition.hpp"
#include "iotally/metrics/depth_sampler.hpp"

namespace iotally {

inline constexpr std::string_view device_queue_depth_family = "iotally_device_queue_depth_seconds";
inline constexpr std::string_view region_queue_depth_family = "iotally_region_queue_depth_seconds";

// Shared by the sampling thread (sample()) and the scrapes (write()): a
// scrape waits for no read of the kernel's, only for a sample being
// recorded.
class QueueDepthMonitor {
  public:
    // `layer` is used only with options.regions (one @stats_print per
    // region per sample), from the sampling thread: a layer the scrapes
    // use too must take one call at a time (SerializedLayer).
    QueueDepthMonitor(DeviceLayer* layer, DepthSamplerOptions options,
                      std::function<double()> clock);

    // One sample of what the last scrape tracked. Never throws: a sample
    // that fails is counted (failures()) and the next one tries again.
    void sample();

    // At each scrape: samples `devices` (with their regions) from now on,
    // and writes the families of those of them already tracked. A device
    // new to this scrape starts at 0.
    void write(ExpositionWriter& w, std::span<const JoinedDevice> devices);

    // The samples that failed since the previous call, and the last one's
    // message.
    struct Failures {
        std::uint64_t count = 0;
        std::string last;
    };
    Failures take_failures();

  private:
    bool regions_;
    std::mutex mutex_;
    DepthSampler sampler_;
    Failures failures_;
};

}  // namespace iotally
