// SPDX-License-Identifier: GPL-2.0-or-later
// The device layer: everything libiotally needs from device-mapper, behind an
// interface so that the logic above it runs against fakes in tests.
#pragma once

#include <memory>
#include <mutex>
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

// One layer shared by threads (serve's scrapes and its queue depth
// sampler): each call to `inner` in turn, since the devmapper layer keeps
// state of its own (its control descriptor, the reply sizes it learnt).
class SerializedLayer final : public DeviceLayer {
  public:
    explicit SerializedLayer(DeviceLayer& inner) : inner_(inner) {}
    std::vector<DeviceId> list_devices() override {
        std::lock_guard lock(mutex_);
        return inner_.list_devices();
    }
    DeviceId device(const std::string& name) override {
        std::lock_guard lock(mutex_);
        return inner_.device(name);
    }
    std::string message(const std::string& device, const std::string& text) override {
        std::lock_guard lock(mutex_);
        return inner_.message(device, text);
    }

  private:
    DeviceLayer& inner_;
    std::mutex mutex_;
};

}  // namespace iotally
