// SPDX-License-Identifier: GPL-2.0-or-later
// A device layer that models drivers/md/dm-stats.c message handling closely
// enough to run every command on the host: ids are allocated lowest-free,
// invalid messages fail with the kernel's errno, replies are formatted the
// way the kernel formats them (written here independently of libiotally).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "iotally/dm-stats/device.hpp"
#include "iotally/dm-stats/message.hpp"

namespace iotally::test {

struct FakeRegion {
    std::uint64_t start = 0, end = 0, step = 0;
    bool precise = false;
    std::vector<std::uint64_t> bounds;
    std::string program_id = "-", aux_data = "-";
    std::vector<RawCounters> areas;
    std::vector<std::vector<std::uint64_t>> histograms;
};

struct FakeDevice {
    DeviceId id;
    std::map<int, FakeRegion> regions;
};

class FakeDm : public DeviceLayer {
  public:
    FakeDevice& add_device(const std::string& name, std::uint64_t sectors,
                           std::vector<std::string> targets = {"linear"}, std::string uuid = "",
                           std::uint32_t minor = 0);
    FakeDevice& dev(const std::string& name) { return devices_.at(name); }
    FakeRegion& region(const std::string& name, int id) { return devices_.at(name).regions.at(id); }

    std::vector<DeviceId> list_devices() override;
    DeviceId device(const std::string& name) override;
    std::string message(const std::string& device, const std::string& text) override;

    std::vector<std::string> sent;  // every message, in order
    // Called before each message; return an errno to make it fail.
    std::function<int(const std::string& device, const std::string& text)> fail;

  private:
    std::string handle(FakeDevice& d, const std::vector<std::string>& argv);
    std::map<std::string, FakeDevice> devices_;
};

}  // namespace iotally::test
