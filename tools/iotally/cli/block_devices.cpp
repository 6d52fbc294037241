// SPDX-License-Identifier: GPL-2.0-or-later
#include "block_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "iotally/device_join.hpp"
#include "iotally/error.hpp"

namespace iotally::cli {

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
            // Without device-mapper, asked again at the next sample: dm_mod
            // may be loaded while a report runs.
            if (e.kind() == ErrorKind::permission) {
                dm_unavailable_ = true;
                *ctx_.err << "iotally: warning: no regions (" << e.what()
                          << "); device rows only\n";
            }
        }
    }
    for (auto& j : join_devices(s.disks.devices, s.dm ? &*s.dm : nullptr))
        if (j.block)
            s.ids.push_back(std::move(j.id));
    if (s.dm)
        for (const auto& dev : s.dm->devices)
            for (const auto& w : dev.warnings)
                *ctx_.err << "iotally: warning: " << w << "\n";
    return s;
}

std::vector<std::string> select_kernel_names(DeviceSelector& selector, const Sample& sample,
                                             const std::vector<std::uint64_t>& activity) {
    auto chosen = selector.select_names(sample.ids, activity);
    std::vector<std::string> out;
    for (const auto& c : chosen)
        for (const auto& d : sample.ids)
            if (d.name() == c)
                out.push_back(d.kernel_name);
    return out;
}

}  // namespace iotally::cli
