// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)iotally::parse_sectors(text);
    } catch (const iotally::Error&) {
    }
    try {
        auto list = iotally::parse_duration_list_ns(text);
        for (std::size_t i = 1; i < list.size(); ++i)
            if (list[i] <= list[i - 1])
                __builtin_trap();
        for (auto v : list)
            (void)iotally::format_duration_ns(v);
    } catch (const iotally::Error&) {
    }
    return 0;
}
