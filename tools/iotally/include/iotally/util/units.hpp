// SPDX-License-Identifier: GPL-2.0-or-later
// Sizes and durations as administrators type them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iotally {

// A size in 512-byte sectors. A bare number is a sector count (as in dmsetup
// and dmstats); suffixes: s (sectors), b (bytes, a multiple of 512),
// k/m/g/t/p with optional "iB" (powers of 1024). Throws Error(usage).
std::uint64_t parse_sectors(std::string_view text);

// A duration in nanoseconds. Suffixes: ns, us, ms, s; a bare number is in
// milliseconds (the unit of dm-stats without precise_timestamps).
std::uint64_t parse_duration_ns(std::string_view text);

// "1ms,5ms,20ms" -> strictly increasing boundaries in nanoseconds.
std::vector<std::uint64_t> parse_duration_list_ns(std::string_view text);

// A plain unsigned decimal number (no sign, no spaces, no overflow).
std::uint64_t parse_u64(std::string_view text, std::string_view what);

// Compact human forms: "1.5ms", "20s".
std::string format_duration_ns(std::uint64_t ns);

// ---- The kernel counters' time units: the one set of conversions the
// library and the CLI use (no other file scales a kernel time).
//
// A dm-stats region created with precise_timestamps counts its times in
// nanoseconds; one without counts milliseconds, measured in whole jiffies.
// /proc/diskstats and /sys/block/*/stat count milliseconds.
inline constexpr std::uint64_t ns_per_ms = 1'000'000;

// How a region counts time, as its JSON names it.
struct RegionTimeUnit {
    std::string_view unit;        // "ns" or "ms": the unit of the numbers
    std::string_view resolution;  // "ns" or "jiffies": how finely they were measured
    std::uint64_t ns_per_unit;    // 1 or ns_per_ms
};
RegionTimeUnit region_time_unit(bool precise_timestamps);

// A region's time as the kernel prints it, in nanoseconds. Throws
// Error(parse) when it does not fit in 64 bits.
std::uint64_t region_time_to_ns(std::uint64_t value, bool precise_timestamps);

// Nanoseconds in a region's unit; throws Error(usage) when ns is not a
// whole number of that unit (a region without precise_timestamps cannot hold
// a boundary finer than a millisecond).
std::uint64_t ns_to_region_time(std::uint64_t ns, bool precise_timestamps);

// A /sys/block millisecond counter in nanoseconds (wraps as the kernel's
// counter does: it is a delta's operand).
constexpr std::uint64_t ms_to_ns(std::uint64_t ms) {
    return ms * ns_per_ms;
}

// Nanoseconds as fractional milliseconds, the unit iostat prints.
constexpr double ns_to_ms(double ns) {
    return ns / static_cast<double>(ns_per_ms);
}

}  // namespace iotally
