// SPDX-License-Identifier: GPL-2.0-or-later
// Derived statistics per device, group, region or area from two snapshots.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/histogram.hpp"
#include "iotally/metrics.hpp"
#include "iotally/snapshot.hpp"

namespace iotally {

enum class ReportLevel { device, group, region, area };
ReportLevel parse_report_level(std::string_view text);  // throws Error(usage)
std::string_view to_string(ReportLevel level);

struct ReportRow {
    std::string device;
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
std::vector<ReportRow> build_report(const Snapshot& current, const Snapshot* previous,
                                    ReportLevel level);

}  // namespace iotally
