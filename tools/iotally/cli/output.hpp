// SPDX-License-Identifier: GPL-2.0-or-later
// Tables and number formatting shared by the commands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iotally::cli {

class Table {
  public:
    // A column whose header starts with '<' is left-aligned (the '<' is dropped).
    explicit Table(std::vector<std::string> headers);
    void add(std::vector<std::string> row);
    std::string render() const;
    bool empty() const { return rows_.empty(); }

  private:
    std::vector<std::string> headers_;
    std::vector<bool> left_;
    std::vector<std::vector<std::string>> rows_;
};

std::string format_value(std::optional<double> v, bool integer = false);
std::string csv_escape(std::string_view field);

// "1", "1.5", "500ms", "2s": seconds (a bare number means seconds here).
double parse_interval_s(std::string_view text);

// A dm-stats region id: a decimal in [0, INT_MAX]; throws Error(usage)
// ("-1" is not a region, whatever strtoull makes of it).
std::uint64_t parse_region_id(const std::string& text);

std::vector<std::string> split_list(std::string_view text, char sep = ',');

}  // namespace iotally::cli
