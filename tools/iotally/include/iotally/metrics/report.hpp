// SPDX-License-Identifier: GPL-2.0-or-later
// DerivedRates per device, group, region or area from two snapshots.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/histogram.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/metrics/device_join.hpp"
#include "iotally/metrics/metrics.hpp"

namespace iotally {

enum class ReportLevel { device, group, region, area };
ReportLevel parse_report_level(std::string_view text);  // throws Error(usage)
std::string_view to_string(ReportLevel level);

struct ReportRow {
    // The block device the row is of, as join_devices() joined it: its
    // kernel name, dev_t, and dm name where it is a dm device. Writers pick
    // the names they show from it; a row carries no name of its own.
    DeviceId id;
    ReportLevel level = ReportLevel::region;
    std::optional<std::uint64_t> group;  // group id (also set for a grouped region)
    std::string group_alias;
    std::optional<std::uint64_t> region;
    std::optional<std::uint64_t> area;
    std::uint64_t start = 0;   // sector
    std::uint64_t length = 0;  // sectors (a device/group row spans its regions)
    std::string program_id;
    DerivedRates stats;
    // The time the rates are over: between the two snapshots of the device,
    // as measured (absent without a previous snapshot).
    std::optional<double> elapsed_s;
    Histogram histogram;  // delta; empty bounds without a histogram
    // Appeared since the previous snapshot: counted from zero, which is exact
    // because all of its I/O happened after that snapshot.
    bool is_new = false;
    std::vector<std::uint64_t> area_bytes;  // per-area bytes (regions only): the heat strip
};

// The rows of each device's regions (`current`'s devices that have a
// snapshot, JoinedDevice::dm), in the order of `current`, each with the
// device's joined identity. `previous` null: totals since creation or clear,
// rates absent. Regions that vanished are left out; regions that appeared
// count from zero. Rows of regions, groups or areas only: at
// ReportLevel::device there are none, because a device's rates are its
// own counters (device_row()), never a sum of regions that may overlap or
// leave parts out.
std::vector<ReportRow> build_report(std::span<const JoinedDevice> current, const Snapshot* previous,
                                    ReportLevel level);

// Every block device at one moment.
struct DiskSample {
    double taken_s = 0;  // CLOCK_MONOTONIC
    std::vector<BlockDevice> devices;
    // The same device in this sample: same kernel name and dev_t.
    const BlockDevice* find(const DeviceId& id) const;
};

// The row of one block device from its kernel counters, as iostat -x: a
// joined device with a /sys/block entry (JoinedDevice::block). `previous`
// null: since boot, with `elapsed_s` the uptime.
ReportRow device_row(const JoinedDevice& current, const BlockDevice* previous,
                     std::optional<double> elapsed_s);

}  // namespace iotally
