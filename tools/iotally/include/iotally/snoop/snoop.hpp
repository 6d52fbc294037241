// SPDX-License-Identifier: GPL-2.0-or-later
// The io trace events (io:io_start, io:io_done, io:io_wait_start, io:io_wait_done) as
// data: what one event says, how a done is matched to its start, the
// filters of `iotally snoop` and its summaries (bytes by device, app and
// pid; latency per file; wait time per task).  Reading them from tracefs
// is TraceReader (iotally/snoop/tracefs_reader.hpp); nothing here touches the
// system, so all of it is tested with made-up events.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace iotally {

// bufinfo_t b_flags, as the kernel reports them (DTrace's values)
inline constexpr std::uint32_t io_b_pageio = 0x010;
inline constexpr std::uint32_t io_b_phys = 0x020;
inline constexpr std::uint32_t io_b_read = 0x040;
inline constexpr std::uint32_t io_b_write = 0x100;
inline constexpr std::uint32_t io_b_async = 0x400;

struct IoEvent {
    enum class Kind { start, done, wait_start, wait_done };
    Kind kind = Kind::start;
    std::uint64_t ts_ns = 0;  // trace clock
    int cpu = 0;
    int pid = 0;
    std::string comm;
    // bufinfo_t
    std::uint32_t dev = 0;  // kernel dev_t: major << 20 | minor
    std::uint64_t sector = 0;
    std::uint64_t lsector = 0;
    std::uint32_t bytes = 0;
    std::uint32_t flags = 0;
    std::uint32_t opf = 0;
    std::string rwbs;
    int error = 0;
    std::uint32_t resid = 0;
    // devinfo_t
    std::string disk;
    std::string driver;
    // fileinfo_t
    std::uint32_t fsdev = 0;
    std::uint64_t ino = 0;
    std::int64_t offset = -1;
    std::string fstype;
    std::int32_t oflags = -1;
    // The full path ("<none>", "<unknown>"; empty at done). Kernels before
    // the fspath field gave the path in its file system here.
    std::string path;
    std::string fspath;  // in its file system; empty from kernels without it

    bool is_read() const { return flags & io_b_read; }
};

inline unsigned dev_major(std::uint32_t dev) {
    return dev >> 20;
}
inline unsigned dev_minor(std::uint32_t dev) {
    return dev & 0xfffff;
}

// Where snoop's events come from: the io trace events in tracefs
// (TraceReader, iotally/snoop/tracefs_reader.hpp) or iotally's BPF programs
// (BpfIoReader, iotally/snoop/bpf_io_reader.hpp). Both give the same events.
class IoEventSource {
  public:
    virtual ~IoEventSource() = default;
    // Calls @fn for every event buffered now; returns how many.
    virtual std::size_t read(const std::function<void(const IoEvent&)>& fn) = 0;
    // Events the source could not record (a full buffer or table).
    virtual std::uint64_t lost() const = 0;
    // Completions the source saw without their start (matched before they
    // reach IoMatcher, as BPF does): added to IoMatcher's unmatched.
    virtual std::uint64_t unmatched() const { return 0; }
};

// Mount points by file-system device, from /proc/self/mountinfo, to turn a
// path in its file system into the path users know.
class MountTable {
  public:
    static MountTable parse(std::string_view mountinfo);
    static MountTable load(const std::string& path = "/proc/self/mountinfo");
    // "/dir/f" on the fs mounted at /mnt → "/mnt/dir/f"; names in <> as they are.
    std::string absolute(std::uint32_t fsdev, const std::string& path) const;
    // The name users know of an event's file: its full path when the kernel
    // knew it, else its path in its file system under its mount point.
    std::string name_of(const IoEvent& e) const;

  private:
    std::map<std::uint32_t, std::string> mounts_;  // first mount of each device
};

// One completed I/O: its done event with what its start said.
struct IoRecord {
    IoEvent start;
    IoEvent done;
    std::uint64_t latency_ns() const {
        return done.ts_ns > start.ts_ns ? done.ts_ns - start.ts_ns : 0;
    }
};

// One completed wait of a task.
struct WaitRecord {
    IoEvent start;
    IoEvent done;
    std::uint64_t wait_ns() const {
        return done.ts_ns > start.ts_ns ? done.ts_ns - start.ts_ns : 0;
    }
};

// Matches each io:io_done to its io:io_start by device, sector and size, and each
// io:io_wait_done to the io:io_wait_start of the same task.  Events come per CPU,
// so a done may be read before its start: it waits for it, until expire()
// counts it as unmatched (its start came before tracing did).
class IoMatcher {
  public:
    // Returns the I/O or wait an event completes, if any.
    std::optional<IoRecord> add_io(const IoEvent& e);
    std::optional<WaitRecord> add_wait(const IoEvent& e);
    // Drops the dones still without a start that are older than @age_ns.
    void expire(std::uint64_t now_ns, std::uint64_t age_ns);
    std::size_t in_flight() const { return starts_.size(); }
    std::uint64_t unmatched() const { return unmatched_; }

  private:
    using Key = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>;
    std::map<Key, std::vector<IoEvent>> starts_;
    std::map<Key, IoEvent> early_dones_;
    std::unordered_map<int, IoEvent> waits_;
    std::unordered_map<int, IoEvent> early_waits_;
    std::uint64_t unmatched_ = 0;
};

// snoop's filters; an empty one lets everything through.
struct IoFilter {
    std::string device;       // disk name ("dm-0") or "major:minor"
    std::string file_prefix;  // of the absolute path
    int pid = 0;
    double min_latency_ms = 0;
    bool match(const IoRecord& r, const std::string& abs_path) const;
    bool match_wait(const WaitRecord& w, const std::string& abs_path) const;
};

// The line of one I/O: TIME(s) COMM PID DEVICE RW BYTES LAT(ms) FILE
std::string snoop_header();
std::string snoop_line(const IoRecord& r, const std::string& abs_path, std::uint64_t t0_ns);

// Summaries, like the aggregations of the spec's example scripts.
class BytesSummary {  // @[dev_statname, execname, pid] = sum(b_bcount)
  public:
    void add(const IoRecord& r);
    std::string render() const;
    struct Row {
        std::string device, comm;
        int pid;
        std::uint64_t bytes;
    };
    std::vector<Row> rows() const;  // most bytes first

  private:
    std::map<std::tuple<std::string, std::string, int>, std::uint64_t> bytes_;
};

// A power-of-two histogram, as DTrace's quantize() prints it.
class Log2Histogram {
  public:
    void add(std::uint64_t v);
    std::uint64_t count() const { return count_; }
    const std::map<int, std::uint64_t>& buckets() const { return buckets_; }  // -1 holds 0
    std::string render() const;
    static std::uint64_t bucket_low(int b) { return b < 0 ? 0 : std::uint64_t{1} << b; }

  private:
    std::map<int, std::uint64_t> buckets_;
    std::uint64_t count_ = 0;
};

class LatencySummary {  // latency in microseconds, per file
  public:
    void add(const IoRecord& r, const std::string& abs_path);
    std::string render() const;
    const std::map<std::string, Log2Histogram>& files() const { return files_; }

  private:
    std::map<std::string, Log2Histogram> files_;
};

class WaitSummary {  // wait time per task
  public:
    void add(const WaitRecord& w);
    struct Row {
        int pid;
        std::string comm;
        std::uint64_t waits, total_ns, max_ns;
    };
    std::vector<Row> rows() const;  // longest total first
    std::string render() const;

  private:
    std::map<int, Row> tasks_;
};

}  // namespace iotally
