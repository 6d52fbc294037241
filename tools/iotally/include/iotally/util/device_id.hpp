// SPDX-License-Identifier: GPL-2.0-or-later
// One block device's identity, whichever side describes it: device-mapper
// (DeviceLayer, dm-stats/) or /sys/block (read_block_devices(), block/).
// join_devices() (device_join.hpp) puts the two sides of one device together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iotally {

struct DeviceId {
    std::string kernel_name;  // the /sys/block name: "dm-0", "sda", "sda1"
    std::uint32_t major = 0;  // dev_t: what joins the two sides
    std::uint32_t minor = 0;
    std::uint64_t size_sectors = 0;
    // Device-mapper only: an empty dm_name is a device that is not dm; a dm
    // device may have no uuid. Targets come from device-mapper's table only.
    std::string dm_name;
    std::string dm_uuid;
    std::vector<std::string> targets;  // target types, in table order
    std::string driver;                // from sysfs: the disk's bound driver ("virtio_blk"), or ""

    bool is_dm() const { return !dm_name.empty(); }
    // The name devstat's selection and iotally's rows use: the dm name of a
    // dm device, the kernel name of any other.
    const std::string& name() const { return is_dm() ? dm_name : kernel_name; }
    bool same_dev(const DeviceId& other) const {
        return major == other.major && minor == other.minor;
    }
    bool operator==(const DeviceId&) const = default;
};

// The kernel's name of a dm device: "dm-<minor>" (drivers/md/dm.c).
std::string dm_kernel_name(std::uint32_t minor);

}  // namespace iotally
