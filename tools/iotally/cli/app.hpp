// SPDX-License-Identifier: GPL-2.0-or-later
// The iotally command line: a thin layer over libiotally.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iotally/dm-stats/device.hpp"
#include "iotally/util/backend.hpp"

namespace CLI {
class App;
}

namespace iotally::cli {

// What a command may touch; tests substitute every part.
struct Context {
    std::function<std::unique_ptr<DeviceLayer>()> make_layer = make_devmapper_layer;
    std::ostream* out = nullptr;
    std::ostream* err = nullptr;
    std::string debugfs = "/sys/kernel/debug";
    std::function<void(double seconds)> sleep;  // default: nanosleep
    std::function<bool()> interactive;          // stdout is a terminal
    std::function<int()> terminal_width;
    std::function<double()> clock;              // default: CLOCK_MONOTONIC
    std::function<std::int64_t()> realtime_ns;  // default: CLOCK_REALTIME
    std::function<double()> uptime_s;           // default: /proc/uptime
    std::string sysfs = "/sys";
    std::string proc = "/proc";  // report -c reads proc/stat
    // --backend: where snoop, tasks and serve --cgroups take their data
    // from (iotally/util/backend.hpp); -v: each says which one runs, on err.
    Backend backend = Backend::automatic;
    bool verbose = false;

    DeviceLayer& layer();

  private:
    std::unique_ptr<DeviceLayer> layer_;
};

// Runs one command line (args without the program name); returns the exit code.
int run(const std::vector<std::string>& args, Context& ctx);

// Command registration, one file each.
using Action = std::function<void()>;
struct Registry {
    CLI::App& app;
    Context& ctx;
    bool& json;
    std::vector<std::pair<CLI::App*, Action>>& actions;
    void add(CLI::App* sub, Action action) { actions.emplace_back(sub, std::move(action)); }
};

// One per file cli/cmd_NAME.cpp, each adding its subcommands.
void register_message(Registry& r);
void register_region(Registry& r);
void register_file(Registry& r);
void register_report(Registry& r);
void register_histogram(Registry& r);
void register_top(Registry& r);
void register_export(Registry& r);
void register_stat(Registry& r);
void register_serve(Registry& r);
void register_snoop(Registry& r);
void register_tasks(Registry& r);

// The command table, as bpftool's cmds[]: `iotally help` lists the
// subcommands in this order. `file` is NAME of cli/cmd_NAME.cpp (GoogleTest
// CommandTable.OneEntryPerFile keeps the two equal).
struct CommandFile {
    std::string_view file;
    void (*add)(Registry&);
};
std::span<const CommandFile> command_table();

}  // namespace iotally::cli

#include "iotally/dm-stats/filemap.hpp"

namespace iotally::cli {

// Shared by 'create --file' and 'update --file' (cmd_file.cpp).
void create_file_map(Context& ctx, bool json, const std::string& path, const std::string& device,
                     const FileMapOptions& options);

// Resolves the device-mapper device a file system lives on.
std::string device_for_file(Context& ctx, const std::string& path);

}  // namespace iotally::cli

namespace iotally::cli {
// The heat strip of 'top': one character per column, " .:-=+*#%@" by bytes.
std::string heat_strip(const std::vector<std::uint64_t>& area_bytes, std::size_t width);
}  // namespace iotally::cli
