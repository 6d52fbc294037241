// SPDX-License-Identifier: GPL-2.0-or-later
// Files as regions: FIEMAP extents become one region per extent, grouped
// (dmstats style) under the file's name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/dm-stats/stats_client.hpp"

namespace iotally {

struct Extent {
    std::uint64_t logical = 0;   // bytes
    std::uint64_t physical = 0;  // bytes, on the file system's device
    std::uint64_t length = 0;    // bytes
};

struct FileInfo {
    std::uint32_t dev_major = 0;
    std::uint32_t dev_minor = 0;
    std::vector<Extent> extents;  // physically contiguous extents merged
};

// The device a regular file lives on, without its extents. Throws Error.
FileInfo stat_file(const std::string& path);

// FS_IOC_FIEMAP on the file (synced first). Throws Error.
FileInfo map_file(const std::string& path);

// Merges extents that continue each other on disk; drops empty ones.
std::vector<Extent> merge_extents(std::vector<Extent> extents);

// Sector ranges for the extents (rounded out to whole sectors).
std::vector<SectorRange> extent_ranges(const std::vector<Extent>& extents);

struct FileMapOptions {
    std::string alias;  // group alias; the file's base name by default
    // dmstats' own program_id, so that `dmstats list` and update_filemap see it.
    std::string program_id = std::string(dmstats_program_id);
    bool precise_timestamps = false;
    std::vector<std::uint64_t> histogram;  // region time unit
};

// Creates one region per range and the group; all or nothing.
// Returns the region ids, the group id being the first.
std::vector<std::uint64_t> create_file_regions(StatsClient& client,
                                               const std::vector<SectorRange>& ranges,
                                               const FileMapOptions& options);

// Re-maps an existing group (by id) onto `ranges`: keeps regions whose range
// is unchanged, deletes vanished ones, creates new ones and rewrites the tag.
// Returns the new member ids.
std::vector<std::uint64_t> update_file_regions(StatsClient& client, std::uint64_t group_id,
                                               const std::vector<SectorRange>& ranges);

}  // namespace iotally
