// SPDX-License-Identifier: GPL-2.0-or-later
#include "output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

namespace iotally::cli {

Table::Table(std::vector<std::string> headers) {
    for (auto& h : headers) {
        bool left = !h.empty() && h[0] == '<';
        left_.push_back(left);
        headers_.push_back(left ? h.substr(1) : h);
    }
}

void Table::add(std::vector<std::string> row) {
    row.resize(headers_.size());
    rows_.push_back(std::move(row));
}

std::string Table::render() const {
    std::vector<std::size_t> width(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) {
        width[c] = headers_[c].size();
        for (const auto& r : rows_)
            width[c] = std::max(width[c], r[c].size());
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        std::string l;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (c)
                l += "  ";
            const bool last = c + 1 == cells.size();
            if (left_[c])
                l += last ? cells[c] : fmt::format("{:<{}}", cells[c], width[c]);
            else
                l += fmt::format("{:>{}}", cells[c], width[c]);
        }
        out += l + "\n";
    };
    line(headers_);
    for (const auto& r : rows_)
        line(r);
    return out;
}

std::string format_value(std::optional<double> v, bool integer) {
    if (!v)
        return "-";
    if (integer)
        return fmt::format("{:.0f}", *v);
    return fmt::format("{:.2f}", *v);
}

std::string csv_escape(std::string_view field) {
    if (field.find_first_of(",\"\n") == std::string_view::npos)
        return std::string(field);
    std::string out = "\"";
    for (char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

double parse_interval_s(std::string_view text) {
    bool bare = !text.empty() && text.find_first_not_of("0123456789.") == std::string_view::npos;
    std::uint64_t ns = parse_duration_ns(bare ? fmt::format("{}s", text) : std::string(text));
    if (ns < 1'000'000)
        throw Error(ErrorKind::usage, fmt::format("interval '{}' is shorter than 1ms", text));
    return static_cast<double>(ns) / 1e9;
}

std::uint64_t parse_region_id(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
        text.size() > 10 || std::stoull(text) > 2147483647ULL)
        throw Error(ErrorKind::usage,
                    fmt::format("region id '{}' is not an integer from 0 to 2147483647", text));
    return std::stoull(text);
}

std::vector<std::string> split_list(std::string_view text, char sep) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto next = text.find(sep, pos);
        auto item = text.substr(pos, next == std::string_view::npos ? text.npos : next - pos);
        if (!item.empty())
            out.emplace_back(item);
        if (next == std::string_view::npos)
            break;
        pos = next + 1;
    }
    return out;
}

}  // namespace iotally::cli
