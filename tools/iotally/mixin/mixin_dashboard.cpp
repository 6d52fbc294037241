// SPDX-License-Identifier: GPL-2.0-or-later
// The Grafana dashboard's panels, from the exporter's tables.
#include <fmt/format.h>

#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/dmstats_counters.hpp"
#include "iotally/exporter/queue_depth.hpp"
#include "mixin.hpp"
#include "promql.hpp"

namespace iotally::mixin {
namespace {

constexpr const char* rate_window = "$__rate_interval";
constexpr const char* region_selector = "{dm_name=~\"$dm_name\"}";
constexpr const char* device_selector = "{device=~\"$device\"}";
constexpr const char* cgroup_selector = "{cgroup=~\"$cgroup\"}";

const CounterField& region_field(std::uint64_t IoCounters::*member) {
    for (const auto& f : dmstats_counters)
        if (f.value == member)
            return f;
    throw std::logic_error("dmstats_counters has no such member");
}

const CounterField& region_in_flight() {
    for (const auto& f : dmstats_counters)
        if (f.unit == CounterUnit::in_flight)
            return f;
    throw std::logic_error("dmstats_counters has no in-flight gauge");
}

std::string rate(std::string_view family, const char* selector) {
    return fmt::format("rate({}_total{}[{}])", family, selector, rate_window);
}

// A family's name without its prefix, for a legend.
std::string without_prefix(std::string_view family, std::string_view prefix) {
    return std::string(family.starts_with(prefix) ? family.substr(prefix.size()) : family);
}

std::string percent(double q) {
    return fmt::format("p{}", static_cast<int>(q * 100 + 0.5));
}

void region_panels(std::vector<Panel>& p) {
    const std::string legend = "{{dm_name}} region {{region_id}}";
    p.push_back({"Regions (dm-stats)", "", {}, true});
    Panel lat{"Latency per region: p50, p90, p99", "s", {}};
    for (double q : {0.5, 0.9, 0.99})
        lat.targets.push_back(
            {region_latency_quantile(q, region_selector, rate_window, {"dm_name, region_id", ""}),
             fmt::format("{} {}", percent(q), legend)});
    p.push_back(std::move(lat));
    const auto& reads = region_field(&IoCounters::reads);
    const auto& writes = region_field(&IoCounters::writes);
    p.push_back({"IOPS per region",
                 "iops",
                 {{rate(reads.family, region_selector), "read " + legend},
                  {rate(writes.family, region_selector), "write " + legend}}});
    p.push_back(
        {"Throughput per region",
         "Bps",
         {{rate(region_field(&IoCounters::read_sectors).family, region_selector), "read " + legend},
          {rate(region_field(&IoCounters::write_sectors).family, region_selector),
           "write " + legend}}});
    p.push_back({"Utilisation per region (time with I/O in flight)",
                 "percentunit",
                 {{rate(region_field(&IoCounters::io_time_ns).family, region_selector), legend}}});
    p.push_back(
        {"Queue depth per region (average and now)",
         "short",
         {{rate(region_field(&IoCounters::weighted_time_ns).family, region_selector),
           "average " + legend},
          {fmt::format("{}{}", region_in_flight().family, region_selector), "now " + legend}}});
    p.push_back(
        {"Time at or above N in flight per region (%qdN, serve --qd-regions)",
         "percentunit",
         {{rate(region_queue_depth_family, region_selector), legend + " at least {{at_least}}"}}});
    const auto& rt = region_field(&IoCounters::read_time_ns);
    const auto& wt = region_field(&IoCounters::write_time_ns);
    p.push_back(
        {"Average latency per I/O per region",
         "s",
         {{fmt::format("({} + {}) / ({} + {})", rate(rt.family, region_selector),
                       rate(wt.family, region_selector), rate(reads.family, region_selector),
                       rate(writes.family, region_selector)),
           legend}}});
}

void device_panels(std::vector<Panel>& p) {
    p.push_back({"Devices (/sys/block)", "", {}, true});
    Panel lat{"Latency per dm device (its regions summed): p50, p90, p99", "s", {}};
    for (double q : {0.5, 0.9, 0.99})
        lat.targets.push_back(
            {region_latency_quantile(q, region_selector, rate_window, {"dm_name", ""}),
             fmt::format("{} {{{{dm_name}}}}", percent(q))});
    p.push_back(std::move(lat));
    // Every counter of the kernel's stat file, by kind.
    Panel ops{"Operations per device", "ops", {}};
    Panel bytes{"Throughput per device", "Bps", {}};
    for (const auto& f : block_stat_fields) {
        const std::string what = without_prefix(f.family, "iotally_device_");
        if (f.unit == BlockStatUnit::count)
            ops.targets.push_back(
                {rate(f.family, device_selector), fmt::format("{{{{device}}}} {}", what)});
        else if (f.unit == BlockStatUnit::sectors)
            bytes.targets.push_back(
                {rate(f.family, device_selector), fmt::format("{{{{device}}}} {}", what)});
    }
    p.push_back(std::move(ops));
    p.push_back(std::move(bytes));
    Panel per_op{"Average time per operation per device", "s", {}};
    for (const auto& [time, count] : block_time_per_op())
        per_op.targets.push_back(
            {fmt::format("{} / {}", rate(time->family, device_selector),
                         rate(count->family, device_selector)),
             fmt::format("{{{{device}}}} {}", without_prefix(count->family, "iotally_device_"))});
    p.push_back(std::move(per_op));
    p.push_back(
        {"Utilisation per device (%util)",
         "percentunit",
         {{rate(block_field(&BlockStat::io_ticks_ms).family, device_selector), "{{device}}"}}});
    p.push_back({"Queue depth per device (aqu-sz and now)",
                 "short",
                 {{rate(block_field(&BlockStat::time_in_queue_ms).family, device_selector),
                   "average {{device}}"},
                  {fmt::format("{}{}", block_field(&BlockStat::in_flight).family, device_selector),
                   "now {{device}}"}}});
    p.push_back(
        {"Time at or above N in flight per device (%qdN)",
         "percentunit",
         {{rate(device_queue_depth_family, device_selector), "{{device}} at least {{at_least}}"}}});
}

void exporter_panels(std::vector<Panel>& p) {
    p.push_back({"Exporter", "", {}, true});
    p.push_back({"Exporter health",
                 "short",
                 {{"rate(iotally_scrape_errors_total[$__rate_interval])", "scrape errors/s"},
                  {"iotally_scrape_duration_seconds", "scrape duration"},
                  {"iotally_scrape_devices", "devices"}}});
    p.push_back({"Sources up (1) or missing (0)", "short", {{"iotally_source_up", "{{source}}"}}});
}

// Last: serve-native runs this row's queries, up to the next row.
void cgroup_panels(std::vector<Panel>& p) {
    p.push_back({"Per cgroup (serve --cgroups)", "", {}, true});
    Panel wait{"I/O wait per cgroup, p50, p90 and p99", "s", {}};
    for (double q : {0.5, 0.9, 0.99})
        wait.targets.push_back(
            {fmt::format("histogram_quantile({}, sum by (cgroup, le) (rate({}_bucket{}[{}])))", q,
                         cgroup_wait, cgroup_selector, rate_window),
             fmt::format("{} {{{{cgroup}}}}", percent(q))});
    p.push_back(std::move(wait));
    Panel bytes{"Bytes per cgroup (taskstats, exited processes included)", "Bps", {}};
    for (const char* f : cgroup_byte_families)
        bytes.targets.push_back(
            {rate(f, cgroup_selector),
             fmt::format("{{{{cgroup}}}} {}", without_prefix(f, "iotally_cgroup_"))});
    p.push_back(std::move(bytes));
    p.push_back(
        {"Bytes per cgroup and device (io.stat)",
         "Bps",
         {{rate("iotally_cgroup_device_read_bytes", cgroup_selector), "{{cgroup}} {{device}} read"},
          {rate("iotally_cgroup_device_written_bytes", cgroup_selector),
           "{{cgroup}} {{device}} written"}}});
    p.push_back({"Exit listener: exits, lost messages",
                 "short",
                 {{"rate(iotally_cgroup_exits_total[$__rate_interval])", "exits/s"},
                  {"increase(iotally_cgroup_exit_messages_lost_total[$__rate_interval])",
                   "exit messages lost"},
                  {"increase(iotally_cgroup_exits_unaccounted_total[$__rate_interval])",
                   "exits unaccounted"}}});
}

}  // namespace

std::vector<Panel> dashboard_panels() {
    std::vector<Panel> p;
    region_panels(p);
    device_panels(p);
    exporter_panels(p);
    cgroup_panels(p);
    return p;
}

}  // namespace iotally::mixin
