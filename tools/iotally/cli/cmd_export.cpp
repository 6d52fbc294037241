// SPDX-License-Identifier: GPL-2.0-or-later
// iotally export: one exposition of all regions and histograms; into a
// node_exporter textfile directory in text format 0.0.4 (the only format its
// textfile collector reads), atomically.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>

#include "app.hpp"
#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/metrics/device_join.hpp"
#include "iotally/util/atomic_file.hpp"
#include "iotally/util/error.hpp"
#include "select_options.hpp"

namespace iotally::cli {
namespace {

// The selection of `report`, `top` and `serve`: over /sys/block's devices
// joined to device-mapper's list; the dm devices among those chosen (the
// others have no regions to export).
std::vector<std::string> selected_dm_names(Context& ctx, const SelectArgs& args) {
    const auto listed = ctx.layer().list_devices();
    std::vector<BlockDevice> blocks;
    try {
        blocks = read_block_devices({ctx.sysfs, false});
    } catch (const Error&) {
        // No /sys/block: device-mapper's devices alone, as before it.
    }
    const auto ids = join_device_ids(blocks, listed);
    std::vector<std::string> names;
    for (auto i : DeviceSelector(args, "device").select(ids, {}))
        if (ids[i].is_dm())
            names.push_back(ids[i].dm_name);
    return names;
}

}  // namespace

void register_export(Registry& r) {
    struct Args {
        std::vector<std::string> devices;
        bool openmetrics = false, prometheus = false, areas = false;
        std::string textfile_dir, name = "iotally.prom", program_id;
        SelectArgs select;
    };
    auto a = std::make_shared<Args>();
    auto* sub = r.app.add_subcommand(
        "export", "All regions and histograms as OpenMetrics or Prometheus text, once");
    sub->add_option("devices", a->devices, "dm devices, by dm or kernel name (default: all)")
        ->type_name("[DEVICE...]");
    add_select_options(*sub, a->select,
                       "Devices matching EXPR: "
                       "name=GLOB,target=TYPE,driver=GLOB,uuid=PREFIX,lv=VG/LV (repeatable)");
    auto* om = sub->add_flag("--openmetrics", a->openmetrics,
                             "OpenMetrics 1.0 text (default on standard output)");
    sub->add_flag("--prometheus", a->prometheus,
                  "Prometheus text format 0.0.4 (default with --textfile-dir)")
        ->excludes(om);
    sub->add_flag("--areas", a->areas, "One series per area instead of per region");
    sub->add_option("--textfile-dir", a->textfile_dir,
                    "Write atomically into this node_exporter textfile directory")
        ->type_name("DIR");
    sub->add_option("--name", a->name, "File name in --textfile-dir")->capture_default_str();
    sub->add_option("--program-id", a->program_id, "Only regions of this program_id")
        ->type_name("ID");
    Context& ctx = r.ctx;
    r.add(sub, [a, &ctx] {
        std::vector<std::string> devices = a->devices;
        bool none = false;
        if (!a->devices.empty() || !a->select.exprs.empty() || !a->select.mode.empty() ||
            a->select.max) {
            SelectArgs sa = a->select;
            sa.names = a->devices;
            devices = selected_dm_names(ctx, sa);
            none = devices.empty();  // take({}) would mean every device
        }
        Snapshot snap;
        if (!none) {
            Snapshotter snapshotter(ctx.layer(), ctx.clock);
            snap = snapshotter.take(
                devices, a->program_id.empty() ? std::nullopt : std::optional(a->program_id));
        }
        ExportOptions opt;
        // node_exporter's textfile collector reads text 0.0.4 only.
        const bool text = a->prometheus || (!a->textfile_dir.empty() && !a->openmetrics);
        opt.format = text ? ExpositionFormat::prometheus : ExpositionFormat::openmetrics;
        opt.areas = a->areas;
        std::string out = render_exposition(snap, opt);
        if (a->textfile_dir.empty())
            *ctx.out << out;
        else
            write_file_atomically(a->textfile_dir, a->name, out);
    });
}

}  // namespace iotally::cli
