// SPDX-License-Identifier: GPL-2.0-or-later
#include "block_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "iotally/metrics/device_join.hpp"
#include "iotally/util/error.hpp"

namespace iotally::cli {

// Without regions: device-mapper's names, uuids and targets still, that a
// selection matches the same devices whether regions are read or not.
void Sampler::join_identities(Sample& s) {
    std::vector<DeviceId> listed;
    if (!dm_unavailable_) {
        try {
            listed = ctx_.layer().list_devices();
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::unsupported && e.kind() != ErrorKind::permission)
                throw;
            dm_unavailable_ = e.kind() == ErrorKind::permission;
        }
    }
    auto ids = join_device_ids(s.disks.devices, listed);
    for (std::size_t i = 0; i < s.disks.devices.size(); ++i)
        s.devices.push_back({std::move(ids[i]), &s.disks.devices[i], nullptr});
}

Sample Sampler::take() {
    Sample s;
    s.unix_ns = ctx_.realtime_ns();
    s.disks.taken_s = ctx_.clock();
    s.disks.devices = read_block_devices({ctx_.sysfs, options_.partitions});
    if (options_.regions && !dm_unavailable_) {
        try {
            if (!snapshotter_)
                snapshotter_.emplace(ctx_.layer(), ctx_.clock);
            s.dm = snapshotter_->take({}, options_.program_id);
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::unsupported && e.kind() != ErrorKind::permission)
                throw;
            if (e.kind() == ErrorKind::permission && options_.dm_permission_fatal)
                throw;
            // Without device-mapper, asked again at the next sample: dm_mod
            // may be loaded while a report runs.
            if (e.kind() == ErrorKind::permission) {
                dm_unavailable_ = true;
                *ctx_.err << "iotally: warning: no regions (" << e.what()
                          << "); device rows only\n";
            }
        }
    }
    if (options_.regions) {
        for (auto& j : join_devices(s.disks.devices, s.dm ? &*s.dm : nullptr))
            if (j.block)
                s.devices.push_back(std::move(j));
    } else {
        join_identities(s);
    }
    if (s.dm)
        for (const auto& dev : s.dm->devices)
            for (const auto& w : dev.warnings)
                *ctx_.err << "iotally: warning: " << w << "\n";
    return s;
}

std::vector<DeviceId> Sample::ids() const {
    std::vector<DeviceId> out;
    out.reserve(devices.size());
    for (const auto& d : devices)
        out.push_back(d.id);
    return out;
}

std::vector<const JoinedDevice*> select_sampled(DeviceSelector& selector, const Sample& sample,
                                                std::span<const std::uint64_t> activity) {
    std::vector<const JoinedDevice*> out;
    for (auto i : selector.select(sample.ids(), activity))
        out.push_back(&sample.devices[i]);
    return out;
}

}  // namespace iotally::cli
