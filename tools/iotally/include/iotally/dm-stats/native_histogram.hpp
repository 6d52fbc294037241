// SPDX-License-Identifier: GPL-2.0-or-later
// Prometheus native (exponential) histograms over the kernel's exponential
// buckets. With schema s, native bucket index i covers the values
// (2^((i-1)·2^-s), 2^(i·2^-s)], and the zero bucket [-t, t] for the
// zero threshold t. A NativeLayout says which native bucket each kernel
// bucket is, so that a scrape can send the kernel's counts unchanged
// (Documentation/iotally-exporter.rst, "Native histograms").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace iotally {

struct NativeLayout {
    static constexpr std::int32_t zero_bucket = INT32_MIN;
    std::int32_t schema = 0;
    double zero_threshold = 0;
    // One per kernel bucket: its native index, or zero_bucket. Kernel
    // buckets in zero_bucket come first; the indices after them ascend
    // strictly.
    std::vector<std::int32_t> index;
};

// Throws Error(usage) unless `layout` is well formed for `buckets` kernel
// buckets (schema -4..8, as Prometheus takes them).
void check_native_layout(const NativeLayout& layout, std::size_t buckets);

// The sparse form Prometheus sends: spans of consecutive indices (offset
// from the end of the previous span, the first from index 0) and the bucket
// counts, each as the difference from the previous bucket's.
struct NativeBuckets {
    std::uint64_t zero_count = 0;
    std::vector<std::pair<std::int32_t, std::uint32_t>> spans;  // (offset, length)
    std::vector<std::int64_t> deltas;
};
NativeBuckets native_buckets(const NativeLayout& layout, const std::vector<std::uint64_t>& counts);

// ---- dm-stats regions that `iotally create --histogram native[:SCHEMA]` makes.
// Their boundaries are the powers 2^(k·2^-SCHEMA) seconds for k from
// -20·2^SCHEMA to 6·2^SCHEMA (about 0.95 us to 64 s), each written in whole
// nanoseconds as floor(x) + 1: the kernel's bucket [floor(x_(k-1)) + 1,
// floor(x_k) + 1) then holds exactly the integer durations in (x_(k-1), x_k],
// native bucket k.
inline constexpr int native_schema_min = 0;
inline constexpr int native_schema_max = 4;
inline constexpr int native_exponent_min = -20;  // 2^-20 s
inline constexpr int native_exponent_max = 6;    // 2^6 s

// Boundary k of schema s in ns (floor(2^(k·2^-s) · 1e9) + 1).
std::uint64_t native_bound_ns(int schema, std::int32_t k);
// The boundaries of `iotally create --histogram native:SCHEMA`.
std::vector<std::uint64_t> native_region_bounds(int schema);
// "native" (schema 0) or "native:SCHEMA": the boundaries; nullopt for any
// other text (a list of durations). Throws Error(usage) for a bad schema.
std::optional<std::vector<std::uint64_t>> parse_native_histogram(std::string_view text);
// The layout of a precise region whose boundaries are consecutive native
// boundaries of one schema (any range of k, at least one boundary); nullopt
// for any other boundaries. The durations are in seconds: the zero bucket is
// [0, x_first], the kernel's last bucket (at or above the last boundary) is
// counted in the native bucket above the last boundary.
std::optional<NativeLayout> region_native_layout(const std::vector<std::uint64_t>& bounds_ns,
                                                 bool precise);

// ---- The per-task I/O wait histogram of taskstats (TASKSTATS_TYPE_IO), in
// ns: bucket 0 holds [0, 2^shift), bucket b holds [2^(b+shift-1),
// 2^(b+shift)), the last one everything above. Schema 0, zero threshold
// 2^shift; bucket b is native index b + shift. A wait of exactly 2^j ns is
// the one value the two conventions put in different buckets (the kernel's
// lower bounds are inclusive, Prometheus' upper ones).
NativeLayout task_wait_native_layout(unsigned hist_shift, std::size_t buckets);
// Its classic upper bounds, in ns (one fewer than the buckets).
std::vector<double> task_wait_classic_bounds_ns(unsigned hist_shift, std::size_t buckets);

// ---- The generic statistics layer's array statistics with scale=log2,
// range_min=0 and a power-of-two base_interval 2^p: "<=0" holds X = 0, "<=b"
// holds (previous bound, b] exactly as native bucket log2(b) does, the ">"
// line (last bound, range_max] lies inside the native bucket above. X is an
// integer: "<=0" is the zero bucket [0, 1/2] (p = 0), or with "<=2^p" the
// zero bucket [0, 2^p] (p > 0).
// `bounds` are the array's bounds in order (the numbers after "<=").
std::optional<NativeLayout> statistic_log2_layout(const std::vector<long long>& bounds);

}  // namespace iotally
