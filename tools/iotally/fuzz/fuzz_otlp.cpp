// SPDX-License-Identifier: GPL-2.0-or-later
// The OTLP request of serve --otlp: native histograms of arbitrary counts and
// layouts, and label values of arbitrary bytes, written by the exposition,
// turned into OTLP and read back by the tests' independent decoder. What
// goes in must come out: the attribute, the count, the zero bucket, the
// scale, and every kernel bucket's count at OTLP index native - 1, nothing
// elsewhere. The input is read as fuzz_protobuf's (native_histogram_input.hpp).
#include <cstdint>
#include <map>
#include <string_view>

#include "../tests/protobuf_decoder.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/exporter/otlp_request.hpp"
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

    std::string request;
    try {
        request = otlp_request(fuzz::protobuf_exposition(*in), {"host", "1"}, 1, 2);
    } catch (const Error&) {
        __builtin_trap();  // a valid exposition always converts
    }
    using namespace test;
    const Message rm = decode(one(decode(request), 1).bytes);
    const Message sm = decode(one(rm, 2).bytes);
    const Message metric = decode(one(sm, 2).bytes);
    if (one(metric, 1).bytes != "f")
        __builtin_trap();
    const Message p = decode(one(decode(one(metric, 10).bytes), 1).bytes);
    const Message attribute = decode(one(p, 1).bytes);
    if (one(attribute, 1).bytes != "v" || one(decode(one(attribute, 2).bytes), 1).bytes != value)
        __builtin_trap();
    std::map<std::int64_t, std::uint64_t> want;
    std::uint64_t total = 0, zero = 0;
    for (std::size_t b = 0; b < n; ++b) {
        total += counts[b];
        if (l.index[b] == NativeLayout::zero_bucket)
            zero += counts[b];
        else if (counts[b])
            want[l.index[b] - 1] = counts[b];
    }
    std::map<std::int64_t, std::uint64_t> got;
    const Message positive = decode(one(p, 8).bytes);
    std::int64_t at = positive.count(1) ? unzigzag(one(positive, 1).v) : 0;
    for (const auto& f : all(positive, 2)) {
        std::string_view packed = f.bytes;
        for (; !packed.empty(); ++at)
            if (std::uint64_t c = read_varint(packed))
                got[at] = c;
    }
    if (one(p, 4).v != total || one(p, 7).v != zero || unzigzag(one(p, 6).v) != l.schema ||
        as_double(one(p, 14)) != l.zero_threshold || got != want)
        __builtin_trap();
    return 0;
}
