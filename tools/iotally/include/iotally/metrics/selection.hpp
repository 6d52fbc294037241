// SPDX-License-Identifier: GPL-2.0-or-later
// devstat_buildmatch() and devstat_selectdevs() adapted to device-mapper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/dm-stats/device.hpp"

namespace iotally {

// One match expression: comma-separated terms that must all hold. devstat's
// "type,interface,passthrough" terms mapped to Linux:
//   name=GLOB      kernel name (dm-0, sda) or device-mapper name (fnmatch)
//   target=TYPE    any target of the dm table has this type (linear, delay...)
//   driver=GLOB    the disk's bound driver (virtio_blk, nvme, sd...)
//   uuid=PREFIX    dm uuid starts with PREFIX (LVM-, CRYPT-...), or a GLOB
//   lv=VG/LV       an LVM logical volume, both parts globs (dm name vg-lv)
// A bare word is a name glob. Several expressions are alternatives.
struct MatchTerm {
    enum class Kind { name, target, uuid_prefix, driver, lv };
    Kind kind;
    std::string pattern;
    bool operator==(const MatchTerm&) const = default;
};
struct MatchExpr {
    std::vector<MatchTerm> terms;
    bool operator==(const MatchExpr&) const = default;
};

MatchExpr build_match(std::string_view text);  // throws Error(usage)
bool matches(const MatchExpr& expr, const DeviceId& device);
bool glob_match(std::string_view pattern, std::string_view text);

enum class SelectMode { add, only, remove, add_only };

struct SelectionEntry {
    std::string device;
    bool selected = false;
    std::uint64_t activity = 0;  // e.g. bytes in the last interval
};

// The selection persists between calls, like devstat's dev_select array.
struct SelectionState {
    std::uint64_t generation = 0;
    bool initialized = false;
    std::vector<SelectionEntry> entries;  // in device-list order
};

struct SelectRequest {
    std::vector<std::string> names;  // selected by name, first priority
    std::vector<MatchExpr> matches;  // then by pattern
    SelectMode mode = SelectMode::add;
    std::size_t max_count = SIZE_MAX;
    bool by_activity = false;  // "top" mode
};

// Returns the selected device names, most active first in top mode.
// `activity` is parallel to `devices`. `changed` reports whether the
// selection differs from the previous call's. With no name and no pattern in
// top mode every device is a candidate, but never more than max_count are
// returned (devstat's documented bug, fixed).
std::vector<std::string> select_devices(SelectionState& state, std::uint64_t generation,
                                        std::span<const DeviceId> devices,
                                        std::span<const std::uint64_t> activity,
                                        const SelectRequest& request, bool* changed = nullptr);
// The same choice as positions in `devices`, in the same order.
std::vector<std::size_t> select_device_indices(SelectionState& state, std::uint64_t generation,
                                               std::span<const DeviceId> devices,
                                               std::span<const std::uint64_t> activity,
                                               const SelectRequest& request,
                                               bool* changed = nullptr);

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
    // The devices selected from `ids` (activity: empty, or one per
    // device), by their names (dm names for dm devices), in display order. A
    // name or an expression that matches no device throws Error(no_device).
    // With `missing`, names that match no device are put there instead of
    // thrown, and an expression may match nothing: devices come and go while
    // a server runs.
    std::vector<std::string> select_names(std::span<const DeviceId> ids,
                                          std::span<const std::uint64_t> activity,
                                          std::vector<std::string>* missing = nullptr);
    // The same choice as positions in `ids`: what a caller that holds the
    // devices uses, so that it never looks one up again by name.
    std::vector<std::size_t> select(std::span<const DeviceId> ids,
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

}  // namespace iotally
