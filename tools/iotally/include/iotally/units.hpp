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

// Compact human forms: "1.5ms", "20s", "4KiB", "512B".
std::string format_duration_ns(std::uint64_t ns);
std::string format_bytes(std::uint64_t bytes);

}  // namespace iotally
