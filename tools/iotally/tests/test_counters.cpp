// SPDX-License-Identifier: GPL-2.0-or-later
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "iotally/dm-stats/counters.hpp"
#include "iotally/dm-stats/message.hpp"

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

RawCounters raw_from(const std::array<std::uint64_t, 13>& v) {
    // The kernel's column order is RawCounters' member order.
    return RawCounters{
        v[0], v[1],  v[2],  v[3], v[4], v[5], v[6], v[7], static_cast<std::int64_t>(v[8]),
        v[9], v[10], v[11], v[12]};
}

// Column by column: a value printed in column k alone is parsed into the
// k-th member, printed back in column k, normalised by its unit, summed,
// and (but in_flight) noticed when it goes back.
TEST(DmStatsCounters, EveryColumnParsedNormalisedSummedAndWatched) {
    ASSERT_EQ(dmstats_counters.size(), 13u);
    const std::array<bool, 13> is_time{false, false, false, true, false, false, false,
                                       true,  false, true,  true, true,  true};
    for (std::size_t k = 0; k < 13; ++k) {
        std::array<std::uint64_t, 13> v{};
        v[k] = 7;
        const std::string line = fmt::format("8+8 {}", fmt::join(v, " "));
        SCOPED_TRACE(line);
        const PrintLine p = parse_print_line(line);
        EXPECT_EQ(p.counters, raw_from(v));
        EXPECT_EQ(format_print_line(p), line);

        const IoCounters c = normalize(p.counters, false);
        IoCounters twice = c;
        twice += c;
        const IoCounters zero{};
        if (k == 8) {  // in_flight: a gauge
            EXPECT_EQ(c.in_flight, 7);
            EXPECT_EQ(twice.in_flight, 14);
            EXPECT_FALSE(counters_went_back(zero, c));
            continue;
        }
        EXPECT_TRUE(counters_went_back(zero, c));
        EXPECT_FALSE(counters_went_back(c, zero));
        // Exactly one member holds the value, scaled to ns if a time.
        const std::uint64_t want = is_time[k] ? 7'000'000 : 7;
        const std::array<std::uint64_t, 12> members{
            c.reads,      c.reads_merged,     c.read_sectors,  c.read_time_ns,
            c.writes,     c.writes_merged,    c.write_sectors, c.write_time_ns,
            c.io_time_ns, c.weighted_time_ns, c.read_busy_ns,  c.write_busy_ns};
        const std::size_t m = k < 8 ? k : k - 1;
        for (std::size_t i = 0; i < members.size(); ++i)
            EXPECT_EQ(members[i], i == m ? want : 0u) << "member " << i;
        EXPECT_EQ(twice.*dmstats_counters[k].value, 2 * want);
    }
}

}  // namespace
}  // namespace iotally
