// SPDX-License-Identifier: GPL-2.0-or-later
// iostat's avg-cpu block from /proc/stat fixtures, computed by hand.
#include <gtest/gtest.h>

#include "iotally/metrics/cpu_stat.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

// user nice system idle iowait irq softirq steal guest guest_nice: 10,000
// ticks (the guest's 300 are inside user's 600).
constexpr std::string_view boot_stat =
    "cpu  600 100 200 8000 500 50 50 500 300 0\n"
    "cpu0 300 50 100 4000 250 25 25 250 150 0\n"
    "cpu1 300 50 100 4000 250 25 25 250 150 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";

TEST(CpuStat, ParsesTheAggregateLine) {
    auto c = parse_proc_stat(boot_stat);
    EXPECT_EQ(c, (CpuTimes{600, 100, 200, 8000, 500, 50, 50, 500, 300, 0}));
    // Old kernels write fewer fields; unknown later ones are ignored.
    EXPECT_EQ(parse_proc_stat("cpu  1 2 3 4\n"), (CpuTimes{1, 2, 3, 4}));
    EXPECT_EQ(parse_proc_stat("cpu  1 2 3 4 5 6 7 8 9 10 11\n").guest_nice, 10u);
}

TEST(CpuStat, RefusesWhatIsNotProcStat) {
    EXPECT_THROW(parse_proc_stat("cpu0 1 2 3 4\n"), Error);  // no aggregate line
    EXPECT_THROW(parse_proc_stat("cpu  1 2 3\n"), Error);
    EXPECT_THROW(parse_proc_stat("cpu  1 2 x 4\n"), Error);
    EXPECT_THROW(read_cpu_times("/nonexistent"), Error);
}

TEST(CpuStat, SinceBoot) {
    auto c = parse_proc_stat(boot_stat);
    auto a = avg_cpu(c, nullptr);
    EXPECT_DOUBLE_EQ(a.user, 6.0);  // guest time included, as the kernel counts it
    EXPECT_DOUBLE_EQ(a.nice, 1.0);
    EXPECT_DOUBLE_EQ(a.system, 3.0);  // system + irq + softirq
    EXPECT_DOUBLE_EQ(a.iowait, 5.0);
    EXPECT_DOUBLE_EQ(a.steal, 5.0);
    EXPECT_DOUBLE_EQ(a.idle, 80.0);
}

TEST(CpuStat, OverAnInterval) {
    auto p = parse_proc_stat(boot_stat);
    // +100 user, +40 system, +10 softirq, +100 idle, +20 iowait, +30 steal: 300 ticks.
    auto c = parse_proc_stat("cpu  700 100 240 8100 520 50 60 530 300 0\n");
    auto a = avg_cpu(c, &p);
    EXPECT_NEAR(a.user, 100.0 / 3, 1e-9);
    EXPECT_DOUBLE_EQ(a.nice, 0.0);
    EXPECT_NEAR(a.system, 50.0 / 3, 1e-9);
    EXPECT_NEAR(a.iowait, 20.0 / 3, 1e-9);
    EXPECT_NEAR(a.steal, 10.0, 1e-9);
    EXPECT_NEAR(a.idle, 100.0 / 3, 1e-9);
}

TEST(CpuStat, ACounterThatWentBackCountsAsZero) {
    auto p = parse_proc_stat(boot_stat);
    // A CPU went offline: idle fell by 10; 100 user ticks passed.
    auto c = parse_proc_stat("cpu  700 100 200 7990 500 50 50 500 300 0\n");
    auto a = avg_cpu(c, &p);
    EXPECT_DOUBLE_EQ(a.user, 100.0);
    EXPECT_DOUBLE_EQ(a.idle, 0.0);
    auto none = avg_cpu(p, &p);  // no tick at all
    EXPECT_DOUBLE_EQ(none.user + none.idle, 0.0);
}

// The layout of sysstat's iostat -c: 7 spaces, then %8.2f per value.
TEST(CpuStat, FormatsAsIostat) {
    AvgCpu a{45.38, 13.5, 13.52, 0.67, 0.07, 26.85};
    EXPECT_EQ(format_avg_cpu(a),
              "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
              "          45.38   13.50   13.52    0.67    0.07   26.85\n");
    AvgCpu full{0, 0, 0, 0, 0, 100};
    EXPECT_EQ(format_avg_cpu(full).substr(56),
              "           0.00    0.00    0.00    0.00    0.00  100.00\n");
}

TEST(CpuStat, ReadsProcRoot) {
    test::TempDir proc;
    proc.write("stat", std::string(boot_stat));
    EXPECT_EQ(read_cpu_times(proc.path()).idle, 8000u);
}

}  // namespace
}  // namespace iotally
