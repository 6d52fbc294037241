// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "iotally/metrics/device_metrics.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

ReportLevel parse_report_level(std::string_view text) {
    if (text == "device")
        return ReportLevel::device;
    if (text == "group")
        return ReportLevel::group;
    if (text == "region")
        return ReportLevel::region;
    if (text == "area")
        return ReportLevel::area;
    throw Error(ErrorKind::usage,
                fmt::format("unknown level '{}' (use device, group, region, area)", text));
}

std::string_view to_string(ReportLevel level) {
    switch (level) {
        case ReportLevel::device:
            return "device";
        case ReportLevel::group:
            return "group";
        case ReportLevel::region:
            return "region";
        case ReportLevel::area:
            return "area";
    }
    return "?";
}

namespace {

// The same region in the previous snapshot, if it is still the same region.
const Region* previous_region(const DeviceSnapshot* prev, const Region& r) {
    if (!prev)
        return nullptr;
    const Region* p = prev->find_region(r.id);
    return p && p->same_region(r) ? p : nullptr;
}

struct Sum {
    IoCounters cur, prev;
    Histogram hist_cur, hist_prev;
    bool any_new = false;
    bool hist_ok = true;

    void add(const IoCounters& c, const IoCounters* p, const std::vector<std::uint64_t>& bounds,
             const std::vector<std::uint64_t>& hc, const std::vector<std::uint64_t>* hp) {
        cur += c;
        if (p)
            prev += *p;
        else
            any_new = true;
        if (bounds.empty())
            return;
        if (hist_cur.bounds_ns.empty() && hist_cur.counts.empty()) {
            hist_cur = {bounds, std::vector<std::uint64_t>(bounds.size() + 1, 0)};
            hist_prev = hist_cur;
        }
        if (hist_cur.bounds_ns != bounds || hc.size() != bounds.size() + 1) {
            hist_ok = false;  // members with different boundaries cannot be summed
            return;
        }
        for (std::size_t i = 0; i < hc.size(); ++i) {
            hist_cur.counts[i] += hc[i];
            if (hp && hp->size() == hc.size())
                hist_prev.counts[i] += (*hp)[i];
        }
    }

    void finish(ReportRow& row, bool have_previous, std::optional<double> elapsed) const {
        row.stats = compute_rates(cur, have_previous ? &prev : nullptr, elapsed);
        row.elapsed_s = have_previous ? elapsed : std::nullopt;
        row.is_new = have_previous && any_new;
        if (hist_ok && !hist_cur.counts.empty())
            row.histogram = histogram_delta(hist_cur, have_previous ? &hist_prev : nullptr);
    }
};

std::uint64_t bytes_between(const IoCounters& c, const IoCounters* p) {
    std::uint64_t now = (c.read_sectors + c.write_sectors) * 512;
    if (!p)
        return now;
    std::uint64_t before = (p->read_sectors + p->write_sectors) * 512;
    return now >= before ? now - before : now;
}

// The rows of one device at one level, against its previous snapshot.
struct DeviceRows {
    const DeviceId& id;  // the joined device
    const DeviceSnapshot& d;
    const DeviceSnapshot* pd;  // the device in the previous snapshot
    bool have_prev;
    std::optional<double> elapsed;
    std::vector<ReportRow>& rows;

    const Group* group_of(const Region& r) const {
        if (!r.group_id)
            return nullptr;
        for (const auto& g : d.groups)
            if (g.id == *r.group_id)
                return &g;
        return nullptr;
    }

    ReportRow base_row(ReportLevel lv, const Region* r) const {
        ReportRow row;
        row.id = id;
        row.level = lv;
        if (r) {
            row.region = r->id;
            row.start = r->start;
            row.length = r->length;
            row.program_id = r->program_id;
            if (const Group* g = group_of(*r)) {
                row.group = g->id;
                row.group_alias = g->alias;
            }
        }
        return row;
    }

    // A region's totals into `s`, against its previous snapshot.
    void add_region(Sum& s, const Region& r) const {
        const Region* p = previous_region(pd, r);
        auto pt = p ? p->total() : IoCounters{};
        auto ph = p ? p->histogram_total() : std::vector<std::uint64_t>{};
        s.add(r.total(), p ? &pt : nullptr, r.histogram_bounds_ns, r.histogram_total(),
              p ? &ph : nullptr);
    }

    void groups() {
        for (const auto& g : d.groups) {
            ReportRow row = base_row(ReportLevel::group, d.find_region(g.id));
            row.region.reset();
            row.group = g.id;
            row.group_alias = g.alias;
            Sum s;
            bool jiffies = false;
            std::uint64_t first = UINT64_MAX, end = 0;
            for (auto id : g.members) {
                const Region* r = d.find_region(id);
                if (!r)
                    continue;
                add_region(s, *r);
                jiffies = jiffies || !r->precise_timestamps;
                first = std::min(first, r->start);
                end = std::max(end, r->start + r->length);
            }
            row.start = first == UINT64_MAX ? 0 : first;
            row.length = end - row.start;
            s.finish(row, have_prev, elapsed);
            row.stats.jiffies_resolution = jiffies;
            rows.push_back(std::move(row));
        }
    }

    void regions() {
        for (const auto& r : d.regions) {
            const Region* p = previous_region(pd, r);
            ReportRow row = base_row(ReportLevel::region, &r);
            Sum s;
            add_region(s, r);
            s.finish(row, have_prev, elapsed);
            row.stats.jiffies_resolution = !r.precise_timestamps;
            for (std::size_t i = 0; i < r.areas.size(); ++i)
                row.area_bytes.push_back(
                    bytes_between(r.areas[i].counters,
                                  p && i < p->areas.size() ? &p->areas[i].counters : nullptr));
            rows.push_back(std::move(row));
        }
    }

    void areas() {
        for (const auto& r : d.regions) {
            const Region* p = previous_region(pd, r);
            for (std::size_t i = 0; i < r.areas.size(); ++i) {
                const Area& a = r.areas[i];
                const Area* pa = p && i < p->areas.size() ? &p->areas[i] : nullptr;
                ReportRow row = base_row(ReportLevel::area, &r);
                row.area = a.index;
                row.start = a.start;
                row.length = a.length;
                Sum s;
                s.add(a.counters, pa ? &pa->counters : nullptr, r.histogram_bounds_ns, a.histogram,
                      pa ? &pa->histogram : nullptr);
                s.finish(row, have_prev, elapsed);
                row.stats.jiffies_resolution = !r.precise_timestamps;
                rows.push_back(std::move(row));
            }
        }
    }
};

}  // namespace

std::vector<ReportRow> build_report(std::span<const JoinedDevice> current, const Snapshot* previous,
                                    ReportLevel level) {
    std::vector<ReportRow> rows;
    for (const auto& j : current) {
        if (!j.dm)
            continue;
        const DeviceSnapshot& d = *j.dm;
        const DeviceSnapshot* pd = previous ? previous->find_device(d.id.dm_name) : nullptr;
        std::optional<double> elapsed;
        if (pd)
            elapsed = d.taken_s - pd->taken_s;
        else if (previous)
            elapsed = d.taken_s - previous->taken_s;  // the device appeared
        DeviceRows device{j.id, d, pd, previous != nullptr, elapsed, rows};
        switch (level) {
            case ReportLevel::device:
                break;  // the device's own counters: device_row()
            case ReportLevel::group:
                device.groups();
                break;
            case ReportLevel::region:
                device.regions();
                break;
            case ReportLevel::area:
                device.areas();
                break;
        }
    }
    return rows;
}

const BlockDevice* DiskSample::find(const DeviceId& id) const {
    for (const auto& d : devices)
        if (d.id.kernel_name == id.kernel_name && d.id.same_dev(id))
            return &d;
    return nullptr;
}

ReportRow device_row(const JoinedDevice& current, const BlockDevice* previous,
                     std::optional<double> elapsed_s) {
    if (!current.block)
        throw Error(ErrorKind::usage,
                    fmt::format("device_row: {} has no /sys/block entry", current.id.name()));
    ReportRow row;
    row.level = ReportLevel::device;
    row.id = current.id;
    row.length = current.id.size_sectors;
    row.stats =
        compute_device_rates(current.block->stat, previous ? &previous->stat : nullptr, elapsed_s);
    row.elapsed_s = elapsed_s;
    return row;
}

}  // namespace iotally
