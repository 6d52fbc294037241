// SPDX-License-Identifier: GPL-2.0-or-later
// iotally report: iostat -x for every block device, with the dm-stats regions
// of each device beside it; reads never clear.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "app.hpp"
#include "block_devices.hpp"
#include "iotally/metrics/cpu_stat.hpp"
#include "iotally/metrics/depth_sampler.hpp"
#include "iotally/metrics/report.hpp"
#include "iotally/util/error.hpp"
#include "output.hpp"
#include "report_writer.hpp"
#include "select_options.hpp"

namespace iotally::cli {
namespace {

constexpr std::string_view short_fields =
    "r/s,rkB/s,r_await,rareq-sz,w/s,wkB/s,w_await,wareq-sz,aqu-sz,%util";
constexpr std::string_view extended_fields =
    "r/s,rkB/s,rrqm/s,%rrqm,r_await,rareq-sz,w/s,wkB/s,wrqm/s,%wrqm,w_await,wareq-sz,"
    "d/s,dkB/s,drqm/s,%drqm,d_await,dareq-sz,f/s,f_await,aqu-sz,%util";

struct ReportArgs {
    std::vector<std::string> operands;  // [DEVICE...] [INTERVAL [COUNT]]
    std::string interval, count;
    std::string fields;
    bool extended = false, timestamps = false, omit_first = false, dm_names = false;
    bool partitions = false, csv = false;
    std::string sort;
    SelectArgs select;
    std::string level = "region";
    std::string program_id;
    // -c alone is iostat's --cpu; "-c N" is the count of before (deprecated).
    CLI::Option* c_option = nullptr;
    std::string c_value;
    bool cpu = false, devices = false;
    std::string qd_sample;  // the period of the in-flight samples (%qdN)
};

constexpr double default_qd_sample_s = 0.01;

bool wants_depth(const std::vector<const MetricField*>& fields) {
    return std::any_of(fields.begin(), fields.end(),
                       [](const MetricField* f) { return f->name.substr(0, 3) == "%qd"; });
}

bool is_count(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

bool is_interval(const std::string& s) {
    return !s.empty() && (s[0] >= '0' && s[0] <= '9') &&
           s.find_first_not_of("0123456789.nsmu") == std::string::npos;
}

std::uint64_t parse_count(const std::string& s) {
    if (!is_count(s) || s.size() > 9 || std::stoull(s) == 0)
        throw Error(ErrorKind::usage, fmt::format("count '{}' is not a positive integer", s));
    return std::stoull(s);
}

class Reporter {
  public:
    Reporter(Context& ctx, bool json, ReportArgs& a)
        : ctx_(ctx),
          a_(a),
          level_(parse_report_level(a.level)),
          sampler_(ctx, SampleOptions{a.partitions, level_ != ReportLevel::device,
                                      a.program_id.empty() ? std::nullopt
                                                           : std::optional(a.program_id)}),
          writer_(*ctx.out,
                  json    ? Format::json
                  : a.csv ? Format::csv
                          : Format::text,
                  resolve_fields(!a.fields.empty() ? a.fields
                                 : a.extended      ? std::string(extended_fields)
                                                   : std::string(short_fields)),
                  level_, a.timestamps, a.dm_names) {
        if (json && a.csv)
            throw Error(ErrorKind::usage, "--json and --csv exclude each other");
        bool deprecated_count = false;
        if (a.c_option && a.c_option->count() > 0) {
            if (is_count(a.c_value)) {
                deprecated_count = true;
                set_once(a.count, a.c_value, "count");
            } else {
                a.cpu = true;
                if (!a.c_value.empty())  // a device after -c
                    a.operands.insert(a.operands.begin(), a.c_value);
            }
        }
        cpu_ = a.cpu;
        devices_ = !a.cpu || a.devices;
        writer_.set_blocks(cpu_, devices_);
        if (!a.sort.empty()) {
            sort_ = find_metric_field(a.sort);
            if (!sort_)
                throw Error(ErrorKind::usage, fmt::format("unknown sort field '{}' (fields: {})",
                                                          a.sort, metric_field_names()));
        }
        // iostat's operands: the trailing numbers are the interval and the count.
        auto& ops = a.operands;
        if (ops.size() >= 2 && is_count(ops.back()) && is_interval(ops[ops.size() - 2])) {
            set_once(a.count, ops.back(), "count");
            ops.pop_back();
        }
        if (!ops.empty() && is_interval(ops.back())) {
            set_once(a.interval, ops.back(), "interval");
            ops.pop_back();
        }
        a.select.names = ops;
        if (!a.interval.empty())
            interval_ = parse_interval_s(a.interval);
        if (!a.count.empty()) {
            if (!interval_)
                throw Error(ErrorKind::usage, "--count needs an interval (--interval or INTERVAL)");
            count_ = parse_count(a.count);
        }
        if (a.omit_first && !interval_)
            throw Error(ErrorKind::usage, "-y needs an interval");
        double qd_period = default_qd_sample_s;
        if (!a.qd_sample.empty()) {
            try {
                qd_period = parse_interval_s(a.qd_sample);
            } catch (const Error& e) {
                throw Error(e.kind(), fmt::format("--qd-sample: {}", e.what()));
            }
        }
        if (devices_ && wants_depth(writer_.fields())) {
            const bool regions = level_ != ReportLevel::device;
            depth_.emplace(regions ? &ctx.layer() : nullptr,
                           DepthSamplerOptions{ctx.sysfs, regions}, ctx.clock);
            qd_period_ = qd_period;
        }
        selector_.emplace(a.select);
        if (deprecated_count)  // once the command line is known to be good
            *ctx.err << "iotally: warning: '-c " << a.c_value
                     << "' as the report count is deprecated: use --count " << a.c_value
                     << " (-c alone is --cpu, as in iostat)\n";
    }

    void run() {
        Sample prev = sampler_.take();
        std::optional<CpuTimes> cpu_prev;
        if (cpu_)
            cpu_prev = read_cpu_times(ctx_.proc);
        if (depth_)
            depth_->track(prev.devices);
        std::uint64_t printed = 0;
        if (!a_.omit_first) {
            emit(prev, nullptr, cpu_prev ? &*cpu_prev : nullptr, nullptr, printed++);
        }
        while (interval_ && (!count_ || printed < *count_)) {
            if (depth_)
                depth_->run_until(ctx_.clock() + *interval_, qd_period_, ctx_.sleep);
            else
                ctx_.sleep(*interval_);
            Sample cur = sampler_.take();
            std::optional<CpuTimes> cpu_cur;
            if (cpu_)
                cpu_cur = read_cpu_times(ctx_.proc);
            emit(cur, &prev, cpu_cur ? &*cpu_cur : nullptr, cpu_prev ? &*cpu_prev : nullptr,
                 printed++);
            if (depth_)
                depth_->track(cur.devices);
            prev = std::move(cur);
            cpu_prev = cpu_cur;
        }
    }

  private:
    static void set_once(std::string& slot, const std::string& value, const char* what) {
        if (!slot.empty())
            throw Error(ErrorKind::usage, fmt::format("the {} is given twice", what));
        slot = value;
    }

    void emit(const Sample& cur, const Sample* prev, const CpuTimes* cpu_cur,
              const CpuTimes* cpu_prev, std::uint64_t sample) {
        const double elapsed = prev ? cur.disks.taken_s - prev->disks.taken_s : ctx_.uptime_s();
        std::vector<ReportRow> device_rows;
        std::vector<std::uint64_t> activity;
        for (const auto& d : cur.devices) {
            const BlockDevice* p = prev ? prev->disks.find(d.id) : nullptr;
            ReportRow row = device_row(d, p, elapsed);
            row.is_new = prev && !p;
            activity.push_back(row.stats.total_bytes + row.stats.total_transfers);
            device_rows.push_back(std::move(row));
        }
        const Snapshot* prev_dm = prev && prev->dm ? &*prev->dm : nullptr;
        std::vector<ReportRow> rows;
        for (const JoinedDevice* d : select_sampled(*selector_, cur, activity)) {
            rows.push_back(device_rows[static_cast<std::size_t>(d - cur.devices.data())]);
            // Its regions: those of the dm device joined to it by dev_t.
            if (level_ != ReportLevel::device)
                for (auto& r : build_report(std::span(d, 1), prev_dm, level_))
                    rows.push_back(std::move(r));
        }
        if (depth_ && prev)
            depth_->fill(rows);
        if (!devices_)
            rows.clear();
        if (sort_) {
            auto key = [&](const ReportRow& r) { return sort_->get(r.stats); };
            std::stable_sort(rows.begin(), rows.end(), [&](const ReportRow& x, const ReportRow& y) {
                auto a = key(x), b = key(y);
                if (a.has_value() != b.has_value())
                    return a.has_value();
                return a && *a > *b;
            });
        }
        ReportHead head{sample, cur.unix_ns, prev ? std::optional(elapsed) : std::nullopt,
                        cur.dm ? cur.dm->generation : 0, std::nullopt};
        if (cpu_cur)
            head.cpu = avg_cpu(*cpu_cur, cpu_prev);
        writer_.write(head, rows);
    }

    Context& ctx_;
    ReportArgs& a_;
    ReportLevel level_;
    Sampler sampler_;
    ReportWriter writer_;
    const MetricField* sort_ = nullptr;
    std::optional<double> interval_;
    std::optional<std::uint64_t> count_;
    std::optional<DeviceSelector> selector_;
    std::optional<DepthSampler> depth_;
    double qd_period_ = default_qd_sample_s;
    bool cpu_ = false, devices_ = true;
};

}  // namespace

void register_report(Registry& r) {
    auto a = std::make_shared<ReportArgs>();
    auto* sub = r.app.add_subcommand(
        "report", "iostat -x for every block device, with its dm-stats regions; reads never clear");
    sub->add_option("operands", a->operands,
                    "Devices (kernel or dm names; default: all), then the interval and count "
                    "as iostat takes them")
        ->type_name("[DEVICE...] [INTERVAL [COUNT]]");
    sub->add_option("-i,--interval", a->interval,
                    "Report rates over this interval, repeatedly (1, 500ms, 2s)")
        ->type_name("DURATION");
    sub->add_option("--count", a->count,
                    "Number of reports, the first since boot (default with an interval: forever)")
        ->type_name("N");
    a->c_option = sub->add_option("-c", a->c_value,
                                  "The avg-cpu block (iostat -c); '-c N' is the deprecated "
                                  "spelling of --count N")
                      ->expected(0, 1)
                      ->type_name("");
    sub->add_flag("--cpu", a->cpu, "The avg-cpu block, from /proc/stat (iostat -c)");
    sub->add_flag("-d,--devices", a->devices,
                  "The device rows too with -c (iostat -d; the default without -c)");
    sub->add_option("--qd-sample", a->qd_sample,
                    "Sample the I/Os in flight this often for the %qdN fields (default 10ms)")
        ->type_name("DURATION");
    sub->add_flag("-x", a->extended, "All of iostat -x's fields (discards and flushes too)");
    sub->add_flag("-t", a->timestamps, "Print the time of each report (ISO 8601)");
    sub->add_flag("-y", a->omit_first, "Omit the first report (since boot or creation)");
    sub->add_flag("-N", a->dm_names, "Device-mapper names instead of dm-N (iostat -N)");
    sub->add_flag("-p,--partitions", a->partitions, "Partitions too");
    sub->add_option("-o,--fields", a->fields,
                    fmt::format("Comma-separated fields, or all (default: {}; with -x: {})",
                                short_fields, extended_fields))
        ->type_name("FIELDS");
    sub->add_option("--sort", a->sort, "Sort rows by this field, largest first")
        ->type_name("FIELD");
    add_select_options(*sub, a->select,
                       "Devices matching EXPR: "
                       "name=GLOB,target=TYPE,driver=GLOB,uuid=PREFIX,lv=VG/LV (repeatable)");
    sub->add_option("--top", a->select.top, "The N busiest devices, busiest first (perf_select)")
        ->type_name("N");
    sub->add_option("--level", a->level,
                    "Rows beside each device: device (none), group, region or area")
        ->type_name("LEVEL")
        ->capture_default_str();
    sub->add_option("--program-id", a->program_id, "Only regions of this program_id")
        ->type_name("ID");
    sub->add_flag("--csv", a->csv, "Comma-separated values");
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [a, &ctx, &json] {
        Reporter rep(ctx, json, *a);
        rep.run();
    });
}

}  // namespace iotally::cli
