// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/error.hpp"
#include "iotally/statfs.hpp"

// A data file, each line decoded as every statistic type would read it:
// either typed values, one per column, or Error(parse); never a crash.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    static const char* const types[][2] = {
        {"value", ""},        {"range", ""},           {"array", ""}, {"list", ""},
        {"history", "range"}, {"history", "products"}, {"raw", ""}};
    for (const auto& line : iotally::parse_data(text)) {
        if (line.name.empty())
            __builtin_trap();
        for (const auto& t : types) {
            iotally::StatDefinition def{line.name, {{"type", t[0]}, {"mode", t[1]}}};
            try {
                auto values = iotally::decode_stat_line(line, def);
                if (values.size() != line.fields.size())
                    __builtin_trap();
            } catch (const iotally::Error& e) {
                if (e.kind() != iotally::ErrorKind::parse)
                    __builtin_trap();
            }
        }
    }
    return 0;
}
