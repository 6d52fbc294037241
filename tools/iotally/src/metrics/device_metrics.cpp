// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/device_metrics.hpp"

#include "iotally/dm-stats/dmstats_counters.hpp"
#include "iotally/util/units.hpp"

namespace iotally {
namespace {

// The first 11 fields of a stat line are dm-stats' 11 first counters, in
// the same order: the read/write part as dm-stats-shaped counters (times in
// ns).
constexpr std::size_t shared_fields = 11;

IoCounters as_counters(const BlockStat& s) {
    IoCounters c;
    for (std::size_t i = 0; i < shared_fields; ++i) {
        const auto& f = block_stat_fields[i];
        const std::uint64_t v = s.*f.member;
        if (f.unit == BlockStatUnit::in_flight)
            c.in_flight = static_cast<std::int64_t>(v);
        else
            c.*dmstats_counters[i].value = f.unit == BlockStatUnit::ms ? ms_to_ns(v) : v;
    }
    return c;
}

// The discard and flush fields (the read/write part is compute_rates()'s).
bool went_back(const BlockStat& c, const BlockStat& p) {
    for (std::size_t i = shared_fields; i < block_stat_fields.size(); ++i)
        if (c.*block_stat_fields[i].member < p.*block_stat_fields[i].member)
            return true;
    return false;
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

DerivedRates compute_device_rates(const BlockStat& current, const BlockStat* previous,
                                  std::optional<double> elapsed_s) {
    IoCounters cur = as_counters(current);
    IoCounters prev = previous ? as_counters(*previous) : IoCounters{};
    DerivedRates s = compute_rates(cur, previous ? &prev : nullptr, elapsed_s);
    s.busy_pct_read.reset();
    s.busy_pct_write.reset();

    BlockStat d = current;
    if (previous && !s.counters_reset && !went_back(current, *previous)) {
        for (std::size_t i = shared_fields; i < block_stat_fields.size(); ++i)
            d.*block_stat_fields[i].member -= previous->*block_stat_fields[i].member;
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
