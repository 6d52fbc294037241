// SPDX-License-Identifier: GPL-2.0-or-later
// Taskstats over generic netlink with libnl-genl-3.
#include "iotally/taskstats/taskstats.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <type_traits>

#include "iotally/util/error.hpp"

namespace iotally {

static_assert(TASKSTATS_TYPE_NULL + 1 == taskstats_type_io,
              "TASKSTATS_TYPE_IO follows TASKSTATS_TYPE_NULL");
static_assert(TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK + 1 == taskstats_cmd_attr_io,
              "TASKSTATS_CMD_ATTR_IO follows TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK");

namespace {

// Byte offsets of struct taskstats_io version 1 (include/uapi/linux/taskstats_io.h).
constexpr std::size_t io_header = 8;
constexpr std::size_t io_v1_size = io_header + 8 * (2 * TaskIo::nr_ops + 3 + TaskIo::nr_buckets);
// Version 2 adds the cgroup id.
constexpr std::size_t io_v2_size = io_v1_size + 8;

std::uint64_t load_u64(const unsigned char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

std::uint16_t load_u16(const unsigned char* p) {
    std::uint16_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// A field of struct taskstats, if the payload is long enough to hold it.
template <typename T>
void field(T& dst, const unsigned char* base, std::size_t len, std::size_t off) {
    using Src = std::conditional_t<sizeof(T) == 1, std::uint8_t, T>;
    if (off + sizeof(Src) <= len) {
        Src v;
        std::memcpy(&v, base + off, sizeof(v));
        dst = static_cast<T>(v);
    }
}

}  // namespace

std::uint64_t TaskIo::bucket_low_ns(std::size_t b) const {
    if (b == 0)
        return 0;
    return std::uint64_t{1} << (b + hist_shift - 1);
}

const char* op_name(TaskIo::Op op) {
    switch (op) {
        case TaskIo::read:
            return "read";
        case TaskIo::write:
            return "write";
        case TaskIo::discard:
            return "discard";
        case TaskIo::flush:
            return "flush";
        default:
            return "?";
    }
}

TaskstatsClassic parse_classic(const void* data, std::size_t len) {
    const auto* p = static_cast<const unsigned char*>(data);
    // Version 1 already ends after ac_stime; anything shorter is not taskstats.
    if (len < offsetof(struct taskstats, ac_minflt))
        throw Error(ErrorKind::parse,
                    fmt::format("taskstats payload of {} bytes is truncated", len));
    TaskstatsClassic s;
    field(s.version, p, len, offsetof(struct taskstats, version));
    field(s.exitcode, p, len, offsetof(struct taskstats, ac_exitcode));
    field(s.flag, p, len, offsetof(struct taskstats, ac_flag));
    field(s.cpu_count, p, len, offsetof(struct taskstats, cpu_count));
    field(s.cpu_delay_total_ns, p, len, offsetof(struct taskstats, cpu_delay_total));
    field(s.blkio_count, p, len, offsetof(struct taskstats, blkio_count));
    field(s.blkio_delay_total_ns, p, len, offsetof(struct taskstats, blkio_delay_total));
    field(s.swapin_count, p, len, offsetof(struct taskstats, swapin_count));
    field(s.swapin_delay_total_ns, p, len, offsetof(struct taskstats, swapin_delay_total));
    field(s.cpu_run_real_total_ns, p, len, offsetof(struct taskstats, cpu_run_real_total));
    const char* comm = reinterpret_cast<const char*>(p + offsetof(struct taskstats, ac_comm));
    s.comm.assign(comm, strnlen(comm, TS_COMM_LEN));
    field(s.uid, p, len, offsetof(struct taskstats, ac_uid));
    field(s.gid, p, len, offsetof(struct taskstats, ac_gid));
    field(s.pid, p, len, offsetof(struct taskstats, ac_pid));
    field(s.ppid, p, len, offsetof(struct taskstats, ac_ppid));
    field(s.etime_us, p, len, offsetof(struct taskstats, ac_etime));
    field(s.utime_us, p, len, offsetof(struct taskstats, ac_utime));
    field(s.stime_us, p, len, offsetof(struct taskstats, ac_stime));
    field(s.read_char, p, len, offsetof(struct taskstats, read_char));
    field(s.write_char, p, len, offsetof(struct taskstats, write_char));
    field(s.read_syscalls, p, len, offsetof(struct taskstats, read_syscalls));
    field(s.write_syscalls, p, len, offsetof(struct taskstats, write_syscalls));
    field(s.read_bytes, p, len, offsetof(struct taskstats, read_bytes));
    field(s.write_bytes, p, len, offsetof(struct taskstats, write_bytes));
    field(s.cancelled_write_bytes, p, len, offsetof(struct taskstats, cancelled_write_bytes));
    field(s.nvcsw, p, len, offsetof(struct taskstats, nvcsw));
    field(s.nivcsw, p, len, offsetof(struct taskstats, nivcsw));
    return s;
}

TaskIo parse_io(const void* data, std::size_t len) {
    const auto* p = static_cast<const unsigned char*>(data);
    if (len < io_header)
        throw Error(ErrorKind::parse,
                    fmt::format("taskstats_io payload of {} bytes is truncated", len));
    TaskIo io;
    io.version = load_u16(p);
    unsigned nr_ops = load_u16(p + 2);
    unsigned nr_buckets = load_u16(p + 4);
    io.hist_shift = load_u16(p + 6);
    if (io.version < 1)
        throw Error(ErrorKind::parse, "taskstats_io version 0");
    if (len < io_v1_size)
        throw Error(ErrorKind::parse,
                    fmt::format("taskstats_io v{} payload of {} bytes, v1 needs {}", io.version,
                                len, io_v1_size));
    if (nr_ops != TaskIo::nr_ops || nr_buckets != TaskIo::nr_buckets || io.hist_shift > 32)
        throw Error(ErrorKind::parse,
                    fmt::format("taskstats_io layout {} ops, {} buckets, shift {}", nr_ops,
                                nr_buckets, io.hist_shift));
    const unsigned char* q = p + io_header;
    for (auto& v : io.ops) {
        v = load_u64(q);
        q += 8;
    }
    for (auto& v : io.sectors) {
        v = load_u64(q);
        q += 8;
    }
    io.wait_count = load_u64(q);
    io.wait_total_ns = load_u64(q + 8);
    io.wait_max_ns = load_u64(q + 16);
    q += 24;
    for (auto& v : io.wait_hist) {
        v = load_u64(q);
        q += 8;
    }
    if (io.version >= 2 && len >= io_v2_size)
        io.cgroup_id = load_u64(q);
    return io;
}

namespace {

TaskRecord parse_aggr(const nlattr* nest, bool tgid) {
    TaskRecord rec;
    rec.tgid = tgid;
    bool have_id = false;
    const nlattr* a;
    int rem;
    nla_for_each_nested(a, nest, rem) {
        const void* data = nla_data(a);
        auto len = static_cast<std::size_t>(nla_len(a));
        switch (nla_type(a)) {
            case TASKSTATS_TYPE_PID:
            case TASKSTATS_TYPE_TGID:
                if (len < sizeof(std::uint32_t))
                    throw Error(ErrorKind::parse, "taskstats pid attribute is truncated");
                std::memcpy(&rec.id, data, sizeof(rec.id));
                have_id = true;
                break;
            case TASKSTATS_TYPE_STATS:
                rec.stats = parse_classic(data, len);
                break;
            case taskstats_type_io:
                rec.io = parse_io(data, len);
                break;
            default:  // TASKSTATS_TYPE_NULL padding, or newer attributes
                break;
        }
    }
    if (rem != 0)
        throw Error(ErrorKind::parse, "taskstats nest has a truncated attribute");
    if (!have_id)
        throw Error(ErrorKind::parse, "taskstats record without a pid or tgid");
    return rec;
}

}  // namespace

std::vector<TaskRecord> parse_taskstats_message(const nlmsghdr* nlh) {
    if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
        throw Error(ErrorKind::parse, "taskstats message is truncated");
    const auto* gh = static_cast<const genlmsghdr*>(nlmsg_data(nlh));
    if (gh->cmd != TASKSTATS_CMD_NEW)
        throw Error(ErrorKind::parse, fmt::format("unexpected taskstats command {}", gh->cmd));
    std::vector<TaskRecord> out;
    const nlattr* a;
    int rem;
    nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
        if (nla_type(a) == TASKSTATS_TYPE_AGGR_PID)
            out.push_back(parse_aggr(a, false));
        else if (nla_type(a) == TASKSTATS_TYPE_AGGR_TGID)
            out.push_back(parse_aggr(a, true));
    }
    if (rem != 0)
        throw Error(ErrorKind::parse, "taskstats message has a truncated attribute");
    return out;
}

// ------------------------------------------------------------------ client

struct TaskstatsClient::Impl {
    struct SockFree {
        void operator()(nl_sock* s) const noexcept { nl_socket_free(s); }
    };
    struct MsgFree {
        void operator()(nl_msg* m) const noexcept { nlmsg_free(m); }
    };
    std::unique_ptr<nl_sock, SockFree> sock;
    int family = 0;
    std::uint32_t seq = 1;
    std::vector<unsigned char> buf = std::vector<unsigned char>(1 << 16);
    std::vector<std::vector<unsigned char>> stash;  // exit messages seen while waiting for an ack

    void send(int attr, const void* data, std::size_t len, bool ack, int flag_attr = 0) {
        std::unique_ptr<nl_msg, MsgFree> msg(nlmsg_alloc());
        if (!msg)
            throw Error(ErrorKind::failed, "out of memory for a netlink message");
        if (!genlmsg_put(msg.get(), NL_AUTO_PORT, seq, family, 0, ack ? NLM_F_ACK : 0,
                         TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION) ||
            nla_put(msg.get(), attr, static_cast<int>(len), data) < 0 ||
            (flag_attr && nla_put_flag(msg.get(), flag_attr) < 0))
            throw Error(ErrorKind::failed, "netlink message too large");
        nl_complete_msg(sock.get(), msg.get());
        nlmsg_hdr(msg.get())->nlmsg_seq = seq;
        int rc = nl_send(sock.get(), msg.get());
        if (rc < 0)
            throw Error(ErrorKind::failed, fmt::format("taskstats: send: {}", nl_geterror(rc)));
    }

    // Receives one datagram; returns its length, or -errno.
    ssize_t recv_once(int flags) {
        ssize_t n = ::recv(nl_socket_get_fd(sock.get()), buf.data(), buf.size(), flags);
        return n < 0 ? -errno : n;
    }
};

namespace {

[[noreturn]] void throw_errno(const char* what, int err) {
    ErrorKind kind = kind_from_errno(err);
    if (err == ESRCH)
        kind = ErrorKind::no_device;
    throw Error(kind, fmt::format("taskstats: {}: {}", what, std::strerror(err)));
}

}  // namespace

TaskstatsClient::TaskstatsClient() : impl_(std::make_unique<Impl>()) {
    impl_->sock.reset(nl_socket_alloc());
    if (!impl_->sock)
        throw Error(ErrorKind::failed, "taskstats: cannot allocate a netlink socket");
    nl_socket_disable_seq_check(impl_->sock.get());
    int rc = genl_connect(impl_->sock.get());
    if (rc < 0)
        throw Error(ErrorKind::failed, fmt::format("taskstats: genl_connect: {}", nl_geterror(rc)));
    rc = genl_ctrl_resolve(impl_->sock.get(), TASKSTATS_GENL_NAME);
    if (rc < 0)
        throw Error(ErrorKind::unsupported,
                    "taskstats: the kernel has no TASKSTATS generic netlink family");
    impl_->family = rc;
}

TaskstatsClient::~TaskstatsClient() = default;

int TaskstatsClient::fd() const {
    return nl_socket_get_fd(impl_->sock.get());
}

std::optional<bool> task_io_stats_enabled(const std::string& proc) {
    std::ifstream in(proc + "/sys/kernel/task_io_stats");
    std::string value;
    if (!in || !std::getline(in, value))
        return std::nullopt;
    return value != "0";
}

std::vector<std::uint32_t> process_ids(const std::string& proc) {
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(proc.c_str()), ::closedir);
    if (!dir)
        throw Error(ErrorKind::failed, fmt::format("cannot list {}", proc));
    std::vector<std::uint32_t> ids;
    while (dirent* e = ::readdir(dir.get())) {
        char* end = nullptr;
        unsigned long id = std::strtoul(e->d_name, &end, 10);
        if (*end || id == 0 || id > UINT32_MAX)
            continue;
        ids.push_back(static_cast<std::uint32_t>(id));
    }
    return ids;
}

bool process_has_exited(std::uint32_t id, const std::string& proc) {
    std::ifstream in(fmt::format("{}/{}/stat", proc, id));
    std::string line;
    if (!std::getline(in, line))
        return true;
    // "pid (comm) S ...": comm may hold spaces and parentheses.
    auto paren = line.rfind(')');
    if (paren == std::string::npos || paren + 2 >= line.size())
        return false;  // unreadable: count it as running
    char state = line[paren + 2];
    return state == 'Z' || state == 'X';
}

std::vector<unsigned> parse_cpulist(const std::string& text) {
    std::vector<unsigned> cpus;
    auto bad = [&] { return Error(ErrorKind::usage, fmt::format("malformed cpulist '{}'", text)); };
    std::size_t i = 0;
    auto number = [&]() {
        if (i >= text.size() || text[i] < '0' || text[i] > '9')
            throw bad();
        unsigned long v = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            v = v * 10 + static_cast<unsigned>(text[i++] - '0');
            if (v > 65535)
                throw bad();
        }
        return static_cast<unsigned>(v);
    };
    while (i < text.size()) {
        unsigned lo = number(), hi = lo;
        if (i < text.size() && text[i] == '-') {
            ++i;
            hi = number();
        }
        if (hi < lo)
            throw bad();
        for (unsigned c = lo; c <= hi; c++)
            cpus.push_back(c);
        if (i < text.size()) {
            if (text[i] != ',')
                throw bad();
            ++i;
            if (i == text.size())
                throw bad();
        }
    }
    if (cpus.empty())
        throw bad();
    return cpus;
}

// One recv() with flags, its messages handed to on_message(nlh) until it
// returns true (stopped). A receive-buffer overflow is counted, never
// hidden; empty is MSG_DONTWAIT finding nothing; other errors throw.
template <typename OnMessage>
TaskstatsClient::Batch TaskstatsClient::recv_batch(int flags, OnMessage on_message) {
    Impl& im = *impl_;
    ssize_t n = im.recv_once(flags);
    if (n == -EINTR)
        return Batch::interrupted;
    if (n == -EAGAIN && (flags & MSG_DONTWAIT))
        return Batch::empty;
    if (n == -ENOBUFS) {
        ++overflows_;
        return Batch::overflow;
    }
    if (n < 0)
        throw_errno("recv", static_cast<int>(-n));
    auto* nlh = reinterpret_cast<nlmsghdr*>(im.buf.data());
    int len = static_cast<int>(n);
    for (; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len))
        if (on_message(nlh))
            return Batch::stopped;
    return Batch::read;
}

// Reads replies until on_message(nlh) returns true. Interrupted reads and
// overflows (counted) are retried.
template <typename OnMessage>
void TaskstatsClient::await_reply(OnMessage on_message) {
    while (recv_batch(0, on_message) != Batch::stopped) {
    }
}

TaskRecord TaskstatsClient::query(int attr, std::uint32_t id) {
    Impl& im = *impl_;
    ++im.seq;
    im.send(attr, &id, sizeof(id), false);
    TaskRecord record;
    await_reply([&](const nlmsghdr* nlh) {
        if (nlh->nlmsg_seq != im.seq)
            return false;
        if (nlh->nlmsg_type == NLMSG_ERROR) {
            const auto* e = static_cast<const nlmsgerr*>(nlmsg_data(nlh));
            if (e->error != 0)
                throw_errno(
                    fmt::format("{} {}", attr == TASKSTATS_CMD_ATTR_PID ? "pid" : "tgid", id)
                        .c_str(),
                    -e->error);
            return false;
        }
        auto recs = parse_taskstats_message(nlh);
        if (recs.size() != 1)
            throw Error(ErrorKind::parse,
                        fmt::format("taskstats reply carries {} records", recs.size()));
        record = std::move(recs.front());
        return true;
    });
    return record;
}

TaskRecord TaskstatsClient::query_pid(std::uint32_t pid) {
    return query(TASKSTATS_CMD_ATTR_PID, pid);
}

TaskRecord TaskstatsClient::query_tgid(std::uint32_t tgid) {
    return query(TASKSTATS_CMD_ATTR_TGID, tgid);
}

void TaskstatsClient::set_rcvbuf(int bytes) {
    if (bytes <= 0)
        throw Error(ErrorKind::usage,
                    fmt::format("receive buffer size {} must be positive", bytes));
    int fd = nl_socket_get_fd(impl_->sock.get());
    // SO_RCVBUFFORCE ignores rmem_max for root; fall back to SO_RCVBUF.
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0 &&
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) < 0)
        throw_errno("SO_RCVBUF", errno);
}

void TaskstatsClient::cpumask_cmd(int attr, const std::string& cpulist) {
    Impl& im = *impl_;
    ++im.seq;
    // Registered listeners ask for TASKSTATS_TYPE_IO in exit messages.
    im.send(attr, cpulist.c_str(), cpulist.size() + 1, true,
            attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK ? taskstats_cmd_attr_io : 0);
    await_reply([&](const nlmsghdr* nlh) {
        if (nlh->nlmsg_type == NLMSG_ERROR && nlh->nlmsg_seq == im.seq) {
            const auto* e = static_cast<const nlmsgerr*>(nlmsg_data(nlh));
            if (e->error != 0)
                throw_errno(fmt::format("cpumask '{}'", cpulist).c_str(), -e->error);
            return true;
        }
        // Exit records that arrive before the acknowledgement are kept.
        if (nlh->nlmsg_type == im.family) {
            const auto* b = reinterpret_cast<const unsigned char*>(nlh);
            im.stash.emplace_back(b, b + nlh->nlmsg_len);
        }
        return false;
    });
}

void TaskstatsClient::register_cpumask(const std::string& cpulist) {
    cpumask_cmd(TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpulist);
}

void TaskstatsClient::consume(const nlmsghdr* nlh, std::vector<TaskRecord>& out) {
    // Exit messages of one CPU are numbered in sequence: a gap is a loss.
    if (last_seq_)
        lost_ += static_cast<std::uint32_t>(nlh->nlmsg_seq - *last_seq_ - 1);
    last_seq_ = nlh->nlmsg_seq;
    auto recs = parse_taskstats_message(nlh);
    out.insert(out.end(), recs.begin(), recs.end());
}

bool TaskstatsClient::receive(std::vector<TaskRecord>& out, int timeout_ms) {
    Impl& im = *impl_;
    if (!im.stash.empty()) {
        for (auto& m : im.stash)
            consume(reinterpret_cast<const nlmsghdr*>(m.data()), out);
        im.stash.clear();
        return true;
    }
    pollfd pfd{nl_socket_get_fd(im.sock.get()), POLLIN, 0};
    int rc = ::poll(&pfd, 1, timeout_ms);
    if (rc < 0) {
        if (errno == EINTR)
            return false;
        throw_errno("poll", errno);
    }
    if (rc == 0)
        return false;
    // Drain what is queued; an overflow (counted) leaves more to read.
    for (;;) {
        Batch got = recv_batch(MSG_DONTWAIT, [&](const nlmsghdr* nlh) {
            if (nlh->nlmsg_type == im.family)
                consume(nlh, out);
            return false;
        });
        if (got == Batch::empty || got == Batch::interrupted)
            return true;
    }
}

std::string task_io_native_missing() {
    try {
        TaskstatsClient c;
        if (c.query_tgid(static_cast<std::uint32_t>(::getpid())).io)
            return {};
    } catch (const Error&) {
    }
    return "per-task I/O in taskstats (CONFIG_TASK_IO_STATS)";
}

}  // namespace iotally
