// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics.hpp"

#include <algorithm>
#include <array>

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

Statistics compute_statistics(const IoCounters& current, const IoCounters* previous,
                              std::optional<double> elapsed_s) {
    Statistics s;
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

    s.ms_per_transaction = ratio(n(d.read_time_ns + d.write_time_ns) / 1e6, n(s.total_transfers));
    s.ms_per_transaction_read = ratio(n(d.read_time_ns) / 1e6, n(d.reads));
    s.ms_per_transaction_write = ratio(n(d.write_time_ns) / 1e6, n(d.writes));

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

#define FIELD(name, header, desc, expr)                                                       \
    MetricField {                                                                             \
        name, header, desc, [](const Statistics& s) -> std::optional<double> { return expr; } \
    }
#define COUNT(name, header, desc, expr)                                                        \
    MetricField {                                                                              \
        name, header, desc, [](const Statistics& s) -> std::optional<double> { return expr; }, \
            true                                                                               \
    }

constexpr auto fields = std::to_array<MetricField>({
    COUNT("bytes", "bytes", "bytes transferred", opt(s.total_bytes)),
    COUNT("r_bytes", "r_bytes", "bytes read", opt(s.total_bytes_read)),
    COUNT("w_bytes", "w_bytes", "bytes written", opt(s.total_bytes_write)),
    COUNT("bytes_free", "f_bytes", "bytes freed (not known to dm-stats)",
          s.total_bytes_free ? opt(*s.total_bytes_free) : std::nullopt),
    COUNT("ios", "ios", "transfers completed", opt(s.total_transfers)),
    COUNT("r_ios", "r_ios", "reads completed", opt(s.total_transfers_read)),
    COUNT("w_ios", "w_ios", "writes completed", opt(s.total_transfers_write)),
    COUNT("ios_other", "o_ios", "other transfers (not known to dm-stats)",
          s.total_transfers_other ? opt(*s.total_transfers_other) : std::nullopt),
    COUNT("ios_free", "f_ios", "free transfers (not known to dm-stats)",
          s.total_transfers_free ? opt(*s.total_transfers_free) : std::nullopt),
    COUNT("blocks", "blocks", "512-byte blocks transferred", opt(s.total_blocks)),
    COUNT("r_blocks", "r_blocks", "512-byte blocks read", opt(s.total_blocks_read)),
    COUNT("w_blocks", "w_blocks", "512-byte blocks written", opt(s.total_blocks_write)),
    COUNT("r_merges", "r_merges", "reads merged", opt(s.total_merges_read)),
    COUNT("w_merges", "w_merges", "writes merged", opt(s.total_merges_write)),
    FIELD("kbpt", "KB/t", "KiB per transfer", s.kb_per_transfer),
    FIELD("r_kbpt", "rKB/t", "KiB per read", s.kb_per_transfer_read),
    FIELD("w_kbpt", "wKB/t", "KiB per write", s.kb_per_transfer_write),
    FIELD("tps", "tps", "transfers per second", s.transfers_per_second),
    FIELD("r_tps", "r/s", "reads per second", s.transfers_per_second_read),
    FIELD("w_tps", "w/s", "writes per second", s.transfers_per_second_write),
    FIELD("mbps", "MB/s", "MiB per second", s.mb_per_second),
    FIELD("r_mbps", "rMB/s", "MiB read per second", s.mb_per_second_read),
    FIELD("w_mbps", "wMB/s", "MiB written per second", s.mb_per_second_write),
    FIELD("blkps", "blk/s", "512-byte blocks per second", s.blocks_per_second),
    FIELD("r_blkps", "rblk/s", "512-byte blocks read per second", s.blocks_per_second_read),
    FIELD("w_blkps", "wblk/s", "512-byte blocks written per second", s.blocks_per_second_write),
    FIELD("rrqm", "rrqm/s", "reads merged per second", s.merges_per_second_read),
    FIELD("wrqm", "wrqm/s", "writes merged per second", s.merges_per_second_write),
    FIELD("ms", "ms/t", "milliseconds per transfer", s.ms_per_transaction),
    FIELD("r_ms", "r_await", "milliseconds per read", s.ms_per_transaction_read),
    FIELD("w_ms", "w_await", "milliseconds per write", s.ms_per_transaction_write),
    FIELD("ms_other", "o_await", "milliseconds per other transfer (not known to dm-stats)",
          s.ms_per_transaction_other),
    FIELD("ms_free", "f_await", "milliseconds per free (not known to dm-stats)",
          s.ms_per_transaction_free),
    FIELD("busy", "%busy", "percent of time with I/O in flight", s.busy_pct),
    FIELD("r_busy", "%rbusy", "percent of time with reads in flight", s.busy_pct_read),
    FIELD("w_busy", "%wbusy", "percent of time with writes in flight", s.busy_pct_write),
    COUNT("queue", "qlen", "I/Os in flight now", opt(s.queue_length)),
    FIELD("aqu_sz", "aqu-sz", "average number of I/Os in flight", s.average_queue_size),
});

#undef FIELD
#undef COUNT

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

}  // namespace iotally
