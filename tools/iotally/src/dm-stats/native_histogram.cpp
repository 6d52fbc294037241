// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/native_histogram.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "iotally/util/error.hpp"

namespace iotally {

void check_native_layout(const NativeLayout& layout, std::size_t buckets) {
    if (layout.schema < -4 || layout.schema > 8)
        throw Error(ErrorKind::usage,
                    fmt::format("native histogram schema {} is outside -4..8", layout.schema));
    if (layout.index.size() != buckets)
        throw Error(ErrorKind::usage, fmt::format("native layout of {} buckets for {} counts",
                                                  layout.index.size(), buckets));
    if (!(layout.zero_threshold >= 0))
        throw Error(ErrorKind::usage, "native histogram zero threshold below 0");
    bool zero = true;
    std::int64_t last = INT64_MIN;
    for (auto i : layout.index) {
        if (i == NativeLayout::zero_bucket) {
            if (!zero)
                throw Error(ErrorKind::usage, "native layout: zero bucket after an index");
            continue;
        }
        zero = false;
        if (i <= last)
            throw Error(ErrorKind::usage, "native layout: indices do not ascend");
        last = i;
    }
}

NativeBuckets native_buckets(const NativeLayout& layout, const std::vector<std::uint64_t>& counts) {
    NativeBuckets nb;
    std::int64_t end = 0;  // index after the last span
    std::int64_t previous = 0;
    for (std::size_t b = 0; b < counts.size() && b < layout.index.size(); ++b) {
        const std::int32_t i = layout.index[b];
        if (i == NativeLayout::zero_bucket) {
            nb.zero_count += counts[b];
            continue;
        }
        if (!counts[b])
            continue;
        if (nb.spans.empty() || i != end) {
            const std::int64_t offset = nb.spans.empty() ? i : i - end;
            nb.spans.emplace_back(static_cast<std::int32_t>(offset), 0);
        }
        ++nb.spans.back().second;
        end = std::int64_t{i} + 1;
        const auto count = static_cast<std::int64_t>(counts[b]);
        nb.deltas.push_back(count - previous);
        previous = count;
    }
    return nb;
}

namespace {

// 2^(k·2^-s) seconds in ns; long double carries the 64 bits that the
// largest boundary (about 6.9e10 ns) and its fraction need.
long double native_power_ns(int schema, std::int32_t k) {
    return std::exp2l(static_cast<long double>(k) / static_cast<long double>(1 << schema)) * 1e9L;
}

}  // namespace

std::uint64_t native_bound_ns(int schema, std::int32_t k) {
    return static_cast<std::uint64_t>(std::floor(native_power_ns(schema, k))) + 1;
}

std::vector<std::uint64_t> native_region_bounds(int schema) {
    if (schema < native_schema_min || schema > native_schema_max)
        throw Error(ErrorKind::usage, fmt::format("--histogram native:{}: the schema is {} to {}",
                                                  schema, native_schema_min, native_schema_max));
    std::vector<std::uint64_t> bounds;
    const std::int32_t per = 1 << schema;
    for (std::int32_t k = native_exponent_min * per; k <= native_exponent_max * per; ++k)
        bounds.push_back(native_bound_ns(schema, k));
    return bounds;
}

std::optional<std::vector<std::uint64_t>> parse_native_histogram(std::string_view text) {
    if (text == "native")
        return native_region_bounds(0);
    if (!text.starts_with("native:"))
        return std::nullopt;
    std::string_view s = text.substr(7);
    if (s.empty() || s.size() > 2 || s.find_first_not_of("0123456789") != std::string_view::npos)
        throw Error(ErrorKind::usage,
                    fmt::format("--histogram {}: expected native or native:SCHEMA, SCHEMA {} to {}",
                                text, native_schema_min, native_schema_max));
    return native_region_bounds(std::stoi(std::string(s)));
}

std::optional<NativeLayout> region_native_layout(const std::vector<std::uint64_t>& bounds_ns,
                                                 bool precise) {
    if (!precise || bounds_ns.empty())
        return std::nullopt;
    for (int s = native_schema_min; s <= native_schema_max; ++s) {
        // The k whose boundary the first one is, if any.
        const long double first_s = static_cast<long double>(bounds_ns[0] - 1) / 1e9L;
        if (first_s <= 0)
            return std::nullopt;
        const auto k0 = static_cast<std::int32_t>(
            std::lround(std::log2(first_s) * static_cast<double>(1 << s)));
        bool match = true;
        for (std::size_t j = 0; j < bounds_ns.size() && match; ++j)
            match = bounds_ns[j] == native_bound_ns(s, k0 + static_cast<std::int32_t>(j));
        if (!match)
            continue;
        NativeLayout l;
        l.schema = s;
        l.zero_threshold = static_cast<double>(std::exp2l(static_cast<long double>(k0) / (1 << s)));
        l.index.push_back(NativeLayout::zero_bucket);
        for (std::size_t j = 1; j <= bounds_ns.size(); ++j)
            l.index.push_back(k0 + static_cast<std::int32_t>(j));
        return l;
    }
    return std::nullopt;
}

NativeLayout task_wait_native_layout(unsigned hist_shift, std::size_t buckets) {
    NativeLayout l;
    l.schema = 0;
    l.zero_threshold = std::ldexp(1.0, static_cast<int>(hist_shift));
    for (std::size_t b = 0; b < buckets; ++b)
        l.index.push_back(b == 0 ? NativeLayout::zero_bucket
                                 : static_cast<std::int32_t>(b + hist_shift));
    return l;
}

std::vector<double> task_wait_classic_bounds_ns(unsigned hist_shift, std::size_t buckets) {
    std::vector<double> bounds;
    for (std::size_t b = 0; b + 1 < buckets; ++b)
        bounds.push_back(std::ldexp(1.0, static_cast<int>(b + hist_shift)));
    return bounds;
}

std::optional<NativeLayout> statistic_log2_layout(const std::vector<long long>& bounds) {
    if (bounds.size() < 2 || bounds[0] != 0 || bounds[1] <= 0 || (bounds[1] & (bounds[1] - 1)))
        return std::nullopt;
    int p = 0;
    while ((1LL << p) != bounds[1])
        ++p;
    for (std::size_t j = 2; j < bounds.size(); ++j)
        if (p + static_cast<int>(j) - 1 >= 62 || bounds[j] != (1LL << (p + j - 1)))
            return std::nullopt;
    NativeLayout l;
    l.schema = 0;
    // "<=0" and, for p > 0, "<=2^p" ((0, 2^p]) in the zero bucket [0, 2^p].
    // For p = 0 the zero bucket [0, 1/2] holds the integer 0 alone; it is
    // not empty (Prometheus 2.42 reads a histogram with no zero threshold,
    // zero count or bucket count as a classic one).
    l.zero_threshold = p ? std::ldexp(1.0, p) : 0.5;
    l.index.push_back(NativeLayout::zero_bucket);
    l.index.push_back(p ? NativeLayout::zero_bucket : 0);
    for (std::size_t j = 2; j <= bounds.size(); ++j)  // the last is the ">" line
        l.index.push_back(p + static_cast<std::int32_t>(j) - 1);
    return l;
}

}  // namespace iotally
