// SPDX-License-Identifier: GPL-2.0-or-later
// The 13 counters of a dm-stats area, described once: the column of
// @stats_print, the member that holds it as printed (RawCounters) and with
// times in nanoseconds (IoCounters), its unit, the key of `iotally -j
// print`, the Prometheus family of `iotally serve` and node_exporter's name
// for the same quantity of a whole disk. The parser and printer of
// @stats_print, normalize(), the sums and deltas, `-j print` and the
// exposition all walk `dmstats_counters`.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace iotally {

// The 13 counters of one area, as the kernel prints them. Times are in
// milliseconds, or nanoseconds for precise_timestamps regions.
struct RawCounters {
    std::uint64_t reads = 0;
    std::uint64_t reads_merged = 0;
    std::uint64_t read_sectors = 0;
    std::uint64_t read_time = 0;
    std::uint64_t writes = 0;
    std::uint64_t writes_merged = 0;
    std::uint64_t write_sectors = 0;
    std::uint64_t write_time = 0;
    std::int64_t in_flight = 0;  // printed with %d by the kernel
    std::uint64_t io_time = 0;
    std::uint64_t weighted_time = 0;
    std::uint64_t read_busy_time = 0;
    std::uint64_t write_busy_time = 0;
    bool operator==(const RawCounters&) const = default;
};

// Counters of an area, region, group or device, with every time in
// nanoseconds whatever the region's timestamp precision.
struct IoCounters {
    std::uint64_t reads = 0;
    std::uint64_t reads_merged = 0;
    std::uint64_t read_sectors = 0;
    std::uint64_t read_time_ns = 0;
    std::uint64_t writes = 0;
    std::uint64_t writes_merged = 0;
    std::uint64_t write_sectors = 0;
    std::uint64_t write_time_ns = 0;
    std::int64_t in_flight = 0;
    std::uint64_t io_time_ns = 0;
    std::uint64_t weighted_time_ns = 0;
    std::uint64_t read_busy_ns = 0;
    std::uint64_t write_busy_ns = 0;

    IoCounters& operator+=(const IoCounters& other);
    bool operator==(const IoCounters&) const = default;
};

enum class CounterUnit {
    count,      // events
    sectors,    // 512-byte sectors (the exposition says bytes)
    time,       // ms or ns as printed (units.hpp: region_time_unit), ns normalised
    in_flight,  // a signed gauge, not a counter: its members are the int64_t in_flight
};

struct CounterField {
    std::string_view json_key;  // `iotally -j print` (as the kernel's documentation names it)
    CounterUnit unit;
    std::uint64_t RawCounters::*raw;   // as printed; nullptr for in_flight
    std::uint64_t IoCounters::*value;  // normalised; nullptr for in_flight
    std::string_view family;           // `iotally serve`, without _total
    std::string_view help;
    std::string_view node_exporter;  // node_disk_* of a whole disk; "" where it has none
};

// In the column order of @stats_print (Documentation/admin-guide/
// device-mapper/statistics.rst).
inline constexpr std::array<CounterField, 13> dmstats_counters{{
    {"reads", CounterUnit::count, &RawCounters::reads, &IoCounters::reads,
     "iotally_region_reads_completed", "Reads completed (node_disk_reads_completed_total).",
     "node_disk_reads_completed_total"},
    {"reads_merged", CounterUnit::count, &RawCounters::reads_merged, &IoCounters::reads_merged,
     "iotally_region_reads_merged", "Reads merged with an adjacent read.",
     "node_disk_reads_merged_total"},
    {"read_sectors", CounterUnit::sectors, &RawCounters::read_sectors, &IoCounters::read_sectors,
     "iotally_region_read_bytes", "Bytes read.", "node_disk_read_bytes_total"},
    {"read_time", CounterUnit::time, &RawCounters::read_time, &IoCounters::read_time_ns,
     "iotally_region_read_time_seconds", "Sum of the durations of completed reads.",
     "node_disk_read_time_seconds_total"},
    {"writes", CounterUnit::count, &RawCounters::writes, &IoCounters::writes,
     "iotally_region_writes_completed", "Writes completed; dm-stats counts discards as writes.",
     "node_disk_writes_completed_total"},
    {"writes_merged", CounterUnit::count, &RawCounters::writes_merged, &IoCounters::writes_merged,
     "iotally_region_writes_merged", "Writes merged with an adjacent write.",
     "node_disk_writes_merged_total"},
    {"write_sectors", CounterUnit::sectors, &RawCounters::write_sectors, &IoCounters::write_sectors,
     "iotally_region_written_bytes", "Bytes written (discarded bytes included).",
     "node_disk_written_bytes_total"},
    {"write_time", CounterUnit::time, &RawCounters::write_time, &IoCounters::write_time_ns,
     "iotally_region_write_time_seconds", "Sum of the durations of completed writes.",
     "node_disk_write_time_seconds_total"},
    {"in_flight", CounterUnit::in_flight, nullptr, nullptr, "iotally_region_io_now",
     "I/Os in flight (node_disk_io_now).", "node_disk_io_now"},
    {"io_time", CounterUnit::time, &RawCounters::io_time, &IoCounters::io_time_ns,
     "iotally_region_io_time_seconds", "Time with at least one I/O in flight.",
     "node_disk_io_time_seconds_total"},
    {"weighted_io_time", CounterUnit::time, &RawCounters::weighted_time,
     &IoCounters::weighted_time_ns, "iotally_region_io_time_weighted_seconds",
     "Time with I/O in flight, weighted by the number in flight.",
     "node_disk_io_time_weighted_seconds_total"},
    {"read_busy_time", CounterUnit::time, &RawCounters::read_busy_time, &IoCounters::read_busy_ns,
     "iotally_region_read_busy_seconds", "Time with at least one read in flight.", ""},
    {"write_busy_time", CounterUnit::time, &RawCounters::write_busy_time,
     &IoCounters::write_busy_ns, "iotally_region_write_busy_seconds",
     "Time with at least one write in flight.", ""},
}};

}  // namespace iotally
