// SPDX-License-Identifier: GPL-2.0-or-later
// The recording rules and alerts of the mixin, from the exporter's tables.
#include <fmt/format.h>

#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/dmstats_counters.hpp"
#include "iotally/exporter/queue_depth.hpp"
#include "mixin.hpp"
#include "promql.hpp"

namespace iotally::mixin {

std::string Alert::expr() const {
    std::string e;
    for (const auto& t : terms) {
        if (!e.empty())
            e += " or ";
        e += fmt::format("{} {}", t.signal, t.cmp);
    }
    return e;
}

namespace {

constexpr const char* window = "5m";
// IotallyDeviceQueueing's depth: the SATA/SAS queue (NCQ's 32), the
// per-LUN default of many HBAs; a device that holds this many is deep in
// its own queue or the block layer's.
constexpr std::uint32_t queueing_depth = 32;
constexpr double quantiles[] = {0.5, 0.9, 0.99};

std::string quantile_name(double q) {
    return fmt::format("p{}", static_cast<int>(q * 100 + 0.5));
}

// The dm-stats region counters a rule is recorded for: throughput, IOPS and
// saturation (utilisation, average queue depth).
constexpr std::uint64_t IoCounters::*region_rates[] = {
    &IoCounters::reads,         &IoCounters::writes,     &IoCounters::read_sectors,
    &IoCounters::write_sectors, &IoCounters::io_time_ns, &IoCounters::weighted_time_ns,
};

}  // namespace

std::vector<RecordingRule> recording_rules() {
    std::vector<RecordingRule> r;
    // Latency quantiles: per region, per device (its regions summed), per
    // cgroup (the I/O wait of its processes).
    for (double q : quantiles)
        r.push_back({fmt::format("region:{}:{}_rate{}", region_latency, quantile_name(q), window),
                     region_latency_quantile(q, "", window, {})});
    for (double q : quantiles)
        r.push_back({fmt::format("device:{}:{}_rate{}", region_latency, quantile_name(q), window),
                     region_latency_quantile(q, "", window, {"", region_only_labels})});
    for (double q : quantiles)
        r.push_back(
            {fmt::format("cgroup:{}:{}_rate{}", cgroup_wait, quantile_name(q), window),
             fmt::format("histogram_quantile({}, rate({}_bucket[{}]))", q, cgroup_wait, window)});
    // Per region: throughput, IOPS, time busy, average queue depth.
    for (const auto& f : dmstats_counters)
        for (auto member : region_rates)
            if (f.value == member)
                r.push_back({fmt::format("region:{}:rate{}", f.family, window),
                             fmt::format("rate({}_total[{}])", f.family, window)});
    // Per device: every counter of /sys/block/*/stat as a rate, and the
    // average time of each kind of operation.
    for (const auto& f : block_stat_fields)
        if (f.unit != BlockStatUnit::in_flight)
            r.push_back({fmt::format("device:{}:rate{}", f.family, window),
                         fmt::format("rate({}_total[{}])", f.family, window)});
    for (const auto& [time, ops] : block_time_per_op())
        r.push_back({fmt::format("device:{}:per_op_rate{}", time->family, window),
                     fmt::format("rate({}_total[{}]) / rate({}_total[{}])", time->family, window,
                                 ops->family, window)});
    // Per device and region: the fraction of time at or above each N in
    // flight (serve --qd-sample; regions with --qd-regions), %qdN/100.
    for (auto [level, family] : {std::pair{"device", device_queue_depth_family},
                                 std::pair{"region", region_queue_depth_family}})
        r.push_back({fmt::format("{}:{}:rate{}", level, family, window),
                     fmt::format("rate({}_total[{}])", family, window)});
    // Per cgroup: bytes read and written, exited processes included.
    for (const char* family : cgroup_byte_families)
        r.push_back({fmt::format("cgroup:{}:rate{}", family, window),
                     fmt::format("rate({}_total[{}])", family, window)});
    return r;
}

std::vector<Alert> alerts() {
    std::vector<Alert> a;
    a.push_back({"IotallyRegionLatencyHigh",
                 {{region_latency_quantile(0.99, "", window, {}), "> 0.05"}},
                 "10m",
                 "warning",
                 "p99 I/O latency of {{ $labels.dm_name }} region {{ $labels.region_id }} is "
                 "{{ $value | humanizeDuration }}",
                 "The 99th percentile of the completion latency of reads and writes in this "
                 "dm-stats region has been above 50 ms for 10 minutes."});
    a.push_back(
        {"IotallyCgroupIoWaitHigh",
         {{fmt::format("histogram_quantile(0.99, rate({}_bucket[{}]))", cgroup_wait, window),
           "> 0.5"}},
         "10m",
         "warning",
         "p99 I/O wait of cgroup {{ $labels.cgroup }} is {{ $value | humanizeDuration }}",
         "The processes of this cgroup have waited more than 0.5 s for block I/O in 1 "
         "wait of 100, for 10 minutes."});
    const BlockStatField& busy = block_field(&BlockStat::io_ticks_ms);
    a.push_back({"IotallyDeviceSaturated",
                 {{fmt::format("rate({}_total[{}])", busy.family, window), "> 0.9"}},
                 "15m",
                 "warning",
                 "{{ $labels.device }} has had I/O in flight {{ $value | humanizePercentage }} of "
                 "the time",
                 "The device has had at least one I/O in flight more than 90 % of the time for 15 "
                 "minutes (%util above 90)."});
    a.push_back({"IotallyDeviceQueueing",
                 {{fmt::format("rate({}_total{{at_least=\"{}\"}}[{}])", device_queue_depth_family,
                               queueing_depth, window),
                   "> 0.5"}},
                 "10m",
                 "warning",
                 fmt::format("{{{{ $labels.device }}}} has had {} or more I/Os in flight "
                             "{{{{ $value | humanizePercentage }}}} of the time",
                             queueing_depth),
                 fmt::format("The device has had at least {} I/Os in flight more than half of the "
                             "time for 10 minutes (%qd{} above 50): its I/Os queue behind each "
                             "other.",
                             queueing_depth, queueing_depth)});
    a.push_back({"IotallySourceDown",
                 {{"iotally_source_up", "== 0"}},
                 "5m",
                 "warning",
                 "iotally on {{ $labels.instance }} cannot read its source {{ $labels.source }}",
                 "The exporter serves without this source (its families are empty); its log says "
                 "why, once."});
    a.push_back({"IotallyScrapeErrors",
                 {{fmt::format("increase(iotally_scrape_errors_total[{}])", "10m"), "> 0"}},
                 "5m",
                 "warning",
                 "iotally on {{ $labels.instance }} leaves devices or sources out of its scrapes",
                 "Some devices or sources could not be read; the exporter logs each one."});
    a.push_back(
        {"IotallyCgroupEventsDropped",
         {{"increase(iotally_cgroup_exit_messages_lost_total[10m])", "> 0"},
          {"increase(iotally_cgroup_exit_overflows_total[10m])", "> 0"},
          {"increase(iotally_cgroup_bpf_dropped_total[10m])", "> 0"}},
         "",
         "warning",
         "iotally on {{ $labels.instance }} lost per-cgroup I/O events",
         "Exit records or BPF events were dropped: the per-cgroup counters miss some I/O."});
    a.push_back({"IotallyCgroupsOverflowed",
                 {{fmt::format("count by (instance, job) ({}_total{{cgroup=\"__overflow__\"}})",
                               cgroup_byte_families[0]),
                   "> 0"}},
                 "",
                 "info",
                 "iotally on {{ $labels.instance }} sums cgroups into __overflow__",
                 "More cgroups did I/O than --cgroup-max gives series of their own."});
    a.push_back({"IotallyExporterDown",
                 {{fmt::format("up{{job=\"{}\"}}", job), "== 0"}},
                 "5m",
                 "critical",
                 "iotally on {{ $labels.instance }} cannot be scraped",
                 "Prometheus has not been able to scrape the exporter for 5 minutes."});
    return a;
}

}  // namespace iotally::mixin
