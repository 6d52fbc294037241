// SPDX-License-Identifier: GPL-2.0-or-later
// The io trace events as data: matching, filters, lines, summaries, mounts.
#include <gtest/gtest.h>

#include "iotally/snoop/snoop.hpp"

using namespace iotally;

namespace {

constexpr std::uint32_t dm0 = 254u << 20 | 0;
constexpr std::uint32_t nullb = 251u << 20 | 0;

IoEvent ev(IoEvent::Kind k, std::uint64_t ts, std::uint64_t sector, std::uint32_t bytes,
           int pid = 100, std::uint32_t dev = dm0) {
    IoEvent e;
    e.kind = k;
    e.ts_ns = ts;
    e.sector = sector;
    e.bytes = bytes;
    e.pid = pid;
    e.dev = dev;
    e.comm = "cat";
    e.disk = dev == dm0 ? "dm-0" : "nullb0";
    e.flags = io_b_read | io_b_pageio;
    e.fsdev = dm0;
    e.path = "/dir/known.bin";
    return e;
}

using K = IoEvent::Kind;

TEST(IoMatcher, DoneCompletesItsStart) {
    IoMatcher m;
    EXPECT_FALSE(m.add_io(ev(K::start, 1000, 8, 4096)));
    EXPECT_EQ(m.in_flight(), 1u);
    auto r = m.add_io(ev(K::done, 3500, 8, 4096));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->latency_ns(), 2500u);
    EXPECT_EQ(r->start.path, "/dir/known.bin");
    EXPECT_EQ(m.in_flight(), 0u);
    EXPECT_EQ(m.unmatched(), 0u);
}

TEST(IoMatcher, KeyIsDeviceSectorAndSize) {
    IoMatcher m;
    m.add_io(ev(K::start, 1000, 8, 4096));
    EXPECT_FALSE(m.add_io(ev(K::done, 2000, 8, 8192)));              // other size
    EXPECT_FALSE(m.add_io(ev(K::done, 2000, 16, 4096)));             // other sector
    EXPECT_FALSE(m.add_io(ev(K::done, 2000, 8, 4096, 100, nullb)));  // other device
    EXPECT_TRUE(m.add_io(ev(K::done, 2000, 8, 4096)));
    m.expire(10'000'000'000ULL, 1'000'000'000ULL);
    EXPECT_EQ(m.unmatched(), 3u);
}

TEST(IoMatcher, SamePlaceTwiceOldestFirst) {
    IoMatcher m;
    m.add_io(ev(K::start, 1000, 8, 4096, 1));
    m.add_io(ev(K::start, 2000, 8, 4096, 2));
    auto a = m.add_io(ev(K::done, 3000, 8, 4096));
    auto b = m.add_io(ev(K::done, 4000, 8, 4096));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->start.pid, 1);
    EXPECT_EQ(b->start.pid, 2);
}

// Per-CPU buffers: a done can be read before its start.
TEST(IoMatcher, DoneReadBeforeItsStart) {
    IoMatcher m;
    EXPECT_FALSE(m.add_io(ev(K::done, 5000, 64, 512)));
    auto r = m.add_io(ev(K::start, 4000, 64, 512));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->latency_ns(), 1000u);
    EXPECT_EQ(m.in_flight(), 0u);
    m.expire(1'000'000'000'000ULL, 1);
    EXPECT_EQ(m.unmatched(), 0u);
}

TEST(IoMatcher, StartAfterAnEarlyDoneIsANewIo) {
    IoMatcher m;
    m.add_io(ev(K::done, 5000, 64, 512));
    EXPECT_FALSE(m.add_io(ev(K::start, 6000, 64, 512)));  // started after that done
    EXPECT_EQ(m.in_flight(), 1u);
}

TEST(IoMatcher, ExpireCountsOnlyOldDones) {
    IoMatcher m;
    m.add_io(ev(K::done, 1'000, 8, 512));
    m.add_io(ev(K::done, 5'000'000'000ULL, 16, 512));
    m.expire(5'500'000'000ULL, 2'000'000'000ULL);
    EXPECT_EQ(m.unmatched(), 1u);
    EXPECT_TRUE(m.add_io(ev(K::start, 4'999'000'000ULL, 16, 512)));
}

TEST(IoMatcher, WaitsPairPerTask) {
    IoMatcher m;
    EXPECT_FALSE(m.add_wait(ev(K::wait_start, 100, 0, 4096, 7)));
    EXPECT_FALSE(m.add_wait(ev(K::wait_start, 150, 0, 4096, 8)));
    auto w8 = m.add_wait(ev(K::wait_done, 400, 0, 4096, 8));
    auto w7 = m.add_wait(ev(K::wait_done, 900, 0, 4096, 7));
    ASSERT_TRUE(w7 && w8);
    EXPECT_EQ(w7->wait_ns(), 800u);
    EXPECT_EQ(w8->wait_ns(), 250u);
    EXPECT_FALSE(m.add_wait(ev(K::wait_done, 1000, 0, 4096, 7)));
}

TEST(IoMatcher, IoEventsAreNotWaitsAndBack) {
    IoMatcher m;
    EXPECT_FALSE(m.add_io(ev(K::wait_start, 1, 0, 1)));
    EXPECT_FALSE(m.add_wait(ev(K::start, 1, 0, 1)));
    EXPECT_EQ(m.in_flight(), 0u);
}

TEST(IoFilter, EachFilterAlone) {
    IoRecord r{ev(K::start, 0, 8, 4096, 42), ev(K::done, 3'000'000, 8, 4096)};
    std::string path = "/mnt/a/dir/known.bin";
    EXPECT_TRUE(IoFilter{}.match(r, path));
    EXPECT_TRUE((IoFilter{"dm-0", "", 0, 0}.match(r, path)));
    EXPECT_TRUE((IoFilter{"254:0", "", 0, 0}.match(r, path)));
    EXPECT_FALSE((IoFilter{"dm-1", "", 0, 0}.match(r, path)));
    EXPECT_FALSE((IoFilter{"254:1", "", 0, 0}.match(r, path)));
    EXPECT_TRUE((IoFilter{"", "/mnt/a/", 0, 0}.match(r, path)));
    EXPECT_FALSE((IoFilter{"", "/mnt/b", 0, 0}.match(r, path)));
    EXPECT_FALSE((IoFilter{"", "/mnt/a/dir/known.bin.x", 0, 0}.match(r, path)));
    EXPECT_TRUE((IoFilter{"", "", 42, 0}.match(r, path)));
    EXPECT_FALSE((IoFilter{"", "", 43, 0}.match(r, path)));
    EXPECT_TRUE((IoFilter{"", "", 0, 3.0}.match(r, path)));
    EXPECT_FALSE((IoFilter{"", "", 0, 3.001}.match(r, path)));
}

TEST(Snoop, LineHasEveryColumn) {
    IoRecord r{ev(K::start, 1'000'000'000ULL, 8, 4096, 42), ev(K::done, 1'002'500'000ULL, 8, 4096)};
    EXPECT_EQ(snoop_line(r, "/mnt/a/dir/known.bin", 500'000'000ULL),
              "    0.502500 cat                   42 dm-0       R      4096     2.500 "
              "/mnt/a/dir/known.bin");
    r.start.flags = io_b_write;
    EXPECT_NE(snoop_line(r, "x", 0).find(" W  "), std::string::npos);
    EXPECT_EQ(snoop_header().substr(0, 12), "     TIME(s)");
}

TEST(MountTable, PathsBecomeAbsolute) {
    auto t = MountTable::parse(
        "22 1 0:5 / /dev rw shared:2 - devtmpfs devtmpfs rw\n"
        "30 22 254:0 / /mnt/a rw - ext4 /dev/mapper/iofs rw\n"
        "31 22 254:0 /sub /mnt/bind rw - ext4 /dev/mapper/iofs rw\n"
        "32 1 7:0 / /mnt/with\\040space rw - ext2 /dev/loop0 rw\n"
        "33 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
        "garbage line\n");
    EXPECT_EQ(t.absolute(dm0, "/dir/f"), "/mnt/a/dir/f");
    EXPECT_EQ(t.absolute(5, "/nullb0"), "/dev/nullb0");
    EXPECT_EQ(t.absolute(7u << 20, "/upper.bin"), "/mnt/with space/upper.bin");
    EXPECT_EQ(t.absolute(8u << 20 | 1, "/etc/passwd"), "/etc/passwd");
    EXPECT_EQ(t.absolute(9u << 20, "/x"), "/x");  // unknown device: as it is
    EXPECT_EQ(t.absolute(dm0, "<none>"), "<none>");
    EXPECT_EQ(t.absolute(dm0, "<unknown>"), "<unknown>");
    EXPECT_EQ(t.absolute(dm0, ""), "");
}

// Kernels with the fspath field give full paths where they know them
TEST(MountTable, NameOfAnEvent) {
    auto t = MountTable::parse("30 22 254:0 / /mnt/a rw - ext4 /dev/mapper/iofs rw\n");
    IoEvent e;
    e.fsdev = dm0;
    e.path = "/mnt/a/dir/f";
    e.fspath = "/dir/f";
    EXPECT_EQ(t.name_of(e), "/mnt/a/dir/f");  // full: as it is
    e.path = "<unknown>";
    EXPECT_EQ(t.name_of(e), "/mnt/a/dir/f");  // mount unknown to the kernel
    e.fspath = "<unknown>";
    EXPECT_EQ(t.name_of(e), "<unknown>");
    e.path = e.fspath = "<none>";
    EXPECT_EQ(t.name_of(e), "<none>");
    e.path = "/dir/f";  // a kernel without fspath: the path in its fs
    e.fspath.clear();
    EXPECT_EQ(t.name_of(e), "/mnt/a/dir/f");
    e.path.clear();  // io:io_done
    EXPECT_EQ(t.name_of(e), "");
}

TEST(BytesSummary, SumsByDeviceAppAndPid) {
    BytesSummary s;
    auto io = [](const char* disk, const char* comm, int pid, std::uint32_t bytes) {
        IoRecord r{ev(K::start, 0, 0, bytes, pid), ev(K::done, 1, 0, bytes, pid)};
        r.start.disk = disk;
        r.start.comm = comm;
        return r;
    };
    s.add(io("dm-0", "bash", 1, 4096));
    s.add(io("dm-0", "bash", 1, 8192));
    s.add(io("dm-0", "bash", 2, 512));
    s.add(io("sda", "bash", 1, 100000));
    auto rows = s.rows();
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].device, "sda");
    EXPECT_EQ(rows[1].bytes, 12288u);
    EXPECT_EQ(rows[2].pid, 2);
    EXPECT_EQ(s.render(),
              "    DEVICE                  APP        PID           BYTES\n"
              "       sda                 bash          1          100000\n"
              "      dm-0                 bash          1           12288\n"
              "      dm-0                 bash          2             512\n");
}

// Brute force: every value lands in the bucket [2^b, 2^(b+1)), 0 in its own.
TEST(Log2Histogram, BucketsArePowersOfTwo) {
    for (std::uint64_t v : {0ULL, 1ULL, 2ULL, 3ULL, 4ULL, 1023ULL, 1024ULL, 1025ULL, ~0ULL}) {
        Log2Histogram h;
        h.add(v);
        ASSERT_EQ(h.buckets().size(), 1u);
        int b = h.buckets().begin()->first;
        if (v == 0) {
            EXPECT_EQ(b, -1);
            continue;
        }
        EXPECT_LE(Log2Histogram::bucket_low(b), v) << v;
        if (b < 63) {
            EXPECT_GT(Log2Histogram::bucket_low(b + 1), v) << v;
        }
    }
}

TEST(Log2Histogram, RendersLikeQuantize) {
    Log2Histogram h;
    for (int i = 0; i < 3; i++)
        h.add(300);
    h.add(5000);
    EXPECT_EQ(h.render(),
              "           value  ------------- Distribution ------------- count\n"
              "             128 |                                         0\n"
              "             256 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3\n"
              "             512 |                                         0\n"
              "            1024 |                                         0\n"
              "            2048 |                                         0\n"
              "            4096 |@@@@@@@@@@                               1\n"
              "            8192 |                                         0\n");
}

TEST(LatencySummary, OneHistogramPerFile) {
    LatencySummary s;
    IoRecord a{ev(K::start, 0, 0, 1), ev(K::done, 2'000'000, 0, 1)};  // 2000 us
    s.add(a, "/a");
    s.add(a, "/a");
    s.add(a, "/b");
    ASSERT_EQ(s.files().size(), 2u);
    EXPECT_EQ(s.files().at("/a").count(), 2u);
    EXPECT_EQ(s.files().at("/a").buckets().begin()->first, 10);  // [1024, 2048) us
}

TEST(WaitSummary, TotalsPerTask) {
    WaitSummary s;
    s.add({ev(K::wait_start, 0, 0, 1, 7), ev(K::wait_done, 1'000'000, 0, 1, 7)});
    s.add({ev(K::wait_start, 0, 0, 1, 7), ev(K::wait_done, 3'000'000, 0, 1, 7)});
    s.add({ev(K::wait_start, 0, 0, 1, 9), ev(K::wait_done, 500'000, 0, 1, 9)});
    auto rows = s.rows();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].pid, 7);
    EXPECT_EQ(rows[0].waits, 2u);
    EXPECT_EQ(rows[0].total_ns, 4'000'000u);
    EXPECT_EQ(rows[0].max_ns, 3'000'000u);
    EXPECT_EQ(rows[1].total_ns, 500'000u);
}

}  // namespace
