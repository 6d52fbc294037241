// SPDX-License-Identifier: GPL-2.0-or-later
// The pure parts of the BPF backend of `iotally tasks`: the bio
// classification and histogram bucket that bpf/task_io.bpf.c runs (shared
// in bpf/task_io_record.h), and the conversion of its records to TaskIo.
#include <gtest/gtest.h>
#include <linux/types.h>

#include "iotally/taskstats/bpf_task_io.hpp"
#include "task_io_record.h"
#include "task_records.hpp"

namespace iotally {
namespace {

// REQ_PREFLUSH as 6.12 numbers it (__REQ_PREFLUSH = 18): the program
// takes the running kernel's through CO-RE; any bit above the op does.
constexpr __u32 preflush = 1u << 18;

struct BioCase {
    const char* what;
    __u32 opf, bytes;
    int op, flush;
    __u32 sectors;
};

// kernel/task_io_stats.c, task_io_stats_count_bio(), case by case.
const BioCase bio_cases[] = {
    {"read", 0, 4096, TIO_READ, 0, 8},
    {"write", 1, 65536, TIO_WRITE, 0, 128},
    {"write with REQ_PREFLUSH: a flush and a write", 1 | preflush, 4096, TIO_WRITE, 1, 8},
    {"empty write with REQ_PREFLUSH: only a flush", 1 | preflush, 0, -1, 1, 0},
    {"empty write without it: nothing", 1, 0, -1, 0, 0},
    {"REQ_OP_FLUSH: a flush", 2, 0, -1, 1, 0},
    {"REQ_OP_FLUSH with REQ_PREFLUSH: one flush", 2 | preflush, 0, -1, 1, 0},
    {"discard", 3, 1 << 20, TIO_DISCARD, 0, 2048},
    {"secure erase: a discard", 5, 4096, TIO_DISCARD, 0, 8},
    {"zone append: a write", 7, 4096, TIO_WRITE, 0, 8},
    {"write zeroes: a write", 9, 8192, TIO_WRITE, 0, 16},
    {"zone reset (REQ_OP_ZONE_RESET 13): nothing", 13, 0, -1, 0, 0},
    {"driver-private (REQ_OP_DRV_IN 34): nothing", 34, 512, -1, 0, 1},
    {"read with flags above the op (REQ_SYNC, REQ_META)", 0 | (1u << 11) | (1u << 12), 512,
     TIO_READ, 0, 1},
};

TEST(BpfTaskIo, ClassifiesBiosAsTheKernelDoes) {
    for (const auto& c : bio_cases) {
        SCOPED_TRACE(c.what);
        tio_bio_class k = tio_classify_bio(c.opf, c.bytes, preflush);
        EXPECT_EQ(k.op, c.op);
        EXPECT_EQ(k.flush, c.flush);
        if (k.op >= 0) {
            EXPECT_EQ(k.sectors, c.sectors);
        }
    }
}

// task_io_stats_bucket(): bucket 0 below 1024 ns, b for [2^(b+9), 2^(b+10)).
TEST(BpfTaskIo, BucketsAreTheKernels) {
    EXPECT_EQ(tio_bucket(0), 0u);
    EXPECT_EQ(tio_bucket(1023), 0u);
    EXPECT_EQ(tio_bucket(1024), 1u);
    EXPECT_EQ(tio_bucket(2047), 1u);
    EXPECT_EQ(tio_bucket(2048), 2u);
    EXPECT_EQ(tio_bucket(3'000'000), 12u);  // 3 ms: [2^21, 2^22) ns
    EXPECT_EQ(tio_bucket((1ull << 32) - 1), 22u);
    EXPECT_EQ(tio_bucket(1ull << 32), 23u);
    EXPECT_EQ(tio_bucket(~0ull), 23u);
    // Every bucket's lower bound (as TaskIo reports it) falls in it, and
    // the nanosecond before it in the one below.
    TaskIo io;
    for (std::size_t b = 1; b < TaskIo::nr_buckets; b++) {
        SCOPED_TRACE(b);
        EXPECT_EQ(tio_bucket(io.bucket_low_ns(b)), b);
        EXPECT_EQ(tio_bucket(io.bucket_low_ns(b) - 1), b - 1);
    }
}

TEST(BpfTaskIo, RecordBecomesTaskIo) {
    tio_counters c{};
    for (int i = 0; i < TIO_NR_OPS; i++) {
        c.ops[i] = 10 + static_cast<__u64>(i);
        c.sectors[i] = 100 + static_cast<__u64>(i);
    }
    c.wait_count = 3;
    c.wait_total_ns = 9'000'000;
    c.wait_max_ns = 4'000'000;
    c.wait_hist[12] = 2;
    c.wait_hist[13] = 1;
    TaskIo io = task_io_from_bpf(c, 4242);
    EXPECT_TRUE(io.bpf);
    EXPECT_EQ(io.version, 2);
    EXPECT_EQ(io.hist_shift, 10u);
    EXPECT_EQ(io.cgroup_id, 4242u);
    EXPECT_EQ(io.ops[TaskIo::read], 10u);
    EXPECT_EQ(io.ops[TaskIo::flush], 13u);
    EXPECT_EQ(io.sectors[TaskIo::discard], 102u);
    EXPECT_EQ(io.wait_count, 3u);
    EXPECT_EQ(io.wait_total_ns, 9'000'000u);
    EXPECT_EQ(io.wait_max_ns, 4'000'000u);
    EXPECT_EQ(io.wait_hist[12], 2u);
    EXPECT_EQ(io.wait_hist[13], 1u);
    EXPECT_EQ(io.wait_hist[0], 0u);
}

TEST(BpfTaskIo, DropsAreSaidOnlyWhenThereAreSome) {
    BpfTaskIoDrops d;
    d.late_exits = 5;
    d.exits = 7;
    EXPECT_EQ(bpf_drops_text(d), "");
    d.thread_map_full = 256;
    EXPECT_EQ(bpf_drops_text(d),
              "bpf maps full: 256 bios/waits of threads without an entry, 0 exited threads, 0 "
              "bios/waits without a cgroup entry, 0 exit records lost");
}

// An exit record of the BPF backend: no classic taskstats fields, its
// command name beside the io object, which says where it comes from.
TEST(BpfTaskIo, ExitRecordKeepsTheListenersFormats) {
    tio_counters c{};
    c.ops[TIO_READ] = 16;
    c.sectors[TIO_READ] = 128;
    TaskRecord r;
    r.id = 77;
    r.comm = "dd";
    r.io = task_io_from_bpf(c, 9);
    EXPECT_EQ(cli::task_record_line(r),
              "pid 77 dd read 16 128 write 0 0 discard 0 0 flush 0 wait 0 0 0 hist -");
    auto j = cli::task_record_json(r);
    EXPECT_EQ(j["name"], "dd");
    EXPECT_FALSE(j.contains("taskstats"));
    EXPECT_EQ(j["io"]["source"], "bpf");
    EXPECT_EQ(j["io"]["cgroup_id"], 9);
    EXPECT_EQ(j["io"]["ops"]["read"]["sectors"], 128);
    // "comm" would sort before "command", which every document begins with.
    auto doc = cli::task_record_document(r, 0);
    EXPECT_EQ(doc.begin().key(), "command");
}

}  // namespace
}  // namespace iotally
