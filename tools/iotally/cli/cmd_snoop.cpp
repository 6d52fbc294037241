// SPDX-License-Identifier: GPL-2.0-or-later
// iotally snoop: the io trace events, one line per I/O (the iosnoop of the
// DTrace io provider), or a summary when it ends: bytes by device, app and
// pid, latency histograms per file, wait time per task.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <utility>

#include "app.hpp"
#include "iotally/snoop/bpf_io_reader.hpp"
#include "iotally/snoop/snoop.hpp"
#include "iotally/snoop/tracefs_reader.hpp"
#include "iotally/util/backend.hpp"
#include "iotally/util/error.hpp"

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
                            const LatencySummary& lat, const WaitSummary& waits,
                            std::string_view backend) {
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
    return {{"summary", kind}, {"backend", backend}, {"rows", rows}};
}

// The backend snoop runs on, and why, as -v says it
std::pair<Backend, std::string> snoop_backend(const Context& ctx) {
    std::string native_missing = TraceReader::events_missing();
    Backend b = resolve_backend(ctx.backend, native_missing, bpf_missing(), "snoop");
    std::string why =
        ctx.backend != Backend::automatic ? fmt::format("--backend {}", backend_name(ctx.backend))
        : b == Backend::native            ? std::string("auto: the kernel has the io trace events")
                               : fmt::format("auto: the kernel lacks {}", native_missing);
    return {b, why};
}

// The reader of the backend snoop runs on.
std::unique_ptr<IoEventSource> open_source(Context& ctx, const SnoopOptions& o, Backend backend) {
    bool waits = o.waits || o.summary == "waits";
    if (backend == Backend::native)
        return std::make_unique<TraceReader>(fmt::format("iotally-snoop-{}", ::getpid()),
                                             o.buffer_kb, waits);
    BpfIoReader::Options bo;
    bo.buffer_kb = o.buffer_kb;
    bo.waits = waits;
    bo.log = ctx.verbose ? ctx.err : nullptr;
    auto bpf = std::make_unique<BpfIoReader>(bo);
    if (ctx.verbose)
        *ctx.err << fmt::format("iotally: snoop: bpf maps: {} KiB\n",
                                (bpf->map_bytes() + 1023) / 1024);
    return bpf;
}

// One snoop: events from the reader, matched into I/Os and waits, printed
// one line each or summed into the summary asked for.
class Snoop {
  public:
    Snoop(Context& ctx, bool json, const SnoopOptions& o, IoEventSource& reader,
          std::string_view backend)
        : ctx_(ctx), json_(json), o_(o), reader_(reader), bname_(backend) {}

    void run() {
        print_header();
        double end = o_.duration > 0 ? ctx_.clock() + o_.duration : 0;
        auto on_event = [this](const IoEvent& e) { event(e); };
        while (!stop_requested && (o_.count == 0 || lines_ < o_.count)) {
            std::size_t n = reader_.read(on_event);
            matcher_.expire(last_ts_, 2'000'000'000ULL);
            ctx_.out->flush();
            if (end > 0 && ctx_.clock() >= end)
                break;
            if (!n)
                ctx_.sleep(0.1);
        }
        reader_.read(on_event);
        print_summary();
        *ctx_.err << fmt::format("snoop: {} unmatched, {} lost\n",
                                 matcher_.unmatched() + reader_.unmatched(), reader_.lost());
    }

  private:
    void print_header() {
        bool header = !json_ && o_.summary.empty();
        if (header)
            *ctx_.out << snoop_header() << (o_.waits ? "  (-W: a wait ends in WAIT)" : "") << "\n";
        ctx_.out->flush();
        // The marker scripts wait for: events are recorded from here on
        if (ctx_.verbose)
            *ctx_.err << "iotally: snoop: tracing\n" << std::flush;
    }

    // -c N: N lines, not the rest of the batch that held the Nth
    bool counted_out() const { return o_.count != 0 && lines_ >= o_.count; }

    void event(const IoEvent& e) {
        if (!t0_)
            t0_ = e.ts_ns;
        last_ts_ = std::max(last_ts_, e.ts_ns);
        if (e.kind == IoEvent::Kind::start || e.kind == IoEvent::Kind::done)
            io(e);
        else
            wait(e);
    }

    void io(const IoEvent& e) {
        auto r = matcher_.add_io(e);
        if (!r)
            return;
        std::string path = mounts_.name_of(r->start);
        if (!o_.filter.match(*r, path))
            return;
        if (o_.summary == "bytes")
            bytes_.add(*r);
        else if (o_.summary == "latency")
            latency_.add(*r, path);
        else if (o_.summary.empty() && !counted_out()) {
            if (json_) {
                auto j = record_json(*r, path, t0_);
                j["backend"] = bname_;
                *ctx_.out << j.dump() << "\n";
            } else {
                *ctx_.out << snoop_line(*r, path, t0_) << "\n";
            }
            ++lines_;
        }
    }

    void wait(const IoEvent& e) {
        auto w = matcher_.add_wait(e);
        if (!w)
            return;
        std::string path = mounts_.name_of(w->start);
        if (!o_.filter.match_wait(*w, path))
            return;
        if (o_.summary == "waits")
            waits_.add(*w);
        else if (o_.summary.empty() && o_.waits && !counted_out()) {
            if (json_) {
                auto j = wait_json(*w, path, t0_);
                j["event"] = "wait";
                j["backend"] = bname_;
                *ctx_.out << j.dump() << "\n";
            } else {
                IoRecord as_io{w->start, w->done};
                std::string line = snoop_line(as_io, path, t0_);
                *ctx_.out << line << "  WAIT\n";
            }
            ++lines_;
        }
    }

    void print_summary() {
        if (o_.summary == "bytes")
            *ctx_.out << (json_ ? summary_json("bytes", bytes_, latency_, waits_, bname_).dump() +
                                      "\n"
                                : bytes_.render());
        else if (o_.summary == "latency")
            *ctx_.out << (json_ ? summary_json("latency", bytes_, latency_, waits_, bname_).dump() +
                                      "\n"
                                : latency_.render());
        else if (o_.summary == "waits")
            *ctx_.out << (json_ ? summary_json("waits", bytes_, latency_, waits_, bname_).dump() +
                                      "\n"
                                : waits_.render());
    }

    Context& ctx_;
    bool json_;
    const SnoopOptions& o_;
    IoEventSource& reader_;
    std::string_view bname_;
    MountTable mounts_ = MountTable::load();
    IoMatcher matcher_;
    BytesSummary bytes_;
    LatencySummary latency_;
    WaitSummary waits_;
    std::uint64_t t0_ = 0, last_ts_ = 0;
    long lines_ = 0;
};

void snoop(Context& ctx, bool json, const SnoopOptions& o) {
    auto [backend, why] = snoop_backend(ctx);
    if (ctx.verbose)
        *ctx.err << fmt::format("iotally: snoop: backend {} ({})\n", backend_name(backend), why)
                 << std::flush;
    std::unique_ptr<IoEventSource> source = open_source(ctx, o, backend);
    Snoop session(ctx, json, o, *source, backend_name(backend));

    struct sigaction sa {};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    session.run();
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
    sub->add_option("--buffer-kb", o->buffer_kb,
                    "Trace buffer per CPU, in KiB (bpf: one ring buffer of CPUs times it, "
                    "rounded up to a power of two)")
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
