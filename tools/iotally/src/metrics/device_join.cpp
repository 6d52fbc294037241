// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/device_join.hpp"

#include <algorithm>

namespace iotally {

namespace {

// /sys/block's identity of a device with device-mapper's name, uuid and
// targets.
DeviceId joined_id(const DeviceId& block, const DeviceId& dm) {
    DeviceId id = block;
    id.dm_name = dm.dm_name;
    id.dm_uuid = dm.dm_uuid;
    id.targets = dm.targets;
    return id;
}

}  // namespace

std::vector<JoinedDevice> join_devices(std::span<const BlockDevice> blocks, const Snapshot* dm) {
    std::vector<JoinedDevice> out;
    std::vector<bool> joined(dm ? dm->devices.size() : 0, false);
    for (const auto& b : blocks) {
        JoinedDevice j{b.id, &b, nullptr};
        if (dm && !b.is_partition()) {
            auto it = std::find_if(dm->devices.begin(), dm->devices.end(),
                                   [&](const DeviceSnapshot& d) { return d.id.same_dev(b.id); });
            if (it != dm->devices.end()) {
                j.dm = &*it;
                j.id = joined_id(b.id, it->id);
                joined[static_cast<std::size_t>(it - dm->devices.begin())] = true;
            }
        }
        out.push_back(std::move(j));
    }
    for (std::size_t i = 0; i < joined.size(); ++i)
        if (!joined[i])
            out.push_back({dm->devices[i].id, nullptr, &dm->devices[i]});
    return out;
}

std::vector<DeviceId> join_device_ids(std::span<const BlockDevice> blocks,
                                      std::span<const DeviceId> dm) {
    std::vector<DeviceId> out;
    std::vector<bool> joined(dm.size(), false);
    for (const auto& b : blocks) {
        auto it = b.is_partition() ? dm.end()
                                   : std::find_if(dm.begin(), dm.end(), [&](const DeviceId& d) {
                                         return d.same_dev(b.id);
                                     });
        if (it == dm.end()) {
            out.push_back(b.id);
            continue;
        }
        out.push_back(joined_id(b.id, *it));
        joined[static_cast<std::size_t>(it - dm.begin())] = true;
    }
    for (std::size_t i = 0; i < joined.size(); ++i)
        if (!joined[i])
            out.push_back(dm[i]);
    return out;
}

}  // namespace iotally
