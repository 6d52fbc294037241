// SPDX-License-Identifier: GPL-2.0-or-later
// The sources a scrape of `iotally serve` reads, and whether this scrape
// could read each: the gauge iotally_source_up{source}. A source that is
// missing (device-mapper not loaded yet, no /sys/block, a collector that
// cannot work, a privilege the process lacks) is not a scrape error: the
// families it feeds are empty until it appears, and the exporter keeps
// serving what it has.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "iotally/exporter/exposition.hpp"

namespace iotally {

// The sources (iotally_source_up lists them sorted by name):
//   dm          device-mapper: the dm devices and their dm-stats regions
//   block       /sys/block: the iotally_device_* families
//   tasks       taskstats (serve --tasks)
//   cgroups     taskstats or the BPF backend, per cgroup (serve --cgroups)
//   statistics  the generic statistics layer in debugfs (serve --statistics)
class SourceStates {
  public:
    // Records what this scrape found. A change (and a source first seen
    // missing) is passed to on_change once, as one line: "dm: WHY; ...".
    void set(const std::string& source, bool up, const std::string& why = {});
    bool up(const std::string& source) const;
    // # TYPE iotally_source_up gauge, one sample per source seen so far.
    void write(ExpositionWriter& w) const;

    std::function<void(const std::string&)> on_change;

  private:
    std::map<std::string, bool> up_;
};

}  // namespace iotally
