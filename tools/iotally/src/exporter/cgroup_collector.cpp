// SPDX-License-Identifier: GPL-2.0-or-later
// The iotally_cgroup_* families of `iotally serve --cgroups`.
#include "iotally/exporter/cgroup_collector.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "iotally/util/error.hpp"

namespace iotally {
namespace {

double seconds(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

// The kernel's name of a block device ("dm-0", "vda"), as the device label
// of iotally_device_* and node_exporter have it.
std::string block_name(unsigned major, unsigned minor) {
    std::error_code ec;
    auto target =
        std::filesystem::read_symlink(fmt::format("/sys/dev/block/{}:{}", major, minor), ec);
    if (ec)
        return fmt::format("{}:{}", major, minor);
    return target.filename().string();
}

// The kernel's own per-device counters of each series' cgroup.
std::vector<CgroupDeviceStat> read_io_stat(const std::string& root,
                                           const std::map<std::string, TaskIo>& series) {
    std::vector<CgroupDeviceStat> out;
    for (const auto& [path, io] : series) {
        if (path.empty() || path.front() != '/')
            continue;  // the overflow and unknown series have no directory
        std::ifstream in(root + path + "/io.stat");
        if (!in)
            continue;  // no io controller there, or the cgroup is gone
        std::ostringstream text;
        text << in.rdbuf();
        for (const auto& s : parse_io_stat(text.str()))
            out.push_back({path, block_name(s.major, s.minor), s});
    }
    return out;
}

class CgroupCollector final : public Collector {
  public:
    explicit CgroupCollector(CgroupOptions options) : sampler_(std::move(options)) {}

    void check() override { sampler_.start(); }
    std::string source() const override { return "cgroups"; }

    std::uint64_t collect(ExpositionWriter& w) override {
        auto series = sampler_.sample();
        CgroupListenerCounts c{sampler_.exits(),       sampler_.lost_messages(),
                               sampler_.overflows(),   sampler_.unaccounted_exits(),
                               sampler_.options().bpf, sampler_.dropped()};
        write_cgroup_families(w, series, c, read_io_stat(sampler_.options().root, series));
        return 0;
    }

  private:
    CgroupSampler sampler_;
};

}  // namespace

std::unique_ptr<Collector> make_cgroup_collector(CgroupOptions options) {
    return std::make_unique<CgroupCollector>(std::move(options));
}

void write_cgroup_families(ExpositionWriter& w, const std::map<std::string, TaskIo>& series,
                           const CgroupListenerCounts& counts,
                           const std::vector<CgroupDeviceStat>& devices) {
    std::vector<std::pair<Labels, const TaskIo*>> rows;
    for (const auto& [path, io] : series) {
        Labels l;
        l.add("cgroup", path);
        rows.emplace_back(std::move(l), &io);
    }
    struct Family {
        const char* name;
        const char* unit;
        const char* help;
        std::uint64_t (*value)(const TaskIo&);
    };
    static constexpr Family families[] = {
        {"iotally_cgroup_read_bytes", "bytes",
         "Bytes read by the cgroup's processes, running and exited (taskstats).",
         [](const TaskIo& io) { return io.sectors[TaskIo::read] * 512; }},
        {"iotally_cgroup_written_bytes", "bytes",
         "Bytes written by the cgroup's processes, running and exited (taskstats).",
         [](const TaskIo& io) { return io.sectors[TaskIo::write] * 512; }},
        {"iotally_cgroup_reads", "", "Read bios submitted by the cgroup's processes.",
         [](const TaskIo& io) { return io.ops[TaskIo::read]; }},
        {"iotally_cgroup_writes", "", "Write bios submitted by the cgroup's processes.",
         [](const TaskIo& io) { return io.ops[TaskIo::write]; }},
    };
    for (const auto& f : families) {
        w.family(f.name, MetricType::counter, f.unit, f.help);
        for (const auto& [l, io] : rows)
            w.sample(l, f.value(*io));
    }
    w.family("iotally_cgroup_io_wait_seconds", MetricType::histogram, "seconds",
             "Sleeps of the cgroup's processes waiting for block I/O (taskstats, log2 buckets).");
    for (const auto& [l, io] : rows) {
        std::vector<double> bounds;
        std::vector<std::uint64_t> hist(io->wait_hist.begin(), io->wait_hist.end());
        for (std::size_t b = 0; b + 1 < TaskIo::nr_buckets; b++)
            bounds.push_back(seconds(io->bucket_low_ns(b + 1)));
        w.histogram(l, bounds, hist, seconds(io->wait_total_ns));
    }
    const Labels none;
    w.family("iotally_cgroup_exits", MetricType::counter, "",
             "Processes whose exit record was charged to their cgroup.");
    w.sample(none, counts.exits);
    w.family("iotally_cgroup_exit_messages_lost", MetricType::counter, "",
             "Exit messages the kernel could not queue to the listener (sequence gaps).");
    w.sample(none, counts.lost_messages);
    w.family("iotally_cgroup_exit_overflows", MetricType::counter, "",
             "Receive buffer overflows (ENOBUFS) of the exit listener.");
    w.sample(none, counts.overflows);
    w.family("iotally_cgroup_exits_unaccounted", MetricType::counter, "",
             "Processes gone without an exit record, charged what they had when last seen.");
    w.sample(none, counts.unaccounted_exits);
    if (counts.bpf) {
        w.family("iotally_cgroup_bpf_dropped", MetricType::counter, "",
                 "Bios and waits not counted, and exit records lost, because a map or the "
                 "ring buffer of the BPF backend was full.");
        w.sample(none, counts.bpf_dropped);
    }

    struct DeviceFamily {
        const char* name;
        const char* unit;
        const char* help;
        std::uint64_t CgroupIoStat::*field;
    };
    static constexpr DeviceFamily device_families[] = {
        {"iotally_cgroup_device_read_bytes", "bytes", "Bytes read (the cgroup's io.stat rbytes).",
         &CgroupIoStat::rbytes},
        {"iotally_cgroup_device_written_bytes", "bytes",
         "Bytes written (the cgroup's io.stat wbytes).", &CgroupIoStat::wbytes},
        {"iotally_cgroup_device_discarded_bytes", "bytes",
         "Bytes discarded (the cgroup's io.stat dbytes).", &CgroupIoStat::dbytes},
        {"iotally_cgroup_device_reads", "", "Reads (the cgroup's io.stat rios).",
         &CgroupIoStat::rios},
        {"iotally_cgroup_device_writes", "", "Writes (the cgroup's io.stat wios).",
         &CgroupIoStat::wios},
    };
    for (const auto& f : device_families) {
        w.family(f.name, MetricType::counter, f.unit, f.help);
        for (const auto& d : devices) {
            Labels l;
            l.add("cgroup", d.cgroup).add("device", d.device);
            w.sample(l, d.stat.*(f.field));
        }
    }
}

}  // namespace iotally
