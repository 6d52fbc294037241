// SPDX-License-Identifier: GPL-2.0-or-later
// The exporter's per-cgroup collector: CgroupSampler's samples as the
// iotally_cgroup_* families (part of libiotally_exporter).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "iotally/exporter/exporter.hpp"
#include "iotally/taskstats/cgroup_sampler.hpp"

namespace iotally {

// The iotally_cgroup_* families of `serve --cgroups`, and the kernel's
// io.stat of each cgroup series beside them.
std::unique_ptr<Collector> make_cgroup_collector(CgroupOptions options);

struct CgroupListenerCounts {
    std::uint64_t exits = 0, lost_messages = 0, overflows = 0, unaccounted_exits = 0;
    // The BPF backend: bios, waits and exit records a full map or ring
    // buffer cost (iotally_cgroup_bpf_dropped, only then).
    bool bpf = false;
    std::uint64_t bpf_dropped = 0;
};
// One line of a series' io.stat, its device by kernel name.
struct CgroupDeviceStat {
    std::string cgroup, device;
    CgroupIoStat stat;
};
// Writes the families (what the collector does after sampling).
void write_cgroup_families(ExpositionWriter& w, const std::map<std::string, TaskIo>& series,
                           const CgroupListenerCounts& counts,
                           const std::vector<CgroupDeviceStat>& devices);

}  // namespace iotally
