// SPDX-License-Identifier: GPL-2.0-or-later
// Typed builders for the device-mapper statistics messages (@stats_*) and
// parsers for their replies, byte-compatible with drivers/md/dm-stats.c.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "iotally/dm-stats/dmstats_counters.hpp"

namespace iotally {

// The kernel splits a message into words at white space; a backslash quotes
// the next character. escape_word() makes any text one word ("" becomes "-",
// the kernel's "not set"); unescape_words() is the kernel's split.
std::string escape_word(std::string_view text);
std::vector<std::string> split_message(std::string_view message);

struct SectorRange {
    std::uint64_t start = 0;
    std::uint64_t length = 0;
    bool operator==(const SectorRange&) const = default;
};

struct AreaSize {
    std::uint64_t sectors = 0;
    bool operator==(const AreaSize&) const = default;
};
struct AreaCount {
    std::uint32_t count = 0;
    bool operator==(const AreaCount&) const = default;
};
using Step = std::variant<AreaSize, AreaCount>;

struct CreateRequest {
    std::optional<SectorRange> range;  // absent: the whole device ("-")
    Step step = AreaCount{1};
    bool precise_timestamps = false;
    // Boundaries in the region's time unit: ns with precise_timestamps, else ms.
    std::vector<std::uint64_t> histogram;
    std::string program_id;  // empty: the kernel's default "-"
    std::string aux_data;    // empty: the kernel's default "-"
};

std::string build_create(const CreateRequest& request);
std::string build_delete(std::uint64_t region_id);
std::string build_clear(std::uint64_t region_id);
std::string build_list(std::optional<std::string_view> program_id = std::nullopt);
struct LineRange {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
};
std::string build_print(std::uint64_t region_id, std::optional<LineRange> lines = std::nullopt,
                        bool clear = false);
std::string build_set_aux(std::uint64_t region_id, std::string_view aux_data);

// Validates a request the way the kernel will, so that a bad request fails
// before anything is sent. Throws Error(usage).
void validate(const CreateRequest& request);

// Reply to @stats_create: the new region id.
std::uint64_t parse_create_reply(std::string_view reply);

// One line of the @stats_list reply:
//   <id>: <start>+<length> <step> <program_id> <aux_data>[ precise_timestamps][ histogram:b1,...]
// aux_data is printed unescaped and may contain spaces; program_id is taken to
// be one word (iotally and lvm2 never create it with spaces).
struct ListEntry {
    std::uint64_t region_id = 0;
    std::uint64_t start = 0;
    std::uint64_t length = 0;
    std::uint64_t step = 0;
    std::string program_id;
    std::string aux_data;
    bool precise_timestamps = false;
    std::vector<std::uint64_t> histogram;  // boundaries, region time unit
    bool operator==(const ListEntry&) const = default;
};

ListEntry parse_list_line(std::string_view line);
std::vector<ListEntry> parse_list_reply(std::string_view reply);
std::string format_list_line(const ListEntry& entry);  // without the newline

// One line of the @stats_print reply:
//   <start>+<step> <13 counters>[ <h0>:<h1>:...]
// The kernel prints the step as the length, also for a shorter last area.
struct PrintLine {
    std::uint64_t start = 0;
    std::uint64_t step = 0;
    RawCounters counters;
    std::vector<std::uint64_t> histogram;  // counts; boundaries + 1 entries
    bool operator==(const PrintLine&) const = default;
};

PrintLine parse_print_line(std::string_view line);
// All lines of one reply; every line must carry the same histogram width.
std::vector<PrintLine> parse_print_reply(std::string_view reply);
std::string format_print_line(const PrintLine& line);  // without the newline

}  // namespace iotally
