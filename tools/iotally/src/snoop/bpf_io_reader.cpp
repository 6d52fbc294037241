// SPDX-License-Identifier: GPL-2.0-or-later
// snoop's events from bpf/snoop.bpf.c: the records as IoEvents, and the
// skeleton loaded, attached and read through its ring buffer (libbpf).
#include "iotally/snoop/bpf_io_reader.hpp"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "bpf_log.hpp"
#include "bpf_memory.hpp"
#include "iotally/util/error.hpp"
#include "snoop.skel.h"
#include "snoop_record.h"

namespace iotally {

namespace {

std::string fixed_string(const char* s, std::size_t n) {
    return std::string(s, strnlen(s, n));
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

}  // namespace

int blk_status_errno(unsigned status) {
    // include/linux/blk_types.h's BLK_STS_* in order, block/blk-core.c's table
    static constexpr int errnos[] = {0,         EOPNOTSUPP, ETIMEDOUT, ENOSPC, ENOLINK,
                                     EREMOTEIO, EBADE,      ENODATA,   EILSEQ, ENOMEM,
                                     EIO,       EREMCHG,    EAGAIN,    EBUSY,  ETOOMANYREFS,
                                     EOVERFLOW, ENODEV,     ETIME,     EINVAL};
    if (status < std::size(errnos))
        return -errnos[status];
    return -EIO;
}

std::string bpf_disk_name(const std::string& disk, unsigned partno) {
    if (!partno)
        return disk;
    bool digit = !disk.empty() && is_digit(disk.back());
    return fmt::format("{}{}{}", disk, digit ? "p" : "", partno);
}

std::string driver_from_disk(const std::string& disk) {
    std::size_t n = disk.size();
    while (n && is_digit(disk[n - 1]))
        n--;
    if (n && disk[n - 1] == '-')
        n--;
    return n ? disk.substr(0, n) : disk;
}

std::string BpfRecordDecoder::path_of(std::uint32_t fsdev, std::uint64_t ino) const {
    auto it = paths_.find({fsdev, ino});
    return it == paths_.end() ? std::string() : it->second;
}

bool BpfRecordDecoder::decode(const void* data, std::size_t size,
                              const std::function<void(const IoEvent&)>& fn) {
    std::uint32_t type = 0;
    if (size < sizeof(type))
        return false;
    std::memcpy(&type, data, sizeof(type));
    if (type == IOT_REC_PATH) {
        if (size < sizeof(iot_path))
            return false;
        iot_path p;
        std::memcpy(&p, data, sizeof(p));
        std::vector<std::string> names;
        std::size_t len = std::min<std::size_t>(p.len, sizeof(p.names));
        for (std::size_t off = 0; off < len && names.size() < p.depth;) {
            std::string name = fixed_string(p.names + off, len - off);
            off += name.size() + 1;
            names.push_back(std::move(name));
        }
        std::string path;
        if (!p.complete || names.size() != p.depth) {
            path = "<unknown>";
        } else {
            for (auto it = names.rbegin(); it != names.rend(); ++it)
                path += "/" + *it;
            if (path.empty())
                path = "/";
        }
        paths_[{p.fsdev, p.ino}] = path;
        return true;
    }
    if (type != IOT_REC_IO && type != IOT_REC_WAIT)
        return false;
    if (size < sizeof(iot_io))
        return false;
    iot_io r;
    std::memcpy(&r, data, sizeof(r));
    IoEvent e;
    e.kind = type == IOT_REC_IO ? IoEvent::Kind::start : IoEvent::Kind::wait_start;
    e.ts_ns = r.start_ns;
    e.pid = static_cast<int>(r.pid);
    e.comm = fixed_string(r.comm, sizeof(r.comm));
    e.dev = r.dev;
    e.sector = r.sector;
    e.lsector = r.sector >= r.start_sect ? r.sector - r.start_sect : r.sector;
    e.bytes = r.bytes;
    e.flags = r.flags;
    e.opf = r.opf;
    e.rwbs = fixed_string(r.rwbs, sizeof(r.rwbs));
    std::string gendisk = fixed_string(r.disk, sizeof(r.disk));
    e.disk = r.dev ? bpf_disk_name(gendisk, r.partno) : "<none>";
    e.driver = fixed_string(r.driver, sizeof(r.driver));
    if (e.driver.empty())
        e.driver = r.dev ? driver_from_disk(gendisk) : "<none>";
    if (r.file_kind == IOT_FILE_FILE) {
        e.fsdev = r.fsdev;
        e.ino = r.ino;
        e.offset = r.offset;
        e.fstype = fixed_string(r.fstype, sizeof(r.fstype));
        e.oflags = r.oflags;
        // The full path is the mount table's work (MountTable::name_of)
        e.path = "<unknown>";
        e.fspath = path_of(r.fsdev, r.ino);
        if (e.fspath.empty())
            e.fspath = "<unknown>";
    } else {
        e.fstype = "<none>";
        e.path = e.fspath = r.file_kind == IOT_FILE_UNKNOWN ? "<unknown>" : "<none>";
    }
    fn(e);
    IoEvent d = e;
    d.kind = type == IOT_REC_IO ? IoEvent::Kind::done : IoEvent::Kind::wait_done;
    d.ts_ns = r.done_ns;
    d.path.clear();
    d.fspath.clear();
    if (type == IOT_REC_IO) {
        d.error = blk_status_errno(static_cast<unsigned>(r.error));
        d.resid = r.error ? r.resid : 0;
    }
    fn(d);
    return true;
}

// ---------------------------------------------------------------- loading

namespace {

struct SkelDestroy {
    void operator()(snoop_bpf* s) const { snoop_bpf__destroy(s); }
};
struct RingBufferFree {
    void operator()(ring_buffer* r) const { ring_buffer__free(r); }
};
struct BtfFree {
    void operator()(btf* b) const { btf__free(b); }
};

std::uint32_t ring_bytes(unsigned buffer_kb) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    std::uint64_t want = static_cast<std::uint64_t>(buffer_kb) * 1024 *
                         static_cast<std::uint64_t>(cpus > 0 ? cpus : 1);
    std::uint64_t size = 4096;
    while (size < want && size < (std::uint64_t{1} << 31))
        size <<= 1;
    return static_cast<std::uint32_t>(size);
}

}  // namespace

struct BpfIoReader::State {
    std::unique_ptr<snoop_bpf, SkelDestroy> skel;
    std::unique_ptr<ring_buffer, RingBufferFree> ring;
    BpfRecordDecoder decoder;
    const std::function<void(const IoEvent&)>* fn = nullptr;
    std::size_t n = 0;
    std::uint64_t unknown = 0;

    std::uint64_t counter(unsigned which) const {
        long cpus = libbpf_num_possible_cpus();
        if (cpus <= 0)
            return 0;
        std::vector<std::uint64_t> values(static_cast<std::size_t>(cpus));
        std::uint32_t key = which;
        if (bpf_map__lookup_elem(skel->maps.counters, &key, sizeof(key), values.data(),
                                 values.size() * sizeof(std::uint64_t), 0) != 0)
            return 0;
        std::uint64_t total = 0;
        for (auto v : values)
            total += v;
        return total;
    }
};

BpfIoReader::BpfIoReader(const Options& o) : st_(std::make_unique<State>()) {
    BpfLogCapture capture;
    auto fail = [&](ErrorKind kind, const std::string& what, int err) {
        std::string log = capture.text();
        if (o.log && !log.empty())
            *o.log << log << (log.back() == '\n' ? "" : "\n");
        return Error(kind,
                     fmt::format("snoop: cannot load the BPF programs: {}: {}{}", what,
                                 std::strerror(err), o.log ? "" : " (-v shows libbpf's log)"));
    };
    st_->skel.reset(snoop_bpf__open());
    if (!st_->skel)
        throw fail(ErrorKind::failed, "open", errno ? errno : EINVAL);
    snoop_bpf* s = st_->skel.get();
    s->rodata->want_waits = o.waits;
    if (int err = bpf_map__set_max_entries(s->maps.events, ring_bytes(o.buffer_kb)); err)
        throw fail(ErrorKind::failed, "ring buffer size", -err);
    // Attach points that this kernel may lack: their programs stay unloaded
    std::unique_ptr<btf, BtfFree> vmlinux(btf__load_vmlinux_btf());
    auto has_function = [&](const char* name) {
        return vmlinux && btf__find_by_name_kind(vmlinux.get(), name, BTF_KIND_FUNC) > 0;
    };
    struct Optional {
        bpf_program* enter;
        bpf_program* exit;
        const char* function;
        bool wanted;
    } optional[] = {
        {s->progs.iomap_dio_enter, s->progs.iomap_dio_exit, "__iomap_dio_rw", true},
        {s->progs.blkdev_read_enter, s->progs.blkdev_read_exit, "blkdev_read_iter", true},
        {s->progs.blkdev_write_enter, s->progs.blkdev_write_exit, "blkdev_write_iter", true},
        {s->progs.io_schedule_enter, s->progs.io_schedule_exit, "io_schedule", o.waits},
        {s->progs.io_schedule_timeout_enter, s->progs.io_schedule_timeout_exit,
         "io_schedule_timeout", o.waits},
    };
    for (const auto& p : optional)
        if (!p.wanted || !has_function(p.function)) {
            bpf_program__set_autoload(p.enter, false);
            bpf_program__set_autoload(p.exit, false);
        }
    if (!has_function("iomap_dio_submit_bio") || !has_function("__iomap_dio_rw"))
        bpf_program__set_autoload(s->progs.iomap_dio_submit, false);
    if (const char* skip = std::getenv("IOTALLY_BPF_TEST_BAD_ATTACH"); skip && *skip) {
        // The test suite's way to make attaching fail: a target that does not exist
        bpf_program__set_autoload(s->progs.iomap_dio_enter, true);
        if (int err = bpf_program__set_attach_target(s->progs.iomap_dio_enter, 0, skip); err)
            throw fail(ErrorKind::unsupported, fmt::format("attach point {}", skip), -err);
    }
    if (const char* refuse = std::getenv("IOTALLY_BPF_TEST_VERIFIER_REFUSES"); refuse && *refuse)
        // The test suite's way to have the verifier refuse a program: one that writes
        bpf_program__set_autoload(s->progs.verifier_refuses, true);
    if (int err = snoop_bpf__load(s); err)
        throw fail(err == -ENOMEM || err == -E2BIG ? ErrorKind::failed : ErrorKind::unsupported,
                   "load", -err);
    if (int err = snoop_bpf__attach(s); err)
        throw fail(ErrorKind::unsupported, "attach", -err);
    auto cb = [](void* ctx, void* data, std::size_t size) -> int {
        auto* st = static_cast<State*>(ctx);
        if (!st->decoder.decode(data, size, [&](const IoEvent& e) {
                (*st->fn)(e);
                ++st->n;
            }))
            ++st->unknown;
        return 0;
    };
    st_->ring.reset(ring_buffer__new(bpf_map__fd(s->maps.events), cb, st_.get(), nullptr));
    if (!st_->ring)
        throw fail(ErrorKind::failed, "ring buffer", errno ? errno : EINVAL);
}

BpfIoReader::~BpfIoReader() = default;

std::size_t BpfIoReader::read(const std::function<void(const IoEvent&)>& fn) {
    st_->fn = &fn;
    st_->n = 0;
    ring_buffer__consume(st_->ring.get());
    st_->fn = nullptr;
    return st_->n;
}

std::uint64_t BpfIoReader::lost() const {
    // A trace point that fires while its program runs on the same CPU (an
    // interrupt's bio during a task's) is skipped by the kernel, which
    // counts it in the program's recursion_misses: lost starts or ends.
    std::uint64_t missed = 0;
    const snoop_bpf* s = st_->skel.get();
    for (const bpf_program* p : {s->progs.bio_queue, s->progs.bio_complete, s->progs.rq_complete}) {
        bpf_prog_info info{};
        std::uint32_t len = sizeof(info);
        if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0)
            missed += info.recursion_misses;
    }
    return st_->counter(IOT_CNT_INFLIGHT_FULL) + st_->counter(IOT_CNT_RINGBUF_FULL) + st_->unknown +
           missed;
}

std::uint64_t BpfIoReader::unmatched() const {
    return st_->counter(IOT_CNT_NO_START);
}

}  // namespace iotally

namespace iotally {

std::uint64_t BpfIoReader::map_bytes() const {
    return bpf_object_map_bytes(st_->skel->obj);
}

}  // namespace iotally
