// SPDX-License-Identifier: GPL-2.0-or-later
// DepthSampler: tallies kept by the device's identity (dev_t and names), not
// by a name; regions by (device, region id) and their geometry.
#include <gtest/gtest.h>

#include "depth_threshold.hpp"
#include "fake_dm.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/metrics/depth_sampler.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

BlockDevice disk(const std::string& name, std::uint32_t major, std::uint32_t minor,
                 const std::string& dm_name = "") {
    BlockDevice b;
    b.id.kernel_name = name;
    b.id.major = major;
    b.id.minor = minor;
    b.id.dm_name = dm_name;
    return b;
}

class DepthSamplerTest : public ::testing::Test {
  protected:
    test::TempDir sys;
    test::FakeDm dm;
    double now = 100.0;
    DepthSampler sampler{&dm, {sys.path(), true}, [this] { return now; }};

    void in_flight(const std::string& kernel_name, int n) {
        sys.write("block/" + kernel_name + "/inflight", "0 " + std::to_string(n) + "\n");
    }
    // `n` samples, one every 0.1 s.
    void run(int n) {
        for (int i = 0; i < n; ++i) {
            sampler.sample();
            now += 0.1;
        }
    }
    static std::vector<JoinedDevice> joined(const std::vector<BlockDevice>& blocks,
                                            const Snapshot* snap = nullptr) {
        return join_devices(blocks, snap);
    }
};

TEST_F(DepthSamplerTest, EachDeviceHasItsOwnTally) {
    std::vector<BlockDevice> blocks{disk("sda", 8, 0), disk("nullb0", 250, 0)};
    in_flight("sda", 2);
    in_flight("nullb0", 0);
    sampler.track(joined(blocks));
    run(11);  // 1 s
    const DepthTally* sda = sampler.device(blocks[0].id);
    const DepthTally* nullb = sampler.device(blocks[1].id);
    ASSERT_TRUE(sda && nullb);
    EXPECT_EQ(sda->samples(), 11u);
    EXPECT_NEAR(sda->at_least_s()[test::threshold_index(2)], 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(sda->at_least_s()[test::threshold_index(4)], 0.0);
    EXPECT_DOUBLE_EQ(nullb->at_least_s()[test::threshold_index(1)], 0.0);
    EXPECT_NEAR(nullb->span_s(), 1.0, 1e-9);
}

// "data" at 254:0, then "data" at 254:1 (removed and made again while
// another device took minor 0): the second is another device, whose tally
// starts from nothing; the first's identity finds nothing any more.
TEST_F(DepthSamplerTest, TheSameNameOnAnotherDevice) {
    std::vector<BlockDevice> first{disk("dm-0", 254, 0, "data")};
    in_flight("dm-0", 8);
    sampler.track(joined(first));
    run(5);
    ASSERT_TRUE(sampler.device(first[0].id));
    EXPECT_GT(sampler.device(first[0].id)->at_least_s()[test::threshold_index(8)], 0.0);

    std::vector<BlockDevice> second{disk("dm-0", 254, 0, "scratch"), disk("dm-1", 254, 1, "data")};
    in_flight("dm-1", 1);
    sampler.track(joined(second));
    EXPECT_EQ(sampler.device(first[0].id), nullptr);  // 254:0 is "scratch" now
    const DepthTally* scratch = sampler.device(second[0].id);
    const DepthTally* data = sampler.device(second[1].id);
    ASSERT_TRUE(scratch && data);
    EXPECT_EQ(scratch->samples(), 0u);  // the same dev_t, but another device
    EXPECT_EQ(data->samples(), 0u);
    run(3);
    EXPECT_DOUBLE_EQ(data->at_least_s()[test::threshold_index(8)],
                     0.0);  // nothing of the first "data"
    EXPECT_NEAR(data->at_least_s()[test::threshold_index(1)], 0.2, 1e-9);
}

TEST_F(DepthSamplerTest, ADeviceBackWithANewDevTStartsAnew) {
    std::vector<BlockDevice> before{disk("nullb0", 250, 0)};
    in_flight("nullb0", 4);
    sampler.track(joined(before));
    run(4);
    sampler.track({});  // gone
    EXPECT_EQ(sampler.device(before[0].id), nullptr);
    std::vector<BlockDevice> after{disk("nullb0", 250, 1)};
    sampler.track(joined(after));
    EXPECT_EQ(sampler.device(before[0].id), nullptr);
    ASSERT_TRUE(sampler.device(after[0].id));
    EXPECT_EQ(sampler.device(after[0].id)->samples(), 0u);
    // And a device that stays keeps its tally across track().
    run(2);
    sampler.track(joined(after));
    EXPECT_EQ(sampler.device(after[0].id)->samples(), 2u);
}

class DepthSamplerRegions : public DepthSamplerTest {
  protected:
    void SetUp() override {
        dm.add_device("vol", 2000, {"linear"}, "", 3);
        StatsClient vol(dm, "vol");
        CreateRequest two_areas;
        two_areas.step = AreaCount{2};
        vol.create(two_areas);  // region 0
        CreateRequest part;
        part.range = SectorRange{0, 1000};
        vol.create(part);  // region 1
        in_flight("dm-3", 0);
    }
    Snapshot snap() {
        return Snapshotter(dm, [this] { return now; }).take();
    }
    std::vector<BlockDevice> blocks{disk("dm-3", 254, 3, "vol")};
};

TEST_F(DepthSamplerRegions, RegionsAreasAndGroups) {
    StatsClient(dm, "vol").set_aux(0, "DMS_GROUP=both:0-1#-");
    dm.region("vol", 0).areas[1].in_flight = 4;
    dm.region("vol", 1).areas[0].in_flight = 2;
    Snapshot s = snap();
    sampler.track(joined(blocks, &s));
    run(6);
    const DeviceId& id = blocks[0].id;
    ASSERT_TRUE(sampler.region(id, 0) && sampler.region(id, 1));
    EXPECT_NEAR(sampler.region(id, 0)->at_least_s()[test::threshold_index(4)], 0.5, 1e-9);
    EXPECT_DOUBLE_EQ(sampler.area(id, 0, 0)->at_least_s()[test::threshold_index(1)], 0.0);
    EXPECT_NEAR(sampler.area(id, 0, 1)->at_least_s()[test::threshold_index(4)], 0.5, 1e-9);
    EXPECT_EQ(sampler.area(id, 0, 2), nullptr);
    EXPECT_NEAR(sampler.region(id, 1)->at_least_s()[test::threshold_index(2)], 0.5, 1e-9);
    ASSERT_TRUE(sampler.group(id, 0));
    EXPECT_NEAR(sampler.group(id, 0)->at_least_s()[test::threshold_index(4)], 0.5, 1e-9);  // 4 + 2
    EXPECT_DOUBLE_EQ(sampler.group(id, 0)->at_least_s()[test::threshold_index(8)], 0.0);
    // Another device's identity finds none of them.
    DeviceId other = id;
    other.minor = 4;
    EXPECT_EQ(sampler.region(other, 0), nullptr);
}

// A region deleted between two track() calls: its samples stop, nothing
// throws; a region made again with the same id and another geometry is
// another region.
TEST_F(DepthSamplerRegions, RegionsDeletedMeanwhile) {
    dm.region("vol", 1).areas[0].in_flight = 1;
    Snapshot s = snap();
    sampler.track(joined(blocks, &s));
    run(3);
    const DeviceId& id = blocks[0].id;
    ASSERT_EQ(sampler.region(id, 1)->samples(), 3u);
    StatsClient(dm, "vol").remove(1);
    run(3);
    EXPECT_EQ(sampler.region(id, 1)->samples(), 3u);
    EXPECT_EQ(sampler.region(id, 0)->samples(), 6u);
    CreateRequest other;
    other.range = SectorRange{1000, 500};
    StatsClient(dm, "vol").create(other);  // id 1 again
    s = snap();
    sampler.track(joined(blocks, &s));
    ASSERT_TRUE(sampler.region(id, 1));
    EXPECT_EQ(sampler.region(id, 1)->samples(), 0u);
    EXPECT_EQ(sampler.region(id, 0)->samples(), 6u);  // unchanged: kept
    StatsClient(dm, "vol").remove(1);
    s = snap();
    sampler.track(joined(blocks, &s));
    EXPECT_EQ(sampler.region(id, 1), nullptr);
}

// The halves of sample() for a sampler shared with a thread: readings of a
// device no longer tracked when they arrive are dropped.
TEST_F(DepthSamplerTest, ReadingsOfDevicesDroppedMeanwhileAreIgnored) {
    std::vector<BlockDevice> blocks{disk("sda", 8, 0), disk("sdb", 8, 16)};
    in_flight("sda", 1);
    in_flight("sdb", 1);
    sampler.track(joined(blocks));
    auto targets = sampler.targets();
    ASSERT_EQ(targets.size(), 2u);
    EXPECT_EQ(targets[1].disk, "sdb");
    DepthReadings r = sampler.read(targets);
    sampler.track(joined({blocks[0]}));
    sampler.apply(r);
    EXPECT_EQ(sampler.device(blocks[0].id)->samples(), 1u);
    EXPECT_EQ(sampler.device(blocks[1].id), nullptr);
}

TEST_F(DepthSamplerTest, WithoutRegionsNoStatsPrint) {
    DepthSampler devices_only(nullptr, {sys.path(), false}, [this] { return now; });
    dm.add_device("vol", 2000, {"linear"}, "", 3);
    StatsClient(dm, "vol").create({});
    in_flight("dm-3", 1);
    Snapshot s = Snapshotter(dm, [this] { return now; }).take();
    std::vector<BlockDevice> blocks{disk("dm-3", 254, 3, "vol")};
    devices_only.track(join_devices(blocks, &s));
    dm.sent.clear();
    devices_only.sample();
    EXPECT_TRUE(dm.sent.empty());
    EXPECT_EQ(devices_only.region(blocks[0].id, 0), nullptr);
    EXPECT_EQ(devices_only.device(blocks[0].id)->samples(), 1u);
}

}  // namespace
}  // namespace iotally
