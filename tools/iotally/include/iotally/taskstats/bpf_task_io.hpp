// SPDX-License-Identifier: GPL-2.0-or-later
// Per-task block I/O through iotally's BPF program (bpf/task_io.bpf.c) on
// a kernel without the taskstats I/O attribute: the same counters, with
// the meaning of kernel/task_io_stats.c, counted from the moment the
// program is attached. Documentation/iotally-bpf.rst, "tasks and cgroups".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "iotally/taskstats/taskstats.hpp"

struct tio_counters;  // bpf/task_io_record.h

namespace iotally {

struct BpfTaskIoOptions {
    // Exit records on the ring buffer: 0 none, 1 per process, 2 per thread too.
    unsigned exit_records = 0;
    // Entries of the per-thread map; 0: the environment's
    // IOTALLY_BPF_MAX_THREADS (a test's way to fill it), else 16384.
    std::uint32_t max_threads = 0;
    // Where libbpf's log goes when loading fails (-v), or null.
    std::ostream* log = nullptr;
    // The command, for the error message ("tasks").
    std::string what = "tasks";
};

// A process or thread as the maps hold it.
struct BpfTask {
    std::uint32_t tgid = 0;
    std::string comm;
    TaskIo io;
};

// A record of the ring buffer: a thread exited, or a process (its last
// thread; io is the sum of all its threads since attach).
struct BpfExit {
    bool process = false;
    std::uint32_t tid = 0, tgid = 0, cpu = 0, threads = 0;
    std::string comm;
    TaskIo io;
};

// What could not be counted, since attach.
struct BpfTaskIoDrops {
    std::uint64_t thread_map_full = 0;   // bios and waits of threads without an entry
    std::uint64_t process_map_full = 0;  // exited threads' counters lost
    std::uint64_t cgroup_map_full = 0;   // bios and waits not charged to a cgroup
    std::uint64_t ringbuf_full = 0;      // exit records lost
    std::uint64_t late_exits = 0;        // I/O after its process's final record
    std::uint64_t exits = 0;             // processes whose last thread exited
    std::uint64_t total() const {
        return thread_map_full + process_map_full + cgroup_map_full + ringbuf_full;
    }
};

class BpfTaskIo {
  public:
    // Loads and attaches the program; Error(unsupported) in one line when
    // the kernel refuses it (the verifier's log to options.log).
    explicit BpfTaskIo(BpfTaskIoOptions options = {});
    ~BpfTaskIo();
    BpfTaskIo(const BpfTaskIo&) = delete;
    BpfTaskIo& operator=(const BpfTaskIo&) = delete;

    // One thread's counters (zero when it did nothing since attach).
    TaskIo thread(std::uint32_t tid) const;
    // One process's: its live threads and its exited ones.
    TaskIo process(std::uint32_t tgid) const;
    // Every process with an entry, by tgid.
    std::map<std::uint32_t, BpfTask> processes() const;
    // Every bio and wait, charged to the cgroup of the task at the time.
    std::map<std::uint64_t, TaskIo> cgroups() const;
    // Waits up to timeout_ms for exit records (-1: forever); appends them.
    // Returns false on timeout.
    bool poll_exits(std::vector<BpfExit>& out, int timeout_ms);
    BpfTaskIoDrops drops() const;
    // The ring buffer's epoll fd, for poll().
    int exits_fd() const;
    // Kernel memory the program's maps hold (their memlock), in bytes.
    std::uint64_t map_bytes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// struct tio_counters as TaskIo (bpf marked, version 2): exposed for tests.
TaskIo task_io_from_bpf(const tio_counters& c, std::uint64_t cgroup_id);

// One line of what the drops cost ("" when nothing was lost), for stderr.
std::string bpf_drops_text(const BpfTaskIoDrops& d);

}  // namespace iotally
