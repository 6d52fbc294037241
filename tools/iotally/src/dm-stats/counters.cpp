// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/counters.hpp"

#include "iotally/util/units.hpp"

namespace iotally {

IoCounters& IoCounters::operator+=(const IoCounters& o) {
    for (const auto& f : dmstats_counters)
        if (f.value)
            this->*f.value += o.*f.value;
    in_flight += o.in_flight;
    return *this;
}

IoCounters normalize(const RawCounters& raw, bool precise_timestamps) {
    // Without precise_timestamps the kernel prints milliseconds. (The
    // counters wrap as the kernel's do: a delta is taken of them.)
    const std::uint64_t scale = region_time_unit(precise_timestamps).ns_per_unit;
    IoCounters c;
    for (const auto& f : dmstats_counters)
        if (f.value)
            c.*f.value = raw.*f.raw * (f.unit == CounterUnit::time ? scale : 1);
    c.in_flight = raw.in_flight;
    return c;
}

bool counters_went_back(const IoCounters& cur, const IoCounters& prev) {
    for (const auto& f : dmstats_counters)
        if (f.value && cur.*f.value < prev.*f.value)
            return true;
    return false;
}

}  // namespace iotally
