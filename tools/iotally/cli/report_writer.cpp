// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_writer.hpp"

#include <fmt/format.h>

#include <array>

#include "document.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"
#include "output.hpp"

namespace iotally::cli {
namespace {

std::string region_label(const ReportRow& r) {
    if (r.level == ReportLevel::device)
        return "-";
    std::string s = r.region ? std::to_string(*r.region) : "-";
    if (r.stats.counters_reset)
        s += "*";
    else if (r.is_new)
        s += "+";
    return s;
}

// How finely the row's times were measured (iotally(8), TIME RESOLUTION).
std::string_view time_resolution(const ReportRow& r) {
    if (r.level == ReportLevel::device)
        return "ms";  // /sys/block counts milliseconds
    return region_time_unit(!r.stats.jiffies_resolution).resolution;
}

std::string opt_str(const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string();
}

// iostat -c's names, in its order; JSON takes them without the '%' as
// iostat -o JSON does.
constexpr std::array<std::string_view, 6> cpu_names{"%user",   "%nice",  "%system",
                                                    "%iowait", "%steal", "%idle"};

std::array<double, 6> cpu_values(const AvgCpu& c) {
    return {c.user, c.nice, c.system, c.iowait, c.steal, c.idle};
}

}  // namespace

std::vector<const MetricField*> resolve_fields(const std::string& list) {
    std::vector<const MetricField*> out;
    if (list == "all") {  // but the sampled %qdN: they are asked for by name
        for (const auto& f : metric_fields())
            if (!f.name.starts_with("%qd"))
                out.push_back(&f);
        return out;
    }
    for (const auto& name : split_list(list)) {
        const MetricField* f = find_metric_field(name);
        if (!f)
            throw Error(ErrorKind::usage, fmt::format("unknown field '{}' (fields: {}, or all)",
                                                      name, metric_field_names()));
        out.push_back(f);
    }
    if (out.empty())
        throw Error(ErrorKind::usage, "no fields given to -o");
    return out;
}

void ReportWriter::write(const ReportHead& head, const std::vector<ReportRow>& rows) {
    switch (format_) {
        case Format::text:
            text(head, rows);
            break;
        case Format::csv:
            csv(head, rows);
            break;
        case Format::json:
            json(head, rows);
            break;
    }
    out_.flush();
}

void ReportWriter::text(const ReportHead& head, const std::vector<ReportRow>& rows) {
    std::vector<std::string> headers{"<Device"};
    switch (level_) {
        case ReportLevel::device:
            break;
        case ReportLevel::group:
            headers.insert(headers.end(), {"Group", "<Alias"});
            break;
        case ReportLevel::region:
            headers.insert(headers.end(), {"Region", "Group"});
            break;
        case ReportLevel::area:
            headers.insert(headers.end(), {"Region", "Area", "Start"});
            break;
    }
    if (head.sample)
        out_ << "\n";
    if (timestamps_)
        out_ << iso8601_local(head.unix_ns) << "\n";
    if (head.cpu) {
        out_ << format_avg_cpu(*head.cpu);
        if (devices_)
            out_ << "\n";
    }
    if (!devices_)
        return;
    for (auto* f : fields_)
        headers.emplace_back(f->name);
    Table t(headers);
    bool marked = false;
    for (const auto& r : rows) {
        const bool dev = r.level == ReportLevel::device;
        std::vector<std::string> c{dm_names_ ? r.id.name() : r.id.kernel_name};
        switch (level_) {
            case ReportLevel::device:
                break;
            case ReportLevel::group:
                c.push_back(r.group ? std::to_string(*r.group) : "-");
                c.push_back(r.group_alias.empty() ? "-" : r.group_alias);
                break;
            case ReportLevel::region:
                c.push_back(region_label(r));
                c.push_back(r.group && !dev ? std::to_string(*r.group) : "-");
                break;
            case ReportLevel::area:
                c.push_back(region_label(r));
                c.push_back(r.area ? std::to_string(*r.area) : "-");
                c.push_back(dev ? "-" : std::to_string(r.start));
                break;
        }
        for (auto* f : fields_) {
            auto v = f->get(r.stats);
            std::string cell = format_value(v, f->integer);
            if (v && f->time_based && r.stats.jiffies_resolution) {
                cell += "~";
                marked = true;
            }
            c.push_back(std::move(cell));
        }
        t.add(std::move(c));
    }
    out_ << t.render();
    if (marked)
        out_ << "~ counted in whole jiffies (a region without precise_timestamps)\n";
}

void ReportWriter::csv(const ReportHead& head, const std::vector<ReportRow>& rows) {
    std::vector<std::string> cpu_cells;
    if (head.cpu)
        for (double v : cpu_values(*head.cpu))
            cpu_cells.push_back(fmt::format("{:.2f}", v));
    if (!devices_) {  // -c alone: one line a report
        if (!csv_header_done_) {
            out_ << fmt::format("timestamp,timestamp_ns,sample,{}\n", fmt::join(cpu_names, ","));
            csv_header_done_ = true;
        }
        out_ << fmt::format("{},{},{},{}\n", iso8601_utc(head.unix_ns), head.unix_ns, head.sample,
                            fmt::join(cpu_cells, ","));
        return;
    }
    if (!csv_header_done_) {
        std::vector<std::string> h{
            "timestamp",      "timestamp_ns", "sample",         "device",
            "dm_name",        "major",        "minor",          "level",
            "group",          "region",       "area",           "start_sector",
            "length_sectors", "new",          "counters_reset", "time_resolution"};
        for (auto* f : fields_)
            h.push_back(csv_escape(f->name));
        if (cpu_)
            h.insert(h.end(), cpu_names.begin(), cpu_names.end());
        out_ << fmt::format("{}\n", fmt::join(h, ","));
        csv_header_done_ = true;
    }
    for (const auto& r : rows) {
        std::vector<std::string> c{iso8601_utc(head.unix_ns),
                                   std::to_string(head.unix_ns),
                                   std::to_string(head.sample),
                                   csv_escape(r.id.kernel_name),
                                   csv_escape(r.id.dm_name),
                                   std::to_string(r.id.major),
                                   std::to_string(r.id.minor),
                                   std::string(to_string(r.level)),
                                   opt_str(r.group),
                                   opt_str(r.region),
                                   opt_str(r.area),
                                   std::to_string(r.start),
                                   std::to_string(r.length),
                                   r.is_new ? "1" : "0",
                                   r.stats.counters_reset ? "1" : "0",
                                   std::string(time_resolution(r))};
        for (auto* f : fields_) {
            auto v = f->get(r.stats);
            c.push_back(!v           ? std::string()
                        : f->integer ? fmt::format("{:.0f}", *v)
                                     : plain_decimal(*v));
        }
        c.insert(c.end(), cpu_cells.begin(), cpu_cells.end());
        out_ << fmt::format("{}\n", fmt::join(c, ","));
    }
}

void ReportWriter::json(const ReportHead& head, const std::vector<ReportRow>& rows) {
    nlohmann::json doc = json_document("report");
    add_timestamp(doc, head.unix_ns);
    doc["sample"] = head.sample;
    doc["interval_s"] = head.interval_s ? nlohmann::json(*head.interval_s) : nullptr;
    doc["generation"] = head.generation;
    nlohmann::json units = nlohmann::json::object();
    for (auto* f : fields_)
        units[std::string(f->name)] = f->unit;
    doc["units"] = units;
    if (head.cpu) {
        nlohmann::json cpu = nlohmann::json::object();
        const auto values = cpu_values(*head.cpu);
        for (std::size_t i = 0; i < cpu_names.size(); ++i)
            cpu[std::string(cpu_names[i].substr(1))] = values[i];
        doc["avg-cpu"] = cpu;
    }
    nlohmann::json out_rows = nlohmann::json::array();
    auto opt = [](const std::optional<std::uint64_t>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    for (const auto& r : rows) {
        nlohmann::json metrics = nlohmann::json::object();
        for (auto* f : fields_) {
            auto v = f->get(r.stats);
            if (!v)
                metrics[std::string(f->name)] = nullptr;
            else if (f->integer)
                metrics[std::string(f->name)] = static_cast<std::uint64_t>(*v);
            else
                metrics[std::string(f->name)] = *v;
        }
        out_rows.push_back(
            {{"device", r.id.kernel_name},
             {"dm_name", r.id.is_dm() ? nlohmann::json(r.id.dm_name) : nullptr},
             {"major", r.id.major},
             {"minor", r.id.minor},
             {"level", to_string(r.level)},
             {"group_id", opt(r.group)},
             {"group_alias", r.group_alias},
             {"region_id", opt(r.region)},
             {"area", opt(r.area)},
             {"start_sector", r.start},
             {"length_sectors", r.length},
             {"program_id", r.program_id},
             {"new", r.is_new},
             {"counters_reset", r.stats.counters_reset},
             {"time_resolution", time_resolution(r)},
             {"elapsed_s", r.elapsed_s ? nlohmann::json(*r.elapsed_s) : nlohmann::json(nullptr)},
             {"metrics", metrics}});
    }
    doc["rows"] = out_rows;
    out_ << doc.dump() << "\n";
}

}  // namespace iotally::cli
