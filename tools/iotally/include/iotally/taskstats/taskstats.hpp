// SPDX-License-Identifier: GPL-2.0-or-later
// Taskstats over generic netlink: per-pid and per-tgid records, the classic
// struct taskstats and the per-task block I/O attribute (TASKSTATS_TYPE_IO,
// Documentation/accounting/taskstats-io.rst).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct nlmsghdr;

namespace iotally {

// struct taskstats fields that every version since 1 carries, and the ones
// the tool prints; a reply of an older or newer version fills what it has.
struct TaskstatsClassic {
    std::uint16_t version = 0;
    std::uint32_t exitcode = 0;
    std::uint8_t flag = 0;
    std::uint64_t cpu_count = 0;
    std::uint64_t cpu_delay_total_ns = 0;
    std::uint64_t blkio_count = 0;
    std::uint64_t blkio_delay_total_ns = 0;
    std::uint64_t swapin_count = 0;
    std::uint64_t swapin_delay_total_ns = 0;
    std::uint64_t cpu_run_real_total_ns = 0;
    std::string comm;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    std::uint32_t pid = 0;
    std::uint32_t ppid = 0;
    std::uint64_t etime_us = 0;
    std::uint64_t utime_us = 0;
    std::uint64_t stime_us = 0;
    std::uint64_t read_char = 0;
    std::uint64_t write_char = 0;
    std::uint64_t read_syscalls = 0;
    std::uint64_t write_syscalls = 0;
    std::uint64_t read_bytes = 0;
    std::uint64_t write_bytes = 0;
    std::uint64_t cancelled_write_bytes = 0;
    std::uint64_t nvcsw = 0;
    std::uint64_t nivcsw = 0;
};

// The TASKSTATS_TYPE_IO payload (struct taskstats_io, version 1 or 2).
struct TaskIo {
    enum Op { read = 0, write, discard, flush, nr_ops };
    static constexpr std::size_t nr_buckets = 24;
    std::uint16_t version = 0;
    unsigned hist_shift = 10;
    std::array<std::uint64_t, nr_ops> ops{};
    std::array<std::uint64_t, nr_ops> sectors{};
    std::uint64_t wait_count = 0;
    std::uint64_t wait_total_ns = 0;
    std::uint64_t wait_max_ns = 0;
    std::array<std::uint64_t, nr_buckets> wait_hist{};
    // Version 2: the task's cgroup v2 id (the inode number of its cgroup's
    // directory); 0 from a version 1 kernel or one without cgroups.
    std::uint64_t cgroup_id = 0;
    // Counted by iotally's BPF programs (bpf_task_io.hpp) rather than read
    // from taskstats: the version-2 layout, counted since they were
    // attached.
    bool bpf = false;

    // Lower bound of bucket b, in ns (0 for bucket 0).
    std::uint64_t bucket_low_ns(std::size_t b) const;
};

const char* op_name(TaskIo::Op op);

struct TaskRecord {
    bool tgid = false;  // per-tgid (AGGR_TGID) rather than per-pid
    std::uint32_t id = 0;
    std::optional<TaskstatsClassic> stats;
    std::optional<TaskIo> io;
    // The command name of a record without stats (an exit record of the
    // BPF backend); "" otherwise.
    std::string comm;
};

// The attribute number of TASKSTATS_TYPE_IO (right after TASKSTATS_TYPE_NULL).
inline constexpr int taskstats_type_io = 7;
// The flag a listener registers with to receive TASKSTATS_TYPE_IO in exit
// messages (TASKSTATS_CMD_ATTR_IO, after ..._DEREGISTER_CPUMASK). Kernels
// without it ignore it.
inline constexpr int taskstats_cmd_attr_io = 5;

// Parses one TASKSTATS_CMD_NEW message (a reply or an exit message): its
// AGGR_PID and AGGR_TGID nests, in order. Unknown attributes are skipped;
// truncated or malformed ones raise Error(parse).
std::vector<TaskRecord> parse_taskstats_message(const nlmsghdr* nlh);

// The CPUs of a cpulist such as "0-3,7" (the syntax the kernel accepts).
std::vector<unsigned> parse_cpulist(const std::string& text);

// Whether the kernel counts per-task block I/O now: the sysctl
// kernel.task_io_stats under `proc` ("/proc"). nullopt when it has no such
// switch (a kernel without per-task I/O, or one that always counts).
std::optional<bool> task_io_stats_enabled(const std::string& proc = "/proc");

// What the native per-task I/O (TASKSTATS_TYPE_IO) lacks on this kernel,
// as one phrase for resolve_backend(): "" when the taskstats record of this
// process (which always exists) carries it.
std::string task_io_native_missing();

// The process ids under `proc` ("/proc"): its numeric entries, as listed
// now (a process may be gone by the time it is queried). Throws Error
// (failed) when the directory cannot be read.
std::vector<std::uint32_t> process_ids(const std::string& proc = "/proc");

// Whether process `id` under `proc` has exited: a zombie waiting for its
// parent ('Z' or 'X' in /proc/ID/stat), or gone. A zombie still has a /proc
// entry and taskstats still answers for it, but its exit record was sent
// before it became one.
bool process_has_exited(std::uint32_t id, const std::string& proc = "/proc");

// Parses a payload buffer into TaskstatsClassic / TaskIo (exposed for tests).
TaskstatsClassic parse_classic(const void* data, std::size_t len);
TaskIo parse_io(const void* data, std::size_t len);

// A generic netlink socket bound to the TASKSTATS family.
class TaskstatsClient {
  public:
    TaskstatsClient();
    ~TaskstatsClient();
    TaskstatsClient(const TaskstatsClient&) = delete;
    TaskstatsClient& operator=(const TaskstatsClient&) = delete;

    TaskRecord query_pid(std::uint32_t pid);
    TaskRecord query_tgid(std::uint32_t tgid);

    void set_rcvbuf(int bytes);
    // Exit listener: the kernel checks the cpulist (EINVAL, E2BIG). There
    // is no deregistering: its acknowledgement is lost when the receive
    // buffer is full. Destroying the client closes the socket, and the
    // kernel drops the listener at its next exit message.
    void register_cpumask(const std::string& cpulist);

    // Waits up to timeout_ms (-1: forever) for exit messages; appends their
    // records. Returns false on timeout. Overflows of the receive buffer
    // (ENOBUFS) are counted in overflows(); the exit messages they cost are
    // counted in lost(), from the gaps in the sequence numbers the kernel
    // gives the messages of one CPU (exact when the socket listens to one
    // CPU and its first message is known, see forget_sequence()).
    bool receive(std::vector<TaskRecord>& out, int timeout_ms);
    std::uint64_t overflows() const { return overflows_; }
    std::uint64_t lost() const { return lost_; }
    // Takes the next message as the start of the sequence.
    void forget_sequence() { last_seq_.reset(); }
    void reset_counts() { overflows_ = lost_ = 0; }
    int fd() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint64_t overflows_ = 0;
    std::uint64_t lost_ = 0;
    std::optional<std::uint32_t> last_seq_;
    void consume(const nlmsghdr* nlh, std::vector<TaskRecord>& out);
    TaskRecord query(int attr, std::uint32_t id);
    void cpumask_cmd(int attr, const std::string& cpulist);
    // What one recv() gave: see recv_batch().
    enum class Batch { stopped, read, overflow, interrupted, empty };
    template <typename OnMessage>
    Batch recv_batch(int flags, OnMessage on_message);
    template <typename OnMessage>
    void await_reply(OnMessage on_message);
};

}  // namespace iotally
