// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "iotally/dm-stats/histogram.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

// Boundaries 1 ms, 5 ms, 20 ms; counts 10, 5, 4, 1 (20 I/Os).
const Histogram h{{1'000'000, 5'000'000, 20'000'000}, {10, 5, 4, 1}};

TEST(Histogram, Buckets) {
    EXPECT_EQ(h.total(), 20u);
    EXPECT_EQ(h.lower_ns(0), 0u);
    EXPECT_EQ(h.upper_ns(0), 1'000'000u);
    EXPECT_EQ(h.lower_ns(3), 20'000'000u);
    EXPECT_FALSE(h.upper_ns(3));
}

TEST(Histogram, MedianInFirstBucket) {
    // rank ceil(0.5 * 20) = 10 -> bucket 0 (cumulative 10); 0 + 1 ms * 10/10.
    auto e = estimate_percentile(h, 50);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->bucket, 0u);
    EXPECT_DOUBLE_EQ(e->estimate_ns, 1'000'000.0);
    EXPECT_EQ(e->lower_ns, 0u);
    EXPECT_EQ(e->upper_ns, 1'000'000u);
}

TEST(Histogram, InterpolatesInsideTheBucket) {
    // p90: rank 18; cumulative 10, 15, 19 -> bucket 2 with 15 before and 4 in it:
    // 5 ms + 15 ms * (18 - 15) / 4 = 16.25 ms.
    auto e = estimate_percentile(h, 90);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->bucket, 2u);
    EXPECT_DOUBLE_EQ(e->estimate_ns, 16'250'000.0);
    EXPECT_EQ(e->lower_ns, 5'000'000u);
    EXPECT_EQ(e->upper_ns, 20'000'000u);
    // p75: rank 15 -> bucket 1, 10 before, 5 in it: 1 ms + 4 ms * 5/5 = 5 ms.
    EXPECT_DOUBLE_EQ(estimate_percentile(h, 75)->estimate_ns, 5'000'000.0);
}

TEST(Histogram, UnboundedLastBucketGivesALowerBound) {
    // p99: rank ceil(19.8) = 20 -> the last bucket, [20 ms, inf).
    auto e = estimate_percentile(h, 99);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->bucket, 3u);
    EXPECT_DOUBLE_EQ(e->estimate_ns, 20'000'000.0);
    EXPECT_FALSE(e->upper_ns);
}

TEST(Histogram, EmptyAndInvalid) {
    Histogram empty{{1'000'000}, {0, 0}};
    EXPECT_FALSE(estimate_percentile(empty, 50));
    EXPECT_THROW(estimate_percentile(h, 0), Error);
    EXPECT_THROW(estimate_percentile(h, 100.5), Error);
    Histogram bad{{1'000'000}, {1}};
    EXPECT_THROW(estimate_percentile(bad, 50), Error);
}

TEST(Histogram, Delta) {
    Histogram later{h.bounds_ns, {12, 9, 4, 1}};
    EXPECT_EQ(histogram_delta(later, &h).counts, (std::vector<std::uint64_t>{2, 4, 0, 0}));
    Histogram cleared{h.bounds_ns, {1, 0, 0, 0}};
    EXPECT_EQ(histogram_delta(cleared, &h).counts, cleared.counts);
    EXPECT_EQ(histogram_delta(later, nullptr).counts, later.counts);
}

TEST(Histogram, QuantizeRendering) {
    std::string text = render_quantize(h, 40);
    // Bars scale to 40 columns: 10/20 -> 20, 5/20 -> 10, 4/20 -> 8, 1/20 -> 2.
    EXPECT_NE(
        text.find("               0 |" + std::string(20, '@') + std::string(20, ' ') + " 10\n"),
        std::string::npos)
        << text;
    EXPECT_NE(
        text.find("             1ms |" + std::string(10, '@') + std::string(30, ' ') + " 5\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("             5ms |" + std::string(8, '@')), std::string::npos) << text;
    EXPECT_NE(text.find("         >= 20ms |" + std::string(2, '@') + std::string(38, ' ') + " 1\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("p90     16.25ms   in [5ms, 20ms)"), std::string::npos) << text;
    EXPECT_NE(text.find("p99     >= 20ms   in [20ms, inf)"), std::string::npos) << text;
}

}  // namespace
}  // namespace iotally
