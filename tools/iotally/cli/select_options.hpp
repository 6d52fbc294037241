// SPDX-License-Identifier: GPL-2.0-or-later
// The devstat(3) selection options that report, export and serve share.
#pragma once

#include <string>

#include "block_devices.hpp"

namespace CLI {
class App;
}

namespace iotally::cli {

// --select EXPR (described by `select_help`), --select-mode MODE and --max N,
// filling `select`.
void add_select_options(CLI::App& sub, SelectArgs& select, const std::string& select_help);

}  // namespace iotally::cli
