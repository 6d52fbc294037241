// SPDX-License-Identifier: GPL-2.0-or-later
// The in-flight counts of block devices, dm-stats regions, their areas and
// groups, sampled over time into DepthTally (saturation.hpp): the %qdN
// fields of report and the queue depth families of serve. Each tally is
// kept by the identity of its device (dev_t and names, DeviceId), never
// found by a name alone: a name that moves to another device starts anew.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "iotally/block/saturation.hpp"
#include "iotally/dm-stats/device.hpp"
#include "iotally/metrics/device_join.hpp"
#include "iotally/metrics/report.hpp"

namespace iotally {

// A block device's dev_t: what the tallies are kept by.
struct DevT {
    std::uint32_t major = 0, minor = 0;
    auto operator<=>(const DevT&) const = default;
};
inline DevT dev_of(const DeviceId& id) {
    return {id.major, id.minor};
}

struct DepthSamplerOptions {
    std::string sysfs_root = "/sys";
    // Also each region of a dm device, and its areas and groups: one
    // @stats_print per region per sample (the devices cost one read of
    // /sys/block's inflight file each).
    bool regions = false;
};

// Where one sample reads a tracked device: the names are addresses for
// sysfs and device-mapper only, the readings come back keyed by dev_t.
struct DepthTarget {
    DevT dev;
    std::string disk, partition;  // /sys/block/<disk>[/<partition>]/inflight
    std::string dm_name;          // @stats_print's device ("": no regions sampled)
    std::vector<std::uint64_t> regions;
};

// What one sample read.
struct DepthReading {
    DevT dev;
    std::optional<std::int64_t> in_flight;  // absent: the device is gone
    struct Region {
        std::uint64_t id = 0;
        std::vector<std::int64_t> areas;  // in flight per area
    };
    std::vector<Region> regions;  // a region deleted meanwhile is left out
};
struct DepthReadings {
    double t_s = 0;
    std::vector<DepthReading> devices;
};

class DepthSampler {
  public:
    // `layer` is needed (and used) only with options.regions.
    DepthSampler(DeviceLayer* layer, DepthSamplerOptions options, std::function<double()> clock);

    // What to sample from now on: the devices of `devices` that have a
    // /sys/block entry, and with options.regions their dm-stats regions.
    // The tallies of those still there with the same identity go on; a
    // device with another dev_t or name, or a region with another geometry,
    // starts anew.
    void track(std::span<const JoinedDevice> devices);

    // One sample of everything tracked: read() then apply().
    void sample();
    // Samples until the clock reaches `until`, sleeping `period_s` between
    // samples.
    void run_until(double until, double period_s, const std::function<void(double)>& sleep);

    // The two halves of sample(), for a sampler shared between threads:
    // read() touches no state of the sampler's and may run unlocked while
    // track() changes what is tracked; apply() drops the readings of devices
    // and regions no longer tracked. Throws Error for a device or region
    // that cannot be read for another reason than being gone.
    std::vector<DepthTarget> targets() const;
    DepthReadings read(std::span<const DepthTarget> targets) const;
    void apply(const DepthReadings& readings);

    // The tallies of a device, region, area or group, by the device's
    // identity; null when not tracked (or tracked as another device).
    const DepthTally* device(const DeviceId& id) const;
    const DepthTally* region(const DeviceId& id, std::uint64_t region) const;
    const DepthTally* area(const DeviceId& id, std::uint64_t region, std::uint64_t area) const;
    const DepthTally* group(const DeviceId& id, std::uint64_t group) const;

    // Sets stats.depth_pct of the rows sampled (DepthTally::fractions())
    // and starts the next interval of every tally.
    void fill(std::vector<ReportRow>& rows);

  private:
    struct Device {
        DeviceId id;  // as tracked: a different identity at the same dev_t starts anew
        std::string disk, partition;
        DepthTally tally;
    };
    struct RegionTally {
        std::uint64_t start = 0, length = 0, step = 0;  // geometry: a new region if changed
        std::optional<std::uint64_t> group;
        DepthTally tally;
        std::vector<DepthTally> areas;
    };
    using RegionKey = std::tuple<DevT, std::uint64_t>;  // dev_t, region or group id

    const Device* tracked(const DeviceId& id) const;

    DeviceLayer* layer_;
    DepthSamplerOptions options_;
    std::function<double()> clock_;
    std::map<DevT, Device> devices_;
    std::map<RegionKey, RegionTally> regions_;
    std::map<RegionKey, DepthTally> groups_;
};

}  // namespace iotally
