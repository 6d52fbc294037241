// SPDX-License-Identifier: GPL-2.0-or-later
// iotally snoop: the io trace events, one line per I/O (the iosnoop of the
// DTrace io provider), or a summary when it ends: bytes by device, app and
// pid, latency histograms per file, wait time per task.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "iotally/error.hpp"
#include "iotally/iotrace.hpp"
#include "iotally/tracefs_reader.hpp"

namespace iotally::cli {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_stop(int) {
    stop_requested = 1;
}

struct SnoopOptions {
    IoFilter filter;
    std::string summary;  // "", bytes, latency, waits
    bool waits = false;   // lines for waits too
    double duration = 0;
    long count = 0;
    unsigned buffer_kb = 4096;
};

nlohmann::json event_json(const IoEvent& e, const std::string& abs_path) {
    return {{"dev", fmt::format("{}:{}", dev_major(e.dev), dev_minor(e.dev))},
            {"disk", e.disk},
            {"driver", e.driver},
            {"sector", e.sector},
            {"lsector", e.lsector},
            {"bytes", e.bytes},
            {"flags", e.flags},
            {"rwbs", e.rwbs},
            {"fsdev", fmt::format("{}:{}", dev_major(e.fsdev), dev_minor(e.fsdev))},
            {"fstype", e.fstype},
            {"ino", e.ino},
            {"offset", e.offset},
            {"oflags", e.oflags},
            {"file", abs_path}};
}

nlohmann::json record_json(const IoRecord& r, const std::string& abs_path, std::uint64_t t0) {
    nlohmann::json j = event_json(r.start, abs_path);
    j["time_ns"] = r.done.ts_ns > t0 ? r.done.ts_ns - t0 : 0;
    j["comm"] = r.start.comm;
    j["pid"] = r.start.pid;
    j["rw"] = r.start.is_read() ? "R" : "W";
    j["latency_ns"] = r.latency_ns();
    j["error"] = r.done.error;
    j["resid"] = r.done.resid;
    return j;
}

nlohmann::json wait_json(const WaitRecord& w, const std::string& abs_path, std::uint64_t t0) {
    nlohmann::json j = event_json(w.start, abs_path);
    j["time_ns"] = w.done.ts_ns > t0 ? w.done.ts_ns - t0 : 0;
    j["comm"] = w.start.comm;
    j["pid"] = w.start.pid;
    j["wait_ns"] = w.wait_ns();
    return j;
}

nlohmann::json summary_json(const std::string& kind, const BytesSummary& bytes,
                            const LatencySummary& lat, const WaitSummary& waits) {
    nlohmann::json rows = nlohmann::json::array();
    if (kind == "bytes") {
        for (const auto& r : bytes.rows())
            rows.push_back(
                {{"device", r.device}, {"app", r.comm}, {"pid", r.pid}, {"bytes", r.bytes}});
    } else if (kind == "latency") {
        for (const auto& [file, h] : lat.files()) {
            nlohmann::json b = nlohmann::json::array();
            for (const auto& [bucket, n] : h.buckets())
                b.push_back({{"low_us", Log2Histogram::bucket_low(bucket)}, {"count", n}});
            rows.push_back({{"file", file}, {"count", h.count()}, {"buckets", b}});
        }
    } else {
        for (const auto& r : waits.rows())
            rows.push_back({{"pid", r.pid},
                            {"comm", r.comm},
                            {"waits", r.waits},
                            {"total_ns", r.total_ns},
                            {"max_ns", r.max_ns}});
    }
    return {{"summary", kind}, {"rows", rows}};
}

void snoop(Context& ctx, bool json, const SnoopOptions& o) {
    TraceReader reader(fmt::format("iotally-snoop-{}", ::getpid()), o.buffer_kb);
    MountTable mounts = MountTable::load();
    IoMatcher matcher;
    BytesSummary bytes;
    LatencySummary latency;
    WaitSummary waits;

    struct sigaction sa {};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    std::uint64_t t0 = 0, last_ts = 0;
    long lines = 0;
    bool header = !json && o.summary.empty();
    if (header)
        *ctx.out << snoop_header() << (o.waits ? "  (-W: a wait ends in WAIT)" : "") << "\n";
    ctx.out->flush();
    auto on_event = [&](const IoEvent& e) {
        if (!t0)
            t0 = e.ts_ns;
        last_ts = std::max(last_ts, e.ts_ns);
        if (e.kind == IoEvent::Kind::start || e.kind == IoEvent::Kind::done) {
            auto r = matcher.add_io(e);
            if (!r)
                return;
            std::string path = mounts.name_of(r->start);
            if (!o.filter.match(*r, path))
                return;
            if (o.summary == "bytes")
                bytes.add(*r);
            else if (o.summary == "latency")
                latency.add(*r, path);
            else if (o.summary.empty()) {
                *ctx.out << (json ? record_json(*r, path, t0).dump() : snoop_line(*r, path, t0))
                         << "\n";
                ++lines;
            }
            return;
        }
        auto w = matcher.add_wait(e);
        if (!w)
            return;
        std::string path = mounts.name_of(w->start);
        if (!o.filter.match_wait(*w, path))
            return;
        if (o.summary == "waits")
            waits.add(*w);
        else if (o.summary.empty() && o.waits) {
            if (json) {
                auto j = wait_json(*w, path, t0);
                j["event"] = "wait";
                *ctx.out << j.dump() << "\n";
            } else {
                IoRecord as_io{w->start, w->done};
                std::string line = snoop_line(as_io, path, t0);
                *ctx.out << line << "  WAIT\n";
            }
            ++lines;
        }
    };

    double end = o.duration > 0 ? ctx.clock() + o.duration : 0;
    while (!stop_requested && (o.count == 0 || lines < o.count)) {
        std::size_t n = reader.read(on_event);
        matcher.expire(last_ts, 2'000'000'000ULL);
        ctx.out->flush();
        if (end > 0 && ctx.clock() >= end)
            break;
        if (!n)
            ctx.sleep(0.1);
    }
    reader.read(on_event);

    if (o.summary == "bytes")
        *ctx.out << (json ? summary_json("bytes", bytes, latency, waits).dump() + "\n"
                          : bytes.render());
    else if (o.summary == "latency")
        *ctx.out << (json ? summary_json("latency", bytes, latency, waits).dump() + "\n"
                          : latency.render());
    else if (o.summary == "waits")
        *ctx.out << (json ? summary_json("waits", bytes, latency, waits).dump() + "\n"
                          : waits.render());
    std::uint64_t lost = reader.overruns();
    *ctx.err << fmt::format("snoop: {} unmatched, {} lost\n", matcher.unmatched(), lost);
}

}  // namespace

void register_snoop(Registry& r) {
    auto* sub = r.app.add_subcommand(
        "snoop", "The io trace events: one line per I/O with its file, or a summary at the end");
    auto o = std::make_shared<SnoopOptions>();
    sub->add_option("-d,--device", o->filter.device, "Only this device (dm-0, or MAJOR:MINOR)");
    sub->add_option("-f,--file", o->filter.file_prefix, "Only files whose path starts so");
    sub->add_option("-p,--pid", o->filter.pid, "Only I/O submitted by this process id");
    sub->add_option("-m,--min-latency", o->filter.min_latency_ms,
                    "Only I/O (or waits) taking at least this many milliseconds");
    sub->add_option("-s,--summary", o->summary,
                    "Print only a summary at the end: bytes (by device, app and pid), latency "
                    "(histogram per file) or waits (per task)");
    sub->add_flag("-W,--waits", o->waits, "Also a line per completed wait (marked WAIT)");
    sub->add_option("--duration", o->duration, "Stop after this many seconds");
    sub->add_option("-c,--count", o->count, "Stop after this many lines");
    sub->add_option("--buffer-kb", o->buffer_kb, "Trace buffer per CPU, in KiB")
        ->capture_default_str();
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [=, &ctx, &json] {
        if (!o->summary.empty() && o->summary != "bytes" && o->summary != "latency" &&
            o->summary != "waits")
            throw Error(
                ErrorKind::usage,
                fmt::format("snoop: --summary '{}': expected bytes, latency or waits", o->summary));
        if (o->filter.pid < 0 || o->filter.min_latency_ms < 0 || o->duration < 0 || o->count < 0 ||
            o->buffer_kb == 0)
            throw Error(ErrorKind::usage,
                        "snoop: --pid, --min-latency, --duration, --count must not be negative, "
                        "--buffer-kb not zero");
        snoop(ctx, json, *o);
    });
}

}  // namespace iotally::cli
