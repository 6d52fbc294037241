// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <iterator>
#include <string_view>

#include "iotally/statistic/statfs.hpp"
#include "iotally/util/error.hpp"

// A data file, each line decoded as one statistic type (picked by the first
// byte) would read it: either typed values, one per column, or Error(parse);
// never a crash.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    static const char* const types[][2] = {
        {"value", ""},        {"range", ""},           {"array", ""}, {"list", ""},
        {"history", "range"}, {"history", "products"}, {"raw", ""}};
    for (const auto& line : iotally::parse_data(text)) {
        if (line.name.empty())
            __builtin_trap();
        const auto& t = types[data[0] % std::size(types)];
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
    return 0;
}
