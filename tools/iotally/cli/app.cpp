// SPDX-License-Identifier: GPL-2.0-or-later
#include "app.hpp"

#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <iostream>

#include "iotally/error.hpp"
#include "iotally/snapshot.hpp"

namespace iotally::cli {

DeviceLayer& Context::layer() {
    if (!layer_)
        layer_ = make_layer();
    return *layer_;
}

namespace {

void default_sleep(double seconds) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(seconds);
    ts.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int default_width() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

const char* const description =
    "iotally: device-mapper I/O statistics without surprises.\n"
    "Regions, areas and histograms of dm-stats, devstat-grade metrics, and the\n"
    "generic statistics layer in debugfs. Run 'iotally help COMMAND' for details.";

const char* const exit_codes =
    "Exit status: 0 success, 1 operation failed, 2 usage error, 3 no such device,\n"
    "4 permission denied, 5 not supported by the kernel, 6 no such region,\n"
    "7 unexpected kernel output.";

}  // namespace

int run(const std::vector<std::string>& args, Context& ctx) {
    std::ostream& out = ctx.out ? *ctx.out : std::cout;
    std::ostream& err = ctx.err ? *ctx.err : std::cerr;
    ctx.out = &out;
    ctx.err = &err;
    if (!ctx.sleep)
        ctx.sleep = default_sleep;
    if (!ctx.interactive)
        ctx.interactive = [] { return isatty(STDOUT_FILENO) == 1; };
    if (!ctx.clock)
        ctx.clock = monotonic_seconds;
    if (!ctx.terminal_width)
        ctx.terminal_width = default_width;

    CLI::App app{description, "iotally"};
    app.footer(exit_codes);
    app.require_subcommand(1);
    app.fallthrough();
    bool json = false;
    app.add_flag("-j,--json", json, "Print JSON instead of text");
    app.add_option("--debugfs", ctx.debugfs, "Where debugfs is mounted")->capture_default_str();

    std::vector<std::pair<CLI::App*, Action>> actions;
    Registry reg{app, ctx, json, actions};

    std::string topic;
    auto* help = app.add_subcommand("help", "List the commands, or show one command's help");
    help->add_option("command", topic, "A command");
    reg.add(help, [&] {
        if (topic.empty()) {
            // app.help() would describe the selected subcommand, 'help' itself.
            out << app.get_formatter()->make_help(&app, "iotally", CLI::AppFormatMode::Normal);
            return;
        }
        CLI::App* sub = nullptr;
        try {
            sub = app.get_subcommand(topic);
        } catch (const CLI::OptionNotFound&) {
            throw Error(ErrorKind::usage, "unknown command '" + topic + "'");
        }
        out << sub->help();
    });

#define IOTALLY_COMMAND(name) register_##name(reg);
#include "commands.inc"
#undef IOTALLY_COMMAND

    try {
        // CLI11 would only say that a subcommand is required.
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "--debugfs") {
                ++i;
                continue;
            }
            if (a.empty() || a[0] == '-')
                continue;
            auto named = app.get_subcommands([&a](CLI::App* sub) { return sub->check_name(a); });
            if (named.empty())
                throw Error(ErrorKind::usage, "unknown command '" + a + "' (try 'iotally help')");
            break;
        }
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
        for (auto& [sub, action] : actions) {
            if (sub->parsed()) {
                action();
                break;
            }
        }
        out.flush();
        return 0;
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::ParseError& e) {
        std::string msg = e.what();
        std::replace(msg.begin(), msg.end(), '\n', ' ');
        err << "iotally: " << msg << " (try 'iotally help')\n";
        return static_cast<int>(ErrorKind::usage);
    } catch (const Error& e) {
        std::string msg = e.what();
        std::replace(msg.begin(), msg.end(), '\n', ' ');
        err << "iotally: " << msg << "\n";
        return e.exit_code();
    } catch (const std::exception& e) {
        err << "iotally: " << e.what() << "\n";
        return static_cast<int>(ErrorKind::failed);
    }
}

}  // namespace iotally::cli
