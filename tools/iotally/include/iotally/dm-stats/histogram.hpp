// SPDX-License-Identifier: GPL-2.0-or-later
// dm-stats latency histograms: boundaries b1 < b2 < ... < bn give n+1
// buckets [0,b1) [b1,b2) ... [bn,inf). The kernel puts a duration d in the
// bucket i with b_i <= d < b_{i+1}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iotally {

struct Histogram {
    std::vector<std::uint64_t> bounds_ns;
    std::vector<std::uint64_t> counts;  // bounds_ns.size() + 1

    std::uint64_t total() const;
    std::uint64_t lower_ns(std::size_t bucket) const;
    std::optional<std::uint64_t> upper_ns(std::size_t bucket) const;  // nullopt: unbounded
    bool valid() const { return counts.size() == bounds_ns.size() + 1; }
};

// Bucket-wise difference (counts that went back count from zero).
Histogram histogram_delta(const Histogram& current, const Histogram* previous);

// The p-th percentile (0 < p <= 100) by nearest rank: the rank k =
// ceil(p/100 * N) falls into one bucket; the true value lies in that bucket's
// [lower, upper) and the estimate interpolates linearly inside it (the lower
// bound for the unbounded last bucket). Absent for an empty histogram.
struct PercentileEstimate {
    double percentile = 0;
    double estimate_ns = 0;
    std::uint64_t lower_ns = 0;
    std::optional<std::uint64_t> upper_ns;
    std::size_t bucket = 0;
};
std::optional<PercentileEstimate> estimate_percentile(const Histogram& h, double p);

// A DTrace quantize()-style distribution: one row per bucket with its range,
// a bar of '@' scaled to `width` and the count, then p50/p90/p99 with bounds.
std::string render_quantize(const Histogram& h, int width = 40);

}  // namespace iotally
