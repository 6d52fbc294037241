// SPDX-License-Identifier: GPL-2.0-or-later
// Derived statistics per device, group, region or area from two snapshots.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/diskstats.hpp"
#include "iotally/histogram.hpp"
#include "iotally/metrics.hpp"
#include "iotally/snapshot.hpp"

namespace iotally {

enum class ReportLevel { device, group, region, area };
ReportLevel parse_report_level(std::string_view text);  // throws Error(usage)
std::string_view to_string(ReportLevel level);

struct ReportRow {
    std::string device;  // device-mapper name of a region's device; see device_row()
    // The block device: kernel name and number (set by device_row(), and by
    // the CLI on region rows once it has matched them to their device).
    std::string kernel_name;
    std::uint32_t major = 0, minor = 0;
    std::optional<std::string> dm_name;
    ReportLevel level = ReportLevel::region;
    std::optional<std::uint64_t> group;  // group id (also set for a grouped region)
    std::string group_alias;
    std::optional<std::uint64_t> region;
    std::optional<std::uint64_t> area;
    std::uint64_t start = 0;   // sector
    std::uint64_t length = 0;  // sectors (a device/group row spans its regions)
    std::string program_id;
    Statistics stats;
    // The time the rates are over: between the two snapshots of the device,
    // as measured (absent without a previous snapshot).
    std::optional<double> elapsed_s;
    Histogram histogram;  // delta; empty bounds without a histogram
    // Appeared since the previous snapshot: counted from zero, which is exact
    // because all of its I/O happened after that snapshot.
    bool is_new = false;
    std::vector<std::uint64_t> area_bytes;  // per-area bytes (regions only): the heat strip
};

// `previous` null: totals since creation or clear, rates absent.
// Regions that vanished are left out; regions that appeared count from zero.
// Rows of regions, groups or areas only: at ReportLevel::device there are
// none, because a device's statistics are its own counters (device_row()),
// never a sum of regions that may overlap or leave parts out.
std::vector<ReportRow> build_report(const Snapshot& current, const Snapshot* previous,
                                    ReportLevel level);

// Every block device at one moment.
struct DiskSample {
    double taken_s = 0;  // CLOCK_MONOTONIC
    std::vector<BlockDevice> devices;
    // The same device in this sample: same kernel name and dev_t.
    const BlockDevice* find(const DeviceId& id) const;
};

// The row of one block device from its kernel counters, as iostat -x.
// `previous` null: since boot, with `elapsed_s` the uptime. `device` is the
// kernel name, or the dm name when `dm_names` (iostat -N).
ReportRow device_row(const BlockDevice& current, const BlockDevice* previous,
                     std::optional<double> elapsed_s, bool dm_names);

}  // namespace iotally
