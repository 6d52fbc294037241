// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/exporter.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/dmstats_counters.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

std::optional<LvmName> decode_lvm_name(const DeviceId& id) {
    if (!id.dm_uuid.starts_with("LVM-"))
        return std::nullopt;
    // Split at single dashes; "--" is a dash inside a name.
    std::vector<std::string> parts(1);
    const std::string& n = id.dm_name;
    for (std::size_t i = 0; i < n.size(); ++i) {
        if (n[i] != '-') {
            parts.back() += n[i];
        } else if (i + 1 < n.size() && n[i + 1] == '-') {
            parts.back() += '-';
            ++i;
        } else {
            parts.emplace_back();
        }
    }
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty())
        return std::nullopt;
    LvmName l{parts[0], parts[1], parts.size() == 3 ? parts[2] : std::string()};
    return l;
}

Labels device_labels(const DeviceId& id) {
    Labels l;
    l.add("device", id.kernel_name);
    if (!id.is_dm()) {
        // Not device-mapper (sda, vda, nvme0n1): only the kernel's names.
        l.add("major", id.major).add("minor", id.minor);
        return l;
    }
    l.add("dm_name", id.dm_name)
        .add("dm_uuid", id.dm_uuid)
        .add("major", id.major)
        .add("minor", id.minor);
    if (auto lvm = decode_lvm_name(id)) {
        l.add("vg", lvm->vg).add("lv", lvm->lv);
        if (!lvm->layer.empty())
            l.add("lv_layer", lvm->layer);
    }
    return l;
}

namespace {

// One series: a region, or one area of it.
struct Series {
    Labels labels;
    IoCounters counters;
    std::vector<std::uint64_t> histogram;
    const std::vector<std::uint64_t>* bounds_ns = nullptr;
    bool precise = false;
};

double seconds(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

Labels region_labels(const DeviceSnapshot& d, const Labels& device, const Region& r) {
    Labels l = device;
    l.add("region_id", r.id).add("program_id", r.program_id);
    if (r.group_id) {
        for (const auto& g : d.groups)
            if (g.id == *r.group_id)
                l.add("group_id", g.id).add("group_alias", g.alias);
    }
    return l;
}

}  // namespace

Labels region_labels(const DeviceSnapshot& device, const Region& region) {
    return region_labels(device, device_labels(device.id), region);
}

void write_region_families(ExpositionWriter& w, const Snapshot& snapshot, bool areas) {
    std::vector<Series> series;
    std::vector<std::pair<Labels, const Region*>> regions;
    for (const auto& d : snapshot.devices) {
        const Labels dev = device_labels(d.id);
        for (const auto& r : d.regions) {
            Labels rl = region_labels(d, dev, r);
            if (areas) {
                for (const auto& a : r.areas) {
                    Labels al = rl;
                    al.add("area", a.index).add("area_start", a.start);
                    series.push_back({std::move(al), a.counters, a.histogram,
                                      &r.histogram_bounds_ns, r.precise_timestamps});
                }
            } else {
                series.push_back({rl, r.total(), r.histogram_total(), &r.histogram_bounds_ns,
                                  r.precise_timestamps});
            }
            regions.emplace_back(std::move(rl), &r);
        }
    }
    w.reserve(series.size() * 2600 + 4096);

    w.family("iotally_region_info", MetricType::gauge, "",
             "A dm-stats region: its sectors, area size and timestamp precision (value 1).");
    for (const auto& [labels, r] : regions) {
        Labels l = labels;
        l.add("start_sector", r->start)
            .add("length_sectors", r->length)
            .add("area_sectors", r->step)
            .add("precise_timestamps", r->precise_timestamps ? "true" : "false");
        w.sample(l, std::uint64_t{1});
    }
    // Named as node_exporter's node_disk_* families for the same quantity;
    // the gauge of I/Os in flight after the counters.
    for (const auto& f : dmstats_counters) {
        if (!f.value)
            continue;
        const bool time = f.unit == CounterUnit::time;
        const bool sectors = f.unit == CounterUnit::sectors;
        w.family(f.family, MetricType::counter, time ? "seconds" : sectors ? "bytes" : "", f.help);
        for (const auto& s : series) {
            const std::uint64_t v = s.counters.*f.value;
            if (time)
                w.sample(s.labels, seconds(v));
            else
                w.sample(s.labels, sectors ? v * 512 : v);
        }
    }
    for (const auto& f : dmstats_counters) {
        if (f.unit != CounterUnit::in_flight)
            continue;
        w.family(f.family, MetricType::gauge, "", f.help);
        for (const auto& s : series)
            w.sample(s.labels, s.counters.in_flight);
    }

    w.family("iotally_region_io_latency_seconds", MetricType::histogram, "seconds",
             "Completion latency of reads and writes, in the region's own histogram buckets.");
    std::vector<double> bounds;
    // Regions with native bounds (iotally create --histogram native): a
    // native histogram in the protobuf format.
    std::map<std::vector<std::uint64_t>, std::optional<NativeLayout>> natives;
    for (const auto& s : series) {
        if (s.histogram.empty())
            continue;
        const NativeLayout* native = nullptr;
        if (w.format() == ExpositionFormat::protobuf && s.precise) {
            auto it = natives.find(*s.bounds_ns);
            if (it == natives.end())
                it = natives.emplace(*s.bounds_ns, region_native_layout(*s.bounds_ns, true)).first;
            if (it->second)
                native = &*it->second;
        }
        bounds.clear();
        // The kernel's bucket i holds b_i <= d < b_(i+1); "le" is the next
        // boundary, inclusive where the kernel's is exclusive.
        for (auto b : *s.bounds_ns)
            bounds.push_back(seconds(b));
        w.histogram(s.labels, bounds, s.histogram,
                    seconds(s.counters.read_time_ns + s.counters.write_time_ns), native);
    }
}

void write_device_families(ExpositionWriter& w, std::span<const JoinedDevice> devices) {
    std::vector<std::pair<Labels, const BlockStat*>> rows;
    for (const auto& d : devices)
        if (d.block)
            rows.emplace_back(device_labels(d.id), &d.block->stat);
    // node_disk_*'s names and meanings (stat.rst); the gauge of I/Os in
    // flight after the counters.
    for (const auto& f : block_stat_fields) {
        if (f.unit == BlockStatUnit::in_flight)
            continue;
        const bool ms = f.unit == BlockStatUnit::ms;
        const bool sectors = f.unit == BlockStatUnit::sectors;
        w.family(f.family, MetricType::counter, ms ? "seconds" : sectors ? "bytes" : "", f.help);
        for (const auto& [l, s] : rows) {
            const std::uint64_t v = s->*f.member;
            if (ms)
                w.sample(l, static_cast<double>(v) / 1e3);
            else
                w.sample(l, sectors ? v * 512 : v);
        }
    }
    for (const auto& f : block_stat_fields) {
        if (f.unit != BlockStatUnit::in_flight)
            continue;
        w.family(f.family, MetricType::gauge, "", f.help);
        for (const auto& [l, s] : rows)
            w.sample(l, s->*f.member);
    }
}

std::string render_exposition(const Snapshot& snapshot, const ExportOptions& options) {
    ExpositionWriter w(options.format);
    write_region_families(w, snapshot, options.areas);
    return w.finish();
}

Exporter::Exporter(DeviceLayer& layer, ScrapeOptions options, std::function<double()> clock)
    : layer_(layer), options_(std::move(options)), clock_(std::move(clock)) {
    if (options_.select)
        selector_.emplace(*options_.select, "device");
}

namespace {

// The scraped dm devices that have a /sys/block entry, in the scrape's order.
std::vector<JoinedDevice> scraped_devices(std::vector<JoinedDevice> joined) {
    std::erase_if(joined, [](const JoinedDevice& j) { return !j.dm || !j.block; });
    std::stable_sort(joined.begin(), joined.end(),
                     [](const JoinedDevice& a, const JoinedDevice& b) { return a.dm < b.dm; });
    return joined;
}

}  // namespace

// Device-mapper in this scrape: up, or missing (not loaded yet, or this
// process may not use it) and why.
struct Exporter::DmSource {
    bool up = true;
    std::string why;
    // Records a missing device-mapper; false for any other error.
    bool missing(const Error& e) {
        if (e.kind() != ErrorKind::unsupported && e.kind() != ErrorKind::permission)
            return false;
        up = false;
        why = e.what();
        return true;
    }
};

// /sys/block in this scrape: its devices, or why it could not be read.
struct Exporter::BlockSource {
    std::vector<BlockDevice> devices;
    std::optional<std::string> why;  // set: unreadable
};

// The devices this scrape shows: the dm devices whose regions it reads, by
// name, and the chosen block devices that are not dm (their own counters).
struct Exporter::Chosen {
    std::vector<std::string> dm_names;
    std::vector<const BlockDevice*> plain;
};

void Exporter::check() {
    try {
        if (selector_) {
            auto listed = layer_.list_devices();
            selector_->select(join_device_ids(read_blocks().devices, listed), {});
        } else if (options_.devices.empty()) {
            layer_.list_devices();  // permission
        } else {
            for (const auto& name : options_.devices)
                layer_.device(name);
        }
        source("dm", true);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::unsupported && e.kind() != ErrorKind::permission)
            throw;
        // dm_mod is not loaded (yet), or this process may not use it.
        source("dm", false, e.what());
    }
    for (auto& c : collectors_) {
        try {
            c->check();
        } catch (const Error& e) {
            // A privilege missing: the source is down, the others serve.
            if (e.kind() != ErrorKind::permission || c->source().empty())
                throw;
            source(c->source(), false, e.what());
        }
    }
}

void Exporter::source(const std::string& name, bool up, const std::string& why) {
    sources_.on_change = on_source;
    sources_.set(name, up, why);
}

void Exporter::error(const std::string& message) {
    ++errors_;
    if (on_error)
        on_error(message);
}

std::string Exporter::scrape(ExpositionFormat format) {
    std::lock_guard lock(mutex_);
    const double start = clock_();
    // Without device-mapper (not loaded yet) the scrape has no regions: not
    // an error, the source is down until it appears.
    DmSource dm;
    BlockSource blocks = read_blocks();
    Chosen chosen = choose_devices(blocks.devices, dm);
    Snapshot snap = read_regions(chosen.dm_names, dm);
    source("dm", dm.up, dm.why);
    ExpositionWriter w(format);
    write_region_families(w, snap, options_.areas);
    if (options_.device_stats)
        write_block_devices(w, blocks, snap, chosen);
    collect(w);
    sources_.write(w);
    ++scrapes_;
    write_scrape_families(w, snap, start);
    return w.finish();
}

Exporter::BlockSource Exporter::read_blocks() const {
    BlockSource b;
    if (!options_.device_stats && !selector_)
        return b;
    try {
        DiskstatsOptions o;
        o.sysfs_root = options_.sysfs_root;
        b.devices = read_block_devices(o);
    } catch (const Error& e) {
        b.why = e.what();
    }
    return b;
}

Exporter::Chosen Exporter::choose_devices(const std::vector<BlockDevice>& blocks, DmSource& dm) {
    Chosen chosen;
    if (selector_) {
        std::optional<std::vector<DeviceId>> listed;
        try {
            listed = layer_.list_devices();
        } catch (const Error& e) {
            if (!dm.missing(e))
                error(fmt::format("cannot list devices: {}", e.what()));
        }
        std::vector<std::string> missing;
        try {
            if (listed) {
                // The selection of `report` and `top`: over /sys/block's
                // devices joined to device-mapper's, in that order.
                auto ids = join_device_ids(blocks, *listed);
                for (auto i : selector_->select(ids, {}, &missing)) {
                    if (ids[i].is_dm())
                        chosen.dm_names.push_back(ids[i].dm_name);
                    else if (i < blocks.size())
                        chosen.plain.push_back(&blocks[i]);
                }
            }
        } catch (const Error& e) {
            error(fmt::format("cannot select devices: {}", e.what()));
        }
        for (const auto& m : missing)
            error(fmt::format("{}: no such device", m));
    } else if (options_.devices.empty()) {
        try {
            for (const auto& id : layer_.list_devices())
                chosen.dm_names.push_back(id.dm_name);
        } catch (const Error& e) {
            if (!dm.missing(e))
                error(fmt::format("cannot list devices: {}", e.what()));
        }
    } else {
        chosen.dm_names = options_.devices;
    }
    return chosen;
}

Snapshot Exporter::read_regions(const std::vector<std::string>& names, DmSource& dm) {
    Snapshot snap;
    for (const auto& name : names) {
        if (!dm.up)
            break;
        // One device per take(): a device that fails is left out alone.
        Snapshotter one(layer_, clock_);
        try {
            Snapshot s = one.take({name}, options_.program_id);
            for (auto& d : s.devices)
                snap.devices.push_back(std::move(d));
        } catch (const Error& e) {
            if (dm.missing(e))
                break;
            error(std::string(e.what()).starts_with(name) ? std::string(e.what())
                                                          : fmt::format("{}: {}", name, e.what()));
        } catch (const std::exception& e) {
            error(fmt::format("{}: {}", name, e.what()));
        }
    }
    return snap;
}

void Exporter::write_block_devices(ExpositionWriter& w, const BlockSource& blocks,
                                   const Snapshot& snap, const Chosen& chosen) {
    if (blocks.why) {
        error(fmt::format("block device statistics: {}", *blocks.why));
        source("block", false, *blocks.why);
    } else {
        source("block", true);
    }
    // Every block device, or only the devices chosen: the dm devices
    // scraped, then the others in /sys/block's order.
    const bool every_device = options_.devices.empty() && !selector_;
    auto shown = join_devices(blocks.devices, &snap);
    if (!every_device) {
        shown = scraped_devices(std::move(shown));
        for (const BlockDevice* b : chosen.plain)
            shown.push_back({b->id, b, nullptr});
    }
    write_device_families(w, shown);
    write_queue_depth(w, shown);
}

void Exporter::write_queue_depth(ExpositionWriter& w, std::span<const JoinedDevice> shown) {
    if (!queue_depth_)
        return;
    queue_depth_->write(w, shown);
    // The samples between two scrapes that failed: one line a scrape.
    if (auto f = queue_depth_->take_failures(); f.count)
        error(fmt::format("queue depth: {} sample{} failed: {}", f.count, f.count == 1 ? "" : "s",
                          f.last));
}

void Exporter::collect(ExpositionWriter& w) {
    for (auto& c : collectors_) {
        bool up = false;
        std::string why;
        try {
            std::uint64_t n = c->collect(w);
            errors_ += n;
            up = n == 0;
        } catch (const Error& e) {
            // A privilege missing is a source down, said once, not an
            // error at every scrape.
            if (e.kind() != ErrorKind::permission || c->source().empty())
                error(e.what());
            why = e.what();
        } catch (const std::exception& e) {
            error(e.what());
            why = e.what();
        }
        if (!c->source().empty())
            source(c->source(), up, why);
    }
}

void Exporter::write_scrape_families(ExpositionWriter& w, const Snapshot& snap, double start) {
    w.family("iotally_scrape_devices", MetricType::gauge, "",
             "dm devices whose regions this scrape read.");
    w.sample(Labels(), static_cast<std::uint64_t>(snap.devices.size()));
    w.family("iotally_scrape_errors", MetricType::counter, "",
             "Devices or sources left out of a scrape because reading them failed.");
    w.sample(Labels(), errors_);
    w.family("iotally_scrapes", MetricType::counter, "", "Scrapes answered since start.");
    w.sample(Labels(), scrapes_);
    w.family("iotally_scrape_duration_seconds", MetricType::gauge, "seconds",
             "How long reading the statistics of this scrape took.");
    w.sample(Labels(), clock_() - start);
}

}  // namespace iotally
