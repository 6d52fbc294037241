// SPDX-License-Identifier: GPL-2.0-or-later
// Files as regions: 'create --file' and 'update --file'.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/dm-stats/filemap.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

namespace iotally::cli {
namespace {

std::string base_name(const std::string& path) {
    auto end = path.find_last_not_of('/');
    if (end == std::string::npos)
        return path;
    auto slash = path.rfind('/', end);
    return path.substr(slash == std::string::npos ? 0 : slash + 1,
                       end - (slash == std::string::npos ? 0 : slash + 1) + 1);
}

std::string device_by_number(Context& ctx, std::uint32_t major, std::uint32_t minor,
                             const std::string& path) {
    for (const auto& d : ctx.layer().list_devices())
        if (d.major == major && d.minor == minor)
            return d.dm_name;
    throw Error(ErrorKind::no_device,
                fmt::format("{} is on device {}:{}, which is not a device-mapper device", path,
                            major, minor));
}

void print_ids(Context& ctx, bool json, const std::string& device, const std::string& path,
               const std::vector<std::uint64_t>& ids) {
    if (json) {
        *ctx.out << stamped("create", nlohmann::json{{"device", device},
                                                     {"file", path},
                                                     {"group_id", ids.front()},
                                                     {"region_ids", ids}})
                        .dump()
                 << "\n";
        return;
    }
    *ctx.out << fmt::format("{}: group {} of {} region{}: {}\n", device, ids.front(), ids.size(),
                            ids.size() == 1 ? "" : "s", format_id_list(ids));
}

// The file's extents, after checking that it lives on `device`.
FileInfo map_file_on(Context& ctx, const std::string& path, const std::string& device) {
    FileInfo info = map_file(path);
    DeviceId dev = ctx.layer().device(device);
    if (dev.major != info.dev_major || dev.minor != info.dev_minor)
        throw Error(ErrorKind::usage,
                    fmt::format("{} is on device {}:{}, not on {} ({}:{})", path, info.dev_major,
                                info.dev_minor, device, dev.major, dev.minor));
    return info;
}

}  // namespace

std::string device_for_file(Context& ctx, const std::string& path) {
    FileInfo info = stat_file(path);
    return device_by_number(ctx, info.dev_major, info.dev_minor, path);
}

void create_file_map(Context& ctx, bool json, const std::string& path, const std::string& device,
                     const FileMapOptions& options) {
    FileInfo info = map_file_on(ctx, path, device);
    FileMapOptions opt = options;
    if (opt.alias.empty())
        opt.alias = base_name(path);
    StatsClient client(ctx.layer(), device);
    auto ids = create_file_regions(client, extent_ranges(info.extents), opt);
    print_ids(ctx, json, device, path, ids);
}

void register_file(Registry& r) {
    struct Args {
        std::string file, device, alias;
        std::optional<std::uint64_t> group;
    };
    auto a = std::make_shared<Args>();
    auto* sub = r.app.add_subcommand(
        "update", "Re-map a file's group after the file grew or moved (dmstats update_filemap)");
    sub->add_option("--file", a->file, "The mapped file")->required();
    sub->add_option("device", a->device, "Device-mapper device (default: the file's)");
    sub->add_option("--group", a->group, "Group id (default: the group named like the file)");
    sub->add_option("--alias", a->alias, "Group alias to look for (default: the file name)");
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [a, &ctx, &json] {
        std::string device = a->device.empty() ? device_for_file(ctx, a->file) : a->device;
        std::uint64_t group_id = 0;
        if (a->group) {
            group_id = *a->group;
        } else {
            const std::string alias = a->alias.empty() ? base_name(a->file) : a->alias;
            Snapshotter snapshotter(ctx.layer(), ctx.clock);
            auto snap = snapshotter.take({device});
            std::vector<std::uint64_t> found;
            for (const auto& g : snap.devices.front().groups)
                if (g.alias == alias)
                    found.push_back(g.id);
            if (found.empty())
                throw Error(ErrorKind::no_region,
                            fmt::format("{}: no group named '{}' (create one with 'iotally create "
                                        "--file')",
                                        device, alias));
            if (found.size() > 1)
                throw Error(ErrorKind::usage,
                            fmt::format("{}: {} groups are named '{}': choose one with --group",
                                        device, found.size(), alias));
            group_id = found.front();
        }
        FileInfo info = map_file_on(ctx, a->file, device);
        StatsClient client(ctx.layer(), device);
        auto ids = update_file_regions(client, group_id, extent_ranges(info.extents));
        print_ids(ctx, json, device, a->file, ids);
    });
}

}  // namespace iotally::cli
