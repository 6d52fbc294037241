// SPDX-License-Identifier: GPL-2.0-or-later
// The device layer: everything libiotally needs from device-mapper, behind an
// interface so that the logic above it runs against fakes in tests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace iotally {

struct DeviceInfo {
    std::string name;
    std::string uuid;
    std::uint32_t major = 0;
    std::uint32_t minor = 0;
    std::uint64_t size_sectors = 0;
    std::vector<std::string> target_types;  // in table order, one per target
    // From sysfs, for selection among all block devices: "dm-0", "sda".
    // A device that is not device-mapper has an empty uuid and no targets.
    std::string kernel_name;
    std::string driver;  // bound driver of the disk ("virtio_blk"), or ""
    bool operator==(const DeviceInfo&) const = default;
};

class DeviceLayer {
  public:
    virtual ~DeviceLayer() = default;
    // All device-mapper devices, sorted by name.
    virtual std::vector<DeviceInfo> list_devices() = 0;
    // One device by name; throws Error(no_device) if it does not exist.
    virtual DeviceInfo device(const std::string& name) = 0;
    // Sends a target message to sector 0 of the device's table and returns
    // the reply ("" when there is none). Throws Error with a kind from errno.
    virtual std::string message(const std::string& device, const std::string& text) = 0;
};

// The real thing, over libdevmapper (DM_DEVICE_LIST/INFO/TABLE/TARGET_MSG).
std::unique_ptr<DeviceLayer> make_devmapper_layer();

}  // namespace iotally
