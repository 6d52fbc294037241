// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/counters.hpp"

#include "iotally/units.hpp"
namespace iotally {

IoCounters& IoCounters::operator+=(const IoCounters& o) {
    reads += o.reads;
    reads_merged += o.reads_merged;
    read_sectors += o.read_sectors;
    read_time_ns += o.read_time_ns;
    writes += o.writes;
    writes_merged += o.writes_merged;
    write_sectors += o.write_sectors;
    write_time_ns += o.write_time_ns;
    in_flight += o.in_flight;
    io_time_ns += o.io_time_ns;
    weighted_time_ns += o.weighted_time_ns;
    read_busy_ns += o.read_busy_ns;
    write_busy_ns += o.write_busy_ns;
    return *this;
}

IoCounters normalize(const RawCounters& raw, bool precise_timestamps) {
    // Without precise_timestamps the kernel prints milliseconds. (The
    // counters wrap as the kernel's do: a delta is taken of them.)
    const std::uint64_t scale = region_time_unit(precise_timestamps).ns_per_unit;
    IoCounters c;
    c.reads = raw.reads;
    c.reads_merged = raw.reads_merged;
    c.read_sectors = raw.read_sectors;
    c.read_time_ns = raw.read_time * scale;
    c.writes = raw.writes;
    c.writes_merged = raw.writes_merged;
    c.write_sectors = raw.write_sectors;
    c.write_time_ns = raw.write_time * scale;
    c.in_flight = raw.in_flight;
    c.io_time_ns = raw.io_time * scale;
    c.weighted_time_ns = raw.weighted_time * scale;
    c.read_busy_ns = raw.read_busy_time * scale;
    c.write_busy_ns = raw.write_busy_time * scale;
    return c;
}

bool counters_went_back(const IoCounters& cur, const IoCounters& prev) {
    return cur.reads < prev.reads || cur.reads_merged < prev.reads_merged ||
           cur.read_sectors < prev.read_sectors || cur.read_time_ns < prev.read_time_ns ||
           cur.writes < prev.writes || cur.writes_merged < prev.writes_merged ||
           cur.write_sectors < prev.write_sectors || cur.write_time_ns < prev.write_time_ns ||
           cur.io_time_ns < prev.io_time_ns || cur.weighted_time_ns < prev.weighted_time_ns ||
           cur.read_busy_ns < prev.read_busy_ns || cur.write_busy_ns < prev.write_busy_ns;
}

}  // namespace iotally
