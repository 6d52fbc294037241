// SPDX-License-Identifier: GPL-2.0-or-later
// Every block device with its regions, sampled together, and the devstat(3)
// selection over them: what 'report' and 'top' show.
#pragma once

#include <cstdint>
#include <optional>
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
    // Parallel to disks.devices: what selection matches against (the dm name
    // and targets for dm devices, the kernel name otherwise).
    std::vector<DeviceInfo> infos;
};

struct SampleOptions {
    bool partitions = false;
    bool regions = true;  // also the dm-stats regions of device-mapper devices
    std::optional<std::string> program_id;
};

// Takes successive samples; regions are left out (with a warning when it is
// for want of privilege) where device-mapper is not there or not allowed.
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

// What the user asked for, devstat-style: device names (kernel or dm),
// match expressions, a mode, maxshowdevs, and perf_select ("top").
struct SelectArgs {
    std::vector<std::string> names;
    std::vector<std::string> exprs;
    std::string mode;     // add, only, remove, add-only ("" = only when anything is named)
    std::size_t max = 0;  // 0 = no limit
    std::size_t top = 0;  // 0 = no activity ordering
};

class DeviceSelector {
  public:
    explicit DeviceSelector(const SelectArgs& args);  // throws Error(usage)
    // The kernel names selected in this sample, in display order. A name or
    // an expression that matches no device throws Error(no_device).
    std::vector<std::string> select(const Sample& sample,
                                    const std::vector<std::uint64_t>& activity);

  private:
    SelectArgs args_;
    SelectRequest request_;
    SelectionState state_;
    std::uint64_t generation_ = 0;
    std::vector<std::string> last_names_;
};

SelectMode parse_select_mode(const std::string& text);

}  // namespace iotally::cli
