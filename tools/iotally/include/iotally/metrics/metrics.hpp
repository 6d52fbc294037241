// SPDX-License-Identifier: GPL-2.0-or-later
// devstat_compute_statistics() for dm-stats counters: DerivedRates, the
// iostat-style values derived from two readings of the counters.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "iotally/dm-stats/counters.hpp"

namespace iotally {

// Every devstat(3) metric. Those dm-stats cannot know (free/TRIM and "other"
// transfers) are always absent, never zero. Per-transfer averages are absent
// when there was no transfer; rates are absent without a positive elapsed time.
struct DerivedRates {
    // Totals over the interval.
    std::uint64_t total_bytes = 0, total_bytes_read = 0, total_bytes_write = 0;
    std::optional<std::uint64_t> total_bytes_free;
    std::uint64_t total_transfers = 0, total_transfers_read = 0, total_transfers_write = 0;
    std::optional<std::uint64_t> total_transfers_other, total_transfers_free;
    std::uint64_t total_blocks = 0, total_blocks_read = 0, total_blocks_write = 0;  // 512 B
    std::optional<std::uint64_t> total_blocks_free;
    // Averages and rates.
    std::optional<double> kb_per_transfer, kb_per_transfer_read, kb_per_transfer_write,
        kb_per_transfer_free;
    std::optional<double> transfers_per_second, transfers_per_second_read,
        transfers_per_second_write, transfers_per_second_other, transfers_per_second_free;
    std::optional<double> mb_per_second, mb_per_second_read, mb_per_second_write,
        mb_per_second_free;
    std::optional<double> blocks_per_second, blocks_per_second_read, blocks_per_second_write,
        blocks_per_second_free;
    std::optional<double> ms_per_transaction, ms_per_transaction_read, ms_per_transaction_write,
        ms_per_transaction_other, ms_per_transaction_free;
    std::optional<double> busy_pct;
    std::uint64_t queue_length = 0;  // in flight when `current` was taken
    // dm-stats extras (iostat's rrqm/s, wrqm/s, aqu-sz and per-direction busy).
    std::uint64_t total_merges_read = 0, total_merges_write = 0;
    std::optional<double> merges_per_second_read, merges_per_second_write;
    std::optional<double> average_queue_size;
    std::optional<double> busy_pct_read, busy_pct_write;
    // Block devices only (dm-stats counts discards as writes and does not
    // count flushes): absent for regions, never zero.
    std::optional<std::uint64_t> total_merges_free, total_flushes;
    std::optional<double> merges_per_second_free, flushes_per_second, ms_per_flush;
    // Percent of the sampled time with at least depth_thresholds[i] I/Os in
    // flight (saturation.hpp): absent unless the in-flight count was sampled.
    std::array<std::optional<double>, 8> depth_pct{};
    // The times came from a jiffies clock (a region without
    // precise_timestamps): they are whole ticks, not measurements.
    bool jiffies_resolution = false;
    // True when a counter went back since `previous` (cleared in between):
    // the totals then count from the clear, over an unknown time.
    bool counters_reset = false;
};

// `previous` null means "since the region was created or cleared";
// `elapsed_s` is the time between the two snapshots (or since creation).
DerivedRates compute_rates(const IoCounters& current, const IoCounters* previous,
                           std::optional<double> elapsed_s);

// The report fields, as data. One name per metric, used as the column
// header, the -o and --sort key, the JSON key and the CSV header; it is
// iostat -x's name where iostat has the quantity (r/s, rkB/s, r_await,
// aqu-sz, %util...) and says its unit where it has none (r_bytes, r_sectors).
struct MetricField {
    std::string_view name;
    std::string_view unit;  // "1/s", "KiB/s", "ms", "%", "KiB", "bytes"...
    std::string_view description;
    std::optional<double> (*get)(const DerivedRates&);
    bool integer = false;     // a count: printed without decimals, an integer in JSON
    bool time_based = false;  // derived from the I/O clock: marked in jiffies regions
};
std::span<const MetricField> metric_fields();
const MetricField* find_metric_field(std::string_view name);
// The names as one comma-separated line (for help and error messages).
std::string metric_field_names();

}  // namespace iotally
