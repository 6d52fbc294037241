// SPDX-License-Identifier: GPL-2.0-or-later
// The fuzz input of a native histogram, shared by fuzz_protobuf and
// fuzz_otlp: the first byte is the number of buckets, the second the
// schema, the third the start index, the fourth how many kernel buckets go
// to the zero bucket; then one byte of index gap and two of count per
// bucket; the rest is a label value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/util/error.hpp"

namespace iotally::fuzz {

struct NativeHistogramInput {
    NativeLayout layout;
    std::vector<std::uint64_t> counts;
    std::vector<double> bounds;
    std::string_view label_value;
};

inline std::optional<NativeHistogramInput> read_native_histogram(const std::uint8_t* data,
                                                                 std::size_t size) {
    if (size < 4)
        return std::nullopt;
    NativeHistogramInput in;
    const std::size_t n = data[0] % 32 + 1;
    in.layout.schema = data[1] % 13 - 4;
    in.layout.zero_threshold = data[3] ? 1 : 0;
    std::int32_t index = static_cast<std::int8_t>(data[2]);
    std::size_t pos = 4;
    for (std::size_t b = 0; b < n; ++b) {
        std::uint8_t gap = pos < size ? data[pos++] : 1;
        std::uint64_t c = pos + 1 < size ? (data[pos] | (data[pos + 1] << 8)) : 0;
        pos += 2;
        if (b < data[3] % 4) {
            in.layout.index.push_back(NativeLayout::zero_bucket);
        } else {
            index += gap % 4 + 1;
            in.layout.index.push_back(index);
        }
        in.counts.push_back(c);
    }
    in.label_value = std::string_view(reinterpret_cast<const char*>(data) + std::min(pos, size),
                                      size - std::min(pos, size));
    in.bounds.assign(n - 1, 1.0);
    return in;
}

// The input written as the one histogram of family "f" (label v = its label
// value, sum 1.5) of a protobuf exposition. Every layout read above is
// valid: an error is a bug, and stops the fuzzer.
inline std::string protobuf_exposition(const NativeHistogramInput& in) {
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("f", MetricType::histogram, "", "help");
    try {
        w.histogram(Labels().add("v", in.label_value), in.bounds, in.counts, 1.5, &in.layout);
    } catch (const Error&) {
        __builtin_trap();
    }
    return w.finish();
}

}  // namespace iotally::fuzz
