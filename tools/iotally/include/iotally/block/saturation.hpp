// SPDX-License-Identifier: GPL-2.0-or-later
// Saturation that %util cannot show: the fraction of time a device or region
// had at least N I/Os in flight, from in-flight counts sampled over time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace iotally {

// The depths reported: %qd1 ... %qd128 ("at least N in flight").
inline constexpr std::array<std::uint32_t, 8> depth_thresholds{1, 2, 4, 8, 16, 32, 64, 128};
using DepthFractions = std::array<double, depth_thresholds.size()>;

// Sample and hold: the count seen at one sample is taken to hold until the
// next one, so each sample stands for the time up to the next. Over an
// interval of L seconds sampled every T seconds, the fraction at or above N
// is off by at most T/L for each time the count crossed N, and by nothing
// for a count that stayed on one side of N (iotally(8), SATURATION).
class DepthTally {
  public:
    // A sample taken at `t_s` (monotonic seconds). A time that goes back, or
    // a negative count (a counter caught mid-update), is dropped.
    void sample(double t_s, std::int64_t in_flight);
    // The fraction of the sampled time at or above each threshold; absent
    // until two samples span some time.
    std::optional<DepthFractions> fractions() const;
    std::uint64_t samples() const { return samples_; }
    // The sampled time, and the part of it at or above each threshold,
    // since the first sample or restart(): cumulative counters for serve.
    double span_s() const { return span_s_; }
    const std::array<double, depth_thresholds.size()>& at_least_s() const { return at_least_s_; }
    // A new interval from the last sample on: its count keeps holding.
    void restart();

  private:
    std::optional<double> last_t_;
    std::int64_t last_n_ = 0;
    double span_s_ = 0;
    std::array<double, depth_thresholds.size()> at_least_s_{};
    std::uint64_t samples_ = 0;
};

// In flight on a block device now: /sys/block/<disk>[/<partition>]/inflight
// (reads + writes). Absent when the device is gone; Error(parse) when the
// file is not two numbers.
std::optional<std::int64_t> read_block_inflight(const std::string& sysfs_root,
                                                const std::string& disk,
                                                const std::string& partition = "");

// The two numbers of an inflight file, summed; Error(parse) otherwise.
std::int64_t parse_inflight(std::string_view text);

}  // namespace iotally
