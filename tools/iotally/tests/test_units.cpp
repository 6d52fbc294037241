// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "error_text.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

namespace iotally {
namespace {

TEST(Units, SectorsFromSizes) {
    EXPECT_EQ(parse_sectors("8"), 8u);  // bare: sectors, as dmsetup
    EXPECT_EQ(parse_sectors("8s"), 8u);
    EXPECT_EQ(parse_sectors("4096b"), 8u);  // 4096 / 512
    EXPECT_EQ(parse_sectors("4k"), 8u);     // 4 * 1024 / 512
    EXPECT_EQ(parse_sectors("4KiB"), 8u);
    EXPECT_EQ(parse_sectors("1m"), 2048u);  // 1048576 / 512
    EXPECT_EQ(parse_sectors("1.5M"), 3072u);
    EXPECT_EQ(parse_sectors("1g"), 2097152u);
    EXPECT_EQ(parse_sectors("2T"), 4294967296u);  // 2 * 2^40 / 512 = 2^32
}

TEST(Units, BadSizesAreUsageErrors) {
    for (const char* bad : {"", "k", "-1", "1x", "1000b", "0.3k", "1..5m", "99999999999999999999",
                            "18014398509481984p", "1.m"}) {
        try {
            parse_sectors(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage) << bad;
        }
    }
}

TEST(Units, Durations) {
    EXPECT_EQ(parse_duration_ns("5"), 5'000'000u);  // bare: ms
    EXPECT_EQ(parse_duration_ns("5ms"), 5'000'000u);
    EXPECT_EQ(parse_duration_ns("250us"), 250'000u);
    EXPECT_EQ(parse_duration_ns("1.5s"), 1'500'000'000u);
    EXPECT_EQ(parse_duration_ns("7ns"), 7u);
    EXPECT_THROW(parse_duration_ns("1.5ns"), Error);
    EXPECT_THROW(parse_duration_ns("5min"), Error);
}

TEST(Units, DurationListsIncrease) {
    EXPECT_EQ(parse_duration_list_ns("1ms,5ms,20ms"),
              (std::vector<std::uint64_t>{1'000'000, 5'000'000, 20'000'000}));
    EXPECT_THROW(parse_duration_list_ns("5ms,1ms"), Error);
    EXPECT_THROW(parse_duration_list_ns("1ms,1ms"), Error);
    EXPECT_THROW(parse_duration_list_ns("0,1ms"), Error);
    EXPECT_THROW(parse_duration_list_ns("1ms,"), Error);
}

std::string duration_list_error(const char* text) {
    return test::error_text([text] { parse_duration_list_ns(text); });
}

TEST(Units, DurationListErrorsNameTheItem) {
    EXPECT_EQ(duration_list_error("1ms,0,5ms"), "histogram boundary '0' must be greater than zero");
    EXPECT_EQ(duration_list_error("5ms,1ms"),
              "histogram boundaries must increase: '1ms' after 5ms");
    EXPECT_EQ(duration_list_error("1ms,2min"),
              "invalid time '2min': unknown unit 'min' (use ns, us, ms, s)");
}

TEST(Units, Formatting) {
    EXPECT_EQ(format_duration_ns(20'000'000), "20ms");
    EXPECT_EQ(format_duration_ns(1'500'000), "1.5ms");
    EXPECT_EQ(format_duration_ns(2'000'000'000), "2s");
    EXPECT_EQ(format_duration_ns(0), "0");
}

TEST(Units, PlainNumbers) {
    EXPECT_EQ(parse_u64("18446744073709551615", "x"), UINT64_MAX);
    EXPECT_THROW(parse_u64("18446744073709551616", "x"), Error);
    EXPECT_THROW(parse_u64("+1", "x"), Error);
    EXPECT_THROW(parse_u64("1 ", "x"), Error);
}

// The one conversion of a dm-stats region's times: ns with
// precise_timestamps, ms (measured in whole jiffies) without.
TEST(Units, RegionTimeUnits) {
    const auto precise = region_time_unit(true);
    EXPECT_EQ(precise.unit, "ns");
    EXPECT_EQ(precise.resolution, "ns");
    const auto coarse = region_time_unit(false);
    EXPECT_EQ(coarse.unit, "ms");
    EXPECT_EQ(coarse.resolution, "jiffies");

    EXPECT_EQ(region_time_to_ns(1'500'000, true), 1'500'000u);
    EXPECT_EQ(region_time_to_ns(12, false), 12'000'000u);
    EXPECT_EQ(region_time_to_ns(UINT64_MAX, true), UINT64_MAX);
    EXPECT_THROW(region_time_to_ns(UINT64_MAX / 1000, false), Error);

    EXPECT_EQ(ns_to_region_time(20'000'000, false), 20u);
    EXPECT_EQ(ns_to_region_time(1'500, true), 1'500u);
    EXPECT_THROW(ns_to_region_time(1'500'000, false), Error);

    EXPECT_EQ(ms_to_ns(7), 7'000'000u);
    EXPECT_DOUBLE_EQ(ns_to_ms(2'500'000.0), 2.5);
}

}  // namespace
}  // namespace iotally
