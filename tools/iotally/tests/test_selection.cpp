// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "iotally/metrics/selection.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

using Names = std::vector<std::string>;

const std::vector<DeviceId> devices{
    {"", 254, 0, 100, "vg0-lv1", "LVM-aaaa", {"linear"}, ""},
    {"", 254, 1, 100, "vg0-lv2", "LVM-bbbb", {"striped"}, ""},
    {"", 254, 2, 100, "luks-root", "CRYPT-LUKS2-cccc", {"crypt"}, ""},
    {"", 254, 3, 100, "mpatha", "mpath-3600", {"multipath"}, ""},
};

Names matching(const std::string& expr) {
    Names out;
    auto m = build_match(expr);
    for (const auto& d : devices)
        if (matches(m, d))
            out.push_back(d.name());
    return out;
}

TEST(Match, Terms) {
    EXPECT_EQ(matching("name=vg0-*"), (Names{"vg0-lv1", "vg0-lv2"}));
    EXPECT_EQ(matching("name=vg0-*,target=linear"), (Names{"vg0-lv1"}));
    EXPECT_EQ(matching("uuid=LVM-"), (Names{"vg0-lv1", "vg0-lv2"}));
    EXPECT_EQ(matching("uuid=CRYPT-"), (Names{"luks-root"}));
    EXPECT_EQ(matching("mpath*"), (Names{"mpatha"}));  // a bare word is a name glob
    EXPECT_EQ(matching("type=crypt"), (Names{"luks-root"}));
    EXPECT_TRUE(matching("target=thin").empty());
}

TEST(Match, Errors) {
    for (const char* bad : {"", "name=", "size=5", "a,,b", ","}) {
        try {
            build_match(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage) << bad;
        }
    }
}

TEST(Select, AddFillsInListOrderUpToMax) {
    SelectionState st;
    SelectRequest r;
    r.names = {"luks-root"};
    r.max_count = 2;
    EXPECT_EQ(select_devices(st, 1, devices, {}, r), (Names{"vg0-lv1", "luks-root"}));
}

TEST(Select, OnlyRemoveAddOnly) {
    SelectionState st;
    SelectRequest only;
    only.mode = SelectMode::only;
    only.matches = {build_match("uuid=LVM-")};
    EXPECT_EQ(select_devices(st, 1, devices, {}, only), (Names{"vg0-lv1", "vg0-lv2"}));

    SelectRequest remove;
    remove.mode = SelectMode::remove;
    remove.names = {"vg0-lv2"};
    EXPECT_EQ(select_devices(st, 1, devices, {}, remove), (Names{"vg0-lv1"}));

    SelectRequest add_only;
    add_only.mode = SelectMode::add_only;
    add_only.names = {"mpatha"};
    EXPECT_EQ(select_devices(st, 1, devices, {}, add_only), (Names{"vg0-lv1", "mpatha"}));

    // "only" clears what was selected before.
    SelectRequest only_crypt;
    only_crypt.mode = SelectMode::only;
    only_crypt.names = {"luks-root"};
    EXPECT_EQ(select_devices(st, 1, devices, {}, only_crypt), (Names{"luks-root"}));
}

TEST(Select, TopModeSortsByActivityAndHonoursMax) {
    SelectionState st;
    SelectRequest top;
    top.mode = SelectMode::add_only;
    top.by_activity = true;
    top.max_count = 3;
    const std::vector<std::uint64_t> activity{5, 50, 0, 20};
    // Nothing named: every device competes; devstat would return all four.
    EXPECT_EQ(select_devices(st, 1, devices, activity, top),
              (Names{"vg0-lv2", "mpatha", "vg0-lv1"}));
    // Named devices: sorted among themselves only.
    SelectionState st2;
    top.names = {"vg0-lv1", "mpatha"};
    EXPECT_EQ(select_devices(st2, 1, devices, activity, top), (Names{"mpatha", "vg0-lv1"}));
}

TEST(Select, NewGenerationKeepsSelectionsAndReportsChange) {
    SelectionState st;
    SelectRequest r;
    r.mode = SelectMode::add_only;
    r.names = {"vg0-lv2"};
    bool changed = false;
    select_devices(st, 1, devices, {}, r, &changed);
    EXPECT_TRUE(changed);
    select_devices(st, 1, devices, {}, r, &changed);
    EXPECT_FALSE(changed);

    // vg0-lv1 vanished: generation 2, vg0-lv2 stays selected.
    std::vector<DeviceId> fewer(devices.begin() + 1, devices.end());
    SelectRequest none;
    none.mode = SelectMode::add_only;
    EXPECT_EQ(select_devices(st, 2, fewer, {}, none, &changed), (Names{"vg0-lv2"}));
    EXPECT_TRUE(changed);
}

TEST(Select, ActivityMustMatchDevices) {
    SelectionState st;
    const std::vector<std::uint64_t> short_activity{1};
    EXPECT_THROW(select_devices(st, 1, devices, short_activity, SelectRequest{}), Error);
}

}  // namespace
}  // namespace iotally

namespace iotally {
namespace {

// Every block device, dm and not, as the CLI builds the list from sysfs.
const std::vector<DeviceId> block_devices{
    {"vda", 253, 0, 100, "", "", {}, "virtio_blk"},
    {"dm-0", 254, 0, 100, "vg--a-lv--1", "LVM-aaaa", {"linear"}, ""},
    {"dm-1", 254, 1, 100, "delayed", "", {"delay"}, ""},
    {"nullb0", 252, 0, 100, "", "", {}, ""},
};

std::vector<std::string> matching_block(const std::string& expr) {
    std::vector<std::string> out;
    auto m = build_match(expr);
    for (const auto& d : block_devices)
        if (matches(m, d))
            out.push_back(d.name());
    return out;
}

TEST(MatchLinux, KernelNameDriverTargetAndLv) {
    using Names = std::vector<std::string>;
    EXPECT_EQ(matching_block("dm-*"), (Names{"vg--a-lv--1", "delayed"}));  // kernel names
    EXPECT_EQ(matching_block("name=delayed"), (Names{"delayed"}));         // dm name
    EXPECT_EQ(matching_block("driver=virtio*"), (Names{"vda"}));
    EXPECT_EQ(matching_block("target=delay"), (Names{"delayed"}));
    EXPECT_EQ(matching_block("lv=vg-a/lv-1"), (Names{"vg--a-lv--1"}));  // lvm2's doubled '-'
    EXPECT_EQ(matching_block("lv=*/lv*"), (Names{"vg--a-lv--1"}));
    EXPECT_TRUE(matching_block("lv=vg/lv-1").empty());
    EXPECT_EQ(matching_block("uuid=LVM-a*"), (Names{"vg--a-lv--1"}));  // a glob
    EXPECT_THROW(build_match("lv=novg"), Error);
    EXPECT_THROW(build_match("bus=pci"), Error);
}

}  // namespace
}  // namespace iotally
