// SPDX-License-Identifier: GPL-2.0-or-later
// join_devices(): the fixture tree sysfs/t0 has nullb0 (252:0), vda (253:0,
// virtio_blk), dm-0 (254:0, dm name "delayed", no uuid) and dm-1 (254:1,
// "vg0-lv1", an LVM uuid); the dm side is written here by hand.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "iotally/block/diskstats.hpp"
#include "iotally/metrics/device_join.hpp"

namespace iotally {
namespace {

std::vector<BlockDevice> t0_devices() {
    return read_block_devices({test::fixture_dir() + "/sysfs/t0", false});
}

DeviceSnapshot dm_device(std::string name, std::uint32_t minor, std::vector<std::string> targets,
                         std::string uuid = "") {
    DeviceSnapshot d;
    d.id.dm_name = std::move(name);
    d.id.dm_uuid = std::move(uuid);
    d.id.major = 254;
    d.id.minor = minor;
    d.id.kernel_name = "dm-" + std::to_string(minor);
    d.id.size_sectors = 8;
    d.id.targets = std::move(targets);
    return d;
}

const JoinedDevice& by_kernel_name(const std::vector<JoinedDevice>& joined, const char* name) {
    for (const auto& j : joined)
        if (j.id.kernel_name == name)
            return j;
    throw std::runtime_error(std::string("no ") + name + " in the join");
}

TEST(DeviceJoin, DmDeviceFoundByDevT) {
    const auto blocks = t0_devices();
    Snapshot snap;
    // dm names its devices differently from the fixture's dm/name files: the
    // join goes by dev_t, and device-mapper's name, uuid and targets win.
    snap.devices.push_back(dm_device("renamed", 1, {"linear", "striped"}, "LVM-new"));
    snap.devices.push_back(dm_device("delayed", 0, {"delay"}));
    const auto joined = join_devices(blocks, &snap);
    ASSERT_EQ(joined.size(), 4u);  // no dm-only entry: both have a /sys/block entry

    const auto& dm1 = by_kernel_name(joined, "dm-1");
    ASSERT_NE(dm1.block, nullptr);
    EXPECT_EQ(dm1.block->id.dm_name, "vg0-lv1");  // the /sys/block entry as read
    EXPECT_EQ(dm1.dm, &snap.devices[0]);
    EXPECT_EQ(dm1.id.dm_name, "renamed");
    EXPECT_EQ(dm1.id.dm_uuid, "LVM-new");
    EXPECT_EQ(dm1.id.targets, (std::vector<std::string>{"linear", "striped"}));
    EXPECT_EQ(dm1.id.major, 254u);
    EXPECT_EQ(dm1.id.minor, 1u);
    EXPECT_EQ(dm1.id.size_sectors, 409600u);  // the size is sysfs's
    EXPECT_EQ(dm1.id.name(), "renamed");

    const auto& dm0 = by_kernel_name(joined, "dm-0");
    ASSERT_NE(dm0.block, nullptr);
    EXPECT_EQ(dm0.dm, &snap.devices[1]);
    EXPECT_EQ(dm0.id.dm_name, "delayed");
    EXPECT_EQ(dm0.id.targets, (std::vector<std::string>{"delay"}));
    EXPECT_TRUE(dm0.id.is_dm());
}

TEST(DeviceJoin, DmDeviceWithoutSysBlockEntryFollowsInSnapshotOrder) {
    const auto blocks = t0_devices();
    Snapshot snap;
    snap.devices.push_back(dm_device("gone", 7, {"zero"}, "CRYPT-x"));
    snap.devices.push_back(dm_device("delayed", 0, {"delay"}));
    snap.devices.push_back(dm_device("also-gone", 3, {"error"}));
    const auto joined = join_devices(blocks, &snap);
    ASSERT_EQ(joined.size(), 6u);
    // /sys/block's order first (major:minor), then the two without an entry.
    std::vector<std::string> order;
    for (const auto& j : joined)
        order.push_back(j.id.name());
    EXPECT_EQ(order, (std::vector<std::string>{"nullb0", "vda", "delayed", "vg0-lv1", "gone",
                                               "also-gone"}));
    const auto& gone = joined[4];
    EXPECT_EQ(gone.block, nullptr);
    EXPECT_EQ(gone.dm, &snap.devices[0]);
    EXPECT_EQ(gone.id, snap.devices[0].id);  // device-mapper's identity, whole
    EXPECT_EQ(gone.id.kernel_name, "dm-7");
    EXPECT_EQ(joined[5].dm, &snap.devices[2]);
    // dm-1 is in /sys/block but not in this snapshot: sysfs's identity.
    const auto& dm1 = by_kernel_name(joined, "dm-1");
    EXPECT_EQ(dm1.dm, nullptr);
    EXPECT_EQ(dm1.id.dm_name, "vg0-lv1");
    EXPECT_EQ(dm1.id.dm_uuid.substr(0, 4), "LVM-");
    EXPECT_TRUE(dm1.id.targets.empty());
}

TEST(DeviceJoin, DiskThatIsNotDeviceMapper) {
    const auto blocks = t0_devices();
    Snapshot snap;
    // A dm device listed with a disk's minor but another major: no join.
    snap.devices.push_back(dm_device("delayed", 0, {"delay"}));
    const auto joined = join_devices(blocks, &snap);
    const auto& vda = by_kernel_name(joined, "vda");
    ASSERT_NE(vda.block, nullptr);
    EXPECT_EQ(vda.dm, nullptr);
    EXPECT_FALSE(vda.id.is_dm());
    EXPECT_EQ(vda.id.dm_name, "");
    EXPECT_EQ(vda.id.dm_uuid, "");
    EXPECT_TRUE(vda.id.targets.empty());
    EXPECT_EQ(vda.id.driver, "virtio_blk");
    EXPECT_EQ(vda.id.major, 253u);
    EXPECT_EQ(vda.id.minor, 0u);
    EXPECT_EQ(vda.id.name(), "vda");
    EXPECT_EQ(by_kernel_name(joined, "nullb0").dm, nullptr);
}

TEST(DeviceJoin, WithoutDeviceMapperEverySideIsSysfs) {
    const auto blocks = t0_devices();
    const auto joined = join_devices(blocks, nullptr);
    ASSERT_EQ(joined.size(), blocks.size());
    for (std::size_t i = 0; i < joined.size(); ++i) {
        EXPECT_EQ(joined[i].block, &blocks[i]);
        EXPECT_EQ(joined[i].dm, nullptr);
        EXPECT_EQ(joined[i].id, blocks[i].id);
    }
    EXPECT_EQ(by_kernel_name(joined, "dm-0").id.name(), "delayed");
}

}  // namespace
}  // namespace iotally
