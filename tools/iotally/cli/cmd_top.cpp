// SPDX-License-Identifier: GPL-2.0-or-later
// iotally top: the busiest regions, live, with a per-area heat strip.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/diskstats.hpp"
#include "iotally/error.hpp"
#include "iotally/report.hpp"
#include "iotally/selection.hpp"
#include "iotally/units.hpp"
#include "output.hpp"

namespace iotally::cli {
namespace {

volatile sig_atomic_t interrupted = 0;

extern "C" void on_signal(int) {
    interrupted = 1;
}

// Full-screen mode for the life of the object: alternate screen, no cursor,
// keys without echo; everything restored on the way out, exceptions included.
class TerminalSession {
  public:
    explicit TerminalSession(std::ostream& out) : out_(out) {
        if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_) == 0) {
            termios raw = saved_;
            raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
            raw.c_cc[VMIN] = 0;
            raw.c_cc[VTIME] = 0;
            have_termios_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
        }
        struct sigaction sa {};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int_);
        sigaction(SIGTERM, &sa, &old_term_);
        out_ << "\x1b[?1049h\x1b[?25l" << std::flush;
    }
    TerminalSession(const TerminalSession&) = delete;
    TerminalSession& operator=(const TerminalSession&) = delete;
    ~TerminalSession() {
        out_ << "\x1b[?25h\x1b[?1049l" << std::flush;
        if (have_termios_)
            tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }

    // Waits up to `seconds`; false when the user asked to quit.
    bool wait(double seconds) {
        const double deadline = monotonic_seconds() + seconds;
        while (!interrupted) {
            double left = deadline - monotonic_seconds();
            if (left <= 0)
                return true;
            pollfd p{STDIN_FILENO, POLLIN, 0};
            int r = poll(&p, 1, static_cast<int>(std::ceil(left * 1000)));
            if (r > 0) {
                char c = 0;
                if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
                    return false;
                if (r > 0 && !(p.revents & POLLIN))
                    return true;  // stdin closed: keep the interval
            }
        }
        return false;
    }

  private:
    std::ostream& out_;
    termios saved_{};
    bool have_termios_ = false;
    struct sigaction old_int_ {};
    struct sigaction old_term_ {};
};

}  // namespace

// One character per column; each column covers a share of the areas and shows
// their bytes relative to the hottest column of the strip.
std::string heat_strip(const std::vector<std::uint64_t>& area_bytes, std::size_t width) {
    static constexpr std::string_view ramp = " .:-=+*#%@";
    if (area_bytes.empty() || width == 0)
        return {};
    const std::size_t columns = std::min(width, area_bytes.size());
    std::vector<std::uint64_t> bins(columns, 0);
    for (std::size_t i = 0; i < area_bytes.size(); ++i)
        bins[i * columns / area_bytes.size()] += area_bytes[i];
    const std::uint64_t max = *std::max_element(bins.begin(), bins.end());
    std::string out;
    for (auto b : bins) {
        std::size_t level = 0;
        if (b && max)
            level = 1 + static_cast<std::size_t>(static_cast<double>(b) * (ramp.size() - 2) /
                                                 static_cast<double>(max));
        out += ramp[std::min(level, ramp.size() - 1)];
    }
    return out;
}

namespace {

// Rows left for regions below the title and the table header.
std::size_t terminal_rows() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 6)
        return ws.ws_row - 5;
    return 20;
}

struct TopArgs {
    std::vector<std::string> devices;
    std::string interval = "1";
    std::string count;
    std::string sort = "MB/s";
    std::vector<std::string> select;
    std::size_t max = 0;
    std::string program_id;
};

constexpr std::string_view frame_fields[] = {"r/s", "w/s", "rMB/s", "wMB/s", "await", "%util"};

std::string render_frame(const std::vector<ReportRow>& rows, const Snapshot& snap, double interval,
                         std::size_t max_rows, int width, std::int64_t unix_ns, bool dm) {
    std::size_t regions = 0;
    for (const auto& d : snap.devices)
        regions += d.regions.size();
    std::string out = fmt::format(
        "iotally top - {}  interval {:.3g}s  devices {}  regions {}  generation {}  "
        "(q quits)\n\n",
        iso8601_local(unix_ns), interval, snap.devices.size(), regions, snap.generation);
    const auto& fields = frame_fields;
    std::vector<std::string> headers{"<Device", "Region"};
    for (auto f : fields)
        headers.emplace_back(f);
    headers.emplace_back("<HEAT (areas, start to end)");
    Table t(headers);
    std::vector<std::vector<std::string>> cells;
    std::size_t fixed = 0;
    for (std::size_t i = 0; i < rows.size() && i < max_rows; ++i) {
        const auto& r = rows[i];
        std::vector<std::string> c{
            r.device, r.region ? std::to_string(*r.region) + (r.is_new ? "+" : "") : "-"};
        for (auto f : fields) {
            const MetricField* m = find_metric_field(f);
            auto v = m->get(r.stats);
            c.push_back(format_value(v) +
                        (v && m->time_based && r.stats.jiffies_resolution ? "~" : ""));
        }
        std::size_t used = 0;
        for (const auto& s : c)
            used += s.size() + 2;
        fixed = std::max(fixed, used);
        cells.push_back(std::move(c));
    }
    const std::size_t strip =
        width > static_cast<int>(fixed) + 12 ? static_cast<std::size_t>(width) - fixed - 4 : 8;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        cells[i].push_back("|" + heat_strip(rows[i].area_bytes, strip) + "|");
        t.add(std::move(cells[i]));
    }
    out += t.render();
    if (!dm)
        out += "(no device-mapper in this kernel: block devices only)\n";
    else if (rows.empty())
        out += "(no regions: create some with 'iotally create')\n";
    return out;
}

// One frame as one line of JSON (a JSON-lines stream).
std::string json_frame(const std::vector<ReportRow>& rows, const Snapshot& snap, double interval,
                       std::size_t max_rows, std::uint64_t frame, std::int64_t unix_ns) {
    nlohmann::json doc = json_document("top");
    add_timestamp(doc, unix_ns);
    doc["frame"] = frame;
    doc["interval_s"] = interval;
    doc["generation"] = snap.generation;
    nlohmann::json units = nlohmann::json::object();
    for (auto f : frame_fields)
        units[std::string(f)] = find_metric_field(f)->unit;
    units["area_bytes"] = "bytes";
    doc["units"] = units;
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size() && i < max_rows; ++i) {
        const auto& r = rows[i];
        nlohmann::json metrics = nlohmann::json::object();
        for (auto f : frame_fields) {
            auto v = find_metric_field(f)->get(r.stats);
            metrics[std::string(f)] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
        }
        out.push_back(
            {{"dm_name", r.device},
             {"region_id", r.region ? nlohmann::json(*r.region) : nullptr},
             {"new", r.is_new},
             {"time_resolution", region_time_unit(!r.stats.jiffies_resolution).resolution},
             {"metrics", metrics},
             {"area_bytes", r.area_bytes}});
    }
    doc["rows"] = out;
    return doc.dump() + "\n";
}

}  // namespace

void register_top(Registry& r) {
    auto a = std::make_shared<TopArgs>();
    auto* sub = r.app.add_subcommand("top", "Live full-screen view of the busiest regions");
    sub->add_option("devices", a->devices, "Devices (default: all)");
    sub->add_option("-i,--interval", a->interval, "Refresh interval")
        ->type_name("DURATION")
        ->capture_default_str();
    sub->add_option("-c,--count", a->count, "Stop after N frames (default: until q)")
        ->type_name("N");
    sub->add_option("--sort", a->sort, "Sort by this report field")
        ->type_name("FIELD")
        ->capture_default_str();
    sub->add_option("--select", a->select, "Only devices matching EXPR (repeatable)")
        ->type_name("EXPR");
    sub->add_option("--max", a->max, "At most N regions (default: what fits)")->type_name("N");
    sub->add_option("--program-id", a->program_id, "Only regions of this program_id")
        ->type_name("ID");
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [a, &ctx, &json] {
        const double interval = parse_interval_s(a->interval);
        const MetricField* sort = find_metric_field(a->sort);
        if (!sort)
            throw Error(ErrorKind::usage, fmt::format("unknown sort field '{}' (fields: {})",
                                                      a->sort, metric_field_names()));
        std::uint64_t count = 0;
        if (!a->count.empty()) {
            if (a->count.find_first_not_of("0123456789") != std::string::npos ||
                a->count.size() > 9 || std::stoull(a->count) == 0)
                throw Error(ErrorKind::usage,
                            fmt::format("count '{}' is not a positive integer", a->count));
            count = std::stoull(a->count);
        }
        std::vector<MatchExpr> matches;
        for (const auto& s : a->select)
            matches.push_back(build_match(s));
        const std::optional<std::string> program =
            a->program_id.empty() ? std::nullopt : std::optional(a->program_id);

        Snapshotter snapshotter(ctx.layer(), ctx.clock);
        // Without device-mapper (dm_mod not loaded): the block devices' own
        // counters, one row each, as `report` shows them.
        bool dm = true;
        DiskSample disks, prev_disks;
        auto take = [&] {
            if (!dm)
                return Snapshot{};
            Snapshot snap;
            try {
                snap = snapshotter.take(a->devices, program);
            } catch (const Error& e) {
                if (e.kind() != ErrorKind::unsupported)
                    throw;
                dm = false;
                return Snapshot{};
            }
            if (!matches.empty())
                std::erase_if(snap.devices,
                              [&](const DeviceSnapshot& d) { return !matches_any(matches, d.id); });
            return snap;
        };
        const bool tty = !json && ctx.interactive();
        std::optional<TerminalSession> session;
        if (tty) {
            interrupted = 0;
            session.emplace(*ctx.out);
        }
        auto wait = [&] {
            if (session)
                return session->wait(interval);
            ctx.sleep(interval);
            return true;
        };

        auto take_disks = [&] {
            DiskSample d;
            d.taken_s = ctx.clock();
            if (!dm)
                d.devices = read_block_devices({ctx.sysfs, false});
            return d;
        };
        Snapshot prev = take();
        prev_disks = take_disks();
        for (std::uint64_t frame = 0; count == 0 || frame < count; ++frame) {
            if (!wait())
                break;
            Snapshot cur = take();
            disks = take_disks();
            auto rows = build_report(cur, &prev, ReportLevel::region);
            for (const auto& d : disks.devices) {
                if (!a->devices.empty() && std::find(a->devices.begin(), a->devices.end(),
                                                     d.id.kernel_name) == a->devices.end())
                    continue;
                const BlockDevice* p = prev_disks.find(d.id);
                rows.push_back(device_row(d, p, disks.taken_s - prev_disks.taken_s, false));
                rows.back().is_new = !p;
            }
            prev_disks = std::move(disks);
            std::stable_sort(rows.begin(), rows.end(), [&](const ReportRow& x, const ReportRow& y) {
                return sort->get(x.stats).value_or(-1) > sort->get(y.stats).value_or(-1);
            });
            std::size_t max_rows = a->max ? a->max : (tty ? terminal_rows() : rows.size());
            if (json) {
                *ctx.out << json_frame(rows, cur, interval, max_rows, frame, ctx.realtime_ns())
                         << std::flush;
                prev = std::move(cur);
                continue;
            }
            std::string text = render_frame(rows, cur, interval, max_rows, ctx.terminal_width(),
                                            ctx.realtime_ns(), dm);
            if (tty)
                *ctx.out << "\x1b[H\x1b[2J" << text << std::flush;
            else
                *ctx.out << (frame ? "\n" : "") << text << std::flush;
            prev = std::move(cur);
        }
    });
}

}  // namespace iotally::cli
