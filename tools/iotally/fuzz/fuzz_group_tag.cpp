// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        if (auto tag = iotally::parse_group_tag(text)) {
            // A tag that formats must parse back to the same group.
            std::string again;
            try {
                again = iotally::format_group_aux(*tag);
            } catch (const iotally::Error&) {
                return 0;  // e.g. an alias with '#'
            }
            auto back = iotally::parse_group_tag(again);
            if (!back || back->members != tag->members || back->alias != tag->alias)
                __builtin_trap();
        }
    } catch (const iotally::Error&) {
    }
    return 0;
}
