// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iotally/dm-stats/counters.hpp"
#include "iotally/dm-stats/message.hpp"
#include "iotally/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const auto& p : iotally::parse_print_reply(text)) {
            std::string line = iotally::format_print_line(p);
            if (!(iotally::parse_print_line(line) == p))
                std::abort();
            (void)iotally::normalize(p.counters, size % 2 == 0);
        }
    } catch (const iotally::Error&) {
    }
    return 0;
}
