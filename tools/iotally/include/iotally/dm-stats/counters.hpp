// SPDX-License-Identifier: GPL-2.0-or-later
// Counters of an area, region, group or device (IoCounters, in
// dmstats_counters.hpp), with every time in nanoseconds whatever the
// region's timestamp precision.
#pragma once

#include <cstdint>

#include "iotally/dm-stats/dmstats_counters.hpp"
#include "iotally/dm-stats/message.hpp"

namespace iotally {

// Converts printed counters: precise regions count in ns, others in ms.
IoCounters normalize(const RawCounters& raw, bool precise_timestamps);

// True when any cumulative counter of `current` is below `previous`: the
// region was cleared (or re-created under the same id) in between.
bool counters_went_back(const IoCounters& current, const IoCounters& previous);

}  // namespace iotally
