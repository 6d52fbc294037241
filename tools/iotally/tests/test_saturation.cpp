// SPDX-License-Identifier: GPL-2.0-or-later
// The fraction of time at or above N in flight, on hand-computed sequences.
#include <gtest/gtest.h>

#include "depth_threshold.hpp"
#include "iotally/block/saturation.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

TEST(DepthTally, TheThresholdsAreThoseTheFieldsName) {
    EXPECT_EQ(depth_thresholds, (std::array<std::uint32_t, 8>{1, 2, 4, 8, 16, 32, 64, 128}));
}

TEST(DepthTally, NothingBeforeTwoSamples) {
    DepthTally t;
    EXPECT_FALSE(t.fractions());
    t.sample(5.0, 3);
    EXPECT_FALSE(t.fractions());  // one instant spans no time
    t.sample(5.0, 3);
    EXPECT_FALSE(t.fractions());
}

// 0 for 1 s, 2 for 2 s, 5 for 1 s: 4 s in all.
TEST(DepthTally, EachSampleHoldsUntilTheNext) {
    DepthTally t;
    t.sample(10.0, 0);
    t.sample(11.0, 2);
    t.sample(13.0, 5);
    t.sample(14.0, 0);  // the last sample only closes the span
    auto f = t.fractions();
    ASSERT_TRUE(f);
    EXPECT_EQ(t.samples(), 4u);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(1)], 0.75);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(2)], 0.75);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(4)], 0.25);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(8)], 0.0);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(128)], 0.0);
}

// Samples taken irregularly weigh by the time they stand for.
TEST(DepthTally, UnevenSamplesWeighByTime) {
    DepthTally t;
    t.sample(0.0, 16);
    t.sample(0.1, 0);
    t.sample(1.0, 16);
    auto f = t.fractions();
    ASSERT_TRUE(f);
    EXPECT_NEAR((*f)[test::threshold_index(16)], 0.1, 1e-12);
    EXPECT_NEAR((*f)[test::threshold_index(32)], 0.0, 1e-12);
}

// QD1 and QD32 are both 100 % busy; only the depths tell them apart.
TEST(DepthTally, QueueDepthOneAndThirtyTwo) {
    DepthTally qd1, qd32;
    for (int i = 0; i <= 100; ++i) {
        qd1.sample(i * 0.01, 1);
        qd32.sample(i * 0.01, i % 10 == 0 ? 31 : 32);  // one sample in ten while refilling
    }
    auto f1 = qd1.fractions(), f32 = qd32.fractions();
    ASSERT_TRUE(f1 && f32);
    EXPECT_DOUBLE_EQ((*f1)[test::threshold_index(1)], 1.0);
    EXPECT_DOUBLE_EQ((*f1)[test::threshold_index(2)], 0.0);
    EXPECT_DOUBLE_EQ((*f32)[test::threshold_index(1)], 1.0);
    EXPECT_NEAR((*f32)[test::threshold_index(16)], 1.0, 1e-12);
    EXPECT_NEAR((*f32)[test::threshold_index(32)], 0.9, 1e-12);  // 90 of the 100 spans
    EXPECT_DOUBLE_EQ((*f32)[test::threshold_index(64)], 0.0);
}

// Intervals tile: the last count of one holds into the next.
TEST(DepthTally, RestartCarriesTheLastCount) {
    DepthTally t;
    t.sample(0.0, 32);
    t.sample(1.0, 32);
    t.restart();
    EXPECT_FALSE(t.fractions());
    EXPECT_EQ(t.samples(), 1u);
    t.sample(1.5, 0);  // 32 held from 1.0 to 1.5
    t.sample(2.0, 0);
    auto f = t.fractions();
    ASSERT_TRUE(f);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(32)], 0.5);
}

TEST(DepthTally, BadSamplesAreDropped) {
    DepthTally t;
    t.sample(1.0, 4);
    t.sample(0.5, 0);   // time went back
    t.sample(2.0, -1);  // a count caught mid-update
    t.sample(3.0, 0);
    auto f = t.fractions();
    ASSERT_TRUE(f);
    EXPECT_EQ(t.samples(), 2u);
    EXPECT_DOUBLE_EQ((*f)[test::threshold_index(4)], 1.0);  // 4 held from 1.0 to 3.0
}

TEST(Inflight, ReadsAndWritesSum) {
    EXPECT_EQ(parse_inflight("       3        5\n"), 8);
    EXPECT_EQ(parse_inflight("0 0"), 0);
    EXPECT_THROW(parse_inflight("3\n"), Error);
    EXPECT_THROW(parse_inflight("3 4 5\n"), Error);
    EXPECT_THROW(parse_inflight("3 x\n"), Error);
    EXPECT_THROW(parse_inflight("-3 4\n"), Error);
}

TEST(Inflight, DiskAndPartitionFiles) {
    test::TempDir sys;
    sys.write("block/sda/inflight", "       1        2\n");
    sys.write("block/sda/sda1/inflight", "       0       16\n");
    EXPECT_EQ(read_block_inflight(sys.path(), "sda"), 3);
    EXPECT_EQ(read_block_inflight(sys.path(), "sda", "sda1"), 16);
    EXPECT_EQ(read_block_inflight(sys.path(), "sdb"), std::nullopt);  // gone
    sys.write("block/sdc/inflight", "busy\n");
    try {
        read_block_inflight(sys.path(), "sdc");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::parse);
        EXPECT_NE(std::string(e.what()).find("block/sdc/inflight"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace iotally
