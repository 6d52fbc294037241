// SPDX-License-Identifier: GPL-2.0-or-later
// Every block device with its regions, sampled together, and the devstat(3)
// selection over them: what 'report' and 'top' show.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app.hpp"
#include "iotally/report.hpp"
#include "iotally/selection.hpp"

namespace iotally::cli {

struct Sample {
    std::int64_t unix_ns = 0;  // wall clock, for the timestamps
    DiskSample disks;
    std::optional<Snapshot> dm;  // absent without device-mapper or regions wanted
    // Parallel to disks.devices: each joined to device-mapper's side
    // (join_devices()), what selection matches against.
    std::vector<DeviceId> ids;
};

struct SampleOptions {
    bool partitions = false;
    bool regions = true;  // also the dm-stats regions of device-mapper devices
    std::optional<std::string> program_id;
};

// Takes successive samples; regions are left out (with a warning when it is
// for want of privilege) where device-mapper is not there or not allowed,
// and come in at the sample after device-mapper appears.
class Sampler {
  public:
    Sampler(Context& ctx, SampleOptions options) : ctx_(ctx), options_(std::move(options)) {}
    Sample take();

  private:
    Context& ctx_;
    SampleOptions options_;
    std::optional<Snapshotter> snapshotter_;
    bool dm_unavailable_ = false;
};

// DeviceSelector::select_names() over a sample: the kernel names selected,
// in display order.
std::vector<std::string> select_kernel_names(DeviceSelector& selector, const Sample& sample,
                                             const std::vector<std::uint64_t>& activity);

}  // namespace iotally::cli
