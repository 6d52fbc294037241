// SPDX-License-Identifier: GPL-2.0-or-later
// A source `iotally serve` was asked for but cannot read for good in this
// process (a capability it does not hold: capabilities do not change while
// it runs): iotally_source_up{source} 0 at every scrape, the reason said
// once, no scrape error, and the other sources served.
#pragma once

#include <memory>
#include <string>

#include "iotally/exporter/exporter.hpp"

namespace iotally {

std::unique_ptr<Collector> make_unavailable_collector(std::string source, std::string why);

}  // namespace iotally
