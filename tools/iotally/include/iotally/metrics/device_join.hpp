// SPDX-License-Identifier: GPL-2.0-or-later
// Each block device once, with what /sys/block and device-mapper say about
// it: the join of read_block_devices() and a Snapshot by dev_t, made once
// per scrape or sample and read by every consumer of the pair.
#pragma once

#include <span>
#include <vector>

#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/util/device_id.hpp"

namespace iotally {

struct JoinedDevice {
    // /sys/block's kernel name, dev_t, size and driver; device-mapper's name,
    // uuid and targets where device-mapper listed the device. A dm device
    // without a /sys/block entry keeps device-mapper's identity.
    DeviceId id;
    const BlockDevice* block = nullptr;  // null: no /sys/block entry (removed, or no sysfs)
    const DeviceSnapshot* dm = nullptr;  // null: not dm, or not in the snapshot
};

// In /sys/block's order, then the snapshot's devices that have no /sys/block
// entry, in the snapshot's order. `dm` may be null (no device-mapper). The
// pointers point into `blocks` and `*dm`.
std::vector<JoinedDevice> join_devices(std::span<const BlockDevice> blocks, const Snapshot* dm);

// The same join of the identities alone, against device-mapper's list of
// devices (DeviceLayer::list_devices()), in the same order: what a selection
// is made over before any region is read.
std::vector<DeviceId> join_device_ids(std::span<const BlockDevice> blocks,
                                      std::span<const DeviceId> dm);

}  // namespace iotally
