// SPDX-License-Identifier: GPL-2.0-or-later
// Per-task block I/O (taskstats TASKSTATS_TYPE_IO) summed per cgroup v2
// cgroup: processes still running plus processes that exited, from the exit
// listener (Documentation/iotally.rst, "tasks --cgroup").
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "iotally/taskstats/taskstats.hpp"

namespace iotally {

// Subtracts b's counters and histogram from a, each at least 0 (a's max
// stays: a maximum cannot be taken apart).
void subtract_task_io(TaskIo& a, const TaskIo& b);

// Adds b's counters and histogram to a (the max to the max).
void add_task_io(TaskIo& a, const TaskIo& b);

// The cgroup totals of per-process counters. Feed it, at every sample, the
// exit records received since the previous one (exited()), then the
// per-tgid records of the processes alive now (alive()); totals() then
// holds, per cgroup id, everything the processes seen so far did.
//
// A process that exits is charged to the cgroup its final record names
// (the per-tgid record of its last thread, or the per-pid record of a
// process that never had a second thread). A process seen alive that is
// gone at the next sample without its exit record keeps what it had then
// for one more sample (its record was queued before it could be reaped, so
// it arrives with the next batch); if it still has none, the record was
// lost and its last counters stay, counted in unaccounted_exits().
//
// A process seen in another cgroup than at the previous sample leaves what
// it had done by then with the cgroup it left; only what it does afterwards
// is charged to the new one. So no cgroup's total ever goes down, which a
// counter must not (Prometheus takes a decrease for a reset).
class CgroupTally {
  public:
    void exited(const std::vector<TaskRecord>& records);
    void alive(const std::map<std::uint32_t, TaskIo>& processes);
    std::map<std::uint64_t, TaskIo> totals() const;
    std::uint64_t exits() const { return exits_; }
    std::uint64_t unaccounted_exits() const { return unaccounted_; }

  private:
    std::map<std::uint32_t, TaskIo> alive_;    // by tgid: last seen
    std::map<std::uint32_t, TaskIo> missing_;  // gone, no exit record yet
    std::map<std::uint64_t, TaskIo> gone_;     // by cgroup id: charged for good
    // By tgid: the counters a moved process had at its last move, charged
    // to the cgroups it left; its current cgroup gets only the rest.
    std::map<std::uint32_t, TaskIo> moved_;
    std::uint64_t exits_ = 0, unaccounted_ = 0;
    void final_record(std::uint32_t tgid, const TaskIo& io);
    TaskIo since_move(std::uint32_t tgid, const TaskIo& io) const;
    void charge_for_good(std::uint32_t tgid, const TaskIo& io);
    void charge_move(std::uint32_t tgid, const TaskIo& before, const TaskIo& now);
};

// Cgroup ids to paths: the inode number of each directory under a cgroup2
// mount is its cgroup id. Paths are "/" for the root, "/a/b" below it.
class CgroupPaths {
  public:
    explicit CgroupPaths(std::string root = "/sys/fs/cgroup") : root_(std::move(root)) {}
    // The path of `id`, walking the tree again when it is unknown. A
    // cgroup removed since it was seen keeps its path; one never seen is "".
    std::string path(std::uint64_t id);
    const std::string& root() const { return root_; }

  private:
    std::string root_;
    std::map<std::uint64_t, std::string> known_;
    void walk();
};

// "/a/b/c" cut to its first `depth` components ("/" at depth 0).
std::string cgroup_at_depth(const std::string& path, unsigned depth);

// The label of the series that takes what the cardinality cap leaves out.
inline constexpr const char* cgroup_overflow_label = "__overflow__";
// The label of I/O whose cgroup was removed before iotally saw it.
inline constexpr const char* cgroup_unknown_label = "__unknown__";

// Groups cgroup totals into series: each path cut at `depth`, then at most
// `max_series` paths of their own, first come first served (the paths
// already admitted keep their series; new ones are admitted in path order
// while there is room), the rest summed into cgroup_overflow_label.
class CgroupSeries {
  public:
    CgroupSeries(unsigned depth, std::size_t max_series) : depth_(depth), max_(max_series) {}
    std::map<std::string, TaskIo> group(const std::map<std::uint64_t, TaskIo>& totals,
                                        CgroupPaths& paths);

  private:
    unsigned depth_;
    std::size_t max_;
    std::set<std::string> admitted_;
};

// One line of a cgroup's io.stat: "MAJ:MIN rbytes=.. wbytes=.. rios=..
// wios=.. dbytes=.. dios=..". Unknown keys are skipped.
struct CgroupIoStat {
    unsigned major = 0, minor = 0;
    std::uint64_t rbytes = 0, wbytes = 0, rios = 0, wios = 0, dbytes = 0, dios = 0;
};
std::vector<CgroupIoStat> parse_io_stat(const std::string& text);

}  // namespace iotally
