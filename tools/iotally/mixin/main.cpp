// SPDX-License-Identifier: GPL-2.0-or-later
// iotally-mixin: writes the monitoring mixin (Documentation/iotally-mixin.rst)
// into DIR, or with --check says whether DIR holds exactly what it writes.
//
//   iotally-mixin DIR          write the files
//   iotally-mixin --check DIR  exit 0 if every file equals the output, 1 if not
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mixin.hpp"

namespace {

std::vector<std::pair<std::string, std::string>> files() {
    using namespace iotally::mixin;
    const auto rules = recording_rules();
    const auto al = alerts();
    const auto panels = dashboard_panels();
    return {{"iotally-rules.yml", rules_yaml(rules)},
            {"iotally-alerts.yml", alerts_yaml(al)},
            {"grafana-iotally.json", dashboard_json(panels)},
            {"queries.txt", queries_text(rules, al, panels)}};
}

int usage() {
    std::cerr << "usage: iotally-mixin [--check] DIR\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    const bool check = argc == 3 && std::string(argv[1]) == "--check";
    if (argc != 2 && !check)
        return usage();
    const std::string dir = argv[argc - 1];
    int stale = 0;
    for (const auto& [name, text] : files()) {
        const std::string path = dir + "/" + name;
        if (check) {
            std::ifstream in(path);
            std::ostringstream have;
            have << in.rdbuf();
            if (!in || have.str() != text) {
                std::cerr << fmt::format(
                    "iotally-mixin: {} is not what the generator writes (edited, or a metric "
                    "table changed): cmake --build BUILD --target mixin\n",
                    path);
                ++stale;
            }
            continue;
        }
        std::ofstream out(path, std::ios::trunc);
        out << text;
        if (!out.flush()) {
            std::cerr << fmt::format("iotally-mixin: cannot write {}\n", path);
            return 1;
        }
    }
    return stale ? 1 : 0;
}
