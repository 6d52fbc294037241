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
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>

#include "app.hpp"
#include "document.hpp"
#include "iotally/taskstats/bpf_task_io.hpp"
#include "iotally/taskstats/cgroup_io.hpp"
#include "iotally/taskstats/cgroup_sampler.hpp"
#include "iotally/taskstats/taskstats.hpp"
#include "iotally/util/backend.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"
#include "output.hpp"
#include "task_records.hpp"

namespace iotally::cli {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_stop(int) {
    stop_requested = 1;
}

// SIGINT and SIGTERM end a listener or a sampling loop at its next turn.
void stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

// poll(2)'s timeout until `end` (ctx.clock() seconds; 0: no end): -1 for
// none, nothing once `end` has passed.
std::optional<int> poll_timeout(const Context& ctx, double end) {
    if (end <= 0)
        return -1;
    double left = end - ctx.clock();
    if (left <= 0)
        return std::nullopt;
    return static_cast<int>(left * 1000) + 1;
}

// -w FILE of the exit listeners: truncated now, not after the first record.
std::ofstream open_record_file(const std::string& path) {
    std::ofstream file;
    if (!path.empty()) {
        file.open(path, std::ios::out | std::ios::trunc);
        if (!file)
            throw Error(ErrorKind::failed, fmt::format("{}: cannot open for writing", path));
    }
    return file;
}

// The backend of a tasks mode, said on stderr with -v.
Backend tasks_backend(Context& ctx) {
    std::string native_missing = task_io_native_missing();
    Backend b =
        resolve_backend(ctx.backend, native_missing,
                        ctx.backend == Backend::native ? std::string() : bpf_missing(), "tasks");
    if (ctx.verbose) {
        std::string why = ctx.backend != Backend::automatic
                              ? "--backend " + std::string(backend_name(b))
                          : b == Backend::native ? "the kernel's taskstats carry per-task I/O"
                                                 : "no " + native_missing;
        *ctx.err << fmt::format("iotally: tasks: backend {} ({})\n", backend_name(b), why);
    }
    return b;
}

// Loads and attaches the BPF program; with -v, says when it counts.
std::unique_ptr<BpfTaskIo> attach_bpf(Context& ctx, unsigned exit_records) {
    BpfTaskIoOptions o;
    o.exit_records = exit_records;
    o.log = ctx.verbose ? ctx.err : nullptr;
    o.what = "tasks";
    auto bpf = std::make_unique<BpfTaskIo>(o);
    if (ctx.verbose) {
        *ctx.err << fmt::format("iotally: tasks: bpf maps: {} KiB\n",
                                (bpf->map_bytes() + 1023) / 1024)
                 << "iotally: tasks: bpf program attached, counting\n";
        ctx.err->flush();
    }
    return bpf;
}

void warn_drops(Context& ctx, const BpfTaskIo& bpf) {
    std::string text = bpf_drops_text(bpf.drops());
    if (!text.empty())
        *ctx.err << "iotally: tasks: " << text << "\n";
}

void add_drops_json(nlohmann::json& doc, const BpfTaskIo& bpf) {
    auto d = bpf.drops();
    doc["bpf_dropped"] = {{"thread_map_full", d.thread_map_full},
                          {"process_map_full", d.process_map_full},
                          {"cgroup_map_full", d.cgroup_map_full},
                          {"ringbuf_full", d.ringbuf_full}};
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
        t.add({"io_version", io.bpf ? fmt::format("{} (bpf, counted since attach)", io.version)
                                    : std::to_string(io.version)});
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
    std::ofstream file = open_record_file(o.file);
    stop_on_signals();
    *ctx.err << fmt::format("listening on cpus {}\n", o.cpumask);
    ctx.err->flush();

    ExitRecordWriter writer(*ctx.out, file.is_open() ? &file : nullptr, json, ctx.realtime_ns);
    double end = o.duration > 0 ? ctx.clock() + o.duration : 0;
    std::vector<pollfd> fds;
    for (auto& c : socks)
        fds.push_back({c->fd(), POLLIN, 0});
    while (!stop_requested && (o.count == 0 || writer.pid_records() < o.count)) {
        std::optional<int> timeout = poll_timeout(ctx, end);
        if (!timeout)
            break;
        int rc = ::poll(fds.data(), fds.size(), *timeout);
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

// tasks -m on BPF: the program's exit records of the threads that exit on
// the CPUs of the mask, in the exit listener's formats: a pid record per
// thread, then a tgid record when the last thread of a process that had
// more than one exits. Their I/O is what they did since the program was
// attached.
void listen_bpf(Context& ctx, bool json, const ListenOptions& o) {
    std::vector<unsigned> cpu_list = parse_cpulist(o.cpumask);
    std::set<unsigned> cpus(cpu_list.begin(), cpu_list.end());
    // As the kernel's listener refuses a CPU that cannot exist (E2BIG).
    {
        std::ifstream in("/sys/devices/system/cpu/possible");
        std::string possible;
        if (std::getline(in, possible) && !possible.empty()) {
            auto all = parse_cpulist(possible);
            std::set<unsigned> can(all.begin(), all.end());
            for (unsigned cpu : cpus)
                if (!can.count(cpu))
                    throw Error(
                        ErrorKind::usage,
                        fmt::format("tasks -m: cpu {} out of range (possible: {})", cpu, possible));
        }
    }
    std::ofstream file = open_record_file(o.file);
    auto bpf_ptr = attach_bpf(ctx, 2);
    BpfTaskIo& bpf = *bpf_ptr;
    stop_on_signals();
    *ctx.err << fmt::format("listening on cpus {}\n", o.cpumask);
    ctx.err->flush();
    ExitRecordWriter writer(*ctx.out, file.is_open() ? &file : nullptr, json, ctx.realtime_ns);
    auto write = [&](const std::vector<BpfExit>& exits) {
        for (const auto& e : exits) {
            if (!cpus.count(e.cpu))
                continue;
            if (o.count != 0 && writer.pid_records() >= o.count && !e.process)
                continue;
            TaskRecord r;
            r.comm = e.comm;
            r.io = e.io;
            if (!e.process) {
                r.id = e.tid;
            } else if (e.threads > 1) {
                r.tgid = true;
                r.id = e.tgid;
            } else {
                continue;  // one thread: its pid record said it all
            }
            writer.record(r);
        }
        ctx.out->flush();
    };
    double end = o.duration > 0 ? ctx.clock() + o.duration : 0;
    pollfd fd{bpf.exits_fd(), POLLIN, 0};
    while (!stop_requested && (o.count == 0 || writer.pid_records() < o.count)) {
        std::optional<int> timeout = poll_timeout(ctx, end);
        if (!timeout)
            break;
        int rc = ::poll(&fd, 1, *timeout);
        if (rc < 0 && errno != EINTR)
            throw Error(ErrorKind::failed, fmt::format("poll: {}", std::strerror(errno)));
        if (rc <= 0)
            continue;
        std::vector<BpfExit> exits;
        bpf.poll_exits(exits, 0);
        write(exits);
    }
    if (o.count == 0) {
        std::vector<BpfExit> exits;
        bpf.poll_exits(exits, 0);
        write(exits);
    }
    if (file.is_open()) {
        file.flush();
        if (!file)
            throw Error(ErrorKind::failed, fmt::format("{}: write failed", o.file));
    }
    ListenSummary summary;
    summary.lost_messages = bpf.drops().ringbuf_full;
    writer.summary(summary);
    warn_drops(ctx, bpf);
}

// tasks -p / -t on BPF: nothing was counted before the program is attached,
// so the I/O is what the task does over the interval (-i) that follows; the
// classic taskstats fields are the kernel's, read first.
void query_bpf(Context& ctx, bool json, bool by_pid, std::uint32_t id, double interval) {
    TaskRecord rec;
    {
        TaskstatsClient c;
        rec = by_pid ? c.query_pid(id) : c.query_tgid(id);
    }
    auto bpf_ptr = attach_bpf(ctx, 2);
    BpfTaskIo& bpf = *bpf_ptr;
    std::optional<TaskIo> gone;
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(interval);
    std::vector<BpfExit> exits;
    // Until the interval ends, or the task exits (its exit record is final).
    while (!gone && !stop_requested) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            break;
        exits.clear();
        bpf.poll_exits(exits, static_cast<int>(std::min<long long>(left.count() + 1, 100)));
        for (const auto& e : exits) {
            if (by_pid && !e.process && e.tid == id)
                gone = e.io;
            if (!by_pid && e.process && e.tgid == id && !gone)
                gone = e.io;
        }
    }
    if (!gone && process_has_exited(id))
        throw Error(ErrorKind::no_device,
                    fmt::format("tasks: {} {} exited before the bpf program could count its I/O",
                                by_pid ? "pid" : "tgid", id));
    rec.io = gone ? *gone : by_pid ? bpf.thread(id) : bpf.process(id);
    if (json) {
        auto doc = task_record_document(rec, ctx.realtime_ns());
        doc["backend"] = "bpf";
        doc["interval_s"] = interval;
        add_drops_json(doc, bpf);
        *ctx.out << doc.dump() << "\n";
    } else {
        print_record_table(*ctx.out, rec);
        *ctx.out << fmt::format(
            "io counted by the bpf backend from its attach {}\n",
            gone ? "until the task exited" : fmt::format("over {} s", interval));
    }
    warn_drops(ctx, bpf);
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

void check_by(const std::string& by) {
    if (by != "bytes" && by != "wait" && by != "ops")
        throw Error(ErrorKind::usage, fmt::format("--by '{}': expected bytes, ops or wait", by));
}

TopRow top_row(std::uint32_t tgid, std::string comm, const TaskIo& io, const TaskIo& base) {
    TopRow r{tgid,
             std::move(comm),
             (io.sectors[TaskIo::read] - base.sectors[TaskIo::read]) * 512,
             (io.sectors[TaskIo::write] - base.sectors[TaskIo::write]) * 512,
             0,
             io.wait_total_ns - base.wait_total_ns,
             io.wait_count - base.wait_count};
    for (int op = 0; op < TaskIo::nr_ops; op++)
        r.ops += io.ops[op] - base.ops[op];
    return r;
}

void print_top(Context& ctx, bool json, double interval, const std::string& by, std::size_t limit,
               std::vector<TopRow> rows, Backend backend, const BpfTaskIo* bpf) {
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
        doc["backend"] = backend_name(backend);
        doc["interval_s"] = interval;
        doc["by"] = by;
        doc["units"] = {{"read_bytes", "bytes"}, {"write_bytes", "bytes"}, {"wait_ns", "ns"}};
        doc["tasks"] = j;
        if (bpf)
            add_drops_json(doc, *bpf);
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

void top(Context& ctx, bool json, double interval, const std::string& by, std::size_t limit) {
    check_by(by);
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
        TopRow r = top_row(tgid, command_name(tgid, rec), *rec.io, base);
        if (r.ops || r.waits)
            rows.push_back(r);
    }
    print_top(ctx, json, interval, by, limit, std::move(rows), Backend::native, nullptr);
}

// Waits `interval` seconds while reading the BPF program's exit records.
std::vector<BpfExit> collect_exits(BpfTaskIo& bpf, double interval) {
    std::vector<BpfExit> out;
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(interval);
    while (!stop_requested) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            break;
        bpf.poll_exits(out, static_cast<int>(left.count()) + 1);
    }
    bpf.poll_exits(out, 0);
    return out;
}

// tasks --top on BPF: what every process, running or exited, did since the
// program was attached, one interval ago.
void top_bpf(Context& ctx, bool json, double interval, const std::string& by, std::size_t limit) {
    check_by(by);
    auto bpf_ptr = attach_bpf(ctx, 1);
    BpfTaskIo& bpf = *bpf_ptr;
    auto exits = collect_exits(bpf, interval);
    std::map<std::uint32_t, std::pair<std::string, TaskIo>> all;
    for (const auto& e : exits) {
        auto [it, fresh] = all.try_emplace(e.tgid, e.comm, e.io);
        if (!fresh)
            add_task_io(it->second.second, e.io);
    }
    for (const auto& [tgid, p] : bpf.processes()) {
        auto [it, fresh] = all.try_emplace(tgid, p.comm, p.io);
        if (!fresh) {
            add_task_io(it->second.second, p.io);
            continue;
        }
        std::ifstream in(fmt::format("/proc/{}/comm", tgid));
        std::string comm;
        if (std::getline(in, comm) && !comm.empty())
            it->second.first = comm;
    }
    std::vector<TopRow> rows;
    for (const auto& [tgid, p] : all) {
        TopRow r = top_row(tgid, p.first.empty() ? "?" : p.first, p.second, TaskIo{});
        if (r.ops || r.waits)
            rows.push_back(r);
    }
    print_top(ctx, json, interval, by, limit, std::move(rows), Backend::bpf, &bpf);
    warn_drops(ctx, bpf);
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
void cgroups(Context& ctx, bool json, double interval, CgroupOptions o, Backend backend) {
    o.bpf = backend == Backend::bpf;
    o.bpf_log = ctx.verbose ? ctx.err : nullptr;
    CgroupSampler sampler(o);
    sampler.start();
    if (!o.bpf)
        warn_if_task_io_stats_off(*ctx.err, ctx.proc);
    auto before = sampler.sample();
    if (ctx.verbose) {
        // The interval starts now (on BPF, after the program is attached).
        *ctx.err << "iotally: tasks: counting\n";
        ctx.err->flush();
    }
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
        doc["backend"] = backend_name(backend);
        doc["interval_s"] = interval;
        doc["units"] = {{"read_bytes", "bytes"}, {"write_bytes", "bytes"}, {"wait_ns", "ns"}};
        doc["cgroups"] = j;
        if (o.bpf)
            doc["bpf_dropped"] = sampler.dropped();
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
    if (sampler.dropped())
        *ctx.err << fmt::format("tasks --cgroup: {} bios and waits not counted (bpf maps full)\n",
                                sampler.dropped());
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
    sub->add_option("-i,--interval", *interval,
                    "With --top or --cgroup (and -p/-t on BPF): interval (1, 500ms, 2s)")
        ->capture_default_str();
    sub->add_option("--by", *by, "With --top: bytes, ops or wait")->capture_default_str();
    sub->add_option("-n,--limit", *limit, "With --top: rows")->capture_default_str();
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [=, &ctx, &json] {
        if (!pid->empty() || !tgid->empty()) {
            bool by_pid = !pid->empty();
            std::uint32_t id = parse_id(by_pid ? *pid : *tgid, by_pid ? "pid" : "tgid");
            double seconds = parse_interval_s(*interval);
            if (tasks_backend(ctx) == Backend::bpf)
                return query_bpf(ctx, json, by_pid, id, seconds);
            TaskstatsClient c;
            auto rec = by_pid ? c.query_pid(id) : c.query_tgid(id);
            warn_if_task_io_stats_off(*ctx.err, ctx.proc);  // after any error
            if (json) {
                auto doc = task_record_document(rec, ctx.realtime_ns());
                doc["backend"] = "native";
                *ctx.out << doc.dump() << "\n";
            } else {
                print_record_table(*ctx.out, rec);
            }
        } else if (!lo->cpumask.empty()) {
            if (lo->rcvbuf < 0 || lo->count < 0 || lo->duration < 0)
                throw Error(ErrorKind::usage, "tasks: -r, -c and --duration must not be negative");
            if (tasks_backend(ctx) == Backend::bpf)
                listen_bpf(ctx, json, *lo);
            else
                listen(ctx, json, *lo);
        } else if (*top_on) {
            double seconds = parse_interval_s(*interval);
            check_by(*by);
            if (tasks_backend(ctx) == Backend::bpf)
                top_bpf(ctx, json, seconds, *by, *limit);
            else
                top(ctx, json, seconds, *by, *limit);
        } else if (*cg_on) {
            double seconds = parse_interval_s(*interval);
            cgroups(ctx, json, seconds, *cg, tasks_backend(ctx));
        } else {
            throw Error(ErrorKind::usage,
                        "tasks: give -p PID, -t TGID, -m CPUMASK, --top or --cgroup");
        }
    });
}

}  // namespace iotally::cli
