// SPDX-License-Identifier: GPL-2.0-or-later
// The fields of a sysfs stat line: what the kernel separates by blanks.
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

}  // namespace iotally
