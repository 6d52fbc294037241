// SPDX-License-Identifier: GPL-2.0-or-later
#include "app.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <iostream>

#include "document.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/util/error.hpp"

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

std::int64_t default_realtime_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double default_uptime_s() {
    std::ifstream in("/proc/uptime");
    double up = 0;
    if (!(in >> up))
        throw Error(ErrorKind::unsupported, "/proc/uptime: cannot read (is /proc mounted?)");
    return up;
}

const char* const description =
    "iotally: device-mapper I/O statistics without surprises.\n"
    "Regions, areas and histograms of dm-stats, devstat-grade metrics, and the\n"
    "generic statistics layer in debugfs. Run 'iotally help COMMAND' for details.";

// "Exit status: 0 success, 1 operation failed, ..." from the table, in
// lines of at most 79 columns.
std::string exit_status_footer() {
    std::string out = "Exit status:";
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < exit_statuses.size(); ++i) {
        const auto& s = exit_statuses[i];
        std::string item =
            fmt::format("{} {}{}", s.code, s.summary, i + 1 == exit_statuses.size() ? "." : ",");
        if (out.size() - line_start + 1 + item.size() > 79) {
            out += "\n";
            line_start = out.size();
        } else {
            out += " ";
        }
        out += item;
    }
    return out;
}

// CLI11 calls every string "TEXT": say what is expected instead.
void name_placeholders(CLI::App& app) {
    for (CLI::App* sub : app.get_subcommands({})) {
        for (CLI::Option* opt : sub->get_options()) {
            if (opt->get_type_name() != "TEXT")
                continue;
            std::string name = opt->get_name(false, true);
            std::string n = opt->get_lnames().empty() ? name : opt->get_lnames().front();
            std::string placeholder;
            if (n == "interval" || n == "duration")
                placeholder = "DURATION";
            else if (n == "level")
                placeholder = "LEVEL";
            else if (n == "start" || n == "length" || n == "area-size")
                placeholder = "SIZE";
            else if (n == "histogram")
                placeholder = "BOUNDS";
            else {
                if (n.empty())
                    n = name;
                for (char& c : n)
                    c = c == '-' ? '_'
                                 : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                placeholder = n;
            }
            opt->type_name(placeholder);
        }
    }
}

nlohmann::json help_json(CLI::App& app, const std::string& topic) {
    auto doc = json_document("help");
    doc["version"] = IOTALLY_VERSION;
    nlohmann::json commands = nlohmann::json::array();
    for (CLI::App* sub : app.get_subcommands({})) {
        if (!topic.empty() && sub->get_name() != topic)
            continue;
        nlohmann::json options = nlohmann::json::array();
        for (CLI::Option* opt : sub->get_options()) {
            if (opt->get_name() == "--help")
                continue;
            options.push_back({{"name", opt->get_name(false, true)},
                               {"type", opt->get_type_name()},
                               {"description", opt->get_description()}});
        }
        commands.push_back({{"name", sub->get_name()},
                            {"description", sub->get_description()},
                            {"options", options}});
    }
    if (!topic.empty() && commands.empty())
        throw Error(ErrorKind::usage, "unknown command '" + topic + "'");
    doc["commands"] = commands;
    nlohmann::json statuses = nlohmann::json::object();
    for (const auto& s : exit_statuses)
        statuses[std::to_string(s.code)] = s.summary;
    doc["exit_status"] = statuses;
    return doc;
}

constexpr std::array<CommandFile, 11> commands{{
    {"message", register_message},
    {"region", register_region},
    {"file", register_file},
    {"report", register_report},
    {"histogram", register_histogram},
    {"top", register_top},
    {"export", register_export},
    {"stat", register_stat},
    {"serve", register_serve},
    {"snoop", register_snoop},
    {"tasks", register_tasks},
}};

// The production parts of the Context that a caller (a test) left empty.
void fill_defaults(Context& ctx) {
    if (!ctx.sleep)
        ctx.sleep = default_sleep;
    if (!ctx.interactive)
        ctx.interactive = [] { return isatty(STDOUT_FILENO) == 1; };
    if (!ctx.clock)
        ctx.clock = monotonic_seconds;
    if (!ctx.terminal_width)
        ctx.terminal_width = default_width;
    if (!ctx.realtime_ns)
        ctx.realtime_ns = default_realtime_ns;
    if (!ctx.uptime_s)
        ctx.uptime_s = default_uptime_s;
}

// `iotally help [COMMAND]`, in text or JSON.
void register_help(Registry& reg, std::string& topic) {
    CLI::App& app = reg.app;
    auto* help = app.add_subcommand("help", "List the commands, or show one command's help");
    help->add_option("command", topic, "A command");
    std::ostream& out = *reg.ctx.out;
    bool& json = reg.json;
    reg.add(help, [&app, &topic, &out, &json] {
        if (json) {
            out << help_json(app, topic).dump() << "\n";
            return;
        }
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
}

struct CommandLine {
    bool command_seen = false;
    bool version_asked = false;
};

// What CLI11 would only say as "a subcommand is required": an unknown option
// before the command, an unknown command or none. Throws Error(usage).
CommandLine scan_command_line(CLI::App& app, const std::vector<std::string>& args) {
    CommandLine c;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--debugfs" || a == "--backend") {
            ++i;
            continue;
        }
        if (a == "--version" || a == "-V") {
            c.version_asked = true;
            continue;
        }
        if (!a.empty() && a[0] == '-') {
            if (a != "-j" && a != "--json" && a != "-h" && a != "--help" && a != "-v" &&
                a != "--verbose" && a.rfind("--debugfs=", 0) != 0 && a.rfind("--backend=", 0) != 0)
                throw Error(ErrorKind::usage,
                            "unknown option '" + a + "' before the command (try 'iotally help')");
            continue;
        }
        if (a.empty())
            continue;
        auto named = app.get_subcommands([&a](CLI::App* sub) { return sub->check_name(a); });
        if (named.empty())
            throw Error(ErrorKind::usage, "unknown command '" + a + "' (try 'iotally help')");
        c.command_seen = true;
        break;
    }
    if (!c.command_seen && !c.version_asked &&
        std::none_of(args.begin(), args.end(),
                     [](const std::string& a) { return a == "-h" || a == "--help"; }))
        throw Error(ErrorKind::usage, "a command is required (try 'iotally help')");
    return c;
}

void print_version(std::ostream& out, bool json) {
    if (json) {
        auto doc = json_document("version");
        doc["version"] = IOTALLY_VERSION;
        doc["json_schema"] = json_schema_version;
        out << doc.dump() << "\n";
    } else {
        out << "iotally " << IOTALLY_VERSION << "\n";
    }
}

// The exit status of the exception being handled, after printing it as one
// line (or the help it asks for). Call only from a catch block.
int exit_status_of_current_exception(CLI::App& app, std::ostream& out, std::ostream& err) {
    try {
        throw;
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

}  // namespace

std::span<const CommandFile> command_table() {
    return commands;
}

int run(const std::vector<std::string>& args, Context& ctx) {
    std::ostream& out = ctx.out ? *ctx.out : std::cout;
    std::ostream& err = ctx.err ? *ctx.err : std::cerr;
    ctx.out = &out;
    ctx.err = &err;
    fill_defaults(ctx);

    CLI::App app{description, "iotally"};
    app.footer(exit_status_footer());
    app.require_subcommand(1);
    app.fallthrough();
    bool json = false;
    app.add_flag("-j,--json", json, "Print JSON instead of text (every command)");
    bool version = false;
    app.add_flag("-V,--version", version, "Print the version and exit");
    app.add_option("--debugfs", ctx.debugfs, "Where debugfs is mounted")->capture_default_str();
    app.add_option_function<std::string>(
           "--backend", [&ctx](const std::string& v) { ctx.backend = parse_backend(v); },
           "snoop, tasks and serve --cgroups: native (the kernel's io events and taskstats I/O), "
           "bpf (iotally's BPF programs) or auto (native where the kernel has it)")
        ->default_str("auto");
    app.add_flag("-v,--verbose", ctx.verbose, "Say on stderr which backend a command runs on");

    std::vector<std::pair<CLI::App*, Action>> actions;
    Registry reg{app, ctx, json, actions};
    std::string topic;
    register_help(reg, topic);
    for (const auto& c : commands)
        c.add(reg);
    name_placeholders(app);

    try {
        const CommandLine line = scan_command_line(app, args);
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        if (line.version_asked && !line.command_seen) {
            app.require_subcommand(0);
            app.parse(reversed);
            print_version(out, json);
            out.flush();
            return 0;
        }
        app.parse(reversed);
        for (auto& [sub, action] : actions) {
            if (sub->parsed()) {
                action();
                break;
            }
        }
        out.flush();
        return 0;
    } catch (...) {
        return exit_status_of_current_exception(app, out, err);
    }
}

}  // namespace iotally::cli
