// SPDX-License-Identifier: GPL-2.0-or-later
// Snapshots of dm statistics: devices, their regions and areas, and the
// dmstats groups, stamped with a generation number that changes whenever a
// device or region appeared or vanished since the previous snapshot.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "iotally/dm-stats/counters.hpp"
#include "iotally/dm-stats/device.hpp"
#include "iotally/dm-stats/message.hpp"

namespace iotally {

double monotonic_seconds();  // CLOCK_MONOTONIC

struct Area {
    std::uint64_t index = 0;
    std::uint64_t start = 0;   // sector
    std::uint64_t length = 0;  // sectors; the last area may be short
    IoCounters counters;
    std::vector<std::uint64_t> histogram;  // counts, empty without histogram
};

struct Region {
    std::uint64_t id = 0;
    std::uint64_t start = 0;
    std::uint64_t length = 0;
    std::uint64_t step = 0;
    std::string program_id;  // "-" if unset
    std::string aux_data;    // as the kernel stores it (tag included)
    std::string user_aux;    // aux_data without a dmstats group tag
    bool precise_timestamps = false;
    std::vector<std::uint64_t> histogram_bounds_ns;
    std::optional<std::uint64_t> group_id;  // dmstats group this region is in
    std::vector<Area> areas;

    std::uint64_t area_count() const;
    IoCounters total() const;
    std::vector<std::uint64_t> histogram_total() const;
    // Identity: same id with the same geometry and histogram is the same
    // region; anything else means it was deleted and another one created.
    bool same_region(const Region& other) const;
};

struct Group {
    std::uint64_t id = 0;  // the lowest member's region id, as in lvm2
    std::string alias;
    std::vector<std::uint64_t> members;
};

struct DeviceSnapshot {
    DeviceId id;
    std::vector<Region> regions;  // sorted by id
    std::vector<Group> groups;
    std::vector<std::string> warnings;  // e.g. a malformed group tag
    double taken_s = 0;                 // CLOCK_MONOTONIC, midpoint of this device's reads

    const Region* find_region(std::uint64_t id) const;
    IoCounters total() const;
};

struct Snapshot {
    std::uint64_t generation = 0;
    double taken_s = 0;  // CLOCK_MONOTONIC, seconds
    std::vector<DeviceSnapshot> devices;
    const DeviceSnapshot* find_device(const std::string& name) const;
};

// A region as its @stats_list entry names it: id, geometry, program_id,
// aux_data and precise_timestamps; no areas and no histogram bounds. Never
// throws: enough to find, group and delete any region the kernel lists.
Region listed_region(const ListEntry& entry);

// Builds a region from its @stats_list entry and @stats_print reply.
// Throws Error(parse) when the two do not describe the same region.
Region make_region(const ListEntry& entry, const std::vector<PrintLine>& lines);

// Resolves dmstats groups from aux_data tags (regions sorted by id); bad tags
// become warnings.
void resolve_groups(DeviceSnapshot& device);

// Takes successive snapshots and numbers their generations.
class Snapshotter {
  public:
    explicit Snapshotter(DeviceLayer& layer, std::function<double()> clock = monotonic_seconds)
        : layer_(layer), clock_(std::move(clock)) {}
    // All devices, or the named ones (Error(no_device) if one is missing).
    // Regions are limited to program_id when it is given. Regions deleted
    // between list and print are left out, not reported as errors.
    Snapshot take(const std::vector<std::string>& devices = {},
                  const std::optional<std::string>& program_id = std::nullopt);
    std::uint64_t generation() const { return generation_; }

  private:
    DeviceLayer& layer_;
    std::function<double()> clock_;
    std::uint64_t generation_ = 0;
    std::vector<std::string> last_identity_;
    bool first_ = true;
};

}  // namespace iotally
