// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <sstream>
#include <string>

namespace iotally::test {

// The first line of an exposition (or any text) that starts with `prefix`,
// "" when none does: for the tests that read one sample of a scrape.
inline std::string line_starting_with(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.starts_with(prefix))
            return line;
    return "";
}

}  // namespace iotally::test
