// SPDX-License-Identifier: GPL-2.0-or-later
// iostat -x's arithmetic on a block device's own counters.
#pragma once

#include <optional>

#include "iotally/block/diskstats.hpp"
#include "iotally/metrics/metrics.hpp"

namespace iotally {

// `previous` null: since boot (`elapsed_s` then is the uptime, as iostat's
// first report). Discards and flushes are filled in when the kernel counts
// them (stat files of 15 and 17 fields); per-direction busy time does not
// exist for devices and stays absent.
DerivedRates compute_device_rates(const BlockStat& current, const BlockStat* previous,
                                  std::optional<double> elapsed_s);

}  // namespace iotally
