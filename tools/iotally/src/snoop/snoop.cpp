// SPDX-License-Identifier: GPL-2.0-or-later
// The io trace events as data: matching, filters, lines and summaries.
#include "iotally/snoop/snoop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

namespace iotally {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_octal(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); i++) {
        if (s[i] == '\\' && i + 3 < s.size() &&
            std::all_of(s.begin() + i + 1, s.begin() + i + 4,
                        [](char c) { return c >= '0' && c <= '7'; })) {
            out +=
                static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

bool is_marker(const std::string& path) {
    return path.empty() || path.front() == '<';
}

}  // namespace

MountTable MountTable::parse(std::string_view mountinfo) {
    MountTable t;
    std::istringstream in{std::string(mountinfo)};
    std::string line;
    while (std::getline(in, line)) {
        // id parent major:minor root mountpoint ...
        std::istringstream f(line);
        std::string id, parent, majmin, root, point;
        if (!(f >> id >> parent >> majmin >> root >> point))
            continue;
        auto colon = majmin.find(':');
        if (colon == std::string::npos)
            continue;
        unsigned long major = 0, minor = 0;
        try {
            major = std::stoul(majmin.substr(0, colon));
            minor = std::stoul(majmin.substr(colon + 1));
        } catch (const std::exception&) {
            continue;
        }
        // Only mounts of the file system's root map its paths directly.
        if (root != "/")
            continue;
        auto dev = static_cast<std::uint32_t>(major << 20 | minor);
        t.mounts_.emplace(dev, unescape_octal(point));
    }
    return t;
}

MountTable MountTable::load(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        return {};
    std::stringstream ss;
    ss << in.rdbuf();
    return parse(ss.str());
}

std::string MountTable::name_of(const IoEvent& e) const {
    if (e.fspath.empty())
        return absolute(e.fsdev, e.path);
    if (!is_marker(e.path) || is_marker(e.fspath))
        return e.path;
    return absolute(e.fsdev, e.fspath);
}

std::string MountTable::absolute(std::uint32_t fsdev, const std::string& path) const {
    if (is_marker(path))
        return path;
    auto it = mounts_.find(fsdev);
    if (it == mounts_.end() || it->second == "/")
        return path;
    return it->second + path;
}

std::optional<IoRecord> IoMatcher::add_io(const IoEvent& e) {
    Key key{e.dev, e.sector, e.bytes};
    if (e.kind == IoEvent::Kind::start) {
        // Its done may have been read first, from another CPU's buffer.
        if (auto d = early_dones_.find(key);
            d != early_dones_.end() && d->second.ts_ns >= e.ts_ns) {
            IoRecord r{e, std::move(d->second)};
            early_dones_.erase(d);
            return r;
        }
        starts_[key].push_back(e);
        return std::nullopt;
    }
    if (e.kind != IoEvent::Kind::done)
        return std::nullopt;
    auto it = starts_.find(key);
    if (it == starts_.end()) {
        if (!early_dones_.emplace(key, e).second)
            ++unmatched_;
        return std::nullopt;
    }
    // Two I/Os to the same place in flight at once: the older one first.
    IoRecord r{std::move(it->second.front()), e};
    it->second.erase(it->second.begin());
    if (it->second.empty())
        starts_.erase(it);
    return r;
}

std::optional<WaitRecord> IoMatcher::add_wait(const IoEvent& e) {
    if (e.kind == IoEvent::Kind::wait_start) {
        if (auto d = early_waits_.find(e.pid);
            d != early_waits_.end() && d->second.ts_ns >= e.ts_ns) {
            WaitRecord w{e, std::move(d->second)};
            early_waits_.erase(d);
            return w;
        }
        waits_[e.pid] = e;
        return std::nullopt;
    }
    if (e.kind != IoEvent::Kind::wait_done)
        return std::nullopt;
    auto it = waits_.find(e.pid);
    if (it == waits_.end()) {
        if (!early_waits_.emplace(e.pid, e).second)
            ++unmatched_;
        return std::nullopt;
    }
    WaitRecord w{std::move(it->second), e};
    waits_.erase(it);
    return w;
}

void IoMatcher::expire(std::uint64_t now_ns, std::uint64_t age_ns) {
    auto old = [&](const IoEvent& e) { return e.ts_ns + age_ns < now_ns; };
    for (auto it = early_dones_.begin(); it != early_dones_.end();)
        if (old(it->second)) {
            ++unmatched_;
            it = early_dones_.erase(it);
        } else {
            ++it;
        }
    for (auto it = early_waits_.begin(); it != early_waits_.end();)
        if (old(it->second)) {
            ++unmatched_;
            it = early_waits_.erase(it);
        } else {
            ++it;
        }
}

namespace {

bool device_matches(const std::string& want, std::uint32_t dev, const std::string& disk) {
    if (want.empty() || want == disk)
        return true;
    return want == fmt::format("{}:{}", dev_major(dev), dev_minor(dev));
}

}  // namespace

bool IoFilter::match(const IoRecord& r, const std::string& abs_path) const {
    if (!device_matches(device, r.start.dev, r.start.disk))
        return false;
    if (!file_prefix.empty() && abs_path.compare(0, file_prefix.size(), file_prefix) != 0)
        return false;
    if (pid && r.start.pid != pid)
        return false;
    return ns_to_ms(static_cast<double>(r.latency_ns())) >= min_latency_ms;
}

bool IoFilter::match_wait(const WaitRecord& w, const std::string& abs_path) const {
    if (!device_matches(device, w.start.dev, w.start.disk))
        return false;
    if (!file_prefix.empty() && abs_path.compare(0, file_prefix.size(), file_prefix) != 0)
        return false;
    if (pid && w.start.pid != pid)
        return false;
    return ns_to_ms(static_cast<double>(w.wait_ns())) >= min_latency_ms;
}

std::string snoop_header() {
    return fmt::format("{:>12} {:<16} {:>7} {:<10} {:<2} {:>8} {:>9} {}", "TIME(s)", "COMM", "PID",
                       "DEVICE", "RW", "BYTES", "LAT(ms)", "FILE");
}

std::string snoop_line(const IoRecord& r, const std::string& abs_path, std::uint64_t t0_ns) {
    std::uint64_t t = r.done.ts_ns > t0_ns ? r.done.ts_ns - t0_ns : 0;
    return fmt::format("{:>12.6f} {:<16} {:>7} {:<10} {:<2} {:>8} {:>9.3f} {}",
                       static_cast<double>(t) / 1e9, r.start.comm, r.start.pid, r.start.disk,
                       r.start.is_read() ? "R" : "W", r.start.bytes,
                       ns_to_ms(static_cast<double>(r.latency_ns())), abs_path);
}

void BytesSummary::add(const IoRecord& r) {
    bytes_[{r.start.disk, r.start.comm, r.start.pid}] += r.start.bytes;
}

std::vector<BytesSummary::Row> BytesSummary::rows() const {
    std::vector<Row> rows;
    for (const auto& [k, b] : bytes_)
        rows.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), b});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.bytes > b.bytes; });
    return rows;
}

std::string BytesSummary::render() const {
    std::string s = fmt::format("{:>10} {:>20} {:>10} {:>15}\n", "DEVICE", "APP", "PID", "BYTES");
    for (const auto& r : rows())
        s += fmt::format("{:>10} {:>20} {:>10} {:>15}\n", r.device, r.comm, r.pid, r.bytes);
    return s;
}

void Log2Histogram::add(std::uint64_t v) {
    int b = -1;
    while (v) {
        ++b;
        v >>= 1;
    }
    ++buckets_[b];
    ++count_;
}

// DTrace's quantize(): value, a bar of 40 '@' scaled to the count, count;
// an empty row above and below the used range.
std::string Log2Histogram::render() const {
    std::string s = fmt::format("{:>16}  {:-^40} {}\n", "value", " Distribution ", "count");
    if (buckets_.empty())
        return s;
    int lo = buckets_.begin()->first - 1, hi = buckets_.rbegin()->first + 1;
    for (int b = std::max(lo, -1); b <= hi; b++) {
        auto it = buckets_.find(b);
        std::uint64_t n = it == buckets_.end() ? 0 : it->second;
        auto bar = static_cast<std::size_t>((n * 40 + count_ / 2) / count_);
        s += fmt::format("{:>16} |{:<40} {}\n", bucket_low(b), std::string(bar, '@'), n);
    }
    return s;
}

void LatencySummary::add(const IoRecord& r, const std::string& abs_path) {
    files_[abs_path].add(r.latency_ns() / 1000);
}

std::string LatencySummary::render() const {
    std::string s;
    for (const auto& [file, h] : files_)
        s += fmt::format(" {} (latency, us)\n\n{}\n", file, h.render());
    return s;
}

void WaitSummary::add(const WaitRecord& w) {
    auto [it, fresh] = tasks_.try_emplace(w.start.pid, Row{w.start.pid, w.start.comm, 0, 0, 0});
    Row& r = it->second;
    r.comm = w.done.comm;
    ++r.waits;
    r.total_ns += w.wait_ns();
    r.max_ns = std::max(r.max_ns, w.wait_ns());
}

std::vector<WaitSummary::Row> WaitSummary::rows() const {
    std::vector<Row> rows;
    for (const auto& [pid, r] : tasks_)
        rows.push_back(r);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.total_ns > b.total_ns; });
    return rows;
}

std::string WaitSummary::render() const {
    std::string s = fmt::format("{:>10} {:<16} {:>8} {:>12} {:>10}\n", "PID", "COMM", "WAITS",
                                "TOTAL(ms)", "MAX(ms)");
    for (const auto& r : rows())
        s += fmt::format("{:>10} {:<16} {:>8} {:>12.3f} {:>10.3f}\n", r.pid, r.comm, r.waits,
                         ns_to_ms(static_cast<double>(r.total_ns)),
                         ns_to_ms(static_cast<double>(r.max_ns)));
    return s;
}

}  // namespace iotally
