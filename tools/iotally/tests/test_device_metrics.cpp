// SPDX-License-Identifier: GPL-2.0-or-later
// Every expected value is computed by hand in the comment next to it, with
// iostat -x's formulas (sysstat rd_stats.c / iostat.c).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "iotally/metrics/device_metrics.hpp"

namespace iotally {
namespace {

// t0 and t1 of one device, 2 s apart. Deltas: reads 200, rmerged 50,
// rsect 1600, rticks 300 ms; writes 100, wmerged 0, wsect 800, wticks 500 ms;
// io_ticks 1500 ms, time_in_queue 2400 ms; discards 10, dmerged 2,
// dsect 2048, dticks 40 ms; flushes 4, fticks 8 ms.
const BlockStat t0 = parse_block_stat("100 10 800 100 50 5 400 100 0 500 600 5 1 1024 10 6 2");
const BlockStat t1 =
    parse_block_stat("300 60 2400 400 150 5 1200 600 3 2000 3000 15 3 3072 50 10 10");

TEST(DeviceMetrics, IostatColumns) {
    DerivedRates s = compute_device_rates(t1, &t0, 2.0);
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_read, 100.0);  // 200 / 2
    EXPECT_DOUBLE_EQ(*s.mb_per_second_read * 1024, 400.0);  // 1600 sect = 800 KiB / 2
    EXPECT_DOUBLE_EQ(*s.merges_per_second_read, 25.0);      // 50 / 2
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_read, 1.5);      // 300 ms / 200
    EXPECT_DOUBLE_EQ(*s.kb_per_transfer_read, 4.0);         // 800 KiB / 200
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_write, 50.0);  // 100 / 2
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_write, 5.0);     // 500 ms / 100
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_free, 5.0);    // 10 / 2
    EXPECT_DOUBLE_EQ(*s.merges_per_second_free, 1.0);       // 2 / 2
    EXPECT_DOUBLE_EQ(*s.kb_per_transfer_free, 102.4);       // 1024 KiB / 10
    EXPECT_DOUBLE_EQ(*s.ms_per_transaction_free, 4.0);      // 40 ms / 10
    EXPECT_DOUBLE_EQ(*s.flushes_per_second, 2.0);           // 4 / 2
    EXPECT_DOUBLE_EQ(*s.ms_per_flush, 2.0);                 // 8 ms / 4
    EXPECT_DOUBLE_EQ(*s.average_queue_size, 1.2);           // 2400 ms / 2000 ms
    EXPECT_DOUBLE_EQ(*s.busy_pct, 75.0);                    // 1500 ms of 2000 ms
    EXPECT_EQ(s.queue_length, 3u);
    EXPECT_FALSE(s.busy_pct_read);  // devices have no per-direction busy time
    EXPECT_FALSE(s.jiffies_resolution);
}

TEST(DeviceMetrics, FieldTableUsesIostatNames) {
    DerivedRates s = compute_device_rates(t1, &t0, 2.0);
    auto get = [&](const char* name) {
        const MetricField* f = find_metric_field(name);
        EXPECT_NE(f, nullptr) << name;
        return f ? f->get(s) : std::nullopt;
    };
    EXPECT_DOUBLE_EQ(*get("r/s"), 100.0);
    EXPECT_DOUBLE_EQ(*get("rkB/s"), 400.0);
    EXPECT_DOUBLE_EQ(*get("%rrqm"), 20.0);               // 25 / (25 + 100)
    EXPECT_DOUBLE_EQ(*get("dkB/s"), 512.0);              // 2048 sect = 1024 KiB / 2
    EXPECT_DOUBLE_EQ(*get("%drqm"), 100.0 * 1.0 / 6.0);  // 1 / (1 + 5)
    EXPECT_DOUBLE_EQ(*get("f_await"), 2.0);
    EXPECT_DOUBLE_EQ(*get("aqu-sz"), 1.2);
    EXPECT_DOUBLE_EQ(*get("%util"), 75.0);
    EXPECT_FALSE(get("%wrqm").value() != 0.0);       // no write merged: 0 of 50
    EXPECT_EQ(find_metric_field("r_tps"), nullptr);  // one vocabulary
}

TEST(DeviceMetrics, SinceBootAndOlderKernels) {
    // The first report of iostat: totals since boot over the uptime.
    DerivedRates s = compute_device_rates(t1, nullptr, 100.0);
    EXPECT_DOUBLE_EQ(*s.transfers_per_second_read, 3.0);  // 300 / 100
    EXPECT_DOUBLE_EQ(*s.busy_pct, 2.0);                   // 2000 ms of 100 s
    // An 11-field kernel counts no discards: absent, not zero.
    BlockStat old = parse_block_stat("1 0 8 1 0 0 0 0 0 1 1");
    DerivedRates o = compute_device_rates(old, nullptr, 1.0);
    EXPECT_FALSE(o.transfers_per_second_free);
    EXPECT_FALSE(o.flushes_per_second);
    EXPECT_DOUBLE_EQ(*o.transfers_per_second_read, 1.0);
}

TEST(DeviceMetrics, CounterWentBack) {
    // The device was removed and re-created under the same name.
    DerivedRates s = compute_device_rates(t0, &t1, 2.0);
    EXPECT_TRUE(s.counters_reset);
}

// Column by column: any cumulative field of the stat line that goes back
// (but in_flight, a gauge) means the counters were reset.
TEST(DeviceMetrics, EveryCumulativeFieldGoingBackIsAReset) {
    auto line = [](std::size_t k, std::uint64_t v) {
        std::string out;
        for (std::size_t i = 0; i < 17; ++i)
            out += fmt::format("{}{}", i ? " " : "", i == k ? v : 100);
        return parse_block_stat(out);
    };
    for (std::size_t k = 0; k < 17; ++k) {
        SCOPED_TRACE(k);
        const BlockStat prev = line(k, 5);
        EXPECT_FALSE(compute_device_rates(line(k, 6), &prev, 1.0).counters_reset);
        EXPECT_EQ(compute_device_rates(line(k, 4), &prev, 1.0).counters_reset, k != 8);
    }
}

}  // namespace
}  // namespace iotally
