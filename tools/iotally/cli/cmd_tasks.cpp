// SPDX-License-Identifier: GPL-2.0-or-later
// iotally tasks: per-task and per-process block I/O from taskstats.
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/cgroup_sampler.hpp"
#include "iotally/error.hpp"
#include "iotally/taskstats.hpp"
#include "iotally/units.hpp"
#include "output.hpp"
#include "task_records.hpp"

namespace iotally::cli {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_stop(int) {
    stop_requested = 1;
}

void print_record_table(std::ostream& out, const TaskRecord& r) {
    Table t({"<FIELD", "<VALUE"});
    t.add({r.tgid ? "tgid" : "pid", std::to_string(r.id)});
    if (r.stats) {
        const auto& s = *r.stats;
        t.add({"comm", s.comm});
        t.add({"taskstats_version", std::to_string(s.version)});
        t.add({"utime_us", std::to_string(s.utime_us)});
        t.add({"stime_us", std::to_string(s.stime_us)});
        t.add({"cpu", fmt::format("count {} delay_ns {}", s.cpu_count, s.cpu_delay_total_ns)});
        t.add({"blkio_delay",
               fmt::format("count {} delay_ns {}", s.blkio_count, s.blkio_delay_total_ns)});
        t.add({"read_bytes", std::to_string(s.read_bytes)});
        t.add({"write_bytes", std::to_string(s.write_bytes)});
        t.add({"read_char", std::to_string(s.read_char)});
        t.add({"write_char", std::to_string(s.write_char)});
        t.add({"ctxsw", fmt::format("voluntary {} involuntary {}", s.nvcsw, s.nivcsw)});
    }
    if (r.io) {
        const auto& io = *r.io;
        t.add({"io_version", std::to_string(io.version)});
        for (int op = 0; op < TaskIo::nr_ops; op++)
            t.add({op_name(static_cast<TaskIo::Op>(op)),
                   fmt::format("ops {} sectors {}", io.ops[op], io.sectors[op])});
        t.add({"wait", fmt::format("count {} total_ns {} max_ns {}", io.wait_count,
                                   io.wait_total_ns, io.wait_max_ns)});
        t.add({"wait_hist", task_wait_hist_text(io)});
        if (io.version >= 2)
            t.add({"cgroup_id", std::to_string(io.cgroup_id)});
    } else {
        t.add({"io", "absent (kernel without CONFIG_TASK_IO_STATS)"});
    }
    out << t.render();
}

std::uint32_t parse_id(const std::string& text, const char* what) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
        v = std::stoul(text, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty() || v == 0 || v > 0x7fffffffUL)
        throw Error(ErrorKind::usage, fmt::format("{} '{}' is not a positive number", what, text));
    return static_cast<std::uint32_t>(v);
}

// Makes the next exit message of @cpu a known start of its sequence: a
// child pinned to it exits at once, and its record is the first counted.
bool sync_cpu(TaskstatsClient& c, unsigned cpu) {
    pid_t child = ::fork();
    if (child < 0)
        return false;
    if (child == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        ::_exit(sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : 1);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return false;
    std::vector<TaskRecord> recs;
    for (int tries = 0; tries < 20; tries++) {
        c.forget_sequence();
        recs.clear();
        c.receive(recs, 250);
        for (const auto& r : recs)
            if (!r.tgid && r.id == static_cast<std::uint32_t>(child)) {
                c.reset_counts();
                return true;
            }
    }
    return false;
}

struct ListenOptions {
    std::string cpumask;
    std::string file;
    int rcvbuf = 0;
    long count = 0;
    double duration = 0;
};

void listen(Context& ctx, bool json, const ListenOptions& o) {
    // The kernel validates the mask and answers with its own error codes.
    // No listener is deregistered (here or below): the acknowledgement of
    // TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK is dropped when the socket's
    // receive buffer is full, and waiting for it would hang. The kernel
    // drops a listener whose socket is closed at its next exit message.
    TaskstatsClient{}.register_cpumask(o.cpumask);
    warn_if_task_io_stats_off(*ctx.err, ctx.proc);
    std::vector<unsigned> cpus = parse_cpulist(o.cpumask);
    std::vector<std::unique_ptr<TaskstatsClient>> socks;
    bool exact = true;
    for (unsigned cpu : cpus) {
        auto c = std::make_unique<TaskstatsClient>();
        if (o.rcvbuf)
            c->set_rcvbuf(o.rcvbuf);
        c->register_cpumask(std::to_string(cpu));
        exact = sync_cpu(*c, cpu) && exact;
        socks.push_back(std::move(c));
    }
    std::ofstream file;
    if (!o.file.empty()) {
        file.open(o.file, std::ios::out | std::ios::trunc);
        if (!file)
            throw Error(ErrorKind::failed, fmt::format("{}: cannot open for writing", o.file));
    }
    struct sigaction sa {};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    *ctx.err << fmt::format("listening on cpus {}\n", o.cpumask);
    ctx.err->flush();

    ExitRecordWriter writer(*ctx.out, file.is_open() ? &file : nullptr, json, ctx.realtime_ns);
    double end = o.duration > 0 ? ctx.clock() + o.duration : 0;
    std::vector<pollfd> fds;
    for (auto& c : socks)
        fds.push_back({c->fd(), POLLIN, 0});
    while (!stop_requested && (o.count == 0 || writer.pid_records() < o.count)) {
        int timeout = -1;
        if (end > 0) {
            double left = end - ctx.clock();
            if (left <= 0)
                break;
            timeout = static_cast<int>(left * 1000) + 1;
        }
        int rc = ::poll(fds.data(), fds.size(), timeout);
        if (rc < 0 && errno != EINTR)
            throw Error(ErrorKind::failed, fmt::format("poll: {}", std::strerror(errno)));
        if (rc <= 0)
            continue;
        for (std::size_t i = 0; i < socks.size(); i++) {
            if (!(fds[i].revents & (POLLIN | POLLERR)))
                continue;
            std::vector<TaskRecord> recs;
            socks[i]->receive(recs, 0);
            for (const auto& r : recs)
                writer.record(r);
        }
        ctx.out->flush();
    }
    ListenSummary summary;
    summary.lost_exact = exact;
    for (std::size_t i = 0; i < socks.size(); i++) {
        // Drain what is already queued before leaving.
        std::vector<TaskRecord> recs;
        while (o.count == 0 && socks[i]->receive(recs, 0)) {
        }
        for (const auto& r : recs)
            writer.record(r);
        summary.lost_messages += socks[i]->lost();
        summary.overflows += socks[i]->overflows();
    }
    if (file.is_open()) {
        file.flush();
        if (!file)
            throw Error(ErrorKind::failed, fmt::format("{}: write failed", o.file));
    }
    writer.summary(summary);
}

struct TopRow {
    std::uint32_t tgid;
    std::string comm;
    std::uint64_t read_bytes, write_bytes, ops, wait_ns, waits;
};

std::map<std::uint32_t, TaskRecord> snapshot_tgids(TaskstatsClient& c) {
    std::map<std::uint32_t, TaskRecord> out;
    for (std::uint32_t id : process_ids()) {
        try {
            auto rec = c.query_tgid(id);
            if (rec.io)
                out.emplace(id, std::move(rec));
        } catch (const Error& err) {
            if (err.kind() != ErrorKind::no_device)  // gone meanwhile
                throw;
        }
    }
    return out;
}

// A tgid record carries no command name: /proc has it while the process lives.
std::string command_name(std::uint32_t tgid, const TaskRecord& rec) {
    if (rec.stats && !rec.stats->comm.empty())
        return rec.stats->comm;
    std::ifstream in(fmt::format("/proc/{}/comm", tgid));
    std::string comm;
    if (std::getline(in, comm) && !comm.empty())
        return comm;
    return "?";
}

void top(Context& ctx, bool json, double interval, const std::string& by, std::size_t limit) {
    if (by != "bytes" && by != "wait" && by != "ops")
        throw Error(ErrorKind::usage, fmt::format("--by '{}': expected bytes, ops or wait", by));
    TaskstatsClient c;
    // This process always exists: without I/O in its own record, the kernel
    // has no per-task I/O at all, and an empty table would be a lie.
    if (!c.query_tgid(static_cast<std::uint32_t>(::getpid())).io)
        throw Error(ErrorKind::unsupported,
                    "tasks --top: this kernel's taskstats carry no per-task I/O "
                    "(the iotally kernel patches add it; see iotally(8))");
    warn_if_task_io_stats_off(*ctx.err, ctx.proc);
    auto before = snapshot_tgids(c);
    ctx.sleep(interval);
    auto after = snapshot_tgids(c);
    std::vector<TopRow> rows;
    for (const auto& [tgid, rec] : after) {
        TaskIo base{};
        if (auto it = before.find(tgid); it != before.end())
            base = *it->second.io;
        const TaskIo& io = *rec.io;
        TopRow r{tgid,
                 command_name(tgid, rec),
                 (io.sectors[TaskIo::read] - base.sectors[TaskIo::read]) * 512,
                 (io.sectors[TaskIo::write] - base.sectors[TaskIo::write]) * 512,
                 0,
                 io.wait_total_ns - base.wait_total_ns,
                 io.wait_count - base.wait_count};
        for (int op = 0; op < TaskIo::nr_ops; op++)
            r.ops += io.ops[op] - base.ops[op];
        if (r.ops || r.waits)
            rows.push_back(r);
    }
    auto key = [&](const TopRow& r) {
        return by == "wait" ? r.wait_ns : by == "ops" ? r.ops : r.read_bytes + r.write_bytes;
    };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const TopRow& a, const TopRow& b) { return key(a) > key(b); });
    if (rows.size() > limit)
        rows.resize(limit);
    if (json) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& r : rows)
            j.push_back({{"tgid", r.tgid},
                         {"comm", r.comm},
                         {"read_bytes", r.read_bytes},
                         {"write_bytes", r.write_bytes},
                         {"ops", r.ops},
                         {"waits", r.waits},
                         {"wait_ns", r.wait_ns}});
        auto doc = json_document("tasks");
        add_timestamp(doc, ctx.realtime_ns());
        doc["interval_s"] = interval;
        doc["by"] = by;
        doc["units"] = {{"read_bytes", "bytes"}, {"write_bytes", "bytes"}, {"wait_ns", "ns"}};
        doc["tasks"] = j;
        *ctx.out << doc.dump() << "\n";
        return;
    }
    Table t({"TGID", "<COMM", "READ_B", "WRITE_B", "OPS", "WAITS", "WAIT_MS"});
    for (const auto& r : rows)
        t.add({std::to_string(r.tgid), r.comm, std::to_string(r.read_bytes),
               std::to_string(r.write_bytes), std::to_string(r.ops), std::to_string(r.waits),
               fmt::format("{:.3f}", ns_to_ms(static_cast<double>(r.wait_ns)))});
    *ctx.out << t.render();
}

// The upper bound, in ns, of the bucket that holds the q-quantile wait.
std::uint64_t quantile_bound_ns(const TaskIo& io, double q) {
    std::uint64_t total = 0, seen = 0;
    for (auto c : io.wait_hist)
        total += c;
    if (total == 0)
        return 0;
    for (std::size_t b = 0; b < io.wait_hist.size(); b++) {
        seen += io.wait_hist[b];
        if (static_cast<double>(seen) >= q * static_cast<double>(total))
            return b + 1 < io.wait_hist.size() ? io.bucket_low_ns(b + 1) : io.wait_max_ns;
    }
    return io.wait_max_ns;
}

TaskIo minus(const TaskIo& a, const TaskIo* b) {
    TaskIo d = a;
    if (!b)
        return d;
    for (std::size_t i = 0; i < TaskIo::nr_ops; i++) {
        d.ops[i] -= std::min(d.ops[i], b->ops[i]);
        d.sectors[i] -= std::min(d.sectors[i], b->sectors[i]);
    }
    d.wait_count -= std::min(d.wait_count, b->wait_count);
    d.wait_total_ns -= std::min(d.wait_total_ns, b->wait_total_ns);
    for (std::size_t i = 0; i < TaskIo::nr_buckets; i++)
        d.wait_hist[i] -= std::min(d.wait_hist[i], b->wait_hist[i]);
    return d;
}

// tasks --cgroup: what each cgroup's processes, running or exited, did
// over the interval.
void cgroups(Context& ctx, bool json, double interval, const CgroupOptions& o) {
    CgroupSampler sampler(o);
    sampler.start();
    warn_if_task_io_stats_off(*ctx.err, ctx.proc);
    auto before = sampler.sample();
    ctx.sleep(interval);
    auto after = sampler.sample();
    struct Row {
        std::string cgroup;
        TaskIo io;
        std::uint64_t ops = 0;
    };
    std::vector<Row> rows;
    for (const auto& [path, io] : after) {
        auto it = before.find(path);
        Row r{path, minus(io, it == before.end() ? nullptr : &it->second)};
        for (int op = 0; op < TaskIo::nr_ops; op++)
            r.ops += r.io.ops[op];
        if (r.ops || r.io.wait_count)
            rows.push_back(std::move(r));
    }
    if (json) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& r : rows) {
            nlohmann::json hist = nlohmann::json::array();
            for (std::size_t b = 0; b < r.io.wait_hist.size(); b++)
                if (r.io.wait_hist[b])
                    hist.push_back({{"bucket", b},
                                    {"low_ns", r.io.bucket_low_ns(b)},
                                    {"count", r.io.wait_hist[b]}});
            j.push_back({{"cgroup", r.cgroup},
                         {"read_bytes", r.io.sectors[TaskIo::read] * 512},
                         {"write_bytes", r.io.sectors[TaskIo::write] * 512},
                         {"ops", r.ops},
                         {"waits", r.io.wait_count},
                         {"wait_ns", r.io.wait_total_ns},
                         {"wait_histogram", hist}});
        }
        auto doc = json_document("tasks");
        add_timestamp(doc, ctx.realtime_ns());
        doc["interval_s"] = interval;
        doc["units"] = {{"read_bytes", "bytes"}, {"write_bytes", "bytes"}, {"wait_ns", "ns"}};
        doc["cgroups"] = j;
        doc["exits"] = sampler.exits();
        doc["lost_messages"] = sampler.lost_messages();
        doc["unaccounted_exits"] = sampler.unaccounted_exits();
        *ctx.out << doc.dump() << "\n";
        return;
    }
    Table t({"<CGROUP", "READ_B", "WRITE_B", "OPS", "WAITS", "WAIT_MS", "P50_MS", "P99_MS"});
    auto ms = [](std::uint64_t ns) {
        return fmt::format("{:.3f}", ns_to_ms(static_cast<double>(ns)));
    };
    for (const auto& r : rows)
        t.add({r.cgroup, std::to_string(r.io.sectors[TaskIo::read] * 512),
               std::to_string(r.io.sectors[TaskIo::write] * 512), std::to_string(r.ops),
               std::to_string(r.io.wait_count), ms(r.io.wait_total_ns),
               ms(quantile_bound_ns(r.io, 0.5)), ms(quantile_bound_ns(r.io, 0.99))});
    *ctx.out << t.render();
    if (sampler.lost_messages() || sampler.unaccounted_exits())
        *ctx.err << fmt::format("tasks --cgroup: {} exit messages lost, {} exits unaccounted\n",
                                sampler.lost_messages(), sampler.unaccounted_exits());
}

}  // namespace

void register_tasks(Registry& r) {
    auto* sub = r.app.add_subcommand(
        "tasks", "Per-task block I/O from taskstats: query, exit listener, top view");
    auto pid = std::make_shared<std::string>();
    auto tgid = std::make_shared<std::string>();
    auto lo = std::make_shared<ListenOptions>();
    auto top_on = std::make_shared<bool>(false);
    auto interval = std::make_shared<std::string>("1");
    auto by = std::make_shared<std::string>("bytes");
    auto limit = std::make_shared<std::size_t>(10);
    auto* p = sub->add_option("-p,--pid", *pid, "Statistics of one task");
    auto* t =
        sub->add_option("-t,--tgid", *tgid, "Statistics of one process, exited threads included");
    auto* m =
        sub->add_option("-m,--cpumask", lo->cpumask, "Listen for exits on these CPUs (e.g. 0-3,7)");
    auto* top_flag = sub->add_flag("--top", *top_on, "Tasks doing the most I/O over an interval");
    auto cg_on = std::make_shared<bool>(false);
    auto cg = std::make_shared<CgroupOptions>();
    auto* cg_flag = sub->add_flag(
        "--cgroup", *cg_on, "I/O per cgroup v2 cgroup over an interval, exited tasks included");
    p->excludes(t)->excludes(m)->excludes(top_flag)->excludes(cg_flag);
    t->excludes(m)->excludes(top_flag)->excludes(cg_flag);
    m->excludes(top_flag)->excludes(cg_flag);
    top_flag->excludes(cg_flag);
    sub->add_option("--cgroup-depth", cg->depth, "With --cgroup: path components kept")
        ->type_name("N")
        ->capture_default_str();
    sub->add_option("--cgroup-max", cg->max_series,
                    "With --cgroup: cgroups of their own; the rest are summed in __overflow__")
        ->type_name("N")
        ->capture_default_str();
    sub->add_option("--cgroup-root", cg->root, "With --cgroup: the cgroup2 mount")
        ->type_name("DIR")
        ->capture_default_str();
    sub->add_option("-w,--write", lo->file, "With -m: also write records to FILE (JSON lines)");
    sub->add_option("-r,--rcvbuf", lo->rcvbuf, "With -m: receive buffer size in bytes");
    sub->add_option("-c,--count", lo->count, "With -m: stop after this many pid records");
    sub->add_option("--duration", lo->duration, "With -m: stop after this many seconds");
    sub->add_option("-i,--interval", *interval, "With --top or --cgroup: interval (1, 500ms, 2s)")
        ->capture_default_str();
    sub->add_option("--by", *by, "With --top: bytes, ops or wait")->capture_default_str();
    sub->add_option("-n,--limit", *limit, "With --top: rows")->capture_default_str();
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [=, &ctx, &json] {
        if (!pid->empty() || !tgid->empty()) {
            bool by_pid = !pid->empty();
            std::uint32_t id = parse_id(by_pid ? *pid : *tgid, by_pid ? "pid" : "tgid");
            TaskstatsClient c;
            auto rec = by_pid ? c.query_pid(id) : c.query_tgid(id);
            warn_if_task_io_stats_off(*ctx.err, ctx.proc);  // after any error
            if (json)
                *ctx.out << task_record_document(rec, ctx.realtime_ns()).dump() << "\n";
            else
                print_record_table(*ctx.out, rec);
        } else if (!lo->cpumask.empty()) {
            if (lo->rcvbuf < 0 || lo->count < 0 || lo->duration < 0)
                throw Error(ErrorKind::usage, "tasks: -r, -c and --duration must not be negative");
            listen(ctx, json, *lo);
        } else if (*top_on) {
            top(ctx, json, parse_interval_s(*interval), *by, *limit);
        } else if (*cg_on) {
            cgroups(ctx, json, parse_interval_s(*interval), *cg);
        } else {
            throw Error(ErrorKind::usage,
                        "tasks: give -p PID, -t TGID, -m CPUMASK, --top or --cgroup");
        }
    });
}

}  // namespace iotally::cli
