// SPDX-License-Identifier: GPL-2.0-or-later
// The records of `iotally tasks` as JSON, and the output of its exit
// listener (-m): one line per record on standard output, text or a JSON
// document, a JSON document per record in the -w file, then a summary.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "iotally/taskstats/taskstats.hpp"

namespace iotally::cli {

// A record's fields: {"pid"|"tgid": N, "taskstats": {...}, "io": {...}}.
nlohmann::json task_record_json(const TaskRecord& r);

// The record as a document of its own: schema, command and timestamp added.
nlohmann::json task_record_document(const TaskRecord& r, std::int64_t unix_ns);

// Warns on `err`, in one line, when the kernel's per-task I/O accounting is
// switched off (kernel.task_io_stats under `proc` reads 0): every block I/O
// counter then stays where it was.
void warn_if_task_io_stats_off(std::ostream& err, const std::string& proc);

// A wait histogram's non-empty buckets as "13:15,14:1" ("-" when empty).
std::string task_wait_hist_text(const TaskIo& io);

// The text line of an exit record: stable columns for scripts.
std::string task_record_line(const TaskRecord& r);

struct ListenSummary {
    std::uint64_t lost_messages = 0;
    std::uint64_t overflows = 0;
    bool lost_exact = true;
};

class ExitRecordWriter {
  public:
    // `file`: the -w file (JSON lines whatever the format), or null.
    ExitRecordWriter(std::ostream& out, std::ostream* file, bool json,
                     std::function<std::int64_t()> realtime_ns)
        : out_(out), file_(file), json_(json), realtime_ns_(std::move(realtime_ns)) {}

    void record(const TaskRecord& r);
    void summary(const ListenSummary& s);
    long records() const { return records_; }
    long pid_records() const { return pid_records_; }

  private:
    std::ostream& out_;
    std::ostream* file_;
    bool json_;
    std::function<std::int64_t()> realtime_ns_;
    long records_ = 0, pid_records_ = 0;
};

}  // namespace iotally::cli
