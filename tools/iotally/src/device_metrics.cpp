// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/device_metrics.hpp"

#include "iotally/units.hpp"
namespace iotally {
namespace {

// The read/write part as dm-stats-shaped counters (times in ns).
IoCounters as_counters(const BlockStat& s) {
    IoCounters c;
    c.reads = s.read_ios;
    c.reads_merged = s.read_merges;
    c.read_sectors = s.read_sectors;
    c.read_time_ns = ms_to_ns(s.read_ticks_ms);
    c.writes = s.write_ios;
    c.writes_merged = s.write_merges;
    c.write_sectors = s.write_sectors;
    c.write_time_ns = ms_to_ns(s.write_ticks_ms);
    c.in_flight = static_cast<std::int64_t>(s.in_flight);
    c.io_time_ns = ms_to_ns(s.io_ticks_ms);
    c.weighted_time_ns = ms_to_ns(s.time_in_queue_ms);
    return c;
}

bool went_back(const BlockStat& c, const BlockStat& p) {
    return c.discard_ios < p.discard_ios || c.discard_merges < p.discard_merges ||
           c.discard_sectors < p.discard_sectors || c.discard_ticks_ms < p.discard_ticks_ms ||
           c.flush_ios < p.flush_ios || c.flush_ticks_ms < p.flush_ticks_ms;
}

std::optional<double> per_second(double v, std::optional<double> elapsed_s) {
    if (!elapsed_s || *elapsed_s <= 0)
        return std::nullopt;
    return v / *elapsed_s;
}

std::optional<double> per(double v, double n) {
    if (n <= 0)
        return std::nullopt;
    return v / n;
}

}  // namespace

Statistics compute_device_statistics(const BlockStat& current, const BlockStat* previous,
                                     std::optional<double> elapsed_s) {
    IoCounters cur = as_counters(current);
    IoCounters prev = previous ? as_counters(*previous) : IoCounters{};
    Statistics s = compute_statistics(cur, previous ? &prev : nullptr, elapsed_s);
    s.busy_pct_read.reset();
    s.busy_pct_write.reset();

    BlockStat d = current;
    if (previous && !s.counters_reset && !went_back(current, *previous)) {
        d.discard_ios -= previous->discard_ios;
        d.discard_merges -= previous->discard_merges;
        d.discard_sectors -= previous->discard_sectors;
        d.discard_ticks_ms -= previous->discard_ticks_ms;
        d.flush_ios -= previous->flush_ios;
        d.flush_ticks_ms -= previous->flush_ticks_ms;
    } else if (previous) {
        s.counters_reset = true;
    }
    const auto n = [](std::uint64_t v) { return static_cast<double>(v); };
    if (current.fields >= 15) {
        s.total_transfers_free = d.discard_ios;
        s.total_merges_free = d.discard_merges;
        s.total_blocks_free = d.discard_sectors;
        s.total_bytes_free = d.discard_sectors * 512;
        s.transfers_per_second_free = per_second(n(d.discard_ios), elapsed_s);
        s.merges_per_second_free = per_second(n(d.discard_merges), elapsed_s);
        s.blocks_per_second_free = per_second(n(d.discard_sectors), elapsed_s);
        s.mb_per_second_free = per_second(n(d.discard_sectors) * 512.0 / 1048576.0, elapsed_s);
        s.kb_per_transfer_free = per(n(d.discard_sectors) / 2.0, n(d.discard_ios));
        s.ms_per_transaction_free = per(n(d.discard_ticks_ms), n(d.discard_ios));
    }
    if (current.fields >= 17) {
        s.total_flushes = d.flush_ios;
        s.flushes_per_second = per_second(n(d.flush_ios), elapsed_s);
        s.ms_per_flush = per(n(d.flush_ticks_ms), n(d.flush_ios));
    }
    return s;
}

}  // namespace iotally
