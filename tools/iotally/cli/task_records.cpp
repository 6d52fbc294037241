// SPDX-License-Identifier: GPL-2.0-or-later
#include "task_records.hpp"

#include <fmt/format.h>

#include "document.hpp"

namespace iotally::cli {
namespace {

nlohmann::json classic_json(const TaskstatsClassic& s) {
    return {{"version", s.version},
            {"comm", s.comm},
            {"pid", s.pid},
            {"ppid", s.ppid},
            {"uid", s.uid},
            {"gid", s.gid},
            {"exitcode", s.exitcode},
            {"flag", s.flag},
            {"etime_us", s.etime_us},
            {"utime_us", s.utime_us},
            {"stime_us", s.stime_us},
            {"cpu_count", s.cpu_count},
            {"cpu_delay_total_ns", s.cpu_delay_total_ns},
            {"blkio_count", s.blkio_count},
            {"blkio_delay_total_ns", s.blkio_delay_total_ns},
            {"swapin_count", s.swapin_count},
            {"swapin_delay_total_ns", s.swapin_delay_total_ns},
            {"read_char", s.read_char},
            {"write_char", s.write_char},
            {"read_syscalls", s.read_syscalls},
            {"write_syscalls", s.write_syscalls},
            {"read_bytes", s.read_bytes},
            {"write_bytes", s.write_bytes},
            {"cancelled_write_bytes", s.cancelled_write_bytes},
            {"nvcsw", s.nvcsw},
            {"nivcsw", s.nivcsw}};
}

nlohmann::json io_json(const TaskIo& io) {
    nlohmann::json ops = nlohmann::json::object();
    for (int op = 0; op < TaskIo::nr_ops; op++)
        ops[op_name(static_cast<TaskIo::Op>(op))] = {{"ops", io.ops[op]},
                                                     {"sectors", io.sectors[op]}};
    nlohmann::json hist = nlohmann::json::array();
    for (std::size_t b = 0; b < io.wait_hist.size(); b++)
        if (io.wait_hist[b])
            hist.push_back(
                {{"bucket", b}, {"low_ns", io.bucket_low_ns(b)}, {"count", io.wait_hist[b]}});
    nlohmann::json j = {{"version", io.version},
                        {"ops", ops},
                        {"wait",
                         {{"count", io.wait_count},
                          {"total_ns", io.wait_total_ns},
                          {"max_ns", io.wait_max_ns},
                          {"histogram", hist}}}};
    if (io.version >= 2)
        j["cgroup_id"] = io.cgroup_id;
    if (io.bpf)
        j["source"] = "bpf";
    return j;
}

}  // namespace

std::string task_wait_hist_text(const TaskIo& io) {
    std::string s;
    for (std::size_t b = 0; b < io.wait_hist.size(); b++)
        if (io.wait_hist[b])
            s += fmt::format("{}{}:{}", s.empty() ? "" : ",", b, io.wait_hist[b]);
    return s.empty() ? "-" : s;
}

std::string task_record_line(const TaskRecord& r) {
    // A tgid record of an exit message has no command name: keep the column.
    std::string comm = r.stats && !r.stats->comm.empty() ? r.stats->comm
                       : !r.comm.empty()                 ? r.comm
                                                         : "-";
    if (!r.io)
        return fmt::format("{} {} {} -", r.tgid ? "tgid" : "pid", r.id, comm);
    const auto& io = *r.io;
    return fmt::format(
        "{} {} {} read {} {} write {} {} discard {} {} flush {} wait {} {} {} hist {}",
        r.tgid ? "tgid" : "pid", r.id, comm, io.ops[TaskIo::read], io.sectors[TaskIo::read],
        io.ops[TaskIo::write], io.sectors[TaskIo::write], io.ops[TaskIo::discard],
        io.sectors[TaskIo::discard], io.ops[TaskIo::flush], io.wait_count, io.wait_total_ns,
        io.wait_max_ns, task_wait_hist_text(io));
}

nlohmann::json task_record_json(const TaskRecord& r) {
    nlohmann::json j = {{r.tgid ? "tgid" : "pid", r.id}};
    if (r.stats)
        j["taskstats"] = classic_json(*r.stats);
    else if (!r.comm.empty())
        j["name"] = r.comm;  // "comm" would sort before "command"
    if (r.io)
        j["io"] = io_json(*r.io);
    return j;
}

nlohmann::json task_record_document(const TaskRecord& r, std::int64_t unix_ns) {
    nlohmann::json doc = stamped("tasks", task_record_json(r));
    add_timestamp(doc, unix_ns);
    return doc;
}

void ExitRecordWriter::record(const TaskRecord& r) {
    ++records_;
    if (!r.tgid)
        ++pid_records_;
    if (!json_ && !file_) {
        out_ << task_record_line(r) << "\n";
        return;
    }
    const std::string doc = task_record_document(r, realtime_ns_()).dump();
    out_ << (json_ ? doc : task_record_line(r)) << "\n";
    if (file_)
        *file_ << doc << "\n";
}

void ExitRecordWriter::summary(const ListenSummary& s) {
    if (!json_) {
        out_ << fmt::format("summary records {} pid_records {} lost {} overflows {} exact {}\n",
                            records_, pid_records_, s.lost_messages, s.overflows,
                            s.lost_exact ? "yes" : "no");
        return;
    }
    nlohmann::json doc = stamped("tasks", {{"summary",
                                            {{"records", records_},
                                             {"pid_records", pid_records_},
                                             {"lost_messages", s.lost_messages},
                                             {"overflows", s.overflows},
                                             {"lost_exact", s.lost_exact}}}});
    add_timestamp(doc, realtime_ns_());
    out_ << doc.dump() << "\n";
}

void warn_if_task_io_stats_off(std::ostream& err, const std::string& proc) {
    if (task_io_stats_enabled(proc) == false)
        err << "iotally: warning: per-task I/O accounting is off (kernel.task_io_stats = 0): "
               "I/O counters stay at zero until 'sysctl -w kernel.task_io_stats=1'\n";
}

}  // namespace iotally::cli
