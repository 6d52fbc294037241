// SPDX-License-Identifier: GPL-2.0-or-later
//
// The differential fuzz's transcript check (tests/selftests/helpers), which judges
// the stock engine as well as ours: a mistake here fails make check on a
// transcript that both kernels agree on.
#include <gtest/gtest.h>

#include <sstream>

#include "../../../tests/selftests/helpers/dm_fuzz_transcript.hpp"

namespace iotally_test::fuzz {
namespace {

TEST(FuzzTranscript, RegionIdsAreReadAsTheKernelReadsThem) {
    EXPECT_EQ(kernel_region_id("0"), 0);
    EXPECT_EQ(kernel_region_id("7"), 7);
    EXPECT_EQ(kernel_region_id("-0"), 0);
    EXPECT_EQ(kernel_region_id("2147483647"), 2147483647);
    // simple_strtoull() wraps past 2^64 and "%d" keeps the low 32 bits.
    EXPECT_EQ(kernel_region_id("18446744073709551616"), 0);
    EXPECT_EQ(kernel_region_id("18446744073709551619"), 3);
    EXPECT_EQ(kernel_region_id("4294967296"), 0);
    EXPECT_EQ(kernel_region_id("4294967297"), 1);
    for (const char* refused : {"", "-", "-1", "2147483648", "4294967295", "1x", "0x1", "abc"})
        EXPECT_FALSE(kernel_region_id(refused).has_value()) << refused;
}

std::vector<Step> transcript(const std::string& text) {
    std::istringstream in(text);
    return read_transcript(in);
}

// Region 0 keeps ns, region 1 jiffies; at HZ=300 one jiffy prints as 4 ms,
// two as 7, and 5 ms is no count of jiffies.
const std::string created =
    "#1 M fz_linear 4096 @stats_create - /8 precise_timestamps\n"
    "= 0\n"
    "> 0\n"
    "#2 M fz_linear 4096 @stats_create - /8\n"
    "= 0\n"
    "> 1\n";

TEST(FuzzTranscript, APreciseRegionNamedByAWrappedIdIsNotJudgedInMs) {
    const auto t = transcript(created +
                              "#3 M fz_linear 4096 @stats_print_clear 18446744073709551616 0 1\n"
                              "= 0\n"
                              "> 0+8 1 0 8 36118 0 0 0 0 0 36118 36118 36118 0\n");
    EXPECT_EQ(time_fields_check(t, 300), std::nullopt);
}

TEST(FuzzTranscript, AJiffiesRegionNamedByAWrappedIdIsJudged) {
    const std::string print = "#3 M fz_linear 4096 @stats_print 4294967297\n= 0\n";
    EXPECT_EQ(
        time_fields_check(transcript(created + print + "> 0+8 2 0 16 7 0 0 0 0 0 7 7 7 0\n"), 300),
        std::nullopt);
    const auto bad =
        time_fields_check(transcript(created + print + "> 0+8 2 0 16 7 0 0 0 0 0 7 5 7 0\n"), 300);
    ASSERT_TRUE(bad.has_value());
    EXPECT_NE(bad->find("field 12 is 5 ms"), std::string::npos) << *bad;
}

TEST(FuzzTranscript, UpstreamMsRoundsUpAndCarriesEach2To22Jiffies) {
    EXPECT_EQ(upstream_ms(1, 300), 4u);
    EXPECT_EQ(upstream_ms(3, 300), 10u);
    EXPECT_EQ(upstream_ms(1, 1000), 1u);
    // jiffies_to_msecs(2^22) at HZ=300 is ceil(41943040 / 3) = 13981014.
    EXPECT_EQ(upstream_ms((1ULL << 22) + 1, 300), 13981014u + 4u);
    EXPECT_TRUE(is_upstream_ms(13981018, 300));
    EXPECT_FALSE(is_upstream_ms(13981017, 300));
    EXPECT_FALSE(is_upstream_ms(5, 300));
}

}  // namespace
}  // namespace iotally_test::fuzz
