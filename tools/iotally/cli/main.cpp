// SPDX-License-Identifier: GPL-2.0-or-later
#include <string>
#include <vector>

#include "app.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    iotally::cli::Context ctx;
    return iotally::cli::run(args, ctx);
}
