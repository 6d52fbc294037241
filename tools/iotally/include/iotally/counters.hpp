// SPDX-License-Identifier: GPL-2.0-or-later
// Counters of an area, region, group or device, with every time in
// nanoseconds whatever the region's timestamp precision.
#pragma once

#include <cstdint>

#include "iotally/message.hpp"

namespace iotally {

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

// Converts printed counters: precise regions count in ns, others in ms.
IoCounters normalize(const RawCounters& raw, bool precise_timestamps);

// True when any cumulative counter of `current` is below `previous`: the
// region was cleared (or re-created under the same id) in between.
bool counters_went_back(const IoCounters& current, const IoCounters& previous);

}  // namespace iotally
