// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <fstream>

#include "fake_dm.hpp"
#include "iotally/dm-stats/filemap.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

using test::FakeDm;

TEST(Extents, MergeAndRanges) {
    // Two pieces continuing each other on disk merge; a gap does not.
    auto merged =
        merge_extents({{8192, 1'000'000, 4096}, {0, 991'808, 8192}, {12288, 5'000'000, 100}});
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].logical, 0u);
    EXPECT_EQ(merged[0].length, 12288u);
    auto ranges = extent_ranges(merged);
    // 991808 / 512 = 1937.125 -> 1937; end ceil(1004096 / 512) = ceil(1961.125)
    // = 1962 -> 25 sectors: a partial sector at either end counts whole.
    EXPECT_EQ(ranges[0], (SectorRange{1937, 25}));
    // 5000000 / 512 = 9765 (rest 320); end ceil(5000100 / 512) = 9766 -> 1 sector.
    EXPECT_EQ(ranges[1], (SectorRange{9765, 1}));
}

TEST(Extents, RealFileOnThisHost) {
    test::TempDir dir;
    std::string path = dir.write("data.bin", std::string(1 << 20, 'x'));
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    FileInfo info;
    try {
        info = map_file(path);
    } catch (const Error& e) {
        // Only a file system without FIEMAP (tmpfs) may refuse, and must say so.
        ASSERT_EQ(e.kind(), ErrorKind::unsupported) << e.what();
        return;
    }
    EXPECT_EQ(info.dev_major, major(st.st_dev));
    EXPECT_EQ(info.dev_minor, minor(st.st_dev));
    ASSERT_FALSE(info.extents.empty());
    std::uint64_t total = 0;
    for (const auto& e : info.extents)
        total += e.length;
    EXPECT_GE(total, 1u << 20);
    EXPECT_THROW(map_file(dir.path()), Error);  // a directory
    EXPECT_THROW(map_file(dir.path() + "/missing"), Error);
}

TEST(Extents, StatFileNeedsNoFiemap) {
    // stat_file names the device of any regular file, FIEMAP or not, so that
    // a file on a non-dm device is reported as such before FIEMAP is tried.
    test::TempDir dir;
    std::string path = dir.write("small", "x");
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    FileInfo info = stat_file(path);
    EXPECT_EQ(info.dev_major, major(st.st_dev));
    EXPECT_EQ(info.dev_minor, minor(st.st_dev));
    EXPECT_TRUE(info.extents.empty());
    for (const std::string& bad : {dir.path(), dir.path() + "/missing"}) {
        try {
            stat_file(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
            EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        }
    }
}

struct FileMapTest : testing::Test {
    FakeDm dm;
    FileMapTest() { dm.add_device("vol", 100000); }
    std::vector<int> ids() {
        std::vector<int> out;
        for (const auto& [id, r] : dm.dev("vol").regions)
            out.push_back(id);
        return out;
    }
};

const std::vector<SectorRange> abc{{100, 8}, {300, 16}, {900, 8}};

TEST_F(FileMapTest, CreatesGroupedRegions) {
    StatsClient c(dm, "vol");
    FileMapOptions o;
    o.alias = "data";
    EXPECT_EQ(create_file_regions(c, abc, o), (std::vector<std::uint64_t>{0, 1, 2}));
    EXPECT_EQ(dm.region("vol", 0).aux_data, "DMS_GROUP=data:0-2#-");
    EXPECT_EQ(dm.region("vol", 1).aux_data, "-");
    EXPECT_EQ(dm.region("vol", 2).program_id, "dmstats");
    EXPECT_EQ(dm.region("vol", 1).start, 300u);
    EXPECT_EQ(dm.region("vol", 1).end, 316u);
}

TEST_F(FileMapTest, FailedCreateLeavesNothingBehind) {
    StatsClient c(dm, "vol");
    int creates = 0;
    dm.fail = [&](const std::string&, const std::string& text) {
        return text.rfind("@stats_create", 0) == 0 && ++creates == 3 ? ENOMEM : 0;
    };
    EXPECT_THROW(create_file_regions(c, abc, FileMapOptions{}), Error);
    EXPECT_TRUE(ids().empty());
}

TEST_F(FileMapTest, FailedTagLeavesNothingBehind) {
    StatsClient c(dm, "vol");
    dm.fail = [&](const std::string&, const std::string& text) {
        return text.rfind("@stats_set_aux", 0) == 0 ? EINVAL : 0;
    };
    EXPECT_THROW(create_file_regions(c, abc, FileMapOptions{}), Error);
    EXPECT_TRUE(ids().empty());
}

TEST_F(FileMapTest, BadAliasChangesNothing) {
    StatsClient c(dm, "vol");
    FileMapOptions o;
    o.alias = "a:b";
    EXPECT_THROW(create_file_regions(c, abc, o), Error);
    EXPECT_TRUE(dm.sent.empty());
}

TEST_F(FileMapTest, UpdateMovesLeadership) {
    StatsClient c(dm, "vol");
    FileMapOptions o;
    o.alias = "data";
    create_file_regions(c, abc, o);
    // The file lost extent A and gained D: 0 goes, D becomes region 3,
    // region 1 leads the group now.
    const std::vector<SectorRange> bcd{{300, 16}, {900, 8}, {2000, 32}};
    EXPECT_EQ(update_file_regions(c, 0, bcd), (std::vector<std::uint64_t>{1, 2, 3}));
    EXPECT_EQ(ids(), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(dm.region("vol", 1).aux_data, "DMS_GROUP=data:1-3#-");
    EXPECT_EQ(dm.region("vol", 3).start, 2000u);
    EXPECT_EQ(dm.region("vol", 3).program_id, "dmstats");
}

TEST_F(FileMapTest, UpdateIntoALowerHole) {
    StatsClient c(dm, "vol");
    c.create(CreateRequest{});  // region 0, unrelated
    FileMapOptions o;
    o.alias = "f";
    create_file_regions(c, {{100, 8}, {300, 8}}, o);  // 1, 2
    c.remove(0);
    // Keep 1, drop 2, new extent gets id 0 and becomes the leader.
    EXPECT_EQ(update_file_regions(c, 1, {{100, 8}, {700, 8}}), (std::vector<std::uint64_t>{0, 1}));
    EXPECT_EQ(dm.region("vol", 0).aux_data, "DMS_GROUP=f:0-1#-");
    EXPECT_EQ(dm.region("vol", 1).aux_data, "-");
    EXPECT_EQ(ids(), (std::vector<int>{0, 1}));
}

TEST_F(FileMapTest, UpdateNeedsAGroupLeader) {
    StatsClient c(dm, "vol");
    c.create(CreateRequest{});
    try {
        update_file_regions(c, 0, abc);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::no_region);
    }
    EXPECT_THROW(update_file_regions(c, 5, abc), Error);
}

}  // namespace
}  // namespace iotally
