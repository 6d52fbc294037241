// SPDX-License-Identifier: GPL-2.0-or-later
// iotally report: derived metrics from consecutive non-destructive snapshots.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "iotally/error.hpp"
#include "iotally/report.hpp"
#include "iotally/selection.hpp"
#include "output.hpp"

namespace iotally::cli {
namespace {

constexpr std::string_view default_fields =
    "r_tps,w_tps,r_mbps,w_mbps,rrqm,wrqm,r_ms,w_ms,aqu_sz,busy";

struct ReportArgs {
    std::vector<std::string> devices;
    std::string interval;
    std::uint64_t count = 0;
    std::string fields{default_fields};
    std::string sort;
    std::vector<std::string> select;
    std::string level = "region";
    std::string program_id;
    bool csv = false;
    std::size_t max = 0;
};

std::vector<const MetricField*> resolve_fields(const std::string& list) {
    std::vector<const MetricField*> out;
    for (const auto& name : split_list(list)) {
        const MetricField* f = find_metric_field(name);
        if (!f) {
            std::vector<std::string_view> names;
            for (const auto& m : metric_fields())
                names.push_back(m.name);
            throw Error(ErrorKind::usage, fmt::format("unknown field '{}' (fields: {})", name,
                                                      fmt::join(names, ",")));
        }
        out.push_back(f);
    }
    if (out.empty())
        throw Error(ErrorKind::usage, "no fields given to -o");
    return out;
}

std::string region_label(const ReportRow& row) {
    std::string s = row.region ? std::to_string(*row.region) : "-";
    if (row.stats.counters_reset)
        s += "*";
    else if (row.is_new)
        s += "+";
    return s;
}

class Reporter {
  public:
    Reporter(Context& ctx, bool json, const ReportArgs& a)
        : ctx_(ctx),
          json_(json),
          a_(a),
          level_(parse_report_level(a.level)),
          fields_(resolve_fields(a.fields)),
          snapshotter_(ctx.layer(), ctx.clock) {
        if (json && a.csv)
            throw Error(ErrorKind::usage, "--json and --csv exclude each other");
        if (!a.sort.empty()) {
            sort_ = find_metric_field(a.sort);
            if (!sort_)
                throw Error(ErrorKind::usage, fmt::format("unknown sort field '{}'", a.sort));
        }
        for (const auto& s : a.select)
            matches_.push_back(build_match(s));
        if (a.count && a.interval.empty())
            throw Error(ErrorKind::usage, "--count needs --interval");
        if (!a.interval.empty())
            interval_ = parse_interval_s(a.interval);
    }

    void run() {
        Snapshot first = take();
        if (!interval_) {
            emit(build_report(first, nullptr, level_), 0, first);
            return;
        }
        Snapshot prev = std::move(first);
        for (std::uint64_t i = 0; a_.count == 0 || i < a_.count; ++i) {
            ctx_.sleep(*interval_);
            Snapshot cur = take();
            emit(build_report(cur, &prev, level_), i, cur);
            prev = std::move(cur);
        }
    }

  private:
    Snapshot take() {
        auto snap = snapshotter_.take(
            a_.devices, a_.program_id.empty() ? std::nullopt : std::optional(a_.program_id));
        if (!matches_.empty())
            std::erase_if(snap.devices,
                          [&](const DeviceSnapshot& d) { return !matches_any(matches_, d.info); });
        for (const auto& d : snap.devices)
            for (const auto& w : d.warnings)
                *ctx_.err << "iotally: warning: " << w << "\n";
        return snap;
    }

    void emit(std::vector<ReportRow> rows, std::uint64_t sample, const Snapshot& snap) {
        if (sort_) {
            auto key = [&](const ReportRow& r) { return sort_->get(r.stats); };
            std::stable_sort(rows.begin(), rows.end(), [&](const ReportRow& x, const ReportRow& y) {
                auto a = key(x), b = key(y);
                if (a.has_value() != b.has_value())
                    return a.has_value();
                return a && *a > *b;
            });
        }
        if (a_.max && rows.size() > a_.max)
            rows.resize(a_.max);
        if (json_)
            emit_json(rows, sample, snap);
        else if (a_.csv)
            emit_csv(rows, sample);
        else
            emit_text(rows, sample);
        ctx_.out->flush();
    }

    void emit_json(const std::vector<ReportRow>& rows, std::uint64_t sample, const Snapshot& snap) {
        nlohmann::json out_rows = nlohmann::json::array();
        for (const auto& r : rows) {
            nlohmann::json fields = nlohmann::json::object();
            for (const auto& f : metric_fields()) {
                auto v = f.get(r.stats);
                if (!v)
                    fields[std::string(f.name)] = nullptr;
                else if (f.integer)
                    fields[std::string(f.name)] = static_cast<std::uint64_t>(*v);
                else
                    fields[std::string(f.name)] = *v;
            }
            auto opt = [](const std::optional<std::uint64_t>& v) {
                return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
            };
            out_rows.push_back({{"device", r.device},
                                {"level", to_string(r.level)},
                                {"group_id", opt(r.group)},
                                {"group_alias", r.group_alias},
                                {"region_id", opt(r.region)},
                                {"area", opt(r.area)},
                                {"start", r.start},
                                {"length", r.length},
                                {"program_id", r.program_id},
                                {"new", r.is_new},
                                {"counters_reset", r.stats.counters_reset},
                                {"elapsed_s", r.elapsed_s ? nlohmann::json(*r.elapsed_s)
                                                          : nlohmann::json(nullptr)},
                                {"metrics", fields}});
        }
        *ctx_.out << nlohmann::json{{"sample", sample},
                                    {"generation", snap.generation},
                                    {"interval_s", interval_ ? nlohmann::json(*interval_)
                                                             : nlohmann::json(nullptr)},
                                    {"rows", out_rows}}
                         .dump()
                  << "\n";
    }

    void emit_csv(const std::vector<ReportRow>& rows, std::uint64_t sample) {
        if (!csv_header_done_) {
            std::vector<std::string> h{"sample", "device", "level",  "group", "region",
                                       "area",   "start",  "length", "new",   "counters_reset"};
            for (auto* f : fields_)
                h.emplace_back(f->name);
            *ctx_.out << fmt::format("{}\n", fmt::join(h, ","));
            csv_header_done_ = true;
        }
        auto opt = [](const std::optional<std::uint64_t>& v) {
            return v ? std::to_string(*v) : std::string();
        };
        for (const auto& r : rows) {
            std::vector<std::string> c{std::to_string(sample),
                                       csv_escape(r.device),
                                       std::string(to_string(r.level)),
                                       opt(r.group),
                                       opt(r.region),
                                       opt(r.area),
                                       std::to_string(r.start),
                                       std::to_string(r.length),
                                       r.is_new ? "1" : "0",
                                       r.stats.counters_reset ? "1" : "0"};
            for (auto* f : fields_) {
                auto v = f->get(r.stats);
                if (!v)
                    c.emplace_back();
                else
                    c.push_back(f->integer ? fmt::format("{:.0f}", *v) : fmt::format("{}", *v));
            }
            *ctx_.out << fmt::format("{}\n", fmt::join(c, ","));
        }
    }

    void emit_text(const std::vector<ReportRow>& rows, std::uint64_t sample) {
        std::vector<std::string> headers{"<DEVICE"};
        switch (level_) {
            case ReportLevel::device:
                break;
            case ReportLevel::group:
                headers.insert(headers.end(), {"GROUP", "<ALIAS"});
                break;
            case ReportLevel::region:
                headers.insert(headers.end(), {"REGION", "GROUP"});
                break;
            case ReportLevel::area:
                headers.insert(headers.end(), {"REGION", "AREA", "START"});
                break;
        }
        for (auto* f : fields_)
            headers.emplace_back(f->header);
        Table t(headers);
        for (const auto& r : rows) {
            std::vector<std::string> c{r.device};
            switch (level_) {
                case ReportLevel::device:
                    break;
                case ReportLevel::group:
                    c.push_back(r.group ? std::to_string(*r.group) : "-");
                    c.push_back(r.group_alias.empty() ? "-" : r.group_alias);
                    break;
                case ReportLevel::region:
                    c.push_back(region_label(r));
                    c.push_back(r.group ? std::to_string(*r.group) : "-");
                    break;
                case ReportLevel::area:
                    c.push_back(region_label(r));
                    c.push_back(r.area ? std::to_string(*r.area) : "-");
                    c.push_back(std::to_string(r.start));
                    break;
            }
            for (auto* f : fields_)
                c.push_back(format_value(f->get(r.stats), f->integer));
            t.add(std::move(c));
        }
        if (sample)
            *ctx_.out << "\n";
        *ctx_.out << t.render();
    }

    Context& ctx_;
    bool json_;
    const ReportArgs& a_;
    ReportLevel level_;
    std::vector<const MetricField*> fields_;
    const MetricField* sort_ = nullptr;
    std::vector<MatchExpr> matches_;
    std::optional<double> interval_;
    Snapshotter snapshotter_;
    bool csv_header_done_ = false;
};

}  // namespace

void register_report(Registry& r) {
    auto a = std::make_shared<ReportArgs>();
    auto* sub = r.app.add_subcommand(
        "report", "Derived metrics per device, group, region or area; reads never clear");
    sub->add_option("devices", a->devices, "Devices (default: all)");
    sub->add_option("-i,--interval", a->interval,
                    "Report rates over this interval, repeatedly (e.g. 1, 500ms, 2s)");
    sub->add_option("-c,--count", a->count, "Number of reports with --interval (default: forever)");
    std::string field_help = "Comma-separated fields:";
    for (const auto& f : metric_fields())
        field_help += fmt::format("\n  {:<10} {}", f.name, f.description);
    sub->add_option("-o,--fields", a->fields, field_help)->capture_default_str();
    sub->add_option("--sort", a->sort, "Sort rows by this field, largest first");
    sub->add_option("--select", a->select,
                    "Only devices matching EXPR: name=GLOB,target=TYPE,uuid=PREFIX (repeatable)");
    sub->add_option("--level", a->level, "device, group, region or area")->capture_default_str();
    sub->add_option("--program-id", a->program_id, "Only regions of this program_id");
    sub->add_option("--max", a->max, "At most N rows per report");
    sub->add_flag("--csv", a->csv, "Comma-separated values");
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [a, &ctx, &json] {
        Reporter rep(ctx, json, *a);
        rep.run();
    });
}

}  // namespace iotally::cli
