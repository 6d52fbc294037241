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
#pragma once

#include <cstdint>
#include <istream>
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

inline std::vector<std::string> masked(const Step& s) {
    if (!is_print(s))
        return s.result;
    std::vector<std::string> out;
    for (const auto& l : s.result)
        out.push_back(l.rfind("> ", 0) == 0 ? "> " + mask_print_line(l.substr(2)) : l);
    return out;
}

}  // namespace iotally_test::fuzz
