// SPDX-License-Identifier: GPL-2.0-or-later
// The request parsing of iotally serve that is ours: Accept and
// Accept-Encoding headers, and label escaping of arbitrary bytes.
#include <cstdint>
#include <string_view>

#include "iotally/exporter/exposition.hpp"
#include "iotally/exporter/http_server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto f = iotally::negotiate_format(text);
    if (f != iotally::ExpositionFormat::openmetrics && f != iotally::ExpositionFormat::prometheus &&
        f != iotally::ExpositionFormat::protobuf)
        __builtin_trap();
    (void)iotally::accepts_gzip(text);
    // An escaped value has no raw newline and no unescaped quote.
    std::string e = iotally::escape_label_value(text);
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (e[i] == '\n')
            __builtin_trap();
        if (e[i] == '\\')
            ++i;
        else if (e[i] == '"')
            __builtin_trap();
    }
    return 0;
}
