// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "iotally/counters.hpp"

namespace iotally {
namespace {

TEST(Counters, NormalizeMilliseconds) {
    RawCounters raw{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    IoCounters c = normalize(raw, false);
    EXPECT_EQ(c.reads, 1u);
    EXPECT_EQ(c.read_time_ns, 4'000'000u);  // 4 ms
    EXPECT_EQ(c.write_time_ns, 8'000'000u);
    EXPECT_EQ(c.in_flight, 9);
    EXPECT_EQ(c.io_time_ns, 10'000'000u);
    EXPECT_EQ(c.weighted_time_ns, 11'000'000u);
    EXPECT_EQ(c.read_busy_ns, 12'000'000u);
    EXPECT_EQ(c.write_busy_ns, 13'000'000u);
}

TEST(Counters, NormalizePreciseIsNanoseconds) {
    RawCounters raw{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    IoCounters c = normalize(raw, true);
    EXPECT_EQ(c.read_time_ns, 4u);
    EXPECT_EQ(c.write_busy_ns, 13u);
}

TEST(Counters, SumAndWentBack) {
    IoCounters a = normalize(RawCounters{1, 1, 8, 1, 2, 0, 16, 2, 1, 3, 4, 1, 2}, false);
    IoCounters b = a;
    b += a;
    EXPECT_EQ(b.reads, 2u);
    EXPECT_EQ(b.write_sectors, 32u);
    EXPECT_EQ(b.in_flight, 2);
    EXPECT_FALSE(counters_went_back(b, a));
    EXPECT_TRUE(counters_went_back(a, b));
    IoCounters c = b;
    c.in_flight = 0;  // in flight may go down: it is not cumulative
    EXPECT_FALSE(counters_went_back(c, b));
}

}  // namespace
}  // namespace iotally
