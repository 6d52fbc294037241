// SPDX-License-Identifier: GPL-2.0-or-later
// iostat's avg-cpu block: where the CPUs' time went, from /proc/stat.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iotally {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ). The
// kernel counts guest time in user (and guest_nice in nice) as well.
struct CpuTimes {
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                  steal = 0, guest = 0, guest_nice = 0;
    bool operator==(const CpuTimes&) const = default;
};

// The "cpu " line of a /proc/stat text (4 to 10 numbers, the rest 0);
// Error(parse) when there is none or it is malformed.
CpuTimes parse_proc_stat(std::string_view text);
// Reads <proc_root>/stat; Error(unsupported) when it cannot be read.
CpuTimes read_cpu_times(const std::string& proc_root = "/proc");

// Percentages of the time between two readings (or since boot without
// `previous`), as iostat -c computes them: %system includes interrupts,
// %user and %nice include guest time, and a counter that went back (idle
// during CPU hotplug) counts as 0.
struct AvgCpu {
    double user = 0, nice = 0, system = 0, iowait = 0, steal = 0, idle = 0;
};
AvgCpu avg_cpu(const CpuTimes& current, const CpuTimes* previous);

// iostat's two lines ("avg-cpu:  %user ..." and the values), each ending in
// a newline; iostat puts an empty line after them.
std::string format_avg_cpu(const AvgCpu& cpu);

}  // namespace iotally
