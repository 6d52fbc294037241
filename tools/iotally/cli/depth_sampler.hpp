// SPDX-License-Identifier: GPL-2.0-or-later
// The in-flight counts of devices and regions sampled between two reports,
// for the %qdN fields (saturation.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "app.hpp"
#include "block_devices.hpp"
#include "iotally/block/saturation.hpp"

namespace iotally::cli {

class DepthSampler {
  public:
    // Samples every `period_s`; regions (one @stats_print each a sample)
    // only with `regions`.
    DepthSampler(Context& ctx, double period_s, bool regions);
    // What to sample from now on: the devices and regions of `sample`. The
    // tallies of those that are still there go on.
    void track(const Sample& sample);
    // Samples until the clock reaches `until`, sleeping between samples.
    void run_until(double until);
    // Sets stats.depth_pct of the rows it has sampled, and starts the next
    // interval.
    void fill(std::vector<ReportRow>& rows);

  private:
    void tick();

    struct Device {
        std::string disk, partition;
        DepthTally tally;
    };
    struct Region {
        std::optional<std::uint64_t> group;
        DepthTally tally;
        std::vector<DepthTally> areas;
    };
    using RegionKey = std::tuple<std::string, std::uint64_t>;  // dm name, id

    Context& ctx_;
    double period_s_;
    bool regions_;
    std::map<std::string, Device> devices_;  // by kernel name
    std::map<RegionKey, Region> region_tallies_;
    std::map<RegionKey, DepthTally> groups_;  // dm name, group id
};

}  // namespace iotally::cli
