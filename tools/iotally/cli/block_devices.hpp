// SPDX-License-Identifier: GPL-2.0-or-later
// Every block device with its regions, sampled together and joined once,
// and the devstat(3) selection over them: what 'report' and 'top' show.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app.hpp"
#include "iotally/metrics/device_join.hpp"
#include "iotally/metrics/report.hpp"
#include "iotally/metrics/selection.hpp"

namespace iotally::cli {

// Moves but never copies: `devices` points into `disks` and `dm`.
struct Sample {
    Sample() = default;
    Sample(Sample&&) = default;
    Sample& operator=(Sample&&) = default;
    Sample(const Sample&) = delete;
    Sample& operator=(const Sample&) = delete;

    std::int64_t unix_ns = 0;  // wall clock, for the timestamps
    DiskSample disks;
    std::optional<Snapshot> dm;  // absent without device-mapper or regions wanted
    // Each block device of `disks` (in its order) joined to device-mapper's
    // side (join_devices()): what selection matches against and every row
    // is labelled with.
    std::vector<JoinedDevice> devices;
    // The identities of `devices`, in their order (what DeviceSelector takes).
    std::vector<DeviceId> ids() const;
};

struct SampleOptions {
    bool partitions = false;
    bool regions = true;  // also the dm-stats regions of device-mapper devices
    std::optional<std::string> program_id;
    // Device-mapper refused for want of privilege: an error (top), instead
    // of a warning and device rows only (report).
    bool dm_permission_fatal = false;
};

// Takes successive samples; regions are left out (with a warning when it is
// for want of privilege) where device-mapper is not there or not allowed,
// and come in at the sample after device-mapper appears.
class Sampler {
  public:
    Sampler(Context& ctx, SampleOptions options) : ctx_(ctx), options_(std::move(options)) {}
    Sample take();

  private:
    void join_identities(Sample& s);

    Context& ctx_;
    SampleOptions options_;
    std::optional<Snapshotter> snapshotter_;
    bool dm_unavailable_ = false;
};

// DeviceSelector::select() over a sample: the devices selected, in display
// order (activity: empty, or one per device of the sample).
std::vector<const JoinedDevice*> select_sampled(DeviceSelector& selector, const Sample& sample,
                                                std::span<const std::uint64_t> activity);

}  // namespace iotally::cli
