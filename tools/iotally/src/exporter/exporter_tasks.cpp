// SPDX-License-Identifier: GPL-2.0-or-later
// The per-task I/O family of `iotally serve --tasks N`.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/taskstats/taskstats.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

struct TaskSample {
    std::string comm;
    TaskIo io;
};

std::string process_comm(unsigned long pid) {
    std::ifstream f(fmt::format("/proc/{}/comm", pid));
    std::string comm;
    std::getline(f, comm);
    return comm;
}

class TaskCollector final : public Collector {
  public:
    TaskCollector(std::size_t top, TaskRank rank) : top_(top), rank_(rank) {
        if (top == 0 || top > max_top_tasks)
            throw Error(ErrorKind::usage,
                        fmt::format("--tasks {}: expected 1 to {}", top, max_top_tasks));
    }

    // TASKSTATS_CMD_GET is GENL_ADMIN_PERM: without CAP_NET_ADMIN the query
    // fails with a permission error, and collect() asks again next time.
    void check() override {
        auto client = std::make_unique<TaskstatsClient>();
        auto rec = client->query_tgid(static_cast<std::uint32_t>(::getpid()));
        if (!rec.io)
            throw Error(ErrorKind::unsupported,
                        "--tasks: this kernel's taskstats carry no per-task I/O "
                        "(TASKSTATS_TYPE_IO, Documentation/accounting/taskstats-io.rst)");
        client_ = std::move(client);
    }

    std::string source() const override { return "tasks"; }

    std::uint64_t collect(ExpositionWriter& w) override {
        if (!client_)
            check();
        std::uint64_t errors = 0;
        std::map<std::uint32_t, TaskSample> now;
        std::vector<std::uint32_t> ids;
        try {
            ids = process_ids();
        } catch (const Error& err) {
            throw Error(err.kind(), fmt::format("--tasks: {}", err.what()));
        }
        for (std::uint32_t id : ids) {
            try {
                auto rec = client_->query_tgid(id);
                // A per-tgid reply carries no comm: the process's is in /proc.
                if (rec.io)
                    now[id] = {process_comm(id), *rec.io};
            } catch (const Error& err) {
                if (err.kind() != ErrorKind::no_device)  // not gone meanwhile
                    ++errors;
            }
        }
        // Rank by what happened since the previous scrape.
        struct Ranked {
            std::uint32_t tgid;
            std::uint64_t key;
        };
        std::vector<Ranked> ranked;
        for (const auto& [tgid, s] : now) {
            TaskIo base{};
            if (auto it = last_.find(tgid); it != last_.end())
                base = it->second.io;
            std::uint64_t key = rank_ == TaskRank::wait
                                    ? s.io.wait_total_ns - base.wait_total_ns
                                    : (s.io.sectors[TaskIo::read] - base.sectors[TaskIo::read] +
                                       s.io.sectors[TaskIo::write] - base.sectors[TaskIo::write]);
            if (key)
                ranked.push_back({tgid, key});
        }
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const Ranked& a, const Ranked& b) { return a.key > b.key; });
        if (ranked.size() > top_)
            ranked.resize(top_);
        std::sort(ranked.begin(), ranked.end(),
                  [](const Ranked& a, const Ranked& b) { return a.tgid < b.tgid; });
        std::vector<std::pair<Labels, const TaskIo*>> rows;
        for (const auto& r : ranked) {
            Labels l;
            l.add("pid", std::uint64_t{r.tgid}).add("comm", now[r.tgid].comm);
            rows.emplace_back(std::move(l), &now[r.tgid].io);
        }
        w.family("iotally_task_read_bytes", MetricType::counter, "bytes",
                 "Bytes read by the process (taskstats), for the top processes of the scrape "
                 "interval.");
        for (const auto& [l, io] : rows)
            w.sample(l, io->sectors[TaskIo::read] * 512);
        w.family("iotally_task_written_bytes", MetricType::counter, "bytes",
                 "Bytes written by the process (taskstats).");
        for (const auto& [l, io] : rows)
            w.sample(l, io->sectors[TaskIo::write] * 512);
        w.family("iotally_task_io_wait_seconds", MetricType::counter, "seconds",
                 "Time the process waited for block I/O (taskstats).");
        for (const auto& [l, io] : rows)
            w.sample(l, static_cast<double>(io->wait_total_ns) / 1e9);
        w.family("iotally_task_io_waits", MetricType::counter, "",
                 "Waits of the process for block I/O (taskstats).");
        for (const auto& [l, io] : rows)
            w.sample(l, io->wait_count);
        write_wait_histograms(w, rows);
        last_ = std::move(now);
        return errors;
    }

  private:
    // The kernel's log2 buckets of the waits, in ns: classic in the text
    // formats, native (schema 0) in the protobuf format.
    static void write_wait_histograms(ExpositionWriter& w,
                                      const std::vector<std::pair<Labels, const TaskIo*>>& rows) {
        w.family("iotally_task_io_wait_nanoseconds", MetricType::histogram, "nanoseconds",
                 "Waits of the process for block I/O by duration (taskstats log2 buckets).");
        for (const auto& [l, io] : rows) {
            const std::vector<std::uint64_t> counts(io->wait_hist.begin(), io->wait_hist.end());
            const NativeLayout native = task_wait_native_layout(io->hist_shift, counts.size());
            w.histogram(l, task_wait_classic_bounds_ns(io->hist_shift, counts.size()), counts,
                        static_cast<double>(io->wait_total_ns), &native);
        }
    }

    std::size_t top_;
    TaskRank rank_;
    std::unique_ptr<TaskstatsClient> client_;
    std::map<std::uint32_t, TaskSample> last_;
};

}  // namespace

std::unique_ptr<Collector> make_task_collector(std::size_t top, TaskRank rank) {
    return std::make_unique<TaskCollector>(top, rank);
}

}  // namespace iotally
