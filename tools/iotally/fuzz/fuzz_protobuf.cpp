// SPDX-License-Identifier: GPL-2.0-or-later
// The protobuf exposition: label values of arbitrary bytes and histograms of
// arbitrary counts and native layouts, encoded and read back by the tests'
// independent decoder. What goes in must come out: the labels, the count,
// and every non-empty bucket at its native index.
#include <cstdint>
#include <cstring>
#include <map>
#include <string_view>

#include "../tests/protobuf_decoder.hpp"
#include "iotally/error.hpp"
#include "iotally/exposition.hpp"
#include "iotally/native_histogram.hpp"

using namespace iotally;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4)
        return 0;
    // First byte: number of buckets; second: schema; third: start index;
    // fourth: how many kernel buckets go to the zero bucket; then one byte
    // of index gap and two of count per bucket; the rest is a label value.
    const std::size_t n = data[0] % 32 + 1;
    NativeLayout l;
    l.schema = data[1] % 13 - 4;
    l.zero_threshold = data[3] ? 1 : 0;
    std::int32_t index = static_cast<std::int8_t>(data[2]);
    std::vector<std::uint64_t> counts;
    std::size_t pos = 4;
    for (std::size_t b = 0; b < n; ++b) {
        std::uint8_t gap = pos < size ? data[pos++] : 1;
        std::uint64_t c = pos + 1 < size ? (data[pos] | (data[pos + 1] << 8)) : 0;
        pos += 2;
        if (b < data[3] % 4) {
            l.index.push_back(NativeLayout::zero_bucket);
        } else {
            index += gap % 4 + 1;
            l.index.push_back(index);
        }
        counts.push_back(c);
    }
    std::string_view value(reinterpret_cast<const char*>(data) + std::min(pos, size),
                           size - std::min(pos, size));
    std::vector<double> bounds(n - 1, 1.0);

    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("f", MetricType::histogram, "", "help");
    try {
        w.histogram(Labels().add("v", value), bounds, counts, 1.5, &l);
    } catch (const Error&) {
        __builtin_trap();  // every layout built above is valid
    }
    auto fams = test::families(w.finish());
    const test::Message m = test::decode(test::one(fams.at("f"), 4).bytes);
    if (test::labels_of(m).at("v") != value)
        __builtin_trap();
    test::Native got = test::native_of(test::decode(test::one(m, 7).bytes));
    std::map<std::int64_t, std::int64_t> want;
    std::uint64_t total = 0, zero = 0;
    for (std::size_t b = 0; b < n; ++b) {
        total += counts[b];
        if (l.index[b] == NativeLayout::zero_bucket)
            zero += counts[b];
        else if (counts[b])
            want[l.index[b]] = static_cast<std::int64_t>(counts[b]);
    }
    if (got.count != total || got.zero_count != zero || got.buckets != want ||
        got.schema != l.schema)
        __builtin_trap();
    return 0;
}
