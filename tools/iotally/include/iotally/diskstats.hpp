// SPDX-License-Identifier: GPL-2.0-or-later
// Per-device block statistics from the kernel's own counters: every block
// device under /sys/block (dm and not), as iostat(1) and node_exporter read
// them. The fields are those of Documentation/block/stat.rst, in its order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iotally {

// One /sys/block/<dev>/stat line. Sectors are always 512 B; times are ms.
// Kernels before 4.18 give 11 fields (no discards), before 5.5 15 (no
// flushes): `fields` says how many were present and the rest stay 0.
struct BlockStat {
    std::uint64_t read_ios = 0, read_merges = 0, read_sectors = 0, read_ticks_ms = 0;
    std::uint64_t write_ios = 0, write_merges = 0, write_sectors = 0, write_ticks_ms = 0;
    std::uint64_t in_flight = 0, io_ticks_ms = 0, time_in_queue_ms = 0;
    std::uint64_t discard_ios = 0, discard_merges = 0, discard_sectors = 0, discard_ticks_ms = 0;
    std::uint64_t flush_ios = 0, flush_ticks_ms = 0;
    unsigned fields = 0;
    bool operator==(const BlockStat&) const = default;
};

// Parses the text of a stat file (11, 15 or 17 or more decimal fields);
// throws Error(parse) on anything else.
BlockStat parse_block_stat(std::string_view text);

struct BlockDevice {
    std::string name;  // kernel name: sda, sda1, nvme0n1, dm-0
    std::uint32_t major = 0;
    std::uint32_t minor = 0;
    std::string parent;  // the whole disk of a partition; "" for a disk
    std::uint64_t size_sectors = 0;
    std::string driver;  // the bound driver of the disk's device ("virtio_blk"), or ""
    std::optional<std::string> dm_name;  // device-mapper devices only
    std::optional<std::string> dm_uuid;  // "" when the dm device has no uuid
    BlockStat stat;
    bool is_partition() const { return !parent.empty(); }
    bool operator==(const BlockDevice&) const = default;
};

struct DiskstatsOptions {
    std::string sysfs_root = "/sys";  // a fixture tree in tests
    bool partitions = false;          // also the partitions of each disk
};

// Every block device, sorted by major:minor (the order of /proc/diskstats
// for devices registered in order). A device that disappears while it is
// read is left out; a stat file in an unknown format throws Error(parse);
// no /sys/block at all throws Error(unsupported).
std::vector<BlockDevice> read_block_devices(const DiskstatsOptions& options = {});

}  // namespace iotally
