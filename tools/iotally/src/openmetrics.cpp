// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/openmetrics.hpp"

#include <fmt/format.h>

#include <functional>

namespace iotally {

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

namespace {

enum class Kind { counter, gauge };

// One series: the labels and its counters (a region or one of its areas).
struct Series {
    std::string labels;  // rendered, without braces
    const IoCounters* counters;
    std::vector<std::uint64_t> histogram;
    const std::vector<std::uint64_t>* bounds_ns;
};

struct Family {
    std::string_view name;  // without _total
    std::string_view unit;  // "" or "seconds"/"bytes"
    Kind kind;
    std::string_view help;
    std::function<double(const IoCounters&)> value;
};

double seconds(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

std::string number(double v) {
    return fmt::format("{}", v);
}

std::string labels_for(const DeviceSnapshot& d, const Region& r, const Area* a) {
    std::string l =
        fmt::format(R"(device="{}",region="{}",program_id="{}")", escape_label_value(d.info.name),
                    r.id, escape_label_value(r.program_id));
    if (r.group_id) {
        for (const auto& g : d.groups)
            if (g.id == *r.group_id)
                l += fmt::format(R"(,group="{}",group_alias="{}")", g.id,
                                 escape_label_value(g.alias));
    }
    if (a)
        l += fmt::format(R"(,area="{}",start="{}")", a->index, a->start);
    return l;
}

}  // namespace

std::string render_exposition(const Snapshot& snapshot, const ExportOptions& options) {
    const bool om = options.format == ExpositionFormat::openmetrics;
    std::vector<Series> series;
    std::vector<IoCounters> totals;  // keeps region totals alive
    std::size_t count = 0;
    for (const auto& d : snapshot.devices)
        for (const auto& r : d.regions)
            count += options.areas ? r.areas.size() : 1;
    totals.reserve(count);
    for (const auto& d : snapshot.devices) {
        for (const auto& r : d.regions) {
            if (options.areas) {
                for (const auto& a : r.areas)
                    series.push_back(
                        {labels_for(d, r, &a), &a.counters, a.histogram, &r.histogram_bounds_ns});
            } else {
                totals.push_back(r.total());
                series.push_back({labels_for(d, r, nullptr), &totals.back(), r.histogram_total(),
                                  &r.histogram_bounds_ns});
            }
        }
    }

    const Family families[] = {
        {"iotally_reads", "", Kind::counter, "Reads completed.",
         [](const IoCounters& c) { return static_cast<double>(c.reads); }},
        {"iotally_reads_merged", "", Kind::counter, "Reads merged with an adjacent read.",
         [](const IoCounters& c) { return static_cast<double>(c.reads_merged); }},
        {"iotally_read_bytes", "bytes", Kind::counter, "Bytes read.",
         [](const IoCounters& c) { return static_cast<double>(c.read_sectors) * 512; }},
        {"iotally_read_time_seconds", "seconds", Kind::counter, "Total duration of reads.",
         [](const IoCounters& c) { return seconds(c.read_time_ns); }},
        {"iotally_writes", "", Kind::counter, "Writes completed.",
         [](const IoCounters& c) { return static_cast<double>(c.writes); }},
        {"iotally_writes_merged", "", Kind::counter, "Writes merged with an adjacent write.",
         [](const IoCounters& c) { return static_cast<double>(c.writes_merged); }},
        {"iotally_write_bytes", "bytes", Kind::counter, "Bytes written.",
         [](const IoCounters& c) { return static_cast<double>(c.write_sectors) * 512; }},
        {"iotally_write_time_seconds", "seconds", Kind::counter, "Total duration of writes.",
         [](const IoCounters& c) { return seconds(c.write_time_ns); }},
        {"iotally_in_flight", "", Kind::gauge, "I/Os in flight.",
         [](const IoCounters& c) { return static_cast<double>(c.in_flight); }},
        {"iotally_io_time_seconds", "seconds", Kind::counter, "Time with I/O in flight.",
         [](const IoCounters& c) { return seconds(c.io_time_ns); }},
        {"iotally_weighted_io_time_seconds", "seconds", Kind::counter,
         "Time with I/O in flight weighted by the number in flight.",
         [](const IoCounters& c) { return seconds(c.weighted_time_ns); }},
        {"iotally_read_busy_time_seconds", "seconds", Kind::counter, "Time with reads in flight.",
         [](const IoCounters& c) { return seconds(c.read_busy_ns); }},
        {"iotally_write_busy_time_seconds", "seconds", Kind::counter, "Time with writes in flight.",
         [](const IoCounters& c) { return seconds(c.write_busy_ns); }},
    };

    std::string out;
    out.reserve(series.size() * 1400 + 4096);
    for (const auto& f : families) {
        const bool counter = f.kind == Kind::counter;
        const std::string sample = counter ? fmt::format("{}_total", f.name) : std::string(f.name);
        const std::string_view type = counter ? "counter" : "gauge";
        if (om) {
            out += fmt::format("# TYPE {} {}\n", f.name, type);
            if (!f.unit.empty())
                out += fmt::format("# UNIT {} {}\n", f.name, f.unit);
            out += fmt::format("# HELP {} {}\n", f.name, f.help);
        } else {
            out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", sample, f.help, sample, type);
        }
        for (const auto& s : series)
            out += fmt::format("{}{{{}}} {}\n", sample, s.labels, number(f.value(*s.counters)));
    }

    // Latency histograms of the regions that have one.
    constexpr std::string_view hname = "iotally_latency_seconds";
    constexpr std::string_view hhelp = "Completion latency of reads and writes.";
    if (om)
        out += fmt::format("# TYPE {} histogram\n# UNIT {} seconds\n# HELP {} {}\n", hname, hname,
                           hname, hhelp);
    else
        out += fmt::format("# HELP {} {}\n# TYPE {} histogram\n", hname, hhelp, hname);
    for (const auto& s : series) {
        if (s.histogram.empty())
            continue;
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < s.histogram.size(); ++i) {
            cumulative += s.histogram[i];
            // The kernel's bucket i holds b_{i} <= d < b_{i+1}: "le" is the
            // next boundary, an inclusive bound that is off by one tick.
            std::string le = i < s.bounds_ns->size() ? number(seconds((*s.bounds_ns)[i])) : "+Inf";
            out += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", hname, s.labels, le, cumulative);
        }
        out += fmt::format("{}_count{{{}}} {}\n", hname, s.labels, cumulative);
        out += fmt::format("{}_sum{{{}}} {}\n", hname, s.labels,
                           number(seconds(s.counters->read_time_ns + s.counters->write_time_ns)));
    }
    if (om)
        out += "# EOF\n";
    return out;
}

}  // namespace iotally
