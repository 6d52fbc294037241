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
#include "block_devices.hpp"
#include "document.hpp"
#include "iotally/block/diskstats.hpp"
#include "iotally/metrics/report.hpp"
#include "iotally/metrics/selection.hpp"
#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"
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

// What a frame's title says: the selected dm devices and their regions.
struct FrameHead {
    std::size_t devices = 0, regions = 0;
    std::uint64_t generation = 0;
    bool dm = false;  // device-mapper answered
};

// The name a row is shown by: a region's dm device by its dm name, a block
// device by its kernel name.
const std::string& row_name(const ReportRow& r) {
    return r.level == ReportLevel::device ? r.id.kernel_name : r.id.dm_name;
}

std::string render_frame(const std::vector<ReportRow>& rows, const FrameHead& head, double interval,
                         std::size_t max_rows, int width, std::int64_t unix_ns) {
    std::string out = fmt::format(
        "iotally top - {}  interval {:.3g}s  devices {}  regions {}  generation {}  "
        "(q quits)\n\n",
        iso8601_local(unix_ns), interval, head.devices, head.regions, head.generation);
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
            row_name(r), r.region ? std::to_string(*r.region) + (r.is_new ? "+" : "") : "-"};
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
    if (!head.dm)
        out += "(no device-mapper in this kernel: block devices only)\n";
    else if (rows.empty())
        out += "(no regions: create some with 'iotally create')\n";
    return out;
}

// One frame as one line of JSON (a JSON-lines stream).
std::string json_frame(const std::vector<ReportRow>& rows, const FrameHead& head, double interval,
                       std::size_t max_rows, std::uint64_t frame, std::int64_t unix_ns) {
    nlohmann::json doc = json_document("top");
    add_timestamp(doc, unix_ns);
    doc["frame"] = frame;
    doc["interval_s"] = interval;
    doc["generation"] = head.generation;
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
            {{"dm_name", row_name(r)},
             {"region_id", r.region ? nlohmann::json(*r.region) : nullptr},
             {"new", r.is_new},
             {"time_resolution", region_time_unit(!r.stats.jiffies_resolution).resolution},
             {"metrics", metrics},
             {"area_bytes", r.area_bytes}});
    }
    doc["rows"] = out;
    return doc.dump() + "\n";
}

const MetricField& sort_field(const std::string& name) {
    const MetricField* f = find_metric_field(name);
    if (!f)
        throw Error(ErrorKind::usage, fmt::format("unknown sort field '{}' (fields: {})", name,
                                                  metric_field_names()));
    return *f;
}

std::uint64_t parse_frame_count(const std::string& text) {
    if (text.empty())
        return 0;
    if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9 ||
        std::stoull(text) == 0)
        throw Error(ErrorKind::usage, fmt::format("count '{}' is not a positive integer", text));
    return std::stoull(text);
}

// The frames of one `iotally top`: samples from the Sampler that `report`
// uses, the devices chosen by the same DeviceSelector; the rows are the
// regions of the chosen dm devices or, without device-mapper, the chosen
// block devices' own counters, as `report` shows them.
class Top {
  public:
    Top(Context& ctx, bool json, const TopArgs& a)
        : ctx_(ctx),
          a_(a),
          json_(json),
          interval_(parse_interval_s(a.interval)),
          sort_(sort_field(a.sort)),
          count_(parse_frame_count(a.count)),
          sampler_(ctx,
                   SampleOptions{false, true,
                                 a.program_id.empty() ? std::nullopt : std::optional(a.program_id),
                                 true}),
          selector_(SelectArgs{a.devices, a.select, "", 0, 0}) {}

    void run() {
        const bool tty = !json_ && ctx_.interactive();
        std::optional<TerminalSession> session;
        if (tty) {
            interrupted = 0;
            session.emplace(*ctx_.out);
        }
        Sample prev = sampler_.take();
        for (std::uint64_t frame = 0; count_ == 0 || frame < count_; ++frame) {
            if (!wait(session))
                break;
            Sample cur = sampler_.take();
            FrameHead head;
            auto rows = frame_rows(cur, prev, head);
            show(rows, head, frame, tty);
            prev = std::move(cur);
        }
    }

  private:
    bool wait(std::optional<TerminalSession>& session) {
        if (session)
            return session->wait(interval_);
        ctx_.sleep(interval_);
        return true;
    }

    // The rows of one frame, largest first by the sort field.
    std::vector<ReportRow> frame_rows(const Sample& cur, const Sample& prev, FrameHead& head) {
        auto chosen = select_sampled(selector_, cur, {});
        std::vector<ReportRow> rows =
            cur.dm ? region_rows(chosen, cur, prev, head) : device_rows(chosen, cur, prev);
        std::stable_sort(rows.begin(), rows.end(), [&](const ReportRow& x, const ReportRow& y) {
            return sort_.get(x.stats).value_or(-1) > sort_.get(y.stats).value_or(-1);
        });
        return rows;
    }

    // The regions of the chosen dm devices, in device-mapper's order.
    static std::vector<ReportRow> region_rows(const std::vector<const JoinedDevice*>& chosen,
                                              const Sample& cur, const Sample& prev,
                                              FrameHead& head) {
        std::vector<JoinedDevice> dm;
        for (const JoinedDevice* d : chosen)
            if (d->dm)
                dm.push_back(*d);
        std::stable_sort(dm.begin(), dm.end(),
                         [](const JoinedDevice& a, const JoinedDevice& b) { return a.dm < b.dm; });
        head.dm = true;
        head.devices = dm.size();
        head.generation = cur.dm->generation;
        for (const auto& d : dm)
            head.regions += d.dm->regions.size();
        // Device-mapper just appeared: its regions are new against an empty
        // snapshot of the previous sample's time.
        Snapshot none;
        none.taken_s = prev.disks.taken_s;
        return build_report(dm, prev.dm ? &*prev.dm : &none, ReportLevel::region);
    }

    static std::vector<ReportRow> device_rows(const std::vector<const JoinedDevice*>& chosen,
                                              const Sample& cur, const Sample& prev) {
        std::vector<ReportRow> rows;
        for (const JoinedDevice* d : chosen) {
            const BlockDevice* p = prev.disks.find(d->id);
            rows.push_back(device_row(*d, p, cur.disks.taken_s - prev.disks.taken_s));
            rows.back().is_new = !p;
        }
        return rows;
    }

    void show(const std::vector<ReportRow>& rows, const FrameHead& head, std::uint64_t frame,
              bool tty) {
        std::size_t max_rows = a_.max ? a_.max : (tty ? terminal_rows() : rows.size());
        if (json_) {
            *ctx_.out << json_frame(rows, head, interval_, max_rows, frame, ctx_.realtime_ns())
                      << std::flush;
            return;
        }
        std::string text = render_frame(rows, head, interval_, max_rows, ctx_.terminal_width(),
                                        ctx_.realtime_ns());
        if (tty)
            *ctx_.out << "\x1b[H\x1b[2J" << text << std::flush;
        else
            *ctx_.out << (frame ? "\n" : "") << text << std::flush;
    }

    Context& ctx_;
    const TopArgs& a_;
    bool json_;
    double interval_;
    const MetricField& sort_;
    std::uint64_t count_;
    Sampler sampler_;
    DeviceSelector selector_;
};

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
        Top top(ctx, json, *a);
        top.run();
    });
}

}  // namespace iotally::cli
