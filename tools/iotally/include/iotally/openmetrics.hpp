// SPDX-License-Identifier: GPL-2.0-or-later
// Snapshots as OpenMetrics 1.0 text or Prometheus text format 0.0.4.
#pragma once

#include <string>

#include "iotally/snapshot.hpp"

namespace iotally {

enum class ExpositionFormat { openmetrics, prometheus };

struct ExportOptions {
    ExpositionFormat format = ExpositionFormat::openmetrics;
    bool areas = false;  // one series per area as well (cardinality!)
};

std::string render_exposition(const Snapshot& snapshot, const ExportOptions& options = {});

// Label value escaping of both formats: backslash, double quote, newline.
std::string escape_label_value(std::string_view value);

}  // namespace iotally
