// SPDX-License-Identifier: GPL-2.0-or-later
// @stats_list replies: parse errors are fine, crashes and lost round trips are not.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "iotally/dm-stats/message.hpp"
#include "iotally/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const auto& e : iotally::parse_list_reply(text)) {
            auto again = iotally::parse_list_line(iotally::format_list_line(e));
            if (!(again == e))
                std::abort();
        }
    } catch (const iotally::Error&) {
    }
    return 0;
}
