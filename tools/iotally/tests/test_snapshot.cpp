// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <cerrno>

#include "fake_dm.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/metrics/report.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

using test::FakeDm;

struct Clock {
    double now = 100.0;
    std::function<double()> fn() {
        return [this] { return now; };
    }
};

TEST(Snapshot, RegionsAreasAndShortLastArea) {
    FakeDm dm;
    dm.add_device("vol", 1000);
    StatsClient c(dm, "vol");
    CreateRequest r;
    r.range = SectorRange{100, 250};
    r.step = AreaSize{100};  // areas 100+100, 200+100, 300+50
    EXPECT_EQ(c.create(r), 0u);
    dm.region("vol", 0).areas[2] = RawCounters{3, 0, 24, 7, 0, 0, 0, 0, 1, 7, 7, 7, 0};

    Snapshotter s(dm);
    Snapshot snap = s.take();
    ASSERT_EQ(snap.devices.size(), 1u);
    const Region* reg = snap.devices[0].find_region(0);
    ASSERT_NE(reg, nullptr);
    ASSERT_EQ(reg->areas.size(), 3u);
    EXPECT_EQ(reg->areas[2].start, 300u);
    EXPECT_EQ(reg->areas[2].length, 50u);  // the kernel prints 300+100
    EXPECT_EQ(reg->areas[2].counters.read_time_ns, 7'000'000u);
    EXPECT_EQ(reg->total().reads, 3u);
    EXPECT_EQ(reg->program_id, "-");
}

TEST(Snapshot, GenerationChangesOnlyWhenSomethingAppearsOrVanishes) {
    FakeDm dm;
    dm.add_device("a", 100);
    StatsClient c(dm, "a");
    Snapshotter s(dm);
    EXPECT_EQ(s.take().generation, 1u);
    EXPECT_EQ(s.take().generation, 1u);
    c.create(CreateRequest{});
    EXPECT_EQ(s.take().generation, 2u);
    dm.region("a", 0).areas[0].reads = 5;  // counters do not change the generation
    EXPECT_EQ(s.take().generation, 2u);
    dm.add_device("b", 100);
    EXPECT_EQ(s.take().generation, 3u);
    c.remove(0);
    EXPECT_EQ(s.take().generation, 4u);
    c.create(CreateRequest{});  // same id 0 again, same geometry: still a new region?
    // Identity is id + geometry + options: the same description is the same
    // region as far as a snapshot can tell, so the generation moves once.
    EXPECT_EQ(s.take().generation, 5u);
}

TEST(Snapshot, RegionDeletedBetweenListAndPrintIsSkipped) {
    FakeDm dm;
    dm.add_device("vol", 100);
    StatsClient c(dm, "vol");
    c.create(CreateRequest{});
    c.create(CreateRequest{});
    dm.fail = [](const std::string&, const std::string& text) {
        return text == "@stats_print 1" ? ENOENT : 0;
    };
    Snapshotter s(dm);
    auto snap = s.take();
    ASSERT_EQ(snap.devices[0].regions.size(), 1u);
    EXPECT_EQ(snap.devices[0].regions[0].id, 0u);
}

TEST(Snapshot, NamedDeviceMissingIsAnError) {
    FakeDm dm;
    Snapshotter s(dm);
    try {
        s.take({"nope"});
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::no_device);
    }
}

TEST(Snapshot, GroupsFromAuxData) {
    FakeDm dm;
    dm.add_device("vol", 1000);
    StatsClient c(dm, "vol");
    for (int i = 0; i < 4; ++i) {
        CreateRequest r;
        r.range = SectorRange{static_cast<std::uint64_t>(i) * 100, 100};
        r.program_id = "dmstats";
        c.create(r);
    }
    c.set_aux(1, "DMS_GROUP=data:1-2,7#notes");  // 7 does not exist
    c.set_aux(3, "DMS_GROUP=broken");
    Snapshotter s(dm);
    auto snap = s.take();
    const auto& d = snap.devices[0];
    ASSERT_EQ(d.groups.size(), 1u);
    EXPECT_EQ(d.groups[0].id, 1u);
    EXPECT_EQ(d.groups[0].alias, "data");
    EXPECT_EQ(d.groups[0].members, (std::vector<std::uint64_t>{1, 2}));
    EXPECT_EQ(d.find_region(1)->user_aux, "notes");
    EXPECT_EQ(d.find_region(2)->group_id, 1u);
    EXPECT_FALSE(d.find_region(0)->group_id);
    EXPECT_EQ(d.warnings.size(), 2u);  // the missing member and the broken tag
}

TEST(Report, RatesFromTwoSnapshotsAndNewRegions) {
    FakeDm dm;
    dm.add_device("vol", 1000);
    StatsClient c(dm, "vol");
    c.create(CreateRequest{});
    Clock clock;
    Snapshotter s(dm, clock.fn());
    auto first = s.take();
    // 2 s later: 40 more reads of 8 sectors; a new region with 10 writes.
    clock.now += 2;
    dm.region("vol", 0).areas[0] = RawCounters{40, 0, 320, 40, 0, 0, 0, 0, 0, 40, 40, 40, 0};
    CreateRequest r;
    r.range = SectorRange{0, 10};
    c.create(r);
    dm.region("vol", 1).areas[0] = RawCounters{0, 0, 0, 0, 10, 0, 80, 10, 0, 10, 10, 0, 10};
    auto second = s.take();

    // Device-mapper's side alone (no /sys/block): each row carries the
    // device's identity.
    const auto joined = join_devices({}, &second);
    auto rows = build_report(joined, &first, ReportLevel::region);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].id, second.devices[0].id);
    EXPECT_EQ(rows[1].id.dm_name, "vol");
    EXPECT_DOUBLE_EQ(*rows[0].stats.transfers_per_second_read, 20.0);  // 40 / 2 s
    EXPECT_FALSE(rows[0].is_new);
    EXPECT_TRUE(rows[1].is_new);
    EXPECT_DOUBLE_EQ(*rows[1].stats.transfers_per_second_write, 5.0);  // 10 from zero / 2 s

    // A device is never the sum of its regions (they may overlap): its row
    // comes from its own counters (device_row), not from build_report.
    EXPECT_TRUE(build_report(joined, &first, ReportLevel::device).empty());
    EXPECT_TRUE(rows[0].stats.jiffies_resolution);  // not precise: whole ticks

    auto since = build_report(joined, nullptr, ReportLevel::area);
    ASSERT_EQ(since.size(), 2u);
    EXPECT_FALSE(since[0].stats.transfers_per_second);
    EXPECT_EQ(since[0].stats.total_transfers_read, 40u);
}

TEST(Report, GroupLevelSumsMembers) {
    FakeDm dm;
    dm.add_device("vol", 1000);
    StatsClient c(dm, "vol");
    for (int i = 0; i < 3; ++i) {
        CreateRequest r;
        r.range = SectorRange{static_cast<std::uint64_t>(i) * 100, 100};
        r.histogram = {1, 10};
        c.create(r);
        dm.region("vol", i).areas[0].reads = static_cast<std::uint64_t>(i + 1);
        dm.region("vol", i).histograms[0] = {static_cast<std::uint64_t>(i + 1), 0, 0};
    }
    c.set_aux(0, "DMS_GROUP=db:0-1#-");
    Snapshotter s(dm);
    const Snapshot snap = s.take();
    auto rows = build_report(join_devices({}, &snap), nullptr, ReportLevel::group);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].group_alias, "db");
    EXPECT_EQ(rows[0].stats.total_transfers_read, 3u);  // 1 + 2; region 2 is not a member
    EXPECT_EQ(rows[0].start, 0u);
    EXPECT_EQ(rows[0].length, 200u);
    EXPECT_EQ(rows[0].histogram.counts, (std::vector<std::uint64_t>{3, 0, 0}));
    EXPECT_EQ(rows[0].histogram.bounds_ns, (std::vector<std::uint64_t>{1'000'000, 10'000'000}));
}

}  // namespace
}  // namespace iotally
