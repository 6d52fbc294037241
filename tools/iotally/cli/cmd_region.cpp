// SPDX-License-Identifier: GPL-2.0-or-later
// create, delete, clear, list, print, set-aux.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/dm-stats/clock_tick.hpp"
#include "iotally/dm-stats/dmstats_counters.hpp"
#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"
#include "output.hpp"

namespace iotally::cli {
namespace {

// Histogram boundaries in the region's unit. A region without
// precise_timestamps measures whole jiffies, so a histogram uses precise
// timestamps unless --no-precise says otherwise, and then no boundary may be
// finer than the tick: its buckets would only split jiffies.
std::vector<std::uint64_t> histogram_bounds(const std::string& text, bool precise) {
    if (text.empty())
        return {};
    if (auto native = parse_native_histogram(text)) {
        if (!precise)
            throw Error(
                ErrorKind::usage,
                fmt::format("--histogram {} needs precise timestamps: drop --no-precise", text));
        return *native;
    }
    auto ns = parse_duration_list_ns(text);
    if (precise)
        return ns;
    const ClockTick tick = clock_tick();
    for (auto v : ns)
        if (v % ns_per_ms || v < tick.ns)
            throw Error(ErrorKind::usage,
                        fmt::format("histogram boundary {} is finer than the {} ms clock tick "
                                    "that a region without precise_timestamps counts in ({}); "
                                    "drop --no-precise",
                                    format_duration_ns(v), tick.ns / ns_per_ms, tick.source));
    for (auto& v : ns)
        v = ns_to_region_time(v, false);
    return ns;
}

struct CreateArgs {
    std::string device;
    std::string start, length, area_size, histogram, program_id{default_program_id}, aux, file,
        alias;
    std::uint32_t areas = 0;
    bool precise = false, no_precise = false;
};

void do_create(Context& ctx, bool json, const CreateArgs& a) {
    const bool precise = a.precise || (!a.histogram.empty() && !a.no_precise);
    auto bounds = histogram_bounds(a.histogram, precise);
    if (!a.file.empty()) {
        if (!a.start.empty() || !a.length.empty() || a.areas || !a.area_size.empty())
            throw Error(ErrorKind::usage,
                        "--file maps the file's extents: --start, --length, --areas and "
                        "--area-size do not apply");
        FileMapOptions opt;
        opt.alias = a.alias;
        opt.precise_timestamps = precise;
        opt.histogram = bounds;
        if (a.program_id != default_program_id)
            opt.program_id = a.program_id;
        std::string device = a.device.empty() ? device_for_file(ctx, a.file) : a.device;
        create_file_map(ctx, json, a.file, device, opt);
        return;
    }
    if (a.device.empty())
        throw Error(ErrorKind::usage, "create needs a device (or --file PATH)");
    if (!a.alias.empty())
        throw Error(ErrorKind::usage, "--alias applies to --file only");
    CreateRequest req;
    req.precise_timestamps = precise;
    req.histogram = bounds;
    req.program_id = a.program_id;
    req.aux_data = a.aux;
    std::optional<SectorRange> range;
    if (!a.start.empty() || !a.length.empty()) {
        range = SectorRange{a.start.empty() ? 0 : parse_sectors(a.start),
                            a.length.empty() ? 0 : parse_sectors(a.length)};
        if (!a.length.empty() && range->length == 0)
            throw Error(ErrorKind::usage, "--length must be greater than zero");
    }
    if (a.areas)
        req.step = AreaCount{a.areas};
    else if (!a.area_size.empty())
        req.step = AreaSize{parse_sectors(a.area_size)};
    // Everything the user gave is checked before the kernel is asked.
    req.range =
        range ? std::optional(SectorRange{range->start, std::max<std::uint64_t>(range->length, 1)})
              : std::nullopt;
    validate(req);
    if (range) {
        // The kernel accepts a region past the end of the device (it would
        // never count anything there): refuse it.
        const std::uint64_t size = ctx.layer().device(a.device).size_sectors;
        if (range->start >= size)
            throw Error(ErrorKind::usage,
                        fmt::format("--start {} is beyond the end of {} ({} sectors)", a.start,
                                    a.device, size));
        if (a.length.empty())
            range->length = size - range->start;
        else if (range->length > size - range->start)
            throw Error(ErrorKind::usage,
                        fmt::format("--start {} --length {} goes beyond the end of {} ({} sectors)",
                                    a.start.empty() ? "0" : a.start, a.length, a.device, size));
        req.range = range;
    }
    StatsClient client(ctx.layer(), a.device);
    std::uint64_t id = client.create(req);
    if (json)
        *ctx.out << stamped("create", {{"device", a.device}, {"region_id", id}}).dump() << "\n";
    else
        *ctx.out << id << "\n";
}

// Checks that every id exists before anything changes.
DeviceSnapshot listed_device(Context& ctx, const std::string& device,
                             const std::vector<std::uint64_t>& ids) {
    StatsClient client(ctx.layer(), device);
    DeviceSnapshot d;
    d.id.dm_name = device;
    for (const auto& e : client.list(std::nullopt))
        d.regions.push_back(listed_region(e));
    std::sort(d.regions.begin(), d.regions.end(),
              [](const Region& a, const Region& b) { return a.id < b.id; });
    resolve_groups(d);
    for (auto id : ids)
        if (!d.find_region(id))
            throw Error(ErrorKind::no_region,
                        fmt::format("region {} does not exist on {}", id, device));
    return d;
}

void do_delete(Context& ctx, bool json, const std::string& device,
               const std::vector<std::string>& id_texts, bool all,
               const std::optional<std::string>& program_id) {
    std::vector<std::uint64_t> ids;
    for (const auto& t : id_texts)
        ids.push_back(parse_region_id(t));
    if (all == !ids.empty())
        throw Error(ErrorKind::usage, "give region ids or --all, not both");
    auto d = listed_device(ctx, device, ids);
    if (all)
        for (const auto& r : d.regions)
            if (!program_id || r.program_id == *program_id)
                ids.push_back(r.id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());

    StatsClient client(ctx.layer(), device);
    // Members leave their group first (as lvm2 does); a deleted leader takes
    // the group with it.
    for (const auto& g : d.groups) {
        if (std::binary_search(ids.begin(), ids.end(), g.id))
            continue;
        std::vector<std::uint64_t> left;
        for (auto m : g.members)
            if (!std::binary_search(ids.begin(), ids.end(), m))
                left.push_back(m);
        if (left.size() == g.members.size())
            continue;
        auto tag = parse_group_tag(d.find_region(g.id)->aux_data);
        tag->members = left;
        client.set_aux(g.id, format_group_aux(*tag));
    }
    for (auto id : ids)
        client.remove(id);
    if (json)
        *ctx.out << stamped("delete", {{"device", device}, {"deleted", ids}}).dump() << "\n";
}

void do_list(Context& ctx, bool json, const std::vector<std::string>& devices,
             const std::optional<std::string>& program_id) {
    Snapshotter snapshotter(ctx.layer(), ctx.clock);
    Snapshot snap = snapshotter.take(devices, program_id);
    if (json) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& d : snap.devices) {
            nlohmann::json regions = nlohmann::json::array();
            for (const auto& r : d.regions) {
                std::vector<std::uint64_t> bounds = r.histogram_bounds_ns;
                regions.push_back({{"region_id", r.id},
                                   {"start_sector", r.start},
                                   {"length_sectors", r.length},
                                   {"area_sectors", r.step},
                                   {"areas", r.area_count()},
                                   {"program_id", r.program_id},
                                   {"aux_data", r.user_aux},
                                   {"precise_timestamps", r.precise_timestamps},
                                   {"histogram_bounds_ns", bounds},
                                   {"group_id", r.group_id ? nlohmann::json(*r.group_id)
                                                           : nlohmann::json(nullptr)}});
            }
            nlohmann::json groups = nlohmann::json::array();
            for (const auto& g : d.groups)
                groups.push_back({{"group_id", g.id}, {"alias", g.alias}, {"members", g.members}});
            j.push_back({{"device", d.id.dm_name},
                         {"uuid", d.id.dm_uuid},
                         {"regions", regions},
                         {"groups", groups},
                         {"warnings", d.warnings}});
        }
        *ctx.out << stamped("list", {{"devices", j}}).dump() << "\n";
        return;
    }
    Table t({"<DEVICE", "ID", "START", "LENGTH", "STEP", "AREAS", "<PROGRAM_ID", "<GROUP",
             "<PRECISE", "<HISTOGRAM", "<AUX_DATA"});
    for (const auto& d : snap.devices) {
        for (const auto& r : d.regions) {
            std::string group = "-";
            if (r.group_id)
                for (const auto& g : d.groups)
                    if (g.id == *r.group_id)
                        group = fmt::format("{}:{}", g.id, g.alias.empty() ? "-" : g.alias);
            std::vector<std::string> bounds;
            for (auto b : r.histogram_bounds_ns)
                bounds.push_back(format_duration_ns(b));
            t.add({d.id.dm_name, std::to_string(r.id), std::to_string(r.start),
                   std::to_string(r.length), std::to_string(r.step), std::to_string(r.area_count()),
                   r.program_id, group, r.precise_timestamps ? "yes" : "no",
                   bounds.empty() ? "-" : fmt::format("{}", fmt::join(bounds, ",")),
                   r.user_aux.empty() ? "-" : r.user_aux});
        }
        for (const auto& w : d.warnings)
            *ctx.err << "iotally: warning: " << w << "\n";
    }
    if (!t.empty())
        *ctx.out << t.render();
}

void do_print(Context& ctx, bool json, const std::string& device, const std::string& id_text,
              bool clear, std::optional<std::uint64_t> first, std::optional<std::uint64_t> count) {
    std::uint64_t id = parse_region_id(id_text);
    std::optional<LineRange> lines;
    if (first || count)
        lines = LineRange{first.value_or(0), count.value_or(UINT32_MAX)};
    StatsClient client(ctx.layer(), device);
    // "region 9 does not exist on vol", not an errno; and the time unit.
    const bool precise = listed_device(ctx, device, {id}).find_region(id)->precise_timestamps;
    if (!json) {
        // As the kernel printed it.
        std::string reply = client.message(build_print(id, lines, clear));
        *ctx.out << reply;
        return;
    }
    auto parsed = client.print(id, clear, lines);
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : parsed) {
        nlohmann::json area = {{"start_sector", p.start}, {"length_sectors", p.step}};
        for (const auto& f : dmstats_counters)
            area[std::string(f.json_key)] =
                f.raw ? nlohmann::json(p.counters.*f.raw) : nlohmann::json(p.counters.in_flight);
        area["histogram"] = p.histogram;
        j.push_back(std::move(area));
    }
    // The counters as the kernel prints them: times in ns for a region with
    // precise_timestamps, in ms (counted in jiffies) for the others.
    const auto unit = region_time_unit(precise);
    *ctx.out << stamped("print", {{"device", device},
                                  {"region_id", id},
                                  {"time_unit", unit.unit},
                                  {"time_resolution", unit.resolution},
                                  {"areas", j}})
                    .dump()
             << "\n";
}

void do_set_aux(Context& ctx, bool json, const std::string& device, const std::string& id_text,
                const std::string& text, bool raw) {
    std::uint64_t id = parse_region_id(id_text);
    auto d = listed_device(ctx, device, {id});
    std::string aux = text;
    // A group leader keeps its DMS_GROUP tag; only the user part changes.
    if (!raw) {
        if (auto tag = parse_group_tag(d.find_region(id)->aux_data)) {
            tag->user_aux = text == "-" ? "" : text;
            aux = format_group_aux(*tag);
        }
    }
    StatsClient(ctx.layer(), device).set_aux(id, aux);
    if (json)
        *ctx.out
            << stamped("set-aux", {{"device", device}, {"region_id", id}, {"aux_data", aux}}).dump()
            << "\n";
}

void do_clear(Context& ctx, bool json, const std::string& device,
              const std::vector<std::string>& id_texts) {
    std::vector<std::uint64_t> ids;
    for (const auto& t : id_texts)
        ids.push_back(parse_region_id(t));
    listed_device(ctx, device, ids);
    StatsClient client(ctx.layer(), device);
    for (auto id : ids)
        client.clear(id);
    if (json)
        *ctx.out << stamped("clear", {{"device", device}, {"cleared", ids}}).dump() << "\n";
}

void register_create(Registry& r) {
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto ca = std::make_shared<CreateArgs>();
    auto* create = r.app.add_subcommand("create", "Create a statistics region (prints its id)");
    create->add_option("device", ca->device, "Device-mapper device (optional with --file)");
    create->add_option("--start", ca->start, "First sector (units: s, b, k, m, g, t)");
    create->add_option("--length", ca->length, "Length (default: to the end of the device)");
    auto* areas = create->add_option("--areas", ca->areas, "Split into N areas")
                      ->check(CLI::Range(1u, 0x7fffffffu));
    create->add_option("--area-size", ca->area_size, "Split into areas of SIZE")->excludes(areas);
    create->add_option("--histogram", ca->histogram,
                       "Latency histogram boundaries, e.g. 1ms,5ms,20ms (units: ns, us, ms, s), or "
                       "native[:SCHEMA]: 2^(k/2^SCHEMA) s from 2^-20 to 2^6 s, SCHEMA 0-4");
    auto* precise = create->add_flag(
        "--precise", ca->precise,
        "Nanosecond timestamps (precise_timestamps; the default with --histogram)");
    create
        ->add_flag("--no-precise", ca->no_precise,
                   "With --histogram: jiffies timestamps, boundaries no finer than the tick")
        ->excludes(precise);
    create->add_option("--program-id", ca->program_id, "program_id of the region")
        ->capture_default_str();
    create->add_option("--aux", ca->aux, "aux_data of the region");
    create->add_option("--file", ca->file,
                       "Map a file: one region per extent, grouped under the file's name");
    create->add_option("--alias", ca->alias, "Group alias for --file (default: the file name)");
    r.add(create, [ca, &ctx, &json] { do_create(ctx, json, *ca); });
}

void register_delete(Registry& r) {
    struct DeleteArgs {
        std::string device;
        std::vector<std::string> ids;
        bool all = false;
        std::string program_id;
    };
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto da = std::make_shared<DeleteArgs>();
    auto* del = r.app.add_subcommand("delete", "Delete regions (group tags are kept consistent)");
    del->add_option("device", da->device, "Device-mapper device")->required();
    del->add_option("ids", da->ids, "Region ids");
    del->add_flag("--all", da->all, "Delete every region (of --program-id, if given)");
    del->add_option("--program-id", da->program_id, "With --all: only this program's regions");
    r.add(del, [da, &ctx, &json] {
        do_delete(ctx, json, da->device, da->ids, da->all,
                  da->program_id.empty() ? std::nullopt : std::optional(da->program_id));
    });
}

void register_clear(Registry& r) {
    struct ClearArgs {
        std::string device;
        std::vector<std::string> ids;
    };
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto cla = std::make_shared<ClearArgs>();
    auto* clear = r.app.add_subcommand("clear", "Zero the counters of regions (not in-flight)");
    clear->add_option("device", cla->device, "Device-mapper device")->required();
    clear->add_option("ids", cla->ids, "Region ids")->required();
    r.add(clear, [cla, &ctx, &json] { do_clear(ctx, json, cla->device, cla->ids); });
}

void register_list(Registry& r) {
    struct ListArgs {
        std::vector<std::string> devices;
        std::string program_id;
    };
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto la = std::make_shared<ListArgs>();
    auto* list = r.app.add_subcommand("list", "List regions and dmstats groups");
    list->add_option("devices", la->devices, "Devices (default: all)");
    list->add_option("--program-id", la->program_id, "Only regions of this program_id");
    r.add(list, [la, &ctx, &json] {
        do_list(ctx, json, la->devices,
                la->program_id.empty() ? std::nullopt : std::optional(la->program_id));
    });
}

void register_print(Registry& r) {
    struct PrintArgs {
        std::string device, id;
        bool clear = false;
        std::optional<std::uint64_t> first, count;
    };
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto pa = std::make_shared<PrintArgs>();
    auto* print = r.app.add_subcommand("print", "Print a region's counters as the kernel does");
    print->add_option("device", pa->device, "Device-mapper device")->required();
    print->add_option("id", pa->id, "Region id")->required();
    print->add_flag("--clear", pa->clear, "Clear the counters after printing (@stats_print_clear)");
    print->add_option("--first", pa->first, "First area to print");
    print->add_option("--count", pa->count, "Number of areas to print");
    r.add(print, [pa, &ctx, &json] {
        do_print(ctx, json, pa->device, pa->id, pa->clear, pa->first, pa->count);
    });
}

void register_set_aux(Registry& r) {
    struct AuxArgs {
        std::string device, id, text;
        bool raw = false;
    };
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto aa = std::make_shared<AuxArgs>();
    auto* aux = r.app.add_subcommand("set-aux", "Set a region's aux_data");
    aux->add_option("device", aa->device, "Device-mapper device")->required();
    aux->add_option("id", aa->id, "Region id")->required();
    aux->add_option("text", aa->text, "The new aux_data ('-' for none)")->required();
    aux->add_flag("--raw", aa->raw, "Replace a DMS_GROUP tag too (default: keep it)");
    r.add(aux, [aa, &ctx, &json] { do_set_aux(ctx, json, aa->device, aa->id, aa->text, aa->raw); });
}

}  // namespace

// create, delete, clear, list, print and set-aux: the region's life.
void register_region(Registry& r) {
    register_create(r);
    register_delete(r);
    register_clear(r);
    register_list(r);
    register_print(r);
    register_set_aux(r);
}

}  // namespace iotally::cli
