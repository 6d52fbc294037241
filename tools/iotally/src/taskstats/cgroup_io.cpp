// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/taskstats/cgroup_io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <sstream>

namespace iotally {

void add_task_io(TaskIo& a, const TaskIo& b) {
    for (std::size_t i = 0; i < TaskIo::nr_ops; i++) {
        a.ops[i] += b.ops[i];
        a.sectors[i] += b.sectors[i];
    }
    a.wait_count += b.wait_count;
    a.wait_total_ns += b.wait_total_ns;
    a.wait_max_ns = std::max(a.wait_max_ns, b.wait_max_ns);
    for (std::size_t i = 0; i < TaskIo::nr_buckets; i++)
        a.wait_hist[i] += b.wait_hist[i];
}

void subtract_task_io(TaskIo& a, const TaskIo& b) {
    auto sub = [](std::uint64_t& x, std::uint64_t y) { x = x > y ? x - y : 0; };
    for (std::size_t i = 0; i < TaskIo::nr_ops; i++) {
        sub(a.ops[i], b.ops[i]);
        sub(a.sectors[i], b.sectors[i]);
    }
    sub(a.wait_count, b.wait_count);
    sub(a.wait_total_ns, b.wait_total_ns);
    for (std::size_t i = 0; i < TaskIo::nr_buckets; i++)
        sub(a.wait_hist[i], b.wait_hist[i]);
}

namespace {
constexpr std::uint8_t acct_group = 0x20;  // AGROUP: the last task of its process
}

// What `io` holds beyond what its process had at its last move.
TaskIo CgroupTally::since_move(std::uint32_t tgid, const TaskIo& io) const {
    TaskIo rest = io;
    if (auto it = moved_.find(tgid); it != moved_.end())
        subtract_task_io(rest, it->second);
    return rest;
}

// The process is gone: the rest of its counters go to its cgroup for good.
void CgroupTally::charge_for_good(std::uint32_t tgid, const TaskIo& io) {
    add_task_io(gone_[io.cgroup_id], since_move(tgid, io));
    moved_.erase(tgid);
}

// Seen in another cgroup: what it had done when last seen stays with the
// cgroup it was in then.
void CgroupTally::charge_move(std::uint32_t tgid, const TaskIo& before, const TaskIo& now) {
    if (before.cgroup_id == now.cgroup_id)
        return;
    add_task_io(gone_[before.cgroup_id], since_move(tgid, before));
    moved_[tgid] = before;
}

void CgroupTally::final_record(std::uint32_t tgid, const TaskIo& io) {
    for (auto* m : {&alive_, &missing_}) {
        if (auto it = m->find(tgid); it != m->end()) {
            charge_move(tgid, it->second, io);
            m->erase(it);
        }
    }
    charge_for_good(tgid, io);
    ++exits_;
}

void CgroupTally::exited(const std::vector<TaskRecord>& records) {
    // The exit message of a process's last thread holds its per-pid record
    // (flagged AGROUP) and, when the process ever had a second thread, the
    // per-tgid record right after it. Other threads' records are already
    // in their process's per-tgid counters.
    for (std::size_t i = 0; i < records.size(); i++) {
        const TaskRecord& r = records[i];
        if (r.tgid || !r.io || !r.stats || !(r.stats->flag & acct_group))
            continue;
        if (i + 1 < records.size() && records[i + 1].tgid) {
            if (records[i + 1].io)
                final_record(records[i + 1].id, *records[i + 1].io);
            ++i;
        } else {
            final_record(r.id, *r.io);  // one thread: its pid is the tgid
        }
    }
}

void CgroupTally::alive(const std::map<std::uint32_t, TaskIo>& processes) {
    // Still missing since the previous sample, and no record came: lost.
    for (auto& [tgid, io] : missing_) {
        charge_for_good(tgid, io);
        ++unaccounted_;
    }
    missing_.clear();
    for (auto& [tgid, io] : alive_) {
        auto now = processes.find(tgid);
        if (now == processes.end())
            missing_.emplace(tgid, io);
        else
            charge_move(tgid, io, now->second);
    }
    alive_ = processes;
}

std::map<std::uint64_t, TaskIo> CgroupTally::totals() const {
    std::map<std::uint64_t, TaskIo> out = gone_;
    for (const auto* m : {&alive_, &missing_})
        for (const auto& [tgid, io] : *m)
            add_task_io(out[io.cgroup_id], since_move(tgid, io));
    return out;
}

// ------------------------------------------------------------ paths

void CgroupPaths::walk() {
    struct Dir {
        std::string path;  // relative to root_: "" for the root
    };
    std::vector<Dir> todo{{""}};
    while (!todo.empty()) {
        Dir d = std::move(todo.back());
        todo.pop_back();
        std::string full = root_ + d.path;
        struct stat st {};
        if (::stat(full.c_str(), &st) != 0)
            continue;
        known_[st.st_ino] = d.path.empty() ? "/" : d.path;
        std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(full.c_str()), ::closedir);
        if (!dir)
            continue;
        while (dirent* e = ::readdir(dir.get())) {
            std::string name = e->d_name;
            if (e->d_type != DT_DIR || name == "." || name == "..")
                continue;
            todo.push_back({d.path + "/" + name});
        }
    }
}

std::string CgroupPaths::path(std::uint64_t id) {
    if (auto it = known_.find(id); it != known_.end())
        return it->second;
    walk();
    if (auto it = known_.find(id); it != known_.end())
        return it->second;
    return "";
}

std::string cgroup_at_depth(const std::string& path, unsigned depth) {
    if (path.empty() || path == "/")
        return path;
    std::size_t pos = 0;
    for (unsigned level = 0; level < depth; level++) {
        pos = path.find('/', pos + 1);
        if (pos == std::string::npos)
            return path;
    }
    return depth == 0 ? "/" : path.substr(0, pos);
}

std::map<std::string, TaskIo> CgroupSeries::group(const std::map<std::uint64_t, TaskIo>& totals,
                                                  CgroupPaths& paths) {
    std::map<std::string, TaskIo> by_path;
    for (const auto& [id, io] : totals) {
        std::string p = paths.path(id);
        p = p.empty() ? cgroup_unknown_label : cgroup_at_depth(p, depth_);
        add_task_io(by_path[p], io);
    }
    std::map<std::string, TaskIo> out;
    for (auto& [p, io] : by_path) {
        if (!admitted_.count(p) && admitted_.size() < max_)
            admitted_.insert(p);
        add_task_io(out[admitted_.count(p) ? p : cgroup_overflow_label], io);
    }
    return out;
}

std::vector<CgroupIoStat> parse_io_stat(const std::string& text) {
    std::vector<CgroupIoStat> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string dev, kv;
        if (!(words >> dev))
            continue;
        CgroupIoStat s;
        auto colon = dev.find(':');
        if (colon == std::string::npos)
            continue;
        auto num = [](std::string_view t, auto& v) {
            auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
            return ec == std::errc() && p == t.data() + t.size();
        };
        if (!num(std::string_view(dev).substr(0, colon), s.major) ||
            !num(std::string_view(dev).substr(colon + 1), s.minor))
            continue;
        while (words >> kv) {
            auto eq = kv.find('=');
            if (eq == std::string::npos)
                continue;
            std::string_view key(kv.data(), eq), val(kv.data() + eq + 1, kv.size() - eq - 1);
            std::uint64_t* field = key == "rbytes"   ? &s.rbytes
                                   : key == "wbytes" ? &s.wbytes
                                   : key == "rios"   ? &s.rios
                                   : key == "wios"   ? &s.wios
                                   : key == "dbytes" ? &s.dbytes
                                   : key == "dios"   ? &s.dios
                                                     : nullptr;
            if (field)
                num(val, *field);
        }
        out.push_back(s);
    }
    return out;
}

}  // namespace iotally
