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
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/util/error.hpp"
#include "native_histogram_input.hpp"

using namespace iotally;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto in = fuzz::read_native_histogram(data, size);
    if (!in)
        return 0;
    const NativeLayout& l = in->layout;
    const std::vector<std::uint64_t>& counts = in->counts;
    const std::size_t n = counts.size();
    const std::string_view value = in->label_value;

    auto fams = test::families(fuzz::protobuf_exposition(*in));
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
