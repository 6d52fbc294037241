// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/metrics.hpp"

#include <algorithm>
#include <array>

#include "iotally/util/units.hpp"

namespace iotally {
namespace {

constexpr double sector_bytes = 512.0;

std::optional<double> ratio(double num, double den) {
    if (den <= 0)
        return std::nullopt;
    return num / den;
}

std::optional<double> rate(double amount, std::optional<double> elapsed_s) {
    if (!elapsed_s || *elapsed_s <= 0)
        return std::nullopt;
    return amount / *elapsed_s;
}

std::optional<double> percent_of(double ns, std::optional<double> elapsed_s) {
    auto r = rate(ns, elapsed_s);
    if (!r)
        return std::nullopt;
    // ns per second of wall time -> percent; sums over several areas can
    // exceed the wall time, busy is at most 100 %.
    return std::clamp(*r / 1e9 * 100.0, 0.0, 100.0);
}

std::optional<double> opt(std::uint64_t v) {
    return static_cast<double>(v);
}

}  // namespace

DerivedRates compute_rates(const IoCounters& current, const IoCounters* previous,
                           std::optional<double> elapsed_s) {
    DerivedRates s;
    IoCounters d = current;
    if (previous) {
        if (counters_went_back(current, *previous)) {
            s.counters_reset = true;  // cleared in between: count from the clear
        } else {
            d.reads -= previous->reads;
            d.reads_merged -= previous->reads_merged;
            d.read_sectors -= previous->read_sectors;
            d.read_time_ns -= previous->read_time_ns;
            d.writes -= previous->writes;
            d.writes_merged -= previous->writes_merged;
            d.write_sectors -= previous->write_sectors;
            d.write_time_ns -= previous->write_time_ns;
            d.io_time_ns -= previous->io_time_ns;
            d.weighted_time_ns -= previous->weighted_time_ns;
            d.read_busy_ns -= previous->read_busy_ns;
            d.write_busy_ns -= previous->write_busy_ns;
        }
    }

    s.total_bytes_read = d.read_sectors * 512;
    s.total_bytes_write = d.write_sectors * 512;
    s.total_bytes = s.total_bytes_read + s.total_bytes_write;
    s.total_transfers_read = d.reads;
    s.total_transfers_write = d.writes;
    s.total_transfers = d.reads + d.writes;
    s.total_blocks_read = d.read_sectors;
    s.total_blocks_write = d.write_sectors;
    s.total_blocks = d.read_sectors + d.write_sectors;
    s.total_merges_read = d.reads_merged;
    s.total_merges_write = d.writes_merged;

    const auto kb = [](std::uint64_t sectors) {
        return static_cast<double>(sectors) * sector_bytes / 1024.0;
    };
    const auto mb = [](std::uint64_t sectors) {
        return static_cast<double>(sectors) * sector_bytes / 1048576.0;
    };
    const auto n = [](std::uint64_t v) { return static_cast<double>(v); };

    s.kb_per_transfer = ratio(kb(d.read_sectors + d.write_sectors), n(s.total_transfers));
    s.kb_per_transfer_read = ratio(kb(d.read_sectors), n(d.reads));
    s.kb_per_transfer_write = ratio(kb(d.write_sectors), n(d.writes));

    s.transfers_per_second = rate(n(s.total_transfers), elapsed_s);
    s.transfers_per_second_read = rate(n(d.reads), elapsed_s);
    s.transfers_per_second_write = rate(n(d.writes), elapsed_s);

    s.mb_per_second = rate(mb(d.read_sectors + d.write_sectors), elapsed_s);
    s.mb_per_second_read = rate(mb(d.read_sectors), elapsed_s);
    s.mb_per_second_write = rate(mb(d.write_sectors), elapsed_s);

    s.blocks_per_second = rate(n(s.total_blocks), elapsed_s);
    s.blocks_per_second_read = rate(n(d.read_sectors), elapsed_s);
    s.blocks_per_second_write = rate(n(d.write_sectors), elapsed_s);

    s.ms_per_transaction =
        ratio(ns_to_ms(n(d.read_time_ns + d.write_time_ns)), n(s.total_transfers));
    s.ms_per_transaction_read = ratio(ns_to_ms(n(d.read_time_ns)), n(d.reads));
    s.ms_per_transaction_write = ratio(ns_to_ms(n(d.write_time_ns)), n(d.writes));

    s.busy_pct = percent_of(n(d.io_time_ns), elapsed_s);
    s.busy_pct_read = percent_of(n(d.read_busy_ns), elapsed_s);
    s.busy_pct_write = percent_of(n(d.write_busy_ns), elapsed_s);
    s.queue_length = current.in_flight > 0 ? static_cast<std::uint64_t>(current.in_flight) : 0;

    // Merges per *second*: lvm2 divides by the interval in nanoseconds.
    s.merges_per_second_read = rate(n(d.reads_merged), elapsed_s);
    s.merges_per_second_write = rate(n(d.writes_merged), elapsed_s);
    if (auto r = rate(n(d.weighted_time_ns), elapsed_s))
        s.average_queue_size = *r / 1e9;
    return s;
}

namespace {

#define FIELD(name, unit, desc, expr)                                                         \
    MetricField {                                                                             \
        name, unit, desc, [](const DerivedRates& s) -> std::optional<double> { return expr; } \
    }
#define TIMED(name, unit, desc, expr)                                                          \
    MetricField {                                                                              \
        name, unit, desc, [](const DerivedRates& s) -> std::optional<double> { return expr; }, \
            false, true                                                                        \
    }
#define COUNT(name, unit, desc, expr)                                                          \
    MetricField {                                                                              \
        name, unit, desc, [](const DerivedRates& s) -> std::optional<double> { return expr; }, \
            true                                                                               \
    }

std::optional<double> opt_u(const std::optional<std::uint64_t>& v) {
    return v ? opt(*v) : std::nullopt;
}
std::optional<double> kib_s(std::optional<double> mib_s) {
    return mib_s ? std::optional(*mib_s * 1024.0) : std::nullopt;
}
std::optional<double> pct_merged(std::optional<double> merged, std::optional<double> done) {
    if (!merged || !done || *merged + *done <= 0)
        return std::nullopt;
    return *merged / (*merged + *done) * 100.0;
}

// iostat -x's columns first, in its order; then the totals and the rest.
constexpr auto fields = std::to_array<MetricField>({
    FIELD("r/s", "1/s", "reads completed per second", s.transfers_per_second_read),
    FIELD("rkB/s", "KiB/s", "KiB read per second", kib_s(s.mb_per_second_read)),
    FIELD("rrqm/s", "1/s", "reads merged per second", s.merges_per_second_read),
    FIELD("%rrqm", "%", "percent of reads merged",
          pct_merged(s.merges_per_second_read, s.transfers_per_second_read)),
    TIMED("r_await", "ms", "average read latency", s.ms_per_transaction_read),
    FIELD("rareq-sz", "KiB", "average read size", s.kb_per_transfer_read),
    FIELD("w/s", "1/s", "writes completed per second", s.transfers_per_second_write),
    FIELD("wkB/s", "KiB/s", "KiB written per second", kib_s(s.mb_per_second_write)),
    FIELD("wrqm/s", "1/s", "writes merged per second", s.merges_per_second_write),
    FIELD("%wrqm", "%", "percent of writes merged",
          pct_merged(s.merges_per_second_write, s.transfers_per_second_write)),
    TIMED("w_await", "ms", "average write latency", s.ms_per_transaction_write),
    FIELD("wareq-sz", "KiB", "average write size", s.kb_per_transfer_write),
    FIELD("d/s", "1/s", "discards completed per second (devices only)",
          s.transfers_per_second_free),
    FIELD("dkB/s", "KiB/s", "KiB discarded per second (devices only)", kib_s(s.mb_per_second_free)),
    FIELD("drqm/s", "1/s", "discards merged per second (devices only)", s.merges_per_second_free),
    FIELD("%drqm", "%", "percent of discards merged (devices only)",
          pct_merged(s.merges_per_second_free, s.transfers_per_second_free)),
    TIMED("d_await", "ms", "average discard latency (devices only)", s.ms_per_transaction_free),
    FIELD("dareq-sz", "KiB", "average discard size (devices only)", s.kb_per_transfer_free),
    FIELD("f/s", "1/s", "flushes completed per second (devices only)", s.flushes_per_second),
    TIMED("f_await", "ms", "average flush latency (devices only)", s.ms_per_flush),
    TIMED("aqu-sz", "requests", "average number of I/Os in flight", s.average_queue_size),
    TIMED("%util", "%", "percent of time with I/O in flight", s.busy_pct),
    TIMED("%r_util", "%", "percent of time with reads in flight (regions only)", s.busy_pct_read),
    TIMED("%w_util", "%", "percent of time with writes in flight (regions only)", s.busy_pct_write),
    FIELD("%qd1", "%", "percent of sampled time with 1 or more I/Os in flight", s.depth_pct[0]),
    FIELD("%qd2", "%", "percent of sampled time with 2 or more I/Os in flight", s.depth_pct[1]),
    FIELD("%qd4", "%", "percent of sampled time with 4 or more I/Os in flight", s.depth_pct[2]),
    FIELD("%qd8", "%", "percent of sampled time with 8 or more I/Os in flight", s.depth_pct[3]),
    FIELD("%qd16", "%", "percent of sampled time with 16 or more I/Os in flight", s.depth_pct[4]),
    FIELD("%qd32", "%", "percent of sampled time with 32 or more I/Os in flight", s.depth_pct[5]),
    FIELD("%qd64", "%", "percent of sampled time with 64 or more I/Os in flight", s.depth_pct[6]),
    FIELD("%qd128", "%", "percent of sampled time with 128 or more I/Os in flight", s.depth_pct[7]),
    FIELD("tps", "1/s", "reads and writes completed per second", s.transfers_per_second),
    FIELD("kB/s", "KiB/s", "KiB read and written per second", kib_s(s.mb_per_second)),
    FIELD("MB/s", "MiB/s", "MiB read and written per second", s.mb_per_second),
    FIELD("rMB/s", "MiB/s", "MiB read per second", s.mb_per_second_read),
    FIELD("wMB/s", "MiB/s", "MiB written per second", s.mb_per_second_write),
    FIELD("dMB/s", "MiB/s", "MiB discarded per second (devices only)", s.mb_per_second_free),
    FIELD("rsec/s", "sectors/s", "512-byte sectors read per second", s.blocks_per_second_read),
    FIELD("wsec/s", "sectors/s", "512-byte sectors written per second", s.blocks_per_second_write),
    TIMED("await", "ms", "average read and write latency", s.ms_per_transaction),
    FIELD("areq-sz", "KiB", "average read and write size", s.kb_per_transfer),
    COUNT("in_flight", "requests", "I/Os in flight when the sample was taken", opt(s.queue_length)),
    COUNT("ios", "requests", "reads and writes completed", opt(s.total_transfers)),
    COUNT("r_ios", "requests", "reads completed", opt(s.total_transfers_read)),
    COUNT("w_ios", "requests", "writes completed", opt(s.total_transfers_write)),
    COUNT("d_ios", "requests", "discards completed (devices only)", opt_u(s.total_transfers_free)),
    COUNT("f_ios", "requests", "flushes completed (devices only)", opt_u(s.total_flushes)),
    COUNT("r_merges", "requests", "reads merged", opt(s.total_merges_read)),
    COUNT("w_merges", "requests", "writes merged", opt(s.total_merges_write)),
    COUNT("d_merges", "requests", "discards merged (devices only)", opt_u(s.total_merges_free)),
    COUNT("bytes", "bytes", "bytes read and written", opt(s.total_bytes)),
    COUNT("r_bytes", "bytes", "bytes read", opt(s.total_bytes_read)),
    COUNT("w_bytes", "bytes", "bytes written", opt(s.total_bytes_write)),
    COUNT("d_bytes", "bytes", "bytes discarded (devices only)", opt_u(s.total_bytes_free)),
    COUNT("sectors", "sectors", "512-byte sectors read and written", opt(s.total_blocks)),
    COUNT("r_sectors", "sectors", "512-byte sectors read", opt(s.total_blocks_read)),
    COUNT("w_sectors", "sectors", "512-byte sectors written", opt(s.total_blocks_write)),
});

#undef FIELD
#undef COUNT
#undef TIMED

}  // namespace

std::span<const MetricField> metric_fields() {
    return fields;
}

const MetricField* find_metric_field(std::string_view name) {
    for (const auto& f : fields)
        if (f.name == name)
            return &f;
    return nullptr;
}

std::string metric_field_names() {
    std::string out;
    for (const auto& f : fields) {
        if (!out.empty())
            out += ',';
        out += f.name;
    }
    return out;
}

}  // namespace iotally
