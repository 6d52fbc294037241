// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/statfs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& line : iotally::parse_data(text))
        if (line.name.empty())
            __builtin_trap();
    return 0;
}
