// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/statistic/statfs.hpp"
#include "iotally/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const auto& d : iotally::parse_definitions(text)) {
            // Writing back what was read is validated, never crashes.
            try {
                (void)iotally::build_definition_write(d.name, d.attributes);
            } catch (const iotally::Error&) {
            }
        }
    } catch (const iotally::Error&) {
    }
    return 0;
}
