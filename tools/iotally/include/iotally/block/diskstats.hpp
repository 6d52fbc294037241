// SPDX-License-Identifier: GPL-2.0-or-later
// Per-device block statistics from the kernel's own counters: every block
// device under /sys/block (dm and not), as iostat(1) and node_exporter read
// them. The fields are those of Documentation/block/stat.rst, in its order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/util/device_id.hpp"

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

// The fields of a stat line described once, in the kernel's column order
// (Documentation/block/stat.rst): the member, the unit, the Prometheus family
// of `iotally serve` and node_exporter's name. The parser, the deltas of
// compute_device_rates() and the exposition walk this table. Its
// first 11 columns are those of dm-stats (dmstats_counters.hpp).
enum class BlockStatUnit { count, sectors, ms, in_flight };
struct BlockStatField {
    std::uint64_t BlockStat::*member;
    BlockStatUnit unit;
    std::string_view family;  // without _total
    std::string_view help;
    std::string_view node_exporter;
};
inline constexpr std::array<BlockStatField, 17> block_stat_fields{{
    {&BlockStat::read_ios, BlockStatUnit::count, "iotally_device_reads_completed",
     "Reads completed (node_disk_reads_completed_total).", "node_disk_reads_completed_total"},
    {&BlockStat::read_merges, BlockStatUnit::count, "iotally_device_reads_merged", "Reads merged.",
     "node_disk_reads_merged_total"},
    {&BlockStat::read_sectors, BlockStatUnit::sectors, "iotally_device_read_bytes", "Bytes read.",
     "node_disk_read_bytes_total"},
    {&BlockStat::read_ticks_ms, BlockStatUnit::ms, "iotally_device_read_time_seconds",
     "Sum of the durations of reads.", "node_disk_read_time_seconds_total"},
    {&BlockStat::write_ios, BlockStatUnit::count, "iotally_device_writes_completed",
     "Writes completed (discards not included).", "node_disk_writes_completed_total"},
    {&BlockStat::write_merges, BlockStatUnit::count, "iotally_device_writes_merged",
     "Writes merged.", "node_disk_writes_merged_total"},
    {&BlockStat::write_sectors, BlockStatUnit::sectors, "iotally_device_written_bytes",
     "Bytes written.", "node_disk_written_bytes_total"},
    {&BlockStat::write_ticks_ms, BlockStatUnit::ms, "iotally_device_write_time_seconds",
     "Sum of the durations of writes.", "node_disk_write_time_seconds_total"},
    {&BlockStat::in_flight, BlockStatUnit::in_flight, "iotally_device_io_now",
     "I/Os in flight (node_disk_io_now).", "node_disk_io_now"},
    {&BlockStat::io_ticks_ms, BlockStatUnit::ms, "iotally_device_io_time_seconds",
     "Time with I/O in flight.", "node_disk_io_time_seconds_total"},
    {&BlockStat::time_in_queue_ms, BlockStatUnit::ms, "iotally_device_io_time_weighted_seconds",
     "Time with I/O in flight, weighted by the number in flight.",
     "node_disk_io_time_weighted_seconds_total"},
    {&BlockStat::discard_ios, BlockStatUnit::count, "iotally_device_discards_completed",
     "Discards completed.", "node_disk_discards_completed_total"},
    {&BlockStat::discard_merges, BlockStatUnit::count, "iotally_device_discards_merged",
     "Discards merged.", "node_disk_discards_merged_total"},
    {&BlockStat::discard_sectors, BlockStatUnit::sectors, "iotally_device_discarded_bytes",
     "Bytes discarded.", "node_disk_discarded_sectors_total"},
    {&BlockStat::discard_ticks_ms, BlockStatUnit::ms, "iotally_device_discard_time_seconds",
     "Sum of the durations of discards.", "node_disk_discard_time_seconds_total"},
    {&BlockStat::flush_ios, BlockStatUnit::count, "iotally_device_flush_requests",
     "Flushes completed.", "node_disk_flush_requests_total"},
    {&BlockStat::flush_ticks_ms, BlockStatUnit::ms, "iotally_device_flush_requests_time_seconds",
     "Sum of the durations of flushes.", "node_disk_flush_requests_time_seconds_total"},
}};

// Parses the text of a stat file (11, 15 or 17 or more decimal fields);
// throws Error(parse) on anything else.
BlockStat parse_block_stat(std::string_view text);

struct BlockDevice {
    // kernel_name (sda, sda1, nvme0n1, dm-0), dev_t, size and driver; dm_name
    // and dm_uuid from <dev>/dm/ for a device-mapper device. No targets: only
    // device-mapper's table has them (join_devices() in device_join.hpp).
    DeviceId id;
    std::string parent;  // the whole disk of a partition; "" for a disk
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
