// SPDX-License-Identifier: GPL-2.0-or-later
// Samples of per-cgroup block I/O: an exit listener on every CPU (asking for
// TASKSTATS_TYPE_IO) and the per-tgid records of the processes in /proc,
// summed per cgroup v2 path (cgroup_io.hpp). Used by `iotally tasks
// --cgroup` and by `iotally serve --cgroups`. A thread of its own reads the
// listeners' sockets as exit messages arrive, so that a burst of exits
// between two samples does not overflow their receive buffers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "iotally/taskstats/bpf_task_io.hpp"
#include "iotally/taskstats/cgroup_io.hpp"
#include "iotally/taskstats/taskstats.hpp"

namespace iotally {

struct CgroupOptions {
    unsigned depth = 4;            // path components kept (--cgroup-depth)
    std::size_t max_series = 100;  // series of their own (--cgroup-max)
    std::string root = "/sys/fs/cgroup";
    std::string proc = "/proc";
    std::string cpus;      // CPUs to listen to; "" = /sys/devices/system/cpu/online
    int rcvbuf = 1 << 20;  // receive buffer of each listener
    // The BPF backend (bpf_task_io.hpp): every bio and wait charged, in the
    // program, to the cgroup its task was in at that moment; no listener.
    bool bpf = false;
    std::ostream* bpf_log = nullptr;  // libbpf's log on a load failure (-v)
};

inline constexpr unsigned max_cgroup_depth = 64;
inline constexpr std::size_t max_cgroup_series = 10000;

class CgroupSampler {
  public:
    explicit CgroupSampler(CgroupOptions options);
    ~CgroupSampler();
    CgroupSampler(const CgroupSampler&) = delete;
    CgroupSampler& operator=(const CgroupSampler&) = delete;

    // Checks the options, the cgroup2 mount and the kernel (per-task I/O
    // with cgroup ids) and registers the listeners. Throws Error.
    void start();
    // Everything counted so far, per series (path, or the overflow and
    // unknown labels).
    std::map<std::string, TaskIo> sample();

    std::uint64_t exits() const;
    std::uint64_t unaccounted_exits() const;
    std::uint64_t lost_messages() const;
    std::uint64_t overflows() const;
    // BPF backend: bios and waits a full map kept from being counted, and
    // exit records lost (0 on the native backend).
    std::uint64_t dropped() const;
    const CgroupOptions& options() const { return options_; }

  private:
    CgroupOptions options_;
    std::unique_ptr<TaskstatsClient> query_;
    std::unique_ptr<BpfTaskIo> bpf_;
    std::vector<std::unique_ptr<TaskstatsClient>> listeners_;
    std::vector<unsigned> cpus_;
    CgroupTally tally_;
    CgroupPaths paths_;
    CgroupSeries series_;
    // Guards the listeners' counts and the tally: the reader thread applies
    // exit records while no sample is being taken.
    mutable std::mutex mu_;
    std::string reader_error_;  // what stopped the reader thread
    std::jthread reader_;
    void drain();
    std::map<std::string, TaskIo> sample_bpf();
    void read_exits(std::stop_token stop);
};

}  // namespace iotally
