// SPDX-License-Identifier: GPL-2.0-or-later
// `iotally serve --otlp` end to end against a real OTLP receiver started
// here: VictoriaMetrics of Debian 13 (scripts/otlp-receiver.sh, run by make
// deps, caches it; versions.mk says why not Prometheus). The source is
// fixed (the fake dm-stats of a device with a native histogram region, the
// sysfs fixture's /sys/block); what is pushed, once by a textfile write or
// by the timer of `serve --listen` while GET /metrics answers, must come
// back from the receiver's PromQL with the scrape's values, under the
// scrape's name or the disk semantic conventions' (OpenTelemetry's names,
// written here from the convention, not from the code under test).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "cli_fixture.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "otlp_receiver.hpp"

extern char** environ;

namespace iotally {
namespace {

// The receiver as a child process, stopped (SIGTERM, then waited for) at
// the end of the test.
class Receiver {
  public:
    Receiver(const std::string& binary, const std::string& dir) {
        port_ = test::OtlpReceiver().port();  // a free port, let go
        std::vector<std::string> args{binary,
                                      "-storageDataPath=" + dir + "/data",
                                      "-httpListenAddr=127.0.0.1:" + std::to_string(port_),
                                      "-opentelemetry.usePrometheusNaming",
                                      "-search.latencyOffset=0s",
                                      "-search.disableCache",
                                      "-loggerOutput=stderr"};
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        log_ = dir + "/receiver.log";
        posix_spawn_file_actions_addopen(&fa, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        const int rc = posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0)
            pid_ = -1;
    }
    ~Receiver() {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            waitpid(pid_, nullptr, 0);
        }
    }
    Receiver(const Receiver&) = delete;
    Receiver& operator=(const Receiver&) = delete;
    bool started() const { return pid_ > 0; }
    int port() const { return port_; }
    // What it said, for a failure's message.
    std::string log() const {
        std::ifstream in(log_);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }

  private:
    pid_t pid_ = -1;
    int port_ = 0;
    std::string log_;
};

// OpenTelemetry's disk semantic conventions as Prometheus-style names
// (dots to underscores, the unit's suffix, _total for monotonic sums):
// the scrape's family, the receiver's name and the direction attribute.
const std::map<std::string, std::pair<std::string, std::string>> semconv{
    {"iotally_device_read_bytes_total", {"system_disk_io_bytes_total", "read"}},
    {"iotally_device_written_bytes_total", {"system_disk_io_bytes_total", "write"}},
    {"iotally_device_reads_completed_total", {"system_disk_operations_total", "read"}},
    {"iotally_device_writes_completed_total", {"system_disk_operations_total", "write"}},
    {"iotally_device_read_time_seconds_total",
     {"system_disk_operation_time_seconds_total", "read"}},
    {"iotally_device_write_time_seconds_total",
     {"system_disk_operation_time_seconds_total", "write"}},
    {"iotally_device_reads_merged_total", {"system_disk_merged_total", "read"}},
    {"iotally_device_writes_merged_total", {"system_disk_merged_total", "write"}},
    {"iotally_device_io_time_seconds_total", {"system_disk_io_time_seconds_total", ""}},
};

struct Sample {
    std::string name, labels;  // labels as written: a="x",b="y"
    double value = 0;
};

std::vector<Sample> samples(const std::string& text) {
    std::vector<Sample> out;
    std::istringstream in(text);
    const std::regex line(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$)");
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (!l.starts_with("#") && std::regex_match(l, m, line))
            out.push_back({m[1], m[2], std::stod(m[3])});
    }
    return out;
}

// dm-0 of the sysfs fixture ("delayed") with a native histogram region of
// schema 0: 5 reads and 3 writes, their latencies in these kernel buckets
// (bucket, I/Os).
const std::vector<std::pair<int, int>> delayed_buckets{{10, 2}, {12, 5}, {15, 1}};

void add_delayed_region(FakeDm& dm) {
    dm.add_device("delayed", 2048, {"delay"}, "", 0);
    CreateRequest req;
    req.precise_timestamps = true;
    req.histogram = native_region_bounds(0);
    StatsClient(dm, "delayed").create(req);
    auto& region = dm.region("delayed", 0);
    region.areas[0].reads = 5;
    region.areas[0].read_sectors = 40;
    region.areas[0].read_time = 7'000'000;
    region.areas[0].writes = 3;
    region.areas[0].write_sectors = 24;
    region.areas[0].write_time = 2'500'000;
    for (auto [bucket, count] : delayed_buckets)
        region.histograms[0][bucket] = count;
}

// Prometheus' histogram_quantile over classic buckets (le, cumulative
// count), from its definition: the first bucket whose count reaches the
// rank, linearly interpolated inside (from 0 in the first bucket); in +Inf,
// the highest finite bound.
double classic_quantile(double q, std::vector<std::pair<double, double>> buckets) {
    std::sort(buckets.begin(), buckets.end());
    const double rank = q * buckets.back().second;
    double lower = 0, below = 0;
    for (auto [le, cumulative] : buckets) {
        if (cumulative >= rank)
            return std::isinf(le) ? lower
                                  : lower + (le - lower) * (rank - below) / (cumulative - below);
        lower = le;
        below = cumulative;
    }
    return std::nan("");
}

// Whether an instant query's `result` is one series of `value`.
bool one_series_of(const nlohmann::json& result, double value) {
    return result.size() == 1 && std::stod(result[0]["value"][1].get<std::string>()) == value;
}

// `serve` on a thread of its own until stop(). The signals it stops on are
// blocked in the test's thread meanwhile, so the SIGTERM sent to the
// process reaches serve's sigwait and nothing else.
class ServeThread {
  public:
    ServeThread(std::vector<std::string> args, std::function<void(cli::Context&)> setup) {
        sigemptyset(&stop_signals_);
        for (int sig : {SIGTERM, SIGINT, SIGHUP})
            sigaddset(&stop_signals_, sig);
        pthread_sigmask(SIG_BLOCK, &stop_signals_, &old_mask_);
        thread_ = std::thread([this, args = std::move(args), setup = std::move(setup)] {
            result_ = run_cli(args, setup);
        });
    }
    ~ServeThread() {
        stop();
        pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    }
    ServeThread(const ServeThread&) = delete;
    ServeThread& operator=(const ServeThread&) = delete;
    // SIGTERM, then what serve returned and said.
    CliResult stop() {
        if (thread_.joinable()) {
            kill(getpid(), SIGTERM);
            thread_.join();
            // Not taken by a serve that had already stopped: not left pending.
            const timespec now{};
            while (sigtimedwait(&stop_signals_, nullptr, &now) > 0) {
            }
        }
        return result_;
    }

  private:
    sigset_t stop_signals_{}, old_mask_{};
    CliResult result_;
    std::thread thread_;
};

// Each test's receiver, started in a directory of its own and answering.
class OtlpReceiver : public testing::Test {
  protected:
    using Deadline = std::chrono::steady_clock::time_point;
    static Deadline in(double seconds) {
        return std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(seconds));
    }

    void SetUp() override {
        const std::string binary = IOTALLY_OTLP_RECEIVER;
        ASSERT_TRUE(std::filesystem::exists(binary))
            << binary << " is missing: scripts/otlp-receiver.sh (make deps) fetches it";
        receiver_ = std::make_unique<Receiver>(binary, dir_.path());
        ASSERT_TRUE(receiver_->started());
        http_ = std::make_unique<httplib::Client>("127.0.0.1", receiver_->port());
        ASSERT_TRUE(test::eventually([&] {
            auto r = http_->Get("/health");
            return r && r->status == 200;
        })) << "the receiver did not come up: "
            << receiver_->log();
    }

    std::string otlp_url() const {
        return "http://127.0.0.1:" + std::to_string(receiver_->port()) +
               "/opentelemetry/v1/metrics";
    }

    // serve's sources: `dm` and the /sys/block of `sysfs`.
    static std::function<void(cli::Context&)> sources(FakeDm& dm, const std::string& sysfs) {
        return [&dm, sysfs](cli::Context& ctx) {
            ctx.make_layer = [&dm]() -> std::unique_ptr<DeviceLayer> {
                return std::make_unique<Borrowed>(dm);
            };
            ctx.sysfs = sysfs;
        };
    }

    // One `serve --textfile DIR --count 1 --otlp URL ARGS` of `dm` and the
    // sysfs fixture, pushing to the receiver.
    CliResult serve_once(FakeDm& dm, const std::string& dir,
                         const std::vector<std::string>& args = {}) {
        std::vector<std::string> argv{"serve", "--textfile", dir,       "--count",
                                      "1",     "--otlp",     otlp_url()};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_cli(argv, sources(dm, std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0"));
    }

    // The receiver's answer to the instant query `q`, asked again (after a
    // flush) until `done` holds of it or `deadline` has passed: the rows of
    // one request may become searchable a moment apart.
    nlohmann::json query(const std::string& q,
                         const std::function<bool(const nlohmann::json&)>& done,
                         Deadline deadline) {
        nlohmann::json result;
        test::eventually(
            [&] {
                auto r =
                    http_->Get("/api/v1/query?query=" + httplib::detail::encode_query_param(q));
                if (r && r->status == 200) {
                    result = nlohmann::json::parse(r->body)["data"]["result"];
                    if (done(result))
                        return true;
                }
                http_->Get("/internal/force_flush");
                return false;
            },
            std::max(0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now())
                              .count()));
        return result;
    }
    // ... once it has `n` series.
    nlohmann::json query(const std::string& q, std::size_t n, double seconds = 30) {
        return query(
            q, [n](const nlohmann::json& r) { return r.size() == n; }, in(seconds));
    }
    // Whether the one series of `q` comes to have `value`.
    bool comes_to(const std::string& q, double value, double seconds = 60) {
        return one_series_of(
            query(
                q, [value](const nlohmann::json& r) { return one_series_of(r, value); },
                in(seconds)),
            value);
    }

    // Every device and region sample of the scrape `text` is in the
    // receiver with the same value, under the scrape's name or the disk
    // semantic conventions'; the native histogram of the delayed region
    // keeps its buckets, and its quantiles are the scrape's.
    void expect_receiver_holds(const std::string& text);

    test::TempDir dir_;
    std::unique_ptr<Receiver> receiver_;
    std::unique_ptr<httplib::Client> http_;
};

void OtlpReceiver::expect_receiver_holds(const std::string& text) {
    // One deadline for all: a receiver that holds other values fails in
    // seconds, not in seconds per sample.
    const Deadline deadline = in(30);
    const std::string series = R"(dm_name="delayed",region_id="0")";
    const std::regex le_label(R"re(le="([^"]*)")re");
    std::vector<std::pair<double, double>> scraped_buckets;  // the region's (le, count)
    std::size_t compared = 0, semconv_compared = 0, histogram_compared = 0;
    for (const Sample& s : samples(text)) {
        if (!s.name.starts_with("iotally_device_") && !s.name.starts_with("iotally_region_"))
            continue;
        if (s.name.ends_with("_bucket")) {
            // The receiver keeps buckets its own way: the quantiles below.
            std::smatch le;
            if (s.name == "iotally_region_io_latency_seconds_bucket" &&
                s.labels.find(R"(dm_name="delayed")") != std::string::npos &&
                std::regex_search(s.labels, le, le_label))
                scraped_buckets.emplace_back(std::stod(le[1]), s.value);
            continue;
        }
        std::string name = s.name, labels = s.labels;
        if (auto it = semconv.find(s.name); it != semconv.end()) {
            name = it->second.first;
            labels = std::regex_replace(labels, std::regex(R"(^device=)"), "system_device=");
            if (!it->second.second.empty())
                labels += ",disk_io_direction=\"" + it->second.second + "\"";
            ++semconv_compared;
        }
        if (s.name.starts_with("iotally_region_io_latency_seconds_"))
            ++histogram_compared;
        const std::string q = name + "{" + labels + "}";
        const auto result = query(
            q, [&s](const nlohmann::json& r) { return one_series_of(r, s.value); }, deadline);
        ASSERT_EQ(result.size(), 1u) << q << ": " << result.dump();
        EXPECT_EQ(result[0]["metric"]["service_name"], "iotally") << q;
        EXPECT_EQ(std::stod(result[0]["value"][1].get<std::string>()), s.value) << q;
        ++compared;
    }
    // The native buckets, unchanged: kernel bucket b of a native:0 region is
    // native index b - 20, the interval (2^(b-21), 2^(b-20)] s, which the
    // receiver keeps as its vmrange bucket of those bounds.
    for (auto [b, count] : delayed_buckets) {
        const std::string vmrange =
            fmt::format("{:.3e}...{:.3e}", std::ldexp(1.0, b - 21), std::ldexp(1.0, b - 20));
        const std::string q =
            "iotally_region_io_latency_seconds_bucket{" + series + ",vmrange=\"" + vmrange + "\"}";
        const auto result = query(q, 1);
        ASSERT_EQ(result.size(), 1u) << q << ": " << result.dump();
        EXPECT_EQ(result[0]["value"][1], std::to_string(count)) << q;
    }
    const auto buckets =
        query("iotally_region_io_latency_seconds_bucket{" + series + "}", delayed_buckets.size());
    EXPECT_EQ(buckets.size(), delayed_buckets.size()) << buckets.dump();
    // Its quantiles from the receiver's buckets are the scrape's classic
    // buckets' ones (0.5, 0.9 and 0.99 fall in all three buckets in use),
    // as close as the receiver keeps bounds: its vmrange labels have 4
    // significant digits (5e-4 relative at most, where a bucket off by one
    // would be a factor of 2), and the scrape's bounds are dm-stats'
    // boundaries in ns, 1 ns above the native bounds.
    ASSERT_FALSE(scraped_buckets.empty()) << "no le buckets of {" << series << "} in the scrape";
    for (double q : {0.5, 0.9, 0.99}) {
        const std::string promql = fmt::format(
            "histogram_quantile({}, iotally_region_io_latency_seconds_bucket{{{}}})", q, series);
        const auto result = query(promql, 1);
        ASSERT_EQ(result.size(), 1u) << promql << ": " << result.dump();
        const double scraped = classic_quantile(q, scraped_buckets);
        EXPECT_NEAR(std::stod(result[0]["value"][1].get<std::string>()), scraped,
                    scraped * 5e-4 + 1e-9)
            << promql;
    }

    // The fixture's four block devices (dm-0, dm-1, nullb0, vda), 9
    // conventions' counters each; the region's count and sum; the rest of
    // the device and region families under their own names.
    EXPECT_EQ(semconv_compared, 4u * 9u);
    EXPECT_EQ(histogram_compared, 2u);
    EXPECT_GE(compared, 4u * 16u + 2u);
}

// The value of the sample `name{labels}` of `text`, NaN if it has none.
double sample_value(const std::string& text, const std::string& name, const std::string& labels) {
    for (const Sample& s : samples(text))
        if (s.name == name && s.labels == labels)
            return s.value;
    return std::nan("");
}

TEST_F(OtlpReceiver, PromqlSeesTheScrapesValues) {
    FakeDm dm;
    add_delayed_region(dm);
    test::TempDir out;
    const CliResult served = serve_once(dm, out.path());
    ASSERT_EQ(served.rc, 0) << served.err;
    EXPECT_EQ(served.err, "");
    std::ifstream in(out.path() + "/iotally.prom");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    // What the receiver took, searchable now rather than in a few seconds.
    ASSERT_EQ(query("iotally_scrapes_total", 1, 60).size(), 1u)
        << "the push never showed: " << receiver_->log();
    expect_receiver_holds(text);
}

// `serve --listen --otlp` pushes from its timer while GET /metrics answers.
// The same moment: the sources have no I/O of their own (the fake and a
// copy of the sysfs fixture change only when the test changes them), so
// every scrape between two changes, the timer's and the test's, reads the
// same counters. The test waits until the receiver shows a value only a
// push made after the change carries, then scrapes and compares; that is
// done for the fixture as it is and again after vda has read more, so at
// least two pushes are what PromQL sees.
TEST_F(OtlpReceiver, ListenModesPushesHoldTheScrapesValues) {
    FakeDm dm;
    add_delayed_region(dm);
    test::TempDir sys;
    sys.copy_from(std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0");
    const int port = test::OtlpReceiver().port();  // a free port, let go
    ServeThread serve({"serve", "--listen", "127.0.0.1:" + std::to_string(port), "--otlp",
                       otlp_url(), "--interval", "0.2"},
                      sources(dm, sys.path()));
    httplib::Client exporter("127.0.0.1", port);
    std::string text;
    auto scrape = [&] {
        auto r = exporter.Get("/metrics");
        text = r && r->status == 200 ? r->body : "";
        return !text.empty();
    };
    ASSERT_TRUE(test::eventually(scrape)) << "serve --listen did not answer: " << serve.stop().err;

    // vda's read bytes: the fixture's 96,000 sectors of 512 bytes.
    const std::string vda_read =
        R"(system_disk_io_bytes_total{system_device="vda",disk_io_direction="read"})";
    ASSERT_TRUE(comes_to(vda_read, 96000.0 * 512)) << "no push showed: " << receiver_->log();
    ASSERT_TRUE(scrape());
    {
        SCOPED_TRACE("the fixture as it is");
        expect_receiver_holds(text);
    }

    // vda reads 300 I/Os of 24,000 sectors more; the file is replaced whole,
    // so no scrape reads it half written.
    sys.write("block/vda/stat.new",
              "1500 30 120000 750 400 10 32768 1600 0 1950 2350 0 0 0 0 50 20\n");
    std::filesystem::rename(sys.path() + "/block/vda/stat.new", sys.path() + "/block/vda/stat");
    ASSERT_TRUE(comes_to(vda_read, 120000.0 * 512)) << "no push after the change showed";
    ASSERT_TRUE(scrape());
    EXPECT_EQ(sample_value(text, "iotally_device_read_bytes_total",
                           R"(device="vda",major="253",minor="0")"),
              120000.0 * 512);
    {
        SCOPED_TRACE("after vda's reads");
        expect_receiver_holds(text);
    }

    EXPECT_GE(sample_value(text, "iotally_otlp_requests_sent_total", ""), 2);
    EXPECT_EQ(sample_value(text, "iotally_otlp_requests_failed_total", ""), 0);
    EXPECT_EQ(sample_value(text, "iotally_otlp_requests_dropped_total", ""), 0);
    const CliResult served = serve.stop();
    EXPECT_EQ(served.rc, 0) << served.err;
    EXPECT_EQ(served.err.find("OTLP"), std::string::npos) << served.err;
}

TEST_F(OtlpReceiver, TakesGzipRequests) {
    FakeDm dm;
    test::TempDir out;
    const CliResult served = serve_once(dm, out.path(), {"--otlp-compression", "gzip"});
    ASSERT_EQ(served.rc, 0) << served.err;
    EXPECT_EQ(served.err, "");
    // vda's read bytes of the sysfs fixture: 96000 sectors of 512 bytes.
    EXPECT_TRUE(
        comes_to(R"(system_disk_io_bytes_total{system_device="vda",disk_io_direction="read"})",
                 96000.0 * 512));
}

}  // namespace
}  // namespace iotally
