// SPDX-License-Identifier: GPL-2.0-or-later
// iotally export: OpenMetrics for Prometheus, atomically into a textfile dir.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>

#include "app.hpp"
#include "iotally/atomic_file.hpp"
#include "iotally/error.hpp"
#include "iotally/openmetrics.hpp"
#include "iotally/snapshot.hpp"

namespace iotally::cli {

void register_export(Registry& r) {
    struct Args {
        std::vector<std::string> devices;
        bool openmetrics = false, prometheus = false, areas = false;
        std::string textfile_dir, name = "iotally.prom", program_id;
    };
    auto a = std::make_shared<Args>();
    auto* sub = r.app.add_subcommand(
        "export", "All regions and histograms as OpenMetrics (or Prometheus) text");
    sub->add_option("devices", a->devices, "Devices (default: all)");
    auto* om = sub->add_flag("--openmetrics", a->openmetrics, "OpenMetrics 1.0 text (default)");
    sub->add_flag("--prometheus", a->prometheus, "Prometheus text format 0.0.4")->excludes(om);
    sub->add_flag("--areas", a->areas, "One series per area instead of per region");
    sub->add_option("--textfile-dir", a->textfile_dir,
                    "Write atomically into this node_exporter textfile directory");
    sub->add_option("--name", a->name, "File name in --textfile-dir")->capture_default_str();
    sub->add_option("--program-id", a->program_id, "Only regions of this program_id");
    Context& ctx = r.ctx;
    r.add(sub, [a, &ctx] {
        Snapshotter snapshotter(ctx.layer(), ctx.clock);
        auto snap = snapshotter.take(
            a->devices, a->program_id.empty() ? std::nullopt : std::optional(a->program_id));
        ExportOptions opt;
        opt.format = a->prometheus ? ExpositionFormat::prometheus : ExpositionFormat::openmetrics;
        opt.areas = a->areas;
        std::string text = render_exposition(snap, opt);
        if (a->textfile_dir.empty())
            *ctx.out << text;
        else
            write_file_atomically(a->textfile_dir, a->name, text);
    });
}

}  // namespace iotally::cli
