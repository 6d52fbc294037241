// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "iotally/block/diskstats.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

std::string sysfs_fixture(const std::string& name) {
    return test::fixture_dir() + "/sysfs/" + name;
}

std::vector<std::string> names(const std::vector<BlockDevice>& devs) {
    std::vector<std::string> out;
    for (const auto& d : devs)
        out.push_back(d.id.kernel_name);
    return out;
}

TEST(BlockStat, SeventeenFieldsInStatRstOrder) {
    auto s = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n");
    EXPECT_EQ(s.fields, 17u);
    EXPECT_EQ(s.read_ios, 1u);
    EXPECT_EQ(s.read_merges, 2u);
    EXPECT_EQ(s.read_sectors, 3u);
    EXPECT_EQ(s.read_ticks_ms, 4u);
    EXPECT_EQ(s.write_ios, 5u);
    EXPECT_EQ(s.write_merges, 6u);
    EXPECT_EQ(s.write_sectors, 7u);
    EXPECT_EQ(s.write_ticks_ms, 8u);
    EXPECT_EQ(s.in_flight, 9u);
    EXPECT_EQ(s.io_ticks_ms, 10u);
    EXPECT_EQ(s.time_in_queue_ms, 11u);
    EXPECT_EQ(s.discard_ios, 12u);
    EXPECT_EQ(s.discard_merges, 13u);
    EXPECT_EQ(s.discard_sectors, 14u);
    EXPECT_EQ(s.discard_ticks_ms, 15u);
    EXPECT_EQ(s.flush_ios, 16u);
    EXPECT_EQ(s.flush_ticks_ms, 17u);
}

TEST(BlockStat, OlderKernelsAndLaterFields) {
    auto s11 = parse_block_stat("  1 2 3 4 5 6 7 8 9 10 11");
    EXPECT_EQ(s11.fields, 11u);
    EXPECT_EQ(s11.time_in_queue_ms, 11u);
    EXPECT_EQ(s11.discard_ios, 0u);
    auto s15 = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n");
    EXPECT_EQ(s15.fields, 15u);
    EXPECT_EQ(s15.discard_ticks_ms, 15u);
    EXPECT_EQ(s15.flush_ios, 0u);
    // A field appended by a later kernel does not move the known ones.
    auto s18 = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n");
    EXPECT_EQ(s18.fields, 17u);
    EXPECT_EQ(s18.flush_ticks_ms, 17u);
    // 64-bit counters past 2^32 survive.
    auto big = parse_block_stat("18446744073709551615 0 0 0 0 0 0 0 0 0 0");
    EXPECT_EQ(big.read_ios, UINT64_MAX);
}

TEST(BlockStat, RejectsWhatTheKernelDoesNotWrite) {
    for (const char* bad :
         {"", "1 2 3", "1 2 3 4 5 6 7 8 9 10 11 12", "1 2 3 4 5 6 7 8 9 10 x",
          "1 2 3 4 5 6 7 8 9 10 -11", "18446744073709551616 0 0 0 0 0 0 0 0 0 0"}) {
        try {
            parse_block_stat(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::parse) << bad;
        }
    }
}

TEST(Diskstats, EveryDiskInMajorMinorOrder) {
    auto devs = read_block_devices({sysfs_fixture("t0"), false});
    EXPECT_EQ(names(devs), (std::vector<std::string>{"nullb0", "vda", "dm-0", "dm-1"}));
    const auto& vda = devs[1];
    EXPECT_EQ(vda.id.major, 253u);
    EXPECT_EQ(vda.id.minor, 0u);
    EXPECT_EQ(vda.id.size_sectors, 2097152u);
    EXPECT_EQ(vda.id.driver, "virtio_blk");
    EXPECT_FALSE(vda.id.is_dm());
    EXPECT_EQ(vda.id.dm_name, "");
    EXPECT_FALSE(vda.is_partition());
    EXPECT_EQ(vda.stat.read_ios, 1200u);
    EXPECT_EQ(vda.stat.write_sectors, 32768u);
    EXPECT_EQ(vda.stat.flush_ios, 50u);
    EXPECT_EQ(devs[0].stat.fields, 11u);  // nullb0's file is from an older kernel
    EXPECT_EQ(devs[0].id.driver, "");
}

TEST(Diskstats, DeviceMapperNameAndUuid) {
    auto devs = read_block_devices({sysfs_fixture("t0"), false});
    const auto& dm0 = devs[2];
    EXPECT_EQ(dm0.id.kernel_name, "dm-0");
    EXPECT_TRUE(dm0.id.is_dm());
    EXPECT_EQ(dm0.id.dm_name, "delayed");
    EXPECT_EQ(dm0.id.dm_uuid, "");  // a dm device without uuid
    EXPECT_EQ(dm0.stat.in_flight, 1u);
    EXPECT_EQ(dm0.stat.discard_sectors, 2048u);
    EXPECT_EQ(dm0.stat.flush_ticks_ms, 2u);
    EXPECT_EQ(devs[3].id.dm_name, "vg0-lv1");
    EXPECT_EQ(devs[3].id.dm_uuid.substr(0, 4), "LVM-");
}

TEST(Diskstats, PartitionsOnRequest) {
    auto devs = read_block_devices({sysfs_fixture("t0"), true});
    EXPECT_EQ(names(devs), (std::vector<std::string>{"nullb0", "vda", "vda1", "dm-0", "dm-1"}));
    const auto& p = devs[2];
    EXPECT_TRUE(p.is_partition());
    EXPECT_EQ(p.parent, "vda");
    EXPECT_EQ(p.id.minor, 1u);
    EXPECT_EQ(p.id.driver, "virtio_blk");
    EXPECT_EQ(p.stat.read_ios, 800u);
}

TEST(Diskstats, VanishedDeviceIsLeftOut) {
    test::TempDir t;
    t.write("block/sda/dev", "8:0\n");
    t.write("block/sda/size", "100\n");
    t.write("block/sda/stat", "1 2 3 4 5 6 7 8 9 10 11\n");
    t.write("block/sdb/dev", "8:16\n");  // its stat and size are gone
    auto devs = read_block_devices({t.path(), false});
    EXPECT_EQ(names(devs), (std::vector<std::string>{"sda"}));
}

TEST(Diskstats, ErrorsNameTheFile) {
    test::TempDir t;
    t.write("block/sda/dev", "8:0\n");
    t.write("block/sda/size", "100\n");
    t.write("block/sda/stat", "1 2 3\n");
    try {
        read_block_devices({t.path(), false});
        ADD_FAILURE() << "accepted a 3-field stat";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::parse);
        EXPECT_NE(std::string(e.what()).find("block/sda/stat"), std::string::npos) << e.what();
    }
    t.write("block/sda/stat", "1 2 3 4 5 6 7 8 9 10 11\n");
    t.write("block/sda/dev", "8\n");
    EXPECT_THROW(read_block_devices({t.path(), false}), Error);

    test::TempDir empty;
    try {
        read_block_devices({empty.path(), false});
        ADD_FAILURE() << "no /sys/block accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    }
}

}  // namespace
}  // namespace iotally
