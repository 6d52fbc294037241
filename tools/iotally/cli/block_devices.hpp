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
    // Throws Error(usage). `kind` names the devices in messages.
    explicit DeviceSelector(const SelectArgs& args, std::string kind = "block device");
    // The kernel names selected in this sample, in display order. A name or
    // an expression that matches no device throws Error(no_device).
    std::vector<std::string> select(const Sample& sample,
                                    const std::vector<std::uint64_t>& activity);
    // The same over any device list (activity: empty, or one per device),
    // returning the devices' names (dm names for dm devices). With `missing`,
    // names that match no device are put there instead of thrown, and an
    // expression may match nothing: devices come and go while a server runs.
    std::vector<std::string> select_names(std::span<const DeviceInfo> infos,
                                          std::span<const std::uint64_t> activity,
                                          std::vector<std::string>* missing = nullptr);

  private:
    SelectArgs args_;
    std::string kind_;
    SelectRequest request_;
    SelectionState state_;
    std::uint64_t generation_ = 0;
    std::vector<std::string> last_names_;
};

SelectMode parse_select_mode(const std::string& text);

}  // namespace iotally::cli
