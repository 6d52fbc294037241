// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/taskstats/cgroup_sampler.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "iotally/util/error.hpp"

namespace iotally {

namespace {

constexpr long cgroup2_magic = 0x63677270;  // CGROUP2_SUPER_MAGIC

// Blocks every signal in the calling thread while it lives: a thread
// started meanwhile inherits the mask, so that the process's signals (serve
// waits for SIGTERM with sigwait) never land in it.
class SignalsBlocked {
  public:
    SignalsBlocked() {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old_);
    }
    ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;

  private:
    sigset_t old_{};
};

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

}  // namespace

CgroupSampler::CgroupSampler(CgroupOptions options)
    : options_(std::move(options)),
      paths_(options_.root),
      series_(options_.depth, options_.max_series) {}

CgroupSampler::~CgroupSampler() {
    if (reader_.joinable()) {
        reader_.request_stop();
        reader_.join();
    }
    // No TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK: its acknowledgement is
    // dropped when the socket's receive buffer is full (an exit storm), and
    // waiting for it would hang. Closing the socket deregisters it: the
    // kernel drops a listener whose socket is gone at its next exit message.
}

void CgroupSampler::start() {
    if (options_.depth > max_cgroup_depth)
        throw Error(ErrorKind::usage, fmt::format("--cgroup-depth {}: expected 0 to {}",
                                                  options_.depth, max_cgroup_depth));
    if (options_.max_series < 1 || options_.max_series > max_cgroup_series)
        throw Error(ErrorKind::usage, fmt::format("--cgroup-max {}: expected 1 to {}",
                                                  options_.max_series, max_cgroup_series));
    struct statfs fs {};
    if (::statfs(options_.root.c_str(), &fs) != 0 || fs.f_type != cgroup2_magic)
        throw Error(ErrorKind::unsupported,
                    fmt::format("{}: not a cgroup2 mount (mount -t cgroup2 none {})", options_.root,
                                options_.root));
    if (options_.bpf) {
        BpfTaskIoOptions o;
        o.log = options_.bpf_log;
        o.what = "cgroups";
        bpf_ = std::make_unique<BpfTaskIo>(o);
        return;
    }
    query_ = std::make_unique<TaskstatsClient>();
    auto self = query_->query_tgid(static_cast<std::uint32_t>(::getpid()));
    if (!self.io || self.io->version < 2)
        throw Error(ErrorKind::unsupported,
                    "cgroups: this kernel's taskstats carry no cgroup id (TASKSTATS_TYPE_IO "
                    "version 2, Documentation/accounting/taskstats-io.rst)");
    std::string cpus = options_.cpus;
    if (cpus.empty())
        cpus = first_line("/sys/devices/system/cpu/online");
    cpus_ = parse_cpulist(cpus);
    // One socket per CPU: its messages are numbered, so losses are exact.
    for (unsigned cpu : cpus_) {
        auto c = std::make_unique<TaskstatsClient>();
        c->set_rcvbuf(options_.rcvbuf);
        c->register_cpumask(std::to_string(cpu));
        listeners_.push_back(std::move(c));
    }
    SignalsBlocked blocked;
    reader_ = std::jthread([this](std::stop_token stop) { read_exits(stop); });
}

// The reader thread: waits for exit messages on any listener (at most 100 ms,
// to see a stop request) and applies them to the tally.
void CgroupSampler::read_exits(std::stop_token stop) {
    std::vector<pollfd> fds;
    for (const auto& c : listeners_)
        fds.push_back({c->fd(), POLLIN, 0});
    while (!stop.stop_requested()) {
        if (::poll(fds.data(), fds.size(), 100) <= 0)
            continue;  // timeout, or a signal
        std::lock_guard lock(mu_);
        try {
            drain();
        } catch (const Error& e) {
            reader_error_ = e.what();
            return;
        }
    }
}

std::uint64_t CgroupSampler::exits() const {
    if (bpf_)
        return bpf_->drops().exits;
    std::lock_guard lock(mu_);
    return tally_.exits();
}

std::uint64_t CgroupSampler::unaccounted_exits() const {
    std::lock_guard lock(mu_);
    return tally_.unaccounted_exits();
}

std::uint64_t CgroupSampler::lost_messages() const {
    std::lock_guard lock(mu_);
    std::uint64_t n = 0;
    for (const auto& c : listeners_)
        n += c->lost();
    return n;
}

std::uint64_t CgroupSampler::dropped() const {
    return bpf_ ? bpf_->drops().total() : 0;
}

std::uint64_t CgroupSampler::overflows() const {
    std::lock_guard lock(mu_);
    std::uint64_t n = 0;
    for (const auto& c : listeners_)
        n += c->overflows();
    return n;
}

void CgroupSampler::drain() {
    for (auto& c : listeners_) {
        std::vector<TaskRecord> recs;
        while (c->receive(recs, 0)) {
        }
        tally_.exited(recs);
    }
}

// The BPF program's per-cgroup totals, and a zero total for the cgroup of
// every process alive now that has none yet: as on the native backend, a
// cgroup with processes has its series before they do I/O (and the
// cardinality cap admits it then).
std::map<std::string, TaskIo> CgroupSampler::sample_bpf() {
    auto totals = bpf_->cgroups();
    for (std::uint32_t id : process_ids(options_.proc)) {
        // "0::/a/b": the cgroup v2 line of /proc/PID/cgroup.
        std::ifstream in(fmt::format("{}/{}/cgroup", options_.proc, id));
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("0::", 0) != 0)
                continue;
            std::string path = line.substr(3);
            struct stat st {};
            if (::stat((options_.root + (path == "/" ? "" : path)).c_str(), &st) == 0) {
                TaskIo zero;
                zero.version = 2;
                zero.bpf = true;
                zero.cgroup_id = st.st_ino;
                totals.try_emplace(st.st_ino, zero);
            }
        }
    }
    return series_.group(totals, paths_);
}

std::map<std::string, TaskIo> CgroupSampler::sample() {
    if (!query_ && !bpf_)
        start();
    if (bpf_)
        return sample_bpf();
    // The whole sample under the lock: a process seen in /proc below must
    // not have its exit record applied before it is counted as alive.
    std::lock_guard lock(mu_);
    if (!reader_error_.empty())
        throw Error(ErrorKind::failed, "cgroups: exit listener: " + reader_error_);
    // Exit records first: a process missing from /proc below has its record
    // queued already (it is sent before the process can be reaped).
    drain();
    std::map<std::uint32_t, TaskIo> alive;
    for (std::uint32_t id : process_ids(options_.proc)) {
        // A zombie's final record is counted already (drained above, or
        // with the next batch): counting it as alive too would charge it
        // twice, for as long as its parent does not reap it.
        if (process_has_exited(id, options_.proc))
            continue;
        try {
            auto rec = query_->query_tgid(id);
            if (rec.io)
                alive[id] = *rec.io;
        } catch (const Error& err) {
            if (err.kind() != ErrorKind::no_device)  // not gone meanwhile
                throw;
        }
    }
    tally_.alive(alive);
    return series_.group(tally_.totals(), paths_);
}

}  // namespace iotally
