// SPDX-License-Identifier: GPL-2.0-or-later
// Every expected value below is computed by hand in the comment next to it.
#include <gtest/gtest.h>

#include "iotally/metrics/metrics.hpp"

namespace iotally {
namespace {

// previous (ms): reads 100 rmerged 10 rsect 800 rtime 50, writes 40 wmerged 4
//   wsect 320 wtime 80, in-flight 0, io 100, weighted 130, rbusy 60, wbusy 70
// current (ms): reads 300 rmerged 30 rsect 2400 rtime 250, writes 140 wmerged 24
//   wsect 1920 wtime 380, in-flight 3, io 1100, weighted 1630, rbusy 860, wbusy 570
// deltas: reads 200, rmerged 20, rsect 1600, rtime 200 ms, writes 100,
//   wmerged 20, wsect 1600, wtime 300 ms, io 1000 ms, weighted 1500 ms,
//   rbusy 800 ms, wbusy 500 ms; elapsed 2 s.
const IoCounters previous =
    normalize({100, 10, 800, 50, 40, 4, 320, 80, 0, 100, 130, 60, 70}, false);
const IoCounters current =
    normalize({300, 30, 2400, 250, 140, 24, 1920, 380, 3, 1100, 1630, 860, 570}, false);

TEST(Metrics, Totals) {
    DerivedRates s = compute_rates(current, &previous, 2.0);
    EXPECT_EQ(s.total_bytes_read, 819200u);   // 1600 * 512
    EXPECT_EQ(s.total_bytes_write, 819200u);  // 1600 * 512
    EXPECT_EQ(s.total_bytes, 1638400u);       // 819200 * 2
    EXPECT_EQ(s.total_transfers, 300u);       // 200 + 100
    EXPECT_EQ(s.total_transfers_read, 200u);
    EXPECT_EQ(s.total_transfers_write, 100u);
    EXPECT_EQ(s.total_blocks, 3200u);  // 1600 + 1600
    EXPECT_EQ(s.total_blocks_read, 1600u);
    EXPECT_EQ(s.total_blocks_write, 1600u);
    EXPECT_EQ(s.total_merges_read, 20u);
    EXPECT_EQ(s.total_merges_write, 20u);
    EXPECT_FALSE(s.counters_reset);
}

TEST(Metrics, Averages) {
    DerivedRates s = compute_rates(current, &previous, 2.0);
    EXPECT_DOUBLE_EQ(*s.kb_per_transfer, 1600.0 / 300.0);    // 1638400 B = 1600 KiB over 300
    EXPECT_DOUBLE_EQ(*s.kb_per_transfer_read, 4.0);          // 800 KiB / 200
    EXPECT_DOUBLE_EQ(*s.kb_per_transfer_write, 8.0);         // 800 KiB / 100
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction, 500.0 / 300.0);  // (200 + 300) ms / 300
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_read, 1.0);       // 200 ms / 200
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_write, 3.0);      // 300 ms / 100
}

TEST(Metrics, Rates) {
    DerivedRates s = compute_rates(current, &previous, 2.0);
    EXPECT_DOUBLE_EQ(*s.transfers_per_second, 150.0);       // 300 / 2
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_read, 100.0);  // 200 / 2
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_write, 50.0);  // 100 / 2
    EXPECT_DOUBLE_EQ(*s.mb_per_second, 0.78125);            // 1.5625 MiB / 2
    EXPECT_DOUBLE_EQ(*s.mb_per_second_read, 0.390625);      // 0.78125 MiB / 2
    EXPECT_DOUBLE_EQ(*s.mb_per_second_write, 0.390625);
    EXPECT_DOUBLE_EQ(*s.blocks_per_second, 1600.0);  // 3200 / 2
    EXPECT_DOUBLE_EQ(*s.blocks_per_second_read, 800.0);
    EXPECT_DOUBLE_EQ(*s.blocks_per_second_write, 800.0);
    EXPECT_DOUBLE_EQ(*s.busy_pct, 50.0);            // 1000 ms of 2000 ms
    EXPECT_DOUBLE_EQ(*s.busy_pct_read, 40.0);       // 800 / 2000
    EXPECT_DOUBLE_EQ(*s.busy_pct_write, 25.0);      // 500 / 2000
    EXPECT_DOUBLE_EQ(*s.average_queue_size, 0.75);  // 1500 ms / 2000 ms
    EXPECT_EQ(s.queue_length, 3u);
}

TEST(Metrics, MergesPerSecondNotPerNanosecond) {
    // 20 merges in 2 s: 10/s. lvm2 divides by the interval in ns: 1e-8.
    DerivedRates s = compute_rates(current, &previous, 2.0);
    EXPECT_DOUBLE_EQ(*s.merges_per_second_read, 10.0);
    EXPECT_DOUBLE_EQ(*s.merges_per_second_write, 10.0);
}

TEST(Metrics, UnknowableMetricsAreAbsentNotZero) {
    DerivedRates s = compute_rates(current, &previous, 2.0);
    EXPECT_FALSE(s.total_bytes_free);
    EXPECT_FALSE(s.total_transfers_other);
    EXPECT_FALSE(s.total_transfers_free);
    EXPECT_FALSE(s.total_blocks_free);
    EXPECT_FALSE(s.kb_per_transfer_free);
    EXPECT_FALSE(s.transfers_per_second_other);
    EXPECT_FALSE(s.transfers_per_second_free);
    EXPECT_FALSE(s.mb_per_second_free);
    EXPECT_FALSE(s.blocks_per_second_free);
    EXPECT_FALSE(s.ms_per_transaction_other);
    EXPECT_FALSE(s.ms_per_transaction_free);
}

TEST(Metrics, SinceCreationWithoutElapsedHasNoRates) {
    DerivedRates s = compute_rates(current, nullptr, std::nullopt);
    EXPECT_EQ(s.total_transfers_read, 300u);  // the raw counter
    EXPECT_EQ(s.total_bytes_write, 983040u);  // 1920 * 512
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_read, 250.0 / 300.0);
    EXPECT_FALSE(s.transfers_per_second);
    EXPECT_FALSE(s.mb_per_second);
    EXPECT_FALSE(s.busy_pct);
    EXPECT_FALSE(s.merges_per_second_read);
}

TEST(Metrics, SinceCreationWithElapsed) {
    // 300 reads + 140 writes over 4 s: 110 transfers/s.
    DerivedRates s = compute_rates(current, nullptr, 4.0);
    EXPECT_DOUBLE_EQ(*s.transfers_per_second, 110.0);
}

TEST(Metrics, NoTransfersMeansNoPerTransferAverages) {
    DerivedRates s = compute_rates(previous, &previous, 1.0);
    EXPECT_EQ(s.total_transfers, 0u);
    EXPECT_FALSE(s.kb_per_transfer);
    EXPECT_FALSE(s.ms_per_transaction_read);
    EXPECT_DOUBLE_EQ(*s.transfers_per_second, 0.0);  // a real zero rate
    EXPECT_DOUBLE_EQ(*s.busy_pct, 0.0);
}

TEST(Metrics, ClearedInBetweenCountsFromTheClear) {
    // current went below previous: cleared. 100 reads since, over 2 s: 50/s.
    IoCounters after_clear = normalize({100, 0, 800, 10, 0, 0, 0, 0, 0, 10, 10, 10, 0}, false);
    DerivedRates s = compute_rates(after_clear, &current, 2.0);
    EXPECT_TRUE(s.counters_reset);
    EXPECT_EQ(s.total_transfers_read, 100u);
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_read, 50.0);
}

TEST(Metrics, PreciseTimestamps) {
    // 3 reads taking 1,500,000 ns in all: 0.5 ms per read.
    IoCounters c =
        normalize({3, 0, 24, 1'500'000, 0, 0, 0, 0, 0, 1'500'000, 1'500'000, 0, 0}, true);
    DerivedRates s = compute_rates(c, nullptr, std::nullopt);
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_read, 0.5);
}

TEST(Metrics, BusyIsAtMostHundredPercent) {
    // Areas of a region are busy at the same time: 3000 ms of busy in 2 s.
    IoCounters c = normalize({1, 0, 8, 1, 0, 0, 0, 0, 0, 3000, 3000, 0, 0}, false);
    DerivedRates s = compute_rates(c, nullptr, 2.0);
    EXPECT_DOUBLE_EQ(*s.busy_pct, 100.0);
}

TEST(Metrics, FieldTable) {
    DerivedRates s = compute_rates(current, &previous, 2.0);
    ASSERT_NE(find_metric_field("rrqm/s"), nullptr);
    EXPECT_DOUBLE_EQ(*find_metric_field("rrqm/s")->get(s), 10.0);
    EXPECT_DOUBLE_EQ(*find_metric_field("r/s")->get(s), 100.0);
    EXPECT_DOUBLE_EQ(*find_metric_field("rkB/s")->get(s), 400.0);  // 800 KiB / 2 s
    EXPECT_DOUBLE_EQ(*find_metric_field("%rrqm")->get(s), 100.0 * 10 / 110);
    EXPECT_DOUBLE_EQ(*find_metric_field("%util")->get(s), 50.0);
    EXPECT_DOUBLE_EQ(*find_metric_field("aqu-sz")->get(s), 0.75);  // 1500 ms / 2000 ms
    // dm-stats counts discards as writes and has no flushes: absent, not 0.
    EXPECT_FALSE(find_metric_field("d/s")->get(s));
    EXPECT_FALSE(find_metric_field("f_await")->get(s));
    // Each metric has one name and says its unit.
    EXPECT_EQ(find_metric_field("r_await")->unit, "ms");
    EXPECT_EQ(find_metric_field("rareq-sz")->unit, "KiB");
    EXPECT_EQ(find_metric_field("r_tps"), nullptr);
    EXPECT_EQ(find_metric_field("nope"), nullptr);
    for (const auto& f : metric_fields())
        EXPECT_EQ(find_metric_field(f.name), &f) << f.name;  // names are unique
}

}  // namespace
}  // namespace iotally
