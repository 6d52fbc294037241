// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/taskstats/bpf_task_io.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <linux/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bpf_log.hpp"
#include "bpf_memory.hpp"
#include "iotally/taskstats/cgroup_io.hpp"
#include "iotally/util/error.hpp"
#include "task_io.skel.h"
#include "task_io_record.h"

namespace iotally {

static_assert(TIO_NR_OPS == TaskIo::nr_ops && TIO_HIST_BUCKETS == TaskIo::nr_buckets);

TaskIo task_io_from_bpf(const tio_counters& c, std::uint64_t cgroup_id) {
    TaskIo io;
    io.version = 2;
    io.bpf = true;
    io.hist_shift = TIO_HIST_SHIFT;
    for (std::size_t i = 0; i < TaskIo::nr_ops; i++) {
        io.ops[i] = c.ops[i];
        io.sectors[i] = c.sectors[i];
    }
    io.wait_count = c.wait_count;
    io.wait_total_ns = c.wait_total_ns;
    io.wait_max_ns = c.wait_max_ns;
    for (std::size_t i = 0; i < TaskIo::nr_buckets; i++)
        io.wait_hist[i] = c.wait_hist[i];
    io.cgroup_id = cgroup_id;
    return io;
}

std::string bpf_drops_text(const BpfTaskIoDrops& d) {
    if (!d.total())
        return {};
    return fmt::format(
        "bpf maps full: {} bios/waits of threads without an entry, {} exited threads, {} "
        "bios/waits without a cgroup entry, {} exit records lost",
        d.thread_map_full, d.process_map_full, d.cgroup_map_full, d.ringbuf_full);
}

namespace {

struct SkelDelete {
    void operator()(task_io_bpf* s) const { task_io_bpf__destroy(s); }
};
struct RingDelete {
    void operator()(ring_buffer* r) const { ring_buffer__free(r); }
};

std::string comm_of(const char* c) {
    return std::string(c, strnlen(c, TIO_COMM_LEN));
}

// Every (key, value) of a hash map, one lookup per key.
template <typename Key, typename Value, typename F>
void each_entry(int fd, F f) {
    Key key{}, next{};
    Value v{};
    const Key* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, &next) == 0) {
        if (bpf_map_lookup_elem(fd, &next, &v) == 0)
            f(next, v);
        key = next;
        prev = &key;
    }
}

}  // namespace

struct BpfTaskIo::Impl {
    std::unique_ptr<task_io_bpf, SkelDelete> skel;
    std::unique_ptr<ring_buffer, RingDelete> ring;
    std::vector<BpfExit>* sink = nullptr;

    static int on_exit(void* ctx, void* data, std::size_t size) {
        auto* self = static_cast<Impl*>(ctx);
        if (size < sizeof(tio_exit) || !self->sink)
            return 0;
        tio_exit r;
        std::memcpy(&r, data, sizeof(r));
        BpfExit e;
        e.process = r.kind == TIO_EXIT_PROCESS;
        e.tid = r.tid;
        e.tgid = r.tgid;
        e.cpu = r.cpu;
        e.threads = r.threads;
        e.comm = comm_of(r.comm);
        e.io = task_io_from_bpf(r.c, r.cgroup_id);
        self->sink->push_back(std::move(e));
        return 0;
    }
};

BpfTaskIo::BpfTaskIo(BpfTaskIoOptions options) : impl_(std::make_unique<Impl>()) {
    BpfLogCapture capture;
    auto fail = [&](const char* step, int err) {
        if (options.log)
            *options.log << capture.text();
        throw Error(ErrorKind::unsupported,
                    fmt::format("{}: bpf: cannot {} the task_io program: {}{}", options.what, step,
                                std::strerror(err > 0 ? err : -err),
                                options.log ? "" : " (-v shows libbpf's log)"));
    };
    impl_->skel.reset(task_io_bpf__open());
    if (!impl_->skel)
        fail("open", errno);
    auto* s = impl_->skel.get();
    s->rodata->exit_records = options.exit_records;
    std::uint32_t max_threads = options.max_threads;
    if (!max_threads)
        if (const char* env = std::getenv("IOTALLY_BPF_MAX_THREADS"))
            max_threads = static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10));
    if (max_threads)
        bpf_map__set_max_entries(s->maps.threads, max_threads);
    if (int err = task_io_bpf__load(s))
        fail("load", err);
    if (int err = task_io_bpf__attach(s))
        fail("attach", err);
    if (options.exit_records) {
        impl_->ring.reset(
            ring_buffer__new(bpf_map__fd(s->maps.exits), Impl::on_exit, impl_.get(), nullptr));
        if (!impl_->ring)
            fail("read the exit records of", errno);
    }
}

BpfTaskIo::~BpfTaskIo() = default;

TaskIo BpfTaskIo::thread(std::uint32_t tid) const {
    tio_task t{};
    if (bpf_map_lookup_elem(bpf_map__fd(impl_->skel->maps.threads), &tid, &t) == 0)
        return task_io_from_bpf(t.c, t.cgroup_id);
    return task_io_from_bpf(tio_counters{}, 0);
}

std::map<std::uint32_t, BpfTask> BpfTaskIo::processes() const {
    std::map<std::uint32_t, BpfTask> out;
    auto add = [&](const tio_task& t, bool live) {
        auto [it, fresh] = out.try_emplace(t.tgid);
        BpfTask& p = it->second;
        TaskIo io = task_io_from_bpf(t.c, t.cgroup_id);
        if (fresh) {
            p.tgid = t.tgid;
            p.io = io;
        } else {
            add_task_io(p.io, io);
        }
        if (p.comm.empty())
            p.comm = comm_of(t.comm);
        if (live && io.cgroup_id)
            p.io.cgroup_id = io.cgroup_id;
    };
    each_entry<__u32, tio_task>(bpf_map__fd(impl_->skel->maps.procs),
                                [&](__u32, const tio_task& t) { add(t, false); });
    each_entry<__u32, tio_task>(bpf_map__fd(impl_->skel->maps.threads),
                                [&](__u32, const tio_task& t) { add(t, true); });
    return out;
}

TaskIo BpfTaskIo::process(std::uint32_t tgid) const {
    auto all = processes();
    if (auto it = all.find(tgid); it != all.end())
        return it->second.io;
    return task_io_from_bpf(tio_counters{}, 0);
}

std::map<std::uint64_t, TaskIo> BpfTaskIo::cgroups() const {
    std::map<std::uint64_t, TaskIo> out;
    each_entry<__u64, tio_counters>(
        bpf_map__fd(impl_->skel->maps.cgroups),
        [&](__u64 id, const tio_counters& c) { out[id] = task_io_from_bpf(c, id); });
    return out;
}

bool BpfTaskIo::poll_exits(std::vector<BpfExit>& out, int timeout_ms) {
    if (!impl_->ring)
        throw Error(ErrorKind::failed, "bpf task_io: loaded without exit records");
    impl_->sink = &out;
    int n = ring_buffer__poll(impl_->ring.get(), timeout_ms);
    impl_->sink = nullptr;
    if (n < 0 && n != -EINTR)
        throw Error(ErrorKind::failed,
                    fmt::format("bpf task_io: reading exit records: {}", std::strerror(-n)));
    return n > 0;
}

std::uint64_t BpfTaskIo::map_bytes() const {
    return bpf_object_map_bytes(impl_->skel->obj);
}

int BpfTaskIo::exits_fd() const {
    return impl_->ring ? ring_buffer__epoll_fd(impl_->ring.get()) : -1;
}

BpfTaskIoDrops BpfTaskIo::drops() const {
    int fd = bpf_map__fd(impl_->skel->maps.drops);
    long ncpus = libbpf_num_possible_cpus();
    std::uint64_t sum[TIO_NR_DROPS]{};
    std::vector<__u64> per_cpu(static_cast<std::size_t>(ncpus > 0 ? ncpus : 1));
    for (__u32 k = 0; k < TIO_NR_DROPS; k++) {
        if (bpf_map_lookup_elem(fd, &k, per_cpu.data()) != 0)
            continue;
        for (auto v : per_cpu)
            sum[k] += v;
    }
    BpfTaskIoDrops d;
    d.thread_map_full = sum[TIO_DROP_TASK_FULL];
    d.process_map_full = sum[TIO_DROP_PROC_FULL];
    d.cgroup_map_full = sum[TIO_DROP_CGROUP_FULL];
    d.ringbuf_full = sum[TIO_DROP_RINGBUF];
    d.late_exits = sum[TIO_LATE_EXIT];
    d.exits = sum[TIO_EXITS];
    return d;
}

}  // namespace iotally
