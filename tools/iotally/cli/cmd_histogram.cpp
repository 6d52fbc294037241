// SPDX-License-Identifier: GPL-2.0-or-later
// iotally histogram DEV REGION: a quantize()-style latency distribution.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/dm-stats/histogram.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"
#include "output.hpp"

namespace iotally::cli {
namespace {

struct HistArgs {
    std::string device;
    std::string id_text;
    std::uint64_t id = 0;
    std::optional<std::uint64_t> area;
    bool group = false;
    std::string interval;
};

Histogram histogram_of(const Snapshot& snap, const HistArgs& a) {
    const DeviceSnapshot& d = snap.devices.front();
    auto region_hist = [&](const Region& r) {
        if (r.histogram_bounds_ns.empty())
            throw Error(ErrorKind::usage,
                        fmt::format("{}: region {} has no histogram (create it with --histogram)",
                                    d.id.dm_name, r.id));
        if (a.area) {
            if (*a.area >= r.areas.size())
                throw Error(ErrorKind::usage,
                            fmt::format("{}: region {} has {} areas, no area {}", d.id.dm_name,
                                        r.id, r.areas.size(), *a.area));
            return Histogram{r.histogram_bounds_ns, r.areas[*a.area].histogram};
        }
        return Histogram{r.histogram_bounds_ns, r.histogram_total()};
    };
    if (!a.group) {
        const Region* r = d.find_region(a.id);
        if (!r)
            throw Error(ErrorKind::no_region,
                        fmt::format("region {} does not exist on {}", a.id, d.id.dm_name));
        return region_hist(*r);
    }
    for (const auto& g : d.groups) {
        if (g.id != a.id)
            continue;
        Histogram sum;
        for (auto id : g.members) {
            const Region* r = d.find_region(id);
            if (!r)
                continue;
            Histogram h = region_hist(*r);
            if (sum.counts.empty())
                sum = h;
            else if (sum.bounds_ns != h.bounds_ns)
                throw Error(ErrorKind::usage, fmt::format("{}: group {} mixes histogram boundaries",
                                                          d.id.dm_name, g.id));
            else
                for (std::size_t i = 0; i < h.counts.size(); ++i)
                    sum.counts[i] += h.counts[i];
        }
        return sum;
    }
    throw Error(ErrorKind::no_region,
                fmt::format("group {} does not exist on {}", a.id, d.id.dm_name));
}

}  // namespace

void register_histogram(Registry& r) {
    auto a = std::make_shared<HistArgs>();
    auto* sub = r.app.add_subcommand("histogram", "Latency distribution of a region or group");
    sub->add_option("device", a->device, "Device-mapper device")->required();
    sub->add_option("region", a->id_text, "Region id (group id with --group)")
        ->type_name("ID")
        ->required();
    sub->add_option("--area", a->area, "Only this area of the region");
    sub->add_flag("--group", a->group, "REGION is a dmstats group id");
    sub->add_option("-i,--interval", a->interval, "Only I/O completed during this interval")
        ->type_name("DURATION");
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [a, &ctx, &json] {
        a->id = parse_region_id(a->id_text);
        std::optional<double> interval;
        if (!a->interval.empty())
            interval = parse_interval_s(a->interval);
        Snapshotter snapshotter(ctx.layer(), ctx.clock);
        Histogram h = histogram_of(snapshotter.take({a->device}), *a);
        if (interval) {
            ctx.sleep(*interval);
            Histogram later = histogram_of(snapshotter.take({a->device}), *a);
            h = histogram_delta(later, &h);
        }
        if (json) {
            nlohmann::json buckets = nlohmann::json::array();
            for (std::size_t i = 0; i < h.counts.size(); ++i) {
                auto up = h.upper_ns(i);
                buckets.push_back({{"lower_ns", h.lower_ns(i)},
                                   {"upper_ns", up ? nlohmann::json(*up) : nlohmann::json(nullptr)},
                                   {"count", h.counts[i]}});
            }
            nlohmann::json pct = nlohmann::json::object();
            for (double p : {50.0, 90.0, 99.0}) {
                auto e = estimate_percentile(h, p);
                pct[fmt::format("p{}", p)] =
                    e ? nlohmann::json{{"estimate_ns", e->estimate_ns},
                                       {"lower_ns", e->lower_ns},
                                       {"upper_ns", e->upper_ns ? nlohmann::json(*e->upper_ns)
                                                                : nlohmann::json(nullptr)}}
                      : nlohmann::json(nullptr);
            }
            *ctx.out << stamped("histogram", {{"device", a->device},
                                              {a->group ? "group_id" : "region_id", a->id},
                                              {"total", h.total()},
                                              {"buckets", buckets},
                                              {"percentiles", pct}})
                            .dump()
                     << "\n";
            return;
        }
        *ctx.out << fmt::format("{} {} {}: {} I/Os\n\n", a->device, a->group ? "group" : "region",
                                a->id, h.total())
                 << render_quantize(h);
    });
}

}  // namespace iotally::cli
