// SPDX-License-Identifier: GPL-2.0-or-later
// snoop's BPF records (bpf/snoop_record.h) as IoEvents: made-up records
// through BpfRecordDecoder, the matcher and the mount table, as snoop uses
// them.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "iotally/snoop/bpf_io_reader.hpp"
#include "iotally/snoop/snoop.hpp"
#include "snoop_record.h"

namespace iotally {
namespace {

constexpr std::uint32_t mkdev(unsigned major, unsigned minor) {
    return major << 20 | minor;
}

template <std::size_t N>
void put(char (&dst)[N], const char* s) {
    std::strncpy(dst, s, N);
}

iot_io io_record() {
    iot_io r{};
    r.type = IOT_REC_IO;
    r.pid = 4242;
    r.start_ns = 1'000'000;
    r.done_ns = 4'500'000;
    r.sector = 2048;
    r.dev = mkdev(253, 0);
    r.bytes = 65536;
    r.opf = 1 | 1u << 11;  // REQ_OP_WRITE | REQ_SYNC
    r.flags = IOT_B_WRITE | IOT_B_PHYS;
    r.fsdev = mkdev(253, 0);
    r.ino = 12;
    r.offset = 131072;
    r.oflags = 040001;
    r.file_kind = IOT_FILE_FILE;
    put(r.comm, "dd");
    put(r.disk, "dm-0");
    put(r.fstype, "ext4");
    put(r.rwbs, "WS");
    return r;
}

// A path record: names leaf first, as the program walks the dentries
std::vector<char> path_record(std::uint32_t fsdev, std::uint64_t ino,
                              const std::vector<std::string>& leaf_first, bool complete = true) {
    iot_path p{};
    p.type = IOT_REC_PATH;
    p.fsdev = fsdev;
    p.ino = ino;
    p.complete = complete;
    std::size_t off = 0;
    for (const auto& n : leaf_first) {
        std::memcpy(p.names + off, n.c_str(), n.size() + 1);
        off += n.size() + 1;
    }
    p.depth = static_cast<std::uint32_t>(leaf_first.size());
    p.len = static_cast<std::uint32_t>(off);
    std::vector<char> bytes(sizeof(p));
    std::memcpy(bytes.data(), &p, sizeof(p));
    return bytes;
}

std::vector<IoEvent> decode(BpfRecordDecoder& d, const void* data, std::size_t size) {
    std::vector<IoEvent> out;
    EXPECT_TRUE(d.decode(data, size, [&](const IoEvent& e) { out.push_back(e); }));
    return out;
}

TEST(BpfIoRecord, AnIoIsAStartAndADoneWithTheStartsNumbers) {
    BpfRecordDecoder d;
    auto p = path_record(mkdev(253, 0), 12, {"snoop.bin", "dir"});
    EXPECT_TRUE(d.decode(p.data(), p.size(), [](const IoEvent&) { FAIL() << "no event"; }));
    iot_io r = io_record();
    auto ev = decode(d, &r, sizeof(r));
    ASSERT_EQ(ev.size(), 2u);
    const IoEvent& s = ev[0];
    EXPECT_EQ(s.kind, IoEvent::Kind::start);
    EXPECT_EQ(ev[1].kind, IoEvent::Kind::done);
    EXPECT_EQ(s.ts_ns, 1'000'000u);
    EXPECT_EQ(ev[1].ts_ns, 4'500'000u);
    for (const IoEvent& e : ev) {
        EXPECT_EQ(e.dev, mkdev(253, 0));
        EXPECT_EQ(e.sector, 2048u);
        EXPECT_EQ(e.bytes, 65536u);
        EXPECT_EQ(e.pid, 4242);
        EXPECT_EQ(e.comm, "dd");
    }
    EXPECT_EQ(s.disk, "dm-0");
    EXPECT_EQ(s.driver, "dm");  // none from the kernel: the disk name without its instance
    EXPECT_EQ(s.rwbs, "WS");
    EXPECT_FALSE(s.is_read());
    EXPECT_EQ(s.fstype, "ext4");
    EXPECT_EQ(s.ino, 12u);
    EXPECT_EQ(s.offset, 131072);
    EXPECT_EQ(s.oflags, 040001);
    EXPECT_EQ(s.fspath, "/dir/snoop.bin");
    EXPECT_EQ(ev[1].error, 0);

    // Through the matcher and the mount table, as snoop prints it
    IoMatcher m;
    EXPECT_FALSE(m.add_io(ev[0]));
    auto rec = m.add_io(ev[1]);
    ASSERT_TRUE(rec);
    EXPECT_EQ(rec->latency_ns(), 3'500'000u);
    auto mounts = MountTable::parse("30 1 253:0 / /mnt/a rw - ext4 /dev/dm-0 rw\n");
    EXPECT_EQ(mounts.name_of(rec->start), "/mnt/a/dir/snoop.bin");
}

TEST(BpfIoRecord, MarkersForNoFileAndUserMemory) {
    BpfRecordDecoder d;
    iot_io r = io_record();
    r.file_kind = IOT_FILE_NONE;
    auto ev = decode(d, &r, sizeof(r));
    ASSERT_EQ(ev.size(), 2u);
    MountTable none;
    EXPECT_EQ(none.name_of(ev[0]), "<none>");
    EXPECT_EQ(ev[0].fstype, "<none>");
    EXPECT_EQ(ev[0].fsdev, 0u);
    EXPECT_EQ(ev[0].offset, -1);
    r.file_kind = IOT_FILE_UNKNOWN;
    ev = decode(d, &r, sizeof(r));
    EXPECT_EQ(none.name_of(ev[0]), "<unknown>");
    // A file whose path was never sent (its record lost) is <unknown>, not wrong
    r.file_kind = IOT_FILE_FILE;
    r.ino = 99;
    ev = decode(d, &r, sizeof(r));
    EXPECT_EQ(none.name_of(ev[0]), "<unknown>");
}

TEST(BpfIoRecord, PathTableJoinsTheComponentsFromTheRoot) {
    BpfRecordDecoder d;
    auto a = path_record(1, 2, {"c", "b", "a"});
    auto root = path_record(1, 3, {});
    auto deep = path_record(1, 4, {"x", "y"}, false);
    for (const auto& p : {a, root, deep})
        EXPECT_TRUE(d.decode(p.data(), p.size(), [](const IoEvent&) {}));
    EXPECT_EQ(d.path_of(1, 2), "/a/b/c");
    EXPECT_EQ(d.path_of(1, 3), "/");
    EXPECT_EQ(d.path_of(1, 4), "<unknown>");  // the walk did not reach the root
    EXPECT_EQ(d.path_of(2, 2), "");
    EXPECT_EQ(d.paths(), 3u);
    // A later record of the same inode (evicted from the program's table, renamed) wins
    auto moved = path_record(1, 2, {"d"});
    EXPECT_TRUE(d.decode(moved.data(), moved.size(), [](const IoEvent&) {}));
    EXPECT_EQ(d.path_of(1, 2), "/d");
}

TEST(BpfIoRecord, ErrorsPartitionsAndWaits) {
    BpfRecordDecoder d;
    iot_io r = io_record();
    r.error = 10;  // BLK_STS_IOERR
    r.resid = 4096;
    r.partno = 2;
    r.start_sect = 2048;
    r.sector = 4096;
    put(r.disk, "nvme0n1");
    put(r.driver, "nvme");
    auto ev = decode(d, &r, sizeof(r));
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[1].error, -EIO);
    EXPECT_EQ(ev[1].resid, 4096u);
    EXPECT_EQ(ev[0].disk, "nvme0n1p2");
    EXPECT_EQ(ev[0].driver, "nvme");
    EXPECT_EQ(ev[0].lsector, 2048u);

    r.type = IOT_REC_WAIT;
    ev = decode(d, &r, sizeof(r));
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].kind, IoEvent::Kind::wait_start);
    EXPECT_EQ(ev[1].kind, IoEvent::Kind::wait_done);
    IoMatcher m;
    EXPECT_FALSE(m.add_wait(ev[0]));
    auto w = m.add_wait(ev[1]);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->wait_ns(), 3'500'000u);
}

TEST(BpfIoRecord, ShortOrUnknownRecordsAreRefused) {
    BpfRecordDecoder d;
    iot_io r = io_record();
    auto none = [](const IoEvent&) { FAIL() << "no event"; };
    EXPECT_FALSE(d.decode(&r, sizeof(r) - 1, none));
    EXPECT_FALSE(d.decode(&r, 2, none));
    r.type = 77;
    EXPECT_FALSE(d.decode(&r, sizeof(r), none));
}

TEST(BpfIoRecord, NamesAsTheKernelGivesThem) {
    EXPECT_EQ(bpf_disk_name("sda", 1), "sda1");
    EXPECT_EQ(bpf_disk_name("nvme0n1", 3), "nvme0n1p3");
    EXPECT_EQ(bpf_disk_name("dm-0", 0), "dm-0");
    EXPECT_EQ(driver_from_disk("dm-3"), "dm");
    EXPECT_EQ(driver_from_disk("loop0"), "loop");
    EXPECT_EQ(driver_from_disk("nvme0n1"), "nvme0n");
    EXPECT_EQ(driver_from_disk("123"), "123");
    EXPECT_EQ(blk_status_errno(0), 0);
    EXPECT_EQ(blk_status_errno(1), -EOPNOTSUPP);
    EXPECT_EQ(blk_status_errno(10), -EIO);
    EXPECT_EQ(blk_status_errno(200), -EIO);
}

}  // namespace
}  // namespace iotally
