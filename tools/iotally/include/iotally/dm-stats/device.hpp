// SPDX-License-Identifier: GPL-2.0-or-later
// The device layer: everything libiotally needs from device-mapper, behind an
// interface so that the logic above it runs against fakes in tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "iotally/util/device_id.hpp"

namespace iotally {

class DeviceLayer {
  public:
    virtual ~DeviceLayer() = default;
    // All device-mapper devices, sorted by name: dm_name, dm_uuid, dev_t,
    // kernel_name ("dm-<minor>"), size and targets (no driver).
    virtual std::vector<DeviceId> list_devices() = 0;
    // One device by name; throws Error(no_device) if it does not exist.
    virtual DeviceId device(const std::string& name) = 0;
    // Sends a target message to sector 0 of the device's table and returns
    // the reply ("" when there is none). Throws Error with a kind from errno.
    virtual std::string message(const std::string& device, const std::string& text) = 0;
};

// The real thing, over libdevmapper (DM_DEVICE_LIST/INFO/TABLE/TARGET_MSG).
std::unique_ptr<DeviceLayer> make_devmapper_layer();

}  // namespace iotally
