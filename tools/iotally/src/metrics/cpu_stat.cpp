// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/cpu_stat.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <fstream>
#include <sstream>

#include "iotally/util/error.hpp"

namespace iotally {

CpuTimes parse_proc_stat(std::string_view text) {
    std::string_view line;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view l = text.substr(pos, end - pos);
        if (l.rfind("cpu ", 0) == 0) {
            line = l.substr(4);
            break;
        }
        pos = end + 1;
    }
    if (line.empty())
        throw Error(ErrorKind::parse, "/proc/stat: no 'cpu' line");
    std::array<std::uint64_t, 10> v{};
    std::size_t n = 0, i = 0;
    while (true) {
        while (i < line.size() && line[i] == ' ')
            ++i;
        if (i == line.size())
            break;
        std::size_t j = line.find(' ', i);
        if (j == std::string_view::npos)
            j = line.size();
        std::uint64_t x = 0;
        auto [p, ec] = std::from_chars(line.data() + i, line.data() + j, x);
        if (ec != std::errc() || p != line.data() + j)
            throw Error(ErrorKind::parse,
                        fmt::format("/proc/stat: cpu field {} is not a number: '{}'", n + 1,
                                    line.substr(i, j - i)));
        if (n < v.size())
            v[n] = x;  // later kernels may add fields: the known ones keep their place
        ++n;
        i = j;
    }
    if (n < 4)
        throw Error(ErrorKind::parse,
                    fmt::format("/proc/stat: {} cpu fields where the kernel writes 4 to 10", n));
    return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
}

CpuTimes read_cpu_times(const std::string& proc_root) {
    const std::string path = proc_root + "/stat";
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorKind::unsupported,
                    fmt::format("{}: cannot read (is /proc mounted?)", path));
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_proc_stat(ss.str());
}

AvgCpu avg_cpu(const CpuTimes& current, const CpuTimes* previous) {
    const CpuTimes zero{};
    const CpuTimes& p = previous ? *previous : zero;
    // Ticks that went back (a CPU went offline) are not part of the interval.
    auto delta = [](std::uint64_t now, std::uint64_t before) {
        return now >= before ? now - before : 0;
    };
    const std::uint64_t system = current.system + current.irq + current.softirq;
    const std::uint64_t psystem = p.system + p.irq + p.softirq;
    const std::array<std::uint64_t, 6> d{
        delta(current.user, p.user),   delta(current.nice, p.nice),
        delta(system, psystem),        delta(current.iowait, p.iowait),
        delta(current.steal, p.steal), delta(current.idle, p.idle)};
    std::uint64_t total = 0;
    for (auto x : d)
        total += x;
    AvgCpu a;
    if (total == 0)
        return a;  // no tick passed: nothing to divide
    auto pct = [&](std::uint64_t x) {
        return static_cast<double>(x) * 100.0 / static_cast<double>(total);
    };
    a.user = pct(d[0]);
    a.nice = pct(d[1]);
    a.system = pct(d[2]);
    a.iowait = pct(d[3]);
    a.steal = pct(d[4]);
    a.idle = pct(d[5]);
    return a;
}

std::string format_avg_cpu(const AvgCpu& c) {
    return fmt::format(
        "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
        "       {:8.2f}{:8.2f}{:8.2f}{:8.2f}{:8.2f}{:8.2f}\n",
        c.user, c.nice, c.system, c.iowait, c.steal, c.idle);
}

}  // namespace iotally
