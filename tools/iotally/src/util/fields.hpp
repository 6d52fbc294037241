// SPDX-License-Identifier: GPL-2.0-or-later
// Text split into fields: a sysfs stat line (blanks), a list option (commas).
#pragma once

#include <string_view>
#include <vector>

namespace iotally {

// Fields of text separated by spaces, tabs or newlines, in order.
inline std::vector<std::string_view> blank_separated_fields(std::string_view text) {
    constexpr std::string_view blanks = " \t\n";
    std::vector<std::string_view> fields;
    std::size_t i = text.find_first_not_of(blanks);
    while (i != std::string_view::npos) {
        std::size_t j = text.find_first_of(blanks, i);
        if (j == std::string_view::npos)
            j = text.size();
        fields.push_back(text.substr(i, j - i));
        i = text.find_first_not_of(blanks, j);
    }
    return fields;
}

// The items of a comma-separated list, in order, empty ones included: ""
// is one empty item, "1,,2" three. The caller says what an item must be.
inline std::vector<std::string_view> comma_separated_items(std::string_view text) {
    std::vector<std::string_view> items;
    std::size_t pos = 0;
    while (true) {
        auto comma = text.find(',', pos);
        items.push_back(
            text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos));
        if (comma == std::string_view::npos)
            return items;
        pos = comma + 1;
    }
}

}  // namespace iotally
