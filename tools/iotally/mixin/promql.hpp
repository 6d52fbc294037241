// SPDX-License-Identifier: GPL-2.0-or-later
// PromQL pieces the mixin's rules and panels share: the families that have
// no table of their own, and the queries built from the exporter's tables.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "iotally/block/diskstats.hpp"

namespace iotally::mixin {

// Families written by name in the exporter (src/exporter): ctest
// grafana_dashboard checks that every name the mixin queries is in a
// scrape of the tests' fake devices and cgroups.
inline constexpr const char* region_latency = "iotally_region_io_latency_seconds";
inline constexpr const char* cgroup_wait = "iotally_cgroup_io_wait_seconds";
inline constexpr const char* cgroup_byte_families[] = {"iotally_cgroup_read_bytes",
                                                       "iotally_cgroup_written_bytes"};
// The labels of a region series that a device's sum leaves out.
inline constexpr const char* region_only_labels =
    "region_id, program_id, group_id, group_alias, area, area_start";

// A latency quantile of the regions: from the classic _bucket series, or
// from the native histogram where Prometheus stores the region's histogram
// as one (--histogram native, scraped with native histograms on). A region
// is stored as one or the other, so "or" takes whichever it has.
// `selector` is a label matcher ("{dm_name=~\"$dm_name\"}" or ""); with
// `sum_by` the series are summed by those labels (le added for the classic
// ones), with `sum_without` summed without them, else kept per series.
struct Grouping {
    std::string by, without;
};
std::string region_latency_quantile(double q, const std::string& selector,
                                    const std::string& window, const Grouping& g);

// The row of block_stat_fields that holds this member.
const BlockStatField& block_field(std::uint64_t BlockStat::*member);
// The time fields of /sys/block/*/stat and the count of operations each
// is the total time of (reads, writes, discards, flushes).
std::vector<std::pair<const BlockStatField*, const BlockStatField*>> block_time_per_op();

}  // namespace iotally::mixin
