// SPDX-License-Identifier: GPL-2.0-or-later
#include "block_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

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
    for (const auto& d : s.disks.devices) {
        DeviceInfo info;
        info.name = d.dm_name ? *d.dm_name : d.name;
        info.uuid = d.dm_uuid.value_or("");
        info.major = d.major;
        info.minor = d.minor;
        info.size_sectors = d.size_sectors;
        info.kernel_name = d.name;
        info.driver = d.driver;
        if (s.dm)
            for (const auto& dev : s.dm->devices)
                if (dev.info.major == d.major && dev.info.minor == d.minor)
                    info.target_types = dev.info.target_types;
        s.infos.push_back(std::move(info));
    }
    if (s.dm)
        for (const auto& dev : s.dm->devices)
            for (const auto& w : dev.warnings)
                *ctx_.err << "iotally: warning: " << w << "\n";
    return s;
}

SelectMode parse_select_mode(const std::string& text) {
    if (text == "add")
        return SelectMode::add;
    if (text == "only")
        return SelectMode::only;
    if (text == "remove")
        return SelectMode::remove;
    if (text == "add-only")
        return SelectMode::add_only;
    throw Error(ErrorKind::usage,
                fmt::format("unknown selection mode '{}' (use add, only, remove, add-only)", text));
}

DeviceSelector::DeviceSelector(const SelectArgs& args, std::string kind)
    : args_(args), kind_(std::move(kind)) {
    for (const auto& e : args.exprs)
        request_.matches.push_back(build_match(e));
    const bool named = !args.names.empty() || !args.exprs.empty();
    request_.mode = args.mode.empty() ? (named ? SelectMode::only : SelectMode::add)
                                      : parse_select_mode(args.mode);
    if (args.max)
        request_.max_count = args.max;
    if (args.top) {
        request_.by_activity = true;
        request_.max_count = std::min(request_.max_count, args.top);
    }
}

std::vector<std::string> DeviceSelector::select(const Sample& sample,
                                                const std::vector<std::uint64_t>& activity) {
    auto chosen = select_names(sample.infos, activity);
    std::vector<std::string> out;
    for (const auto& c : chosen)
        for (const auto& d : sample.infos)
            if (d.name == c)
                out.push_back(d.kernel_name);
    return out;
}

std::vector<std::string> DeviceSelector::select_names(std::span<const DeviceInfo> infos,
                                                      std::span<const std::uint64_t> activity,
                                                      std::vector<std::string>* missing) {
    // Names may be kernel names (dm-0) or dm names (vol): devstat selects by
    // the list's names, which are the dm names for dm devices.
    request_.names.clear();
    for (const auto& n : args_.names) {
        auto it = std::find_if(infos.begin(), infos.end(), [&](const DeviceInfo& d) {
            return d.name == n || d.kernel_name == n;
        });
        if (it != infos.end())
            request_.names.push_back(it->name);
        else if (missing)
            missing->push_back(n);
        else
            throw Error(ErrorKind::no_device, fmt::format("{}: no such {}", n, kind_));
    }
    if (!missing)
        for (std::size_t i = 0; i < request_.matches.size(); ++i)
            if (std::none_of(infos.begin(), infos.end(),
                             [&](const DeviceInfo& d) { return matches(request_.matches[i], d); }))
                throw Error(ErrorKind::no_device,
                            fmt::format("--select '{}' matches no {}", args_.exprs[i], kind_));
    std::vector<std::string> names;
    for (const auto& d : infos)
        names.push_back(d.name);
    if (names != last_names_) {
        ++generation_;  // a device came or went: devstat's generation
        last_names_ = names;
    }
    if (request_.mode == SelectMode::remove && !state_.initialized) {
        // devstat removes from the current selection; on the command line
        // there is none yet, so "remove" means every device but these.
        SelectRequest all;
        all.max_count = SIZE_MAX;
        select_devices(state_, generation_, infos, activity, all);
    }
    return select_devices(state_, generation_, infos, activity, request_);
}

}  // namespace iotally::cli
