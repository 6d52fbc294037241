// SPDX-License-Identifier: GPL-2.0-or-later
// Per-cgroup block I/O: the cgroup id of TASKSTATS_TYPE_IO version 2, the
// tally of running and exited processes, paths, depth, the cardinality cap,
// io.stat and the exposition.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "app.hpp"
#include "cli_fixture.hpp"
#include "iotally/exporter/cgroup_collector.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/taskstats/cgroup_io.hpp"
#include "iotally/util/error.hpp"
#include "task_records.hpp"
#include "tempdir.hpp"

namespace {

using iotally::CgroupTally;
using iotally::TaskIo;
using iotally::TaskRecord;

// struct taskstats_io laid out by hand: v1 is 288 bytes, v2 296.
std::vector<unsigned char> io_bytes(std::uint16_t version, std::size_t size, std::uint64_t cg) {
    std::vector<unsigned char> b(size, 0);
    std::uint16_t head[4] = {version, 4, 24, 10};
    std::memcpy(b.data(), head, sizeof(head));
    if (size >= 296)
        std::memcpy(&b[288], &cg, 8);
    return b;
}

TEST(CgroupIo, VersionTwoCarriesTheCgroupId) {
    auto b = io_bytes(2, 296, 4242);
    EXPECT_EQ(iotally::parse_io(b.data(), b.size()).cgroup_id, 4242u);
}

TEST(CgroupIo, VersionOneHasNoCgroupId) {
    auto b = io_bytes(1, 288, 0);
    auto io = iotally::parse_io(b.data(), b.size());
    EXPECT_EQ(io.version, 1);
    EXPECT_EQ(io.cgroup_id, 0u);
    // A v1 struct followed by bytes of something else is still read as v1.
    auto longer = io_bytes(1, 296, 77);
    EXPECT_EQ(iotally::parse_io(longer.data(), longer.size()).cgroup_id, 0u);
}

TaskIo io(std::uint64_t cgroup, std::uint64_t read_sectors, std::uint64_t waits_b13 = 0) {
    TaskIo t;
    t.version = 2;
    t.cgroup_id = cgroup;
    t.sectors[TaskIo::read] = read_sectors;
    t.ops[TaskIo::read] = read_sectors / 8;
    t.wait_hist[13] = waits_b13;
    t.wait_count = waits_b13;
    return t;
}

TaskRecord pid_record(std::uint32_t pid, const TaskIo& t, bool last_of_group) {
    TaskRecord r;
    r.id = pid;
    r.stats.emplace();
    r.stats->flag = last_of_group ? 0x20 : 0;
    r.io = t;
    return r;
}

TaskRecord tgid_record(std::uint32_t tgid, const TaskIo& t) {
    TaskRecord r;
    r.tgid = true;
    r.id = tgid;
    r.io = t;
    return r;
}

std::uint64_t read_sectors(const std::map<std::uint64_t, TaskIo>& m, std::uint64_t cg) {
    auto it = m.find(cg);
    return it == m.end() ? 0 : it->second.sectors[TaskIo::read];
}

TEST(CgroupTally, RunningProcessesAreSummedPerCgroup) {
    CgroupTally t;
    t.alive({{10, io(100, 8)}, {11, io(100, 16)}, {12, io(200, 40)}});
    auto tot = t.totals();
    EXPECT_EQ(read_sectors(tot, 100), 24u);
    EXPECT_EQ(read_sectors(tot, 200), 40u);
}

TEST(CgroupTally, ProcessThatExitsBetweenSamplesKeepsItsFinalCounters) {
    CgroupTally t;
    t.alive({{10, io(100, 8)}});
    // It read more before it exited; its record says so.
    t.exited({pid_record(10, io(100, 24), true)});
    t.alive({});
    EXPECT_EQ(read_sectors(t.totals(), 100), 24u);
    t.exited({});
    t.alive({});
    EXPECT_EQ(read_sectors(t.totals(), 100), 24u);  // charged once, for good
    EXPECT_EQ(t.exits(), 1u);
    EXPECT_EQ(t.unaccounted_exits(), 0u);
}

TEST(CgroupTally, ShortLivedProcessIsChargedToTheCgroupOfItsRecord) {
    CgroupTally t;
    t.alive({{10, io(100, 8)}});
    t.exited({pid_record(30, io(300, 64), true)});  // never seen alive
    t.alive({{10, io(100, 8)}});
    auto tot = t.totals();
    EXPECT_EQ(read_sectors(tot, 300), 64u);
    EXPECT_EQ(read_sectors(tot, 100), 8u);
}

TEST(CgroupTally, ThreadedProcessIsChargedItsTgidRecordOnce) {
    CgroupTally t;
    // A thread exits: its counters stay in its process's per-tgid record.
    t.exited({pid_record(21, io(100, 8), false)});
    t.alive({{20, io(100, 16)}});
    EXPECT_EQ(read_sectors(t.totals(), 100), 16u);
    // The last thread: its pid record, then the process's tgid record.
    t.exited({pid_record(20, io(100, 8), true), tgid_record(20, io(100, 32))});
    t.alive({});
    EXPECT_EQ(read_sectors(t.totals(), 100), 32u);
    EXPECT_EQ(t.exits(), 1u);
}

TEST(CgroupTally, ReapedBeforeItsRecordIsReadCountsOnce) {
    CgroupTally t;
    t.alive({{10, io(100, 8)}});
    t.alive({});  // gone from /proc; its record is still queued
    EXPECT_EQ(read_sectors(t.totals(), 100), 8u);
    t.exited({pid_record(10, io(100, 16), true)});
    t.alive({});
    EXPECT_EQ(read_sectors(t.totals(), 100), 16u);
    EXPECT_EQ(t.unaccounted_exits(), 0u);
}

TEST(CgroupTally, LostRecordKeepsTheLastCountersSeen) {
    CgroupTally t;
    t.alive({{10, io(100, 8)}});
    t.alive({});
    t.exited({});
    t.alive({});
    EXPECT_EQ(read_sectors(t.totals(), 100), 8u);
    EXPECT_EQ(t.unaccounted_exits(), 1u);
    t.alive({});
    EXPECT_EQ(read_sectors(t.totals(), 100), 8u);
}

// A moved process leaves what it did with the cgroup it left: no total
// goes down (a counter that drops is a reset to Prometheus).
TEST(CgroupTally, ProcessMovedToAnotherCgroupLeavesItsPastBehind) {
    CgroupTally t;
    t.alive({{10, io(100, 8, 2)}});
    t.alive({{10, io(200, 16, 5)}});
    auto tot = t.totals();
    EXPECT_EQ(read_sectors(tot, 100), 8u);
    EXPECT_EQ(read_sectors(tot, 200), 8u);
    EXPECT_EQ(tot[100].wait_hist[13], 2u);
    EXPECT_EQ(tot[200].wait_hist[13], 3u);
    EXPECT_EQ(tot[200].wait_count, 3u);
    // Back to the first cgroup, then it exits there.
    t.alive({{10, io(100, 40)}});
    tot = t.totals();
    EXPECT_EQ(read_sectors(tot, 100), 8u + 24u);
    EXPECT_EQ(read_sectors(tot, 200), 8u);
    t.exited({pid_record(10, io(100, 48), true)});
    t.alive({});
    tot = t.totals();
    EXPECT_EQ(read_sectors(tot, 100), 8u + 32u);
    EXPECT_EQ(read_sectors(tot, 200), 8u);
    EXPECT_EQ(t.exits(), 1u);
}

// Moved after the last sample, then exited: the record names the new
// cgroup; what it had when last seen stays with the old one.
TEST(CgroupTally, ProcessMovedThenExitedSplitsAtTheLastSample) {
    CgroupTally t;
    t.alive({{10, io(100, 8)}});
    t.exited({pid_record(10, io(200, 24), true)});
    t.alive({});
    auto tot = t.totals();
    EXPECT_EQ(read_sectors(tot, 100), 8u);
    EXPECT_EQ(read_sectors(tot, 200), 16u);
}

// Whatever processes do, move or exit, every cgroup's total only grows.
TEST(CgroupTally, TotalsNeverGoDown) {
    CgroupTally t;
    std::map<std::uint64_t, std::uint64_t> seen;
    auto check = [&] {
        for (const auto& [cg, io] : t.totals()) {
            EXPECT_GE(io.sectors[TaskIo::read], seen[cg]) << "cgroup " << cg;
            seen[cg] = io.sectors[TaskIo::read];
        }
    };
    const std::uint64_t cgroups[] = {100, 200, 300};
    std::map<std::uint32_t, std::uint64_t> sectors;
    for (unsigned step = 0; step < 60; step++) {
        std::map<std::uint32_t, TaskIo> alive;
        for (std::uint32_t pid = 10; pid < 14; pid++) {
            if ((pid + step) % 7 == 0)
                continue;  // not running at this sample
            sectors[pid] += 8 * ((pid * 3 + step) % 5);
            alive[pid] = io(cgroups[(pid + step / 3) % 3], sectors[pid]);
        }
        t.alive(alive);
        check();
        if (step % 11 == 10) {
            t.exited({pid_record(11, io(cgroups[step % 3], sectors[11] + 8), true)});
            sectors[11] = 0;  // a new process takes pid 11
            check();
        }
    }
}

TEST(CgroupIo, Depth) {
    using iotally::cgroup_at_depth;
    EXPECT_EQ(cgroup_at_depth("/", 2), "/");
    EXPECT_EQ(cgroup_at_depth("/a/b/c", 0), "/");
    EXPECT_EQ(cgroup_at_depth("/a/b/c", 1), "/a");
    EXPECT_EQ(cgroup_at_depth("/a/b/c", 2), "/a/b");
    EXPECT_EQ(cgroup_at_depth("/a/b/c", 3), "/a/b/c");
    EXPECT_EQ(cgroup_at_depth("/a/b/c", 9), "/a/b/c");
}

std::uint64_t ino(const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_ino;
}

TEST(CgroupIo, PathsAreFoundByInodeAndKeptAfterRemoval) {
    iotally::test::TempDir d;
    std::filesystem::create_directories(d.path() + "/system.slice/a.service");
    std::filesystem::create_directories(d.path() + "/user.slice");
    iotally::CgroupPaths paths(d.path());
    auto a = ino(d.path() + "/system.slice/a.service");
    EXPECT_EQ(paths.path(ino(d.path())), "/");
    EXPECT_EQ(paths.path(a), "/system.slice/a.service");
    EXPECT_EQ(paths.path(ino(d.path() + "/user.slice")), "/user.slice");
    // Created after the first walk: found by walking again.
    std::filesystem::create_directories(d.path() + "/late");
    EXPECT_EQ(paths.path(ino(d.path() + "/late")), "/late");
    // Removed: still named (cgroup2 never gives an id to another cgroup;
    // the scratch file system may reuse the inode, so nothing is created
    // after this).
    std::filesystem::remove(d.path() + "/system.slice/a.service");
    EXPECT_EQ(paths.path(a), "/system.slice/a.service");
    EXPECT_EQ(paths.path(1), "");  // no directory of ours has inode 1
}

TEST(CgroupIo, DepthMergesAndTheCapSumsTheRestIntoOverflow) {
    iotally::test::TempDir d;
    for (const char* p : {"/a/x", "/a/y", "/b", "/c", "/d"})
        std::filesystem::create_directories(d.path() + p);
    iotally::CgroupPaths paths(d.path());
    auto id = [&](const char* p) { return ino(d.path() + p); };
    iotally::CgroupSeries series(1, 2);
    auto got = series.group({{id("/a/x"), io(0, 8)},
                             {id("/a/y"), io(0, 16)},
                             {id("/b"), io(0, 32)},
                             {id("/c"), io(0, 64)}},
                            paths);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got["/a"].sectors[TaskIo::read], 24u);
    EXPECT_EQ(got["/b"].sectors[TaskIo::read], 32u);
    EXPECT_EQ(got[iotally::cgroup_overflow_label].sectors[TaskIo::read], 64u);
    // Admitted series keep their place; a newcomer goes to the overflow
    // even if it sorts first.
    got = series.group({{id("/d"), io(0, 1)}, {id("/c"), io(0, 2)}, {id("/b"), io(0, 4)}}, paths);
    EXPECT_EQ(got["/b"].sectors[TaskIo::read], 4u);
    EXPECT_EQ(got[iotally::cgroup_overflow_label].sectors[TaskIo::read], 3u);
    // Ids of cgroups removed before they were seen are one series of their own.
    iotally::CgroupSeries fresh(1, 2);
    got = fresh.group({{1, io(0, 5)}, {id("/b"), io(0, 4)}}, paths);
    EXPECT_EQ(got.size(), 2u);
    EXPECT_EQ(got[iotally::cgroup_unknown_label].sectors[TaskIo::read], 5u);
}

TEST(CgroupIo, IoStatLines) {
    auto v = iotally::parse_io_stat(
        "253:1 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"
        "8:0 rbytes=512 wbytes=0 rios=1 wios=0 dbytes=1024 dios=1 newkey=5\n"
        "garbage\n");
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0].major, 253u);
    EXPECT_EQ(v[0].minor, 1u);
    EXPECT_EQ(v[0].rbytes, 4096u);
    EXPECT_EQ(v[0].wbytes, 8192u);
    EXPECT_EQ(v[0].wios, 2u);
    EXPECT_EQ(v[1].dbytes, 1024u);
    EXPECT_EQ(v[1].dios, 1u);
}

// The exposition of two cgroups, written where the dashboard check reads it.
TEST(CgroupIo, SampleScrape) {
    iotally::ExpositionWriter w(iotally::ExpositionFormat::openmetrics);
    std::map<std::string, TaskIo> series{{"/fast", io(1, 2048, 10)},
                                         {iotally::cgroup_overflow_label, io(2, 8)}};
    iotally::CgroupIoStat st;
    st.major = 253;
    st.rbytes = 1048576;
    // The BPF backend's drop counter too: the mixin's alerts query it.
    iotally::write_cgroup_families(w, series, {3, 1, 0, 0, true, 5}, {{"/fast", "dm-0", st}});
    std::string text = w.finish();
    EXPECT_NE(text.find("iotally_cgroup_bpf_dropped_total 5\n"), std::string::npos);
    EXPECT_NE(text.find("iotally_cgroup_read_bytes_total{cgroup=\"/fast\"} 1048576\n"),
              std::string::npos);
    // Bucket 13 is [2^22, 2^23) ns: 10 waits at or under 8.388608 ms, none under 4.19 ms.
    EXPECT_NE(
        text.find("iotally_cgroup_io_wait_seconds_bucket{cgroup=\"/fast\",le=\"0.004194304\"} "
                  "0\n"),
        std::string::npos);
    EXPECT_NE(
        text.find("iotally_cgroup_io_wait_seconds_bucket{cgroup=\"/fast\",le=\"0.008388608\"} "
                  "10\n"),
        std::string::npos);
    EXPECT_NE(text.find("iotally_cgroup_exit_messages_lost_total 1\n"), std::string::npos);
    EXPECT_NE(
        text.find(
            "iotally_cgroup_device_read_bytes_total{cgroup=\"/fast\",device=\"dm-0\"} 1048576"),
        std::string::npos);
    if (const char* out = std::getenv("IOTALLY_CGROUP_SAMPLE_SCRAPE"))
        std::ofstream(out) << text;
}

// cli_fixture.hpp's run_cli(), as these checks read it: the exit status,
// stderr in `err`.
int run_cli(const std::vector<std::string>& args, std::string& err) {
    auto r = iotally::run_cli(args);
    err = r.err;
    return r.rc;
}

// Bad options are refused before anything is opened; so is a root that is
// not a cgroup2 mount.
TEST(CgroupCli, BadOptionsAndRoot) {
    std::string err;
    EXPECT_EQ(run_cli({"tasks", "--cgroup", "--top"}, err), 2);
    EXPECT_EQ(run_cli({"tasks", "--cgroup", "-p", "1"}, err), 2);
    EXPECT_EQ(run_cli({"tasks", "--cgroup", "--cgroup-max", "0"}, err), 2);
    EXPECT_NE(err.find("--cgroup-max 0: expected 1 to 10000"), std::string::npos) << err;
    EXPECT_EQ(run_cli({"tasks", "--cgroup", "--cgroup-depth", "65"}, err), 2);
    EXPECT_NE(err.find("--cgroup-depth 65: expected 0 to 64"), std::string::npos) << err;
    EXPECT_EQ(run_cli({"tasks", "--cgroup", "--cgroup-max", "-1"}, err), 2);
    iotally::test::TempDir d;
    EXPECT_EQ(run_cli({"tasks", "--cgroup", "--cgroup-root", d.path()}, err), 5);
    EXPECT_NE(err.find("not a cgroup2 mount"), std::string::npos) << err;
}

// kernel.task_io_stats: read from the proc directory given; a kernel
// without the switch is neither on nor off, and gets no warning.
TEST(TaskIoStatsSwitch, ReadAndWarnedAboutWhenOff) {
    iotally::test::TempDir d;
    const std::string proc = d.path();
    std::ostringstream err;
    EXPECT_EQ(iotally::task_io_stats_enabled(proc), std::nullopt);
    iotally::cli::warn_if_task_io_stats_off(err, proc);
    EXPECT_EQ(err.str(), "");

    std::filesystem::create_directories(proc + "/sys/kernel");
    auto set = [&](const char* v) { std::ofstream(proc + "/sys/kernel/task_io_stats") << v; };
    set("0\n");
    EXPECT_EQ(iotally::task_io_stats_enabled(proc), false);
    iotally::cli::warn_if_task_io_stats_off(err, proc);
    EXPECT_EQ(err.str(),
              "iotally: warning: per-task I/O accounting is off (kernel.task_io_stats = 0): I/O "
              "counters stay at zero until 'sysctl -w kernel.task_io_stats=1'\n");

    set("1\n");
    EXPECT_EQ(iotally::task_io_stats_enabled(proc), true);
    std::ostringstream quiet;
    iotally::cli::warn_if_task_io_stats_off(quiet, proc);
    EXPECT_EQ(quiet.str(), "");
}

// A zombie keeps its /proc entry; the sampler must not count it as alive.
TEST(ProcessIds, ZombiesAndGoneProcessesHaveExited) {
    iotally::test::TempDir d;
    d.write("7/stat", "7 (sleep) S 1 7 7 0 -1 4194560 96 0 0 0\n");
    d.write("8/stat", "8 (a) Z(b)) Z 1 8 8 0 -1 4227084 96 0 0 0\n");
    d.write("9/stat", "9 (x) X 1 9 9 0\n");
    d.write("10/stat", "10 (a) Z(b)) R 1 10 10 0\n");
    EXPECT_FALSE(iotally::process_has_exited(7, d.path()));
    EXPECT_TRUE(iotally::process_has_exited(8, d.path()));
    EXPECT_TRUE(iotally::process_has_exited(9, d.path()));
    EXPECT_FALSE(iotally::process_has_exited(10, d.path()));  // ')' in its name
    EXPECT_TRUE(iotally::process_has_exited(11, d.path()));   // no such process
}

// The /proc walk of tasks, serve --tasks and the cgroup sampler: numeric
// entries only, within a 32-bit tgid.
TEST(ProcessIds, NumericEntriesOnly) {
    iotally::test::TempDir d;
    for (const char* name : {"1", "42", "self", "0", "12ab", "4294967296", "4294967295"})
        std::filesystem::create_directories(d.path() + "/" + name);
    d.write("sys/kernel/task_io_stats", "1\n");
    auto ids = iotally::process_ids(d.path());
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ids, (std::vector<std::uint32_t>{1, 42, 4294967295u}));
    EXPECT_THROW(iotally::process_ids(d.path() + "/missing"), iotally::Error);
}

}  // namespace
