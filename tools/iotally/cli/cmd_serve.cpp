// SPDX-License-Identifier: GPL-2.0-or-later
// iotally serve: a Prometheus exporter over HTTP, or a textfile writer for
// node_exporter's textfile collector (Documentation/iotally-exporter.rst).
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <optional>
#include <ostream>
#include <thread>

#include "app.hpp"
#include "block_devices.hpp"
#include "iotally/exporter/cgroup_collector.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/http_server.hpp"
#include "iotally/exporter/otlp_push.hpp"
#include "iotally/exporter/otlp_request.hpp"
#include "iotally/exporter/queue_depth.hpp"
#include "iotally/exporter/unavailable_collector.hpp"
#include "iotally/util/atomic_file.hpp"
#include "iotally/util/backend.hpp"
#include "iotally/util/error.hpp"
#include "output.hpp"
#include "select_options.hpp"
#include "task_records.hpp"

namespace iotally::cli {
namespace {

// "HOST:PORT", "[V6]:PORT" or ":PORT" (loopback).
std::pair<std::string, int> parse_listen(const std::string& text) {
    auto bad = [&] {
        return Error(ErrorKind::usage,
                     fmt::format("--listen '{}': expected HOST:PORT or [ADDRESS]:PORT", text));
    };
    std::size_t colon = text.rfind(':');
    if (colon == std::string::npos)
        throw bad();
    std::string host = text.substr(0, colon), port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty())
        host = "127.0.0.1";
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != port.npos)
        throw bad();
    int p = std::stoi(port);
    if (p < 1 || p > 65535)
        throw bad();
    return {host, p};
}

// SIGTERM, SIGINT and SIGHUP are blocked in every thread and taken by
// sigwait/sigtimedwait: a clean stop, never a handler racing the server.
class StopSignals {
  public:
    StopSignals() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGTERM);
        sigaddset(&set_, SIGINT);
        sigaddset(&set_, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &set_, &old_);
    }
    ~StopSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
    // The signal, or 0 after `seconds` (< 0: wait forever).
    int wait(double seconds) const {
        if (seconds < 0) {
            int sig = 0;
            sigwait(&set_, &sig);
            return sig;
        }
        timespec ts{};
        ts.tv_sec = static_cast<time_t>(seconds);
        ts.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
        for (;;) {
            int sig = sigtimedwait(&set_, nullptr, &ts);
            if (sig > 0)
                return sig;
            if (errno == EAGAIN)
                return 0;
            // EINTR: another signal; wait again (for the full time: simple, rare).
        }
    }

  private:
    sigset_t set_{}, old_{};
};

struct ServeArgs {
    std::vector<std::string> devices;
    std::string listen = fmt::format("127.0.0.1:{}", default_serve_port);
    std::string program_id, textfile, name = "iotally.prom", tasks_by = "bytes";
    std::vector<std::string> statistics;
    bool areas = false, cgroups = false;
    CgroupOptions cgroup;
    double interval = 15;
    std::uint64_t count = 0;
    std::size_t tasks = 0, threads = 2;
    SelectArgs select;
    std::string otlp;  // --otlp URL
    std::size_t otlp_queue = 16;
    std::string otlp_compression = "none";
    bool interval_given = false;
    std::string qd_sample = "100ms";  // the period of the in-flight samples; "0": none
    bool qd_regions = false;
};

void add_serve_options(CLI::App& sub, ServeArgs& a) {
    sub.add_option("devices", a.devices,
                   "dm devices, by dm or kernel name (default: all, as they come and go)")
        ->type_name("[DEVICE...]");
    sub.add_option("--listen", a.listen, "Address to serve on, HOST:PORT")
        ->type_name("ADDR")
        ->capture_default_str();
    sub.add_option("--program-id", a.program_id, "Only regions of this program_id")
        ->type_name("ID");
    add_select_options(
        sub, a.select,
        "Devices matching EXPR: name=GLOB,target=TYPE,driver=GLOB,uuid=PREFIX,lv=VG/LV "
        "(repeatable; chosen again at every scrape)");
    sub.add_flag("--areas", a.areas, "One series per area instead of per region");
    auto* textfile = sub.add_option("--textfile", a.textfile,
                                    "Write text 0.0.4 into this node_exporter textfile "
                                    "directory every --interval instead of serving HTTP")
                         ->type_name("DIR");
    sub.add_option("--interval", a.interval, "Seconds between textfile writes and OTLP pushes")
        ->type_name("SECONDS")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 86400.0))
        ->each([&a](const std::string&) { a.interval_given = true; });
    sub.add_option("--count", a.count, "Stop after this many textfile writes (0: never)")
        ->type_name("N")
        ->needs(textfile);
    sub.add_option("--name", a.name, "File name in --textfile")->capture_default_str();
    sub.add_option("--tasks", a.tasks,
                   fmt::format("Per-task I/O family: the top N processes (1..{})", max_top_tasks))
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, max_top_tasks));
    sub.add_option("--tasks-by", a.tasks_by, "Rank tasks by bytes or wait")
        ->type_name("KEY")
        ->check(CLI::IsMember({"bytes", "wait"}))
        ->capture_default_str();
    sub.add_option("--statistics", a.statistics,
                   "Generic statistics layer family: this debugfs interface (repeatable)")
        ->type_name("IFACE");
    sub.add_flag("--cgroups", a.cgroups,
                 "Per-cgroup I/O families: taskstats per cgroup v2 path, io.stat beside");
    sub.add_option("--cgroup-depth", a.cgroup.depth, "With --cgroups: path components kept")
        ->type_name("N")
        ->capture_default_str();
    sub.add_option("--cgroup-max", a.cgroup.max_series,
                   "With --cgroups: cgroups of their own, the rest in cgroup=\"__overflow__\"")
        ->type_name("N")
        ->capture_default_str();
    sub.add_option("--cgroup-root", a.cgroup.root, "With --cgroups: the cgroup2 mount")
        ->type_name("DIR")
        ->capture_default_str();
    sub.add_option("--otlp", a.otlp,
                   "Also push every --interval to this OTLP/HTTP receiver "
                   "(http://HOST:PORT/PATH, protobuf)")
        ->type_name("URL");
    sub.add_option("--otlp-queue", a.otlp_queue,
                   "OTLP requests kept while the receiver is down (the oldest dropped first)")
        ->type_name("N")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
    sub.add_option("--otlp-compression", a.otlp_compression,
                   "OTLP request bodies: none, or gzip (a 40th of the bytes, measured)")
        ->type_name("C")
        ->check(CLI::IsMember({"none", "gzip"}))
        ->capture_default_str();
    sub.add_option("--qd-sample", a.qd_sample,
                   "Sample the I/Os in flight this often for the queue depth families "
                   "(0: not at all)")
        ->type_name("DURATION")
        ->capture_default_str();
    sub.add_flag("--qd-regions", a.qd_regions,
                 "The dm-stats regions' queue depth too (one @stats_print per region per sample)");
    sub.add_option("--threads", a.threads, "Requests served at once")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, std::size_t{16}))
        ->capture_default_str();
}

ScrapeOptions scrape_options(const ServeArgs& a, const std::string& sysfs) {
    ScrapeOptions so;
    so.sysfs_root = sysfs;
    if (!a.devices.empty() || !a.select.exprs.empty() || !a.select.mode.empty() || a.select.max) {
        // devstat's selection, as report's, over the block devices of each
        // scrape joined to device-mapper's.
        so.select = a.select;
        so.select->names = a.devices;
    }
    if (!a.program_id.empty())
        so.program_id = a.program_id;
    so.areas = a.areas;
    return so;
}

void add_cgroup_collector(Exporter& exporter, const ServeArgs& a, const Context& ctx);

// --qd-sample's period in seconds; absent for 0 (no sampling).
std::optional<double> qd_period(const ServeArgs& a) {
    std::optional<double> period;
    if (a.qd_sample != "0") {
        try {
            period = parse_interval_s(a.qd_sample);
        } catch (const Error& e) {
            throw Error(e.kind(), fmt::format("--qd-sample: {}", e.what()));
        }
    }
    if (a.qd_regions && !period)
        throw Error(ErrorKind::usage, "--qd-regions needs --qd-sample above 0");
    return period;
}

// The opt-in families: per-task, per-cgroup, the generic statistics layer.
void add_collectors(Exporter& exporter, const ServeArgs& a, const Context& ctx) {
    if (a.tasks)
        exporter.add_collector(
            make_task_collector(a.tasks, a.tasks_by == "wait" ? TaskRank::wait : TaskRank::bytes));
    if (a.cgroups)
        add_cgroup_collector(exporter, a, ctx);
    if (!a.statistics.empty())
        exporter.add_collector(
            make_statistics_collector(ctx.debugfs + "/statistics", a.statistics));
}

// --otlp: a scrape turned into an OTLP request and queued for the sender's
// thread (otlp_push.hpp); a scrape that cannot be encoded is said, not fatal.
class OtlpPush {
  public:
    OtlpPush(Exporter& exporter, const ServeArgs& a, const Context& ctx, std::ostream& err)
        : exporter_(exporter), realtime_ns_(ctx.realtime_ns), err_(err) {
        char host[256] = {};
        if (gethostname(host, sizeof host - 1) != 0)
            host[0] = 0;
        resource_.host_name = *host ? host : "localhost";
        resource_.service_version = IOTALLY_VERSION;
        start_ns_ = static_cast<std::uint64_t>(realtime_ns_());
        OtlpPushOptions o;
        o.url = a.otlp;
        o.queue_max = a.otlp_queue;
        o.gzip = a.otlp_compression == "gzip";
        o.on_state = [&err](const std::string& m) { err << "iotally serve: " << m << std::endl; };
        pusher_ = std::make_shared<OtlpPusher>(std::move(o));
        exporter.add_collector(make_otlp_collector(pusher_));
    }
    ~OtlpPush() { pusher_->stop(); }  // what is queued gets its chance (drain)
    OtlpPush(const OtlpPush&) = delete;
    OtlpPush& operator=(const OtlpPush&) = delete;
    void push() {
        try {
            std::string exposition = exporter_.scrape(ExpositionFormat::protobuf);
            pusher_->submit(otlp_request(exposition, resource_, start_ns_,
                                         static_cast<std::uint64_t>(realtime_ns_())));
        } catch (const std::exception& e) {  // Error, or out of memory
            err_ << "iotally serve: OTLP: " << e.what() << std::endl;
        }
    }

  private:
    Exporter& exporter_;
    std::function<std::int64_t()> realtime_ns_;
    std::ostream& err_;
    OtlpResource resource_;
    std::uint64_t start_ns_ = 0;
    std::shared_ptr<OtlpPusher> pusher_;
};

// --cgroups: on the native backend or the BPF one. Neither, for want of the
// BPF backend's capabilities: the source is down for good (capabilities do
// not change while serve runs), said once, and the others are served.
void add_cgroup_collector(Exporter& exporter, const ServeArgs& a, const Context& ctx) {
    CgroupOptions o = a.cgroup;
    std::string native_missing = task_io_native_missing();
    Backend b{};
    try {
        b = resolve_backend(ctx.backend, native_missing,
                            ctx.backend == Backend::native ? std::string() : bpf_missing(),
                            "serve --cgroups");
    } catch (const Error& e) {
        if (ctx.backend == Backend::native || bpf_capable())
            throw;
        exporter.add_collector(make_unavailable_collector("cgroups", e.what()));
        return;
    }
    if (ctx.verbose)
        *ctx.err << fmt::format("iotally: serve --cgroups: backend {} ({})\n", backend_name(b),
                                ctx.backend != Backend::automatic ? std::string("--backend")
                                : b == Backend::native
                                    ? std::string("the kernel's taskstats carry per-task I/O")
                                    : "no " + native_missing);
    o.bpf = b == Backend::bpf;
    o.bpf_log = ctx.verbose ? ctx.err : nullptr;
    exporter.add_collector(make_cgroup_collector(o));
}

// --textfile: a scrape written every --interval until --count or a signal.
void write_textfiles(Exporter& exporter, const ServeArgs& a, const StopSignals& signals,
                     std::ostream& err, OtlpPush* otlp) {
    for (std::uint64_t n = 1;; ++n) {
        try {
            write_file_atomically(a.textfile, a.name,
                                  exporter.scrape(ExpositionFormat::prometheus));
        } catch (const Error& e) {
            if (n == 1)
                throw;  // at start: one line and a non-zero status
            // Later (a full disk, a directory replaced): say so, go on.
            err << "iotally serve: " << e.what() << std::endl;
        }
        if (otlp)
            otlp->push();
        if (a.count && n >= a.count)
            return;
        if (int sig = signals.wait(a.interval)) {
            err << fmt::format("iotally serve: {}, stopping\n", strsignal(sig));
            return;
        }
    }
}

// GET /metrics on --listen until a signal.
void serve_http(Exporter& exporter, const ServeArgs& a, const StopSignals& signals,
                std::ostream& err, OtlpPush* otlp) {
    auto [host, port] = parse_listen(a.listen);
    ServerOptions opt;
    opt.address = host;
    opt.port = port;
    opt.threads = a.threads;
    MetricsServer server(opt, [&exporter](ExpositionFormat f) { return exporter.scrape(f); });
    server.bind();
    err << fmt::format("iotally serve: listening on http://{}:{}/metrics\n",
                       host.find(':') != std::string::npos ? "[" + host + "]" : host, server.port())
        << std::flush;
    // --otlp: its own timer thread, beside the server's.
    std::optional<PeriodicTask> timer;
    if (otlp)
        timer.emplace(a.interval, [otlp] { otlp->push(); });
    int sig = 0;
    std::thread stopper([&] {
        sig = signals.wait(-1);
        server.stop();
    });
    bool ok = server.run();
    if (!ok && sig == 0) {
        // The listening loop failed by itself: let the stopper go too.
        pthread_kill(stopper.native_handle(), SIGTERM);
    }
    stopper.join();
    if (!ok && sig == 0)
        throw Error(ErrorKind::failed, "the HTTP server stopped unexpectedly");
    err << fmt::format("iotally serve: {}, stopping\n", strsignal(sig));
}

void serve(Context& ctx, const ServeArgs& a) {
    if (a.interval_given && a.textfile.empty() && a.otlp.empty())
        throw Error(ErrorKind::usage, "--interval needs --textfile or --otlp");
    if (!a.otlp.empty())
        parse_otlp_url(a.otlp);  // a bad URL: a usage error before anything starts
    const std::optional<double> qd = qd_period(a);
    // --qd-regions: the sampling thread sends @stats_print beside the
    // scrapes' requests, one request at a time.
    std::optional<SerializedLayer> shared_layer;
    if (a.qd_regions)
        shared_layer.emplace(ctx.layer());
    DeviceLayer& layer = shared_layer ? *shared_layer : ctx.layer();
    Exporter exporter(layer, scrape_options(a, ctx.sysfs), ctx.clock);
    add_collectors(exporter, a, ctx);
    std::ostream& err = *ctx.err;
    exporter.on_error = [&err](const std::string& m) {
        err << "iotally serve: scrape: " << m << std::endl;
    };
    // device-mapper not loaded yet (a host of plain disks, a boot before
    // LVM): serve the rest, and its regions once it appears.
    exporter.on_source = [&err](const std::string& m) {
        err << "iotally serve: " << m << std::endl;
    };
    exporter.check();  // one-line error and a non-zero status at start
    if (a.tasks || a.cgroups)
        warn_if_task_io_stats_off(err, ctx.proc);

    StopSignals signals;  // blocked before any thread starts, so in all of them
    // --qd-sample: in-flight counts sampled by a thread of their own,
    // stopped (joined) before the exporter goes.
    std::optional<PeriodicTask> qd_timer;
    if (qd) {
        auto monitor = std::make_shared<QueueDepthMonitor>(
            a.qd_regions ? &layer : nullptr, DepthSamplerOptions{ctx.sysfs, a.qd_regions},
            ctx.clock);
        exporter.set_queue_depth(monitor);
        qd_timer.emplace(*qd, [monitor] { monitor->sample(); });
    }
    std::optional<OtlpPush> otlp;
    if (!a.otlp.empty())
        otlp.emplace(exporter, a, ctx, err);
    OtlpPush* push = otlp ? &*otlp : nullptr;
    if (!a.textfile.empty())
        write_textfiles(exporter, a, signals, err, push);
    else
        serve_http(exporter, a, signals, err, push);
}

}  // namespace

void register_serve(Registry& r) {
    auto a = std::make_shared<ServeArgs>();
    auto* sub = r.app.add_subcommand(
        "serve", "Prometheus exporter: GET /metrics over HTTP, or a node_exporter textfile");
    add_serve_options(*sub, *a);
    Context& ctx = r.ctx;
    r.add(sub, [a, &ctx] { serve(ctx, *a); });
}

}  // namespace iotally::cli
