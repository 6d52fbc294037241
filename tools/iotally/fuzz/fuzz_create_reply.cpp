// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/dm-stats/message.hpp"
#include "iotally/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)iotally::parse_create_reply(text);
    } catch (const iotally::Error&) {
    }
    // Whatever the words, escaping then splitting gives them back.
    auto words = iotally::split_message(text);
    for (const auto& w : words) {
        auto back = iotally::split_message(iotally::escape_word(w));
        if (back.size() != 1 || back[0] != w)
            __builtin_trap();
    }
    return 0;
}
