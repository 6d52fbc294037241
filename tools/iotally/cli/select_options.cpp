// SPDX-License-Identifier: GPL-2.0-or-later
#include "select_options.hpp"

#include <CLI/CLI.hpp>

namespace iotally::cli {

void add_select_options(CLI::App& sub, SelectArgs& select, const std::string& select_help) {
    sub.add_option("--select", select.exprs, select_help)->type_name("EXPR");
    sub.add_option("--select-mode", select.mode,
                   "add, only, remove or add-only (devstat; default: only when anything is "
                   "named, else add)")
        ->type_name("MODE");
    sub.add_option("--max", select.max, "At most N devices (devstat's maxshowdevs)")
        ->type_name("N");
}

}  // namespace iotally::cli
