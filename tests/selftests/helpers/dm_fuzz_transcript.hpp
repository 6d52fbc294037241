// SPDX-License-Identifier: GPL-2.0-or-later
//
// Transcripts of dm-stats-fuzz runs, and their comparison. A transcript has
// one block per step:
//
//   #N STEP            the script line
//   = RESULT           0 or the errno name of a message; bytes done or the
//                      errno name of an I/O
//   > LINE             each line of a message's reply
//
// Two engines must give the same transcript, except for the fields that
// measure time: in a @stats_print or @stats_print_clear reply, fields 5, 9
// and 11-14 of each line and the histogram's distribution among its
// buckets (its bucket count and its total are kept: every completed I/O
// lands in one bucket).
//
// What masking hides, the conversion of jiffies to milliseconds, is checked
// on its own when the kernel's HZ is known (time_fields_check()): each time
// field of a region without precise_timestamps must be what upstream prints
// for some count of jiffies at that HZ.
#pragma once

#include <charconv>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace iotally_test::fuzz {

struct Step {
    std::string header;               // "#N ..." line
    std::vector<std::string> result;  // the "=" line and the "> " lines
};

inline std::vector<Step> read_transcript(std::istream& in) {
    std::vector<Step> steps;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#", 0) == 0)
            steps.push_back(Step{line, {}});
        else if (!steps.empty())
            steps.back().result.push_back(line);
    }
    return steps;
}

inline std::vector<std::string> split(std::string_view s) {
    std::vector<std::string> words;
    std::istringstream in{std::string(s)};
    for (std::string w; in >> w;)
        words.push_back(w);
    return words;
}

inline std::string lower(std::string s) {
    for (auto& c : s)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return s;
}

// Is this step's reply a @stats_print one? Header: "#N M DEVICE BUFFER VERB ...".
inline bool is_print(const Step& s) {
    const auto w = split(s.header);
    if (w.size() < 5 || w[1] != "M")
        return false;
    const std::string verb = lower(w[4]);
    return verb == "@stats_print" || verb == "@stats_print_clear";
}

// A reply line of @stats_print with its time fields masked.
inline std::string mask_print_line(const std::string& line) {
    auto w = split(line);
    if (w.size() != 14 && w.size() != 15)
        return line;
    for (const std::size_t i : {5, 9, 11, 12, 13, 14})
        w[i - 1] = "*";
    if (w.size() == 15) {
        std::uint64_t buckets = 0, total = 0;
        std::istringstream in(w[14]);
        for (std::string b; std::getline(in, b, ':');) {
            buckets++;
            total += std::stoull(b);
        }
        w[14] = "histogram[" + std::to_string(buckets) + "]=" + std::to_string(total);
    }
    std::string out;
    for (const auto& x : w)
        out += (out.empty() ? "" : " ") + x;
    return out;
}

// Milliseconds upstream's dm-stats prints for a time counter of J jiffies
// at HZ (its dm_jiffies_to_msec64()): jiffies_to_msecs() of J mod 2^22,
// which rounds up, plus jiffies_to_msecs(2^22) for each 2^22 in J.
inline std::uint64_t upstream_ms(std::uint64_t j, std::uint64_t hz) {
    const auto up = [hz](std::uint64_t x) { return (x * 1000 + hz - 1) / hz; };
    return up(j & ((1ULL << 22) - 1)) + up(1ULL << 22) * (j >> 22);
}

// Is V ms what upstream prints for some count of jiffies at HZ? Each 2^22
// jiffies add more ms than any rest, so V's count of them is V / that; the
// rest R ms can only come from the largest count at most R ms long.
inline bool is_upstream_ms(std::uint64_t v, std::uint64_t hz) {
    const std::uint64_t chunk_ms = upstream_ms(1ULL << 22, hz);
    const std::uint64_t j = ((v / chunk_ms) << 22) + (v % chunk_ms) * hz / 1000;
    return upstream_ms(j, hz) == v;
}

// The region a message's id word names, as dm-stats parses it with the
// kernel's sscanf("%d"): decimal digits after an optional '-', wrapping
// modulo 2^64 on overflow (simple_strtoull() does not stop), then cut to
// an int. "18446744073709551616" and "4294967296" both name region 0.
// Nothing for a word the kernel refuses (trailing bytes, no digit, < 0).
inline std::optional<std::int32_t> kernel_region_id(std::string_view word) {
    const bool negative = !word.empty() && word.front() == '-';
    if (negative)
        word.remove_prefix(1);
    if (word.empty())
        return std::nullopt;
    std::uint64_t value = 0;
    for (const char c : word) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (negative)
        value = ~value + 1;
    const auto id = static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
    if (id < 0)
        return std::nullopt;
    return id;
}

inline bool has_word(const std::vector<std::string>& words, const std::string& w) {
    for (const auto& x : words)
        if (lower(x) == w)
            return true;
    return false;
}

// The first time field of a jiffies region, in a transcript, that upstream
// cannot print at HZ: "step #N ...: field F is V ms", or nothing. Regions
// are followed by id per device from their @stats_create replies, and a
// print's id word is read as the kernel reads it; a region with
// precise_timestamps prints ns, not checked.
inline std::optional<std::string> time_fields_check(const std::vector<Step>& steps,
                                                    std::uint64_t hz) {
    std::map<std::string, bool> precise;  // "DEVICE ID" -> precise_timestamps
    for (const auto& s : steps) {
        const auto w = split(s.header);
        if (w.size() < 5 || w[1] != "M" || s.result.empty() || s.result[0] != "= 0")
            continue;
        const std::string verb = lower(w[4]);
        if (verb == "@stats_create" && s.result.size() == 2 && s.result[1].rfind("> ", 0) == 0)
            precise[w[2] + " " + s.result[1].substr(2)] = has_word(w, "precise_timestamps");
        if (!is_print(s) || w.size() < 6)
            continue;
        // A region this transcript did not create is not judged: its unit
        // is unknown.
        const auto id = kernel_region_id(w[5]);
        const auto region = id ? precise.find(w[2] + " " + std::to_string(*id)) : precise.end();
        if (region == precise.end() || region->second)
            continue;
        for (const auto& l : s.result) {
            const auto f = split(l.rfind("> ", 0) == 0 ? l.substr(2) : "");
            if (f.size() != 14 && f.size() != 15)
                continue;
            for (const std::size_t i : {5, 9, 11, 12, 13, 14}) {
                const std::string& x = f[i - 1];
                std::uint64_t v = 0;
                const auto [end, ec] = std::from_chars(x.data(), x.data() + x.size(), v);
                if (ec != std::errc() || end != x.data() + x.size() || !is_upstream_ms(v, hz))
                    return "step " + s.header + ": field " + std::to_string(i) + " is " + x +
                           " ms, which upstream prints for no count of jiffies at HZ=" +
                           std::to_string(hz) + " (jiffies_to_msecs() rounds up)";
            }
        }
    }
    return std::nullopt;
}

inline std::vector<std::string> masked(const Step& s) {
    if (!is_print(s))
        return s.result;
    std::vector<std::string> out;
    for (const auto& l : s.result)
        out.push_back(l.rfind("> ", 0) == 0 ? "> " + mask_print_line(l.substr(2)) : l);
    return out;
}

}  // namespace iotally_test::fuzz
