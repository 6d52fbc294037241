// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/device_join.hpp"

#include <algorithm>

namespace iotally {

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
                j.id.dm_name = it->id.dm_name;
                j.id.dm_uuid = it->id.dm_uuid;
                j.id.targets = it->id.targets;
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

}  // namespace iotally
