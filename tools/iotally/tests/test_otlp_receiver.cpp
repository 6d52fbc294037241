// SPDX-License-Identifier: GPL-2.0-or-later
// `iotally serve --otlp` end to end against a real OTLP receiver started
// here: VictoriaMetrics of Debian 13 (scripts/otlp-receiver.sh, run by make
// deps, caches it; versions.mk says why not Prometheus). One textfile
// write of a fixed source (the fake dm-stats of a device with a native
// histogram region, the sysfs fixture's /sys/block) is pushed once; every
// sample of the textfile must come back from the receiver's PromQL with
// the same value, under the scrape's name or the disk semantic
// conventions' (OpenTelemetry's names, written here from the convention,
// not from the code under test).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

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

// Each test's receiver, started in a directory of its own and answering.
class OtlpReceiver : public testing::Test {
  protected:
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

    // One `serve --textfile DIR --count 1 --otlp URL ARGS` of `dm` and the
    // sysfs fixture, pushing to the receiver.
    CliResult serve_once(FakeDm& dm, const std::string& dir,
                         const std::vector<std::string>& args = {}) {
        std::vector<std::string> argv{
            "serve",
            "--textfile",
            dir,
            "--count",
            "1",
            "--otlp",
            "http://127.0.0.1:" + std::to_string(receiver_->port()) + "/opentelemetry/v1/metrics"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_cli(argv, [&](cli::Context& ctx) {
            ctx.make_layer = [&]() -> std::unique_ptr<DeviceLayer> {
                return std::make_unique<Borrowed>(dm);
            };
            ctx.sysfs = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
        });
    }

    test::TempDir dir_;
    std::unique_ptr<Receiver> receiver_;
    std::unique_ptr<httplib::Client> http_;
};

TEST_F(OtlpReceiver, PromqlSeesTheScrapesValues) {
    Receiver& receiver = *receiver_;
    httplib::Client& http = *http_;

    // dm-0 of the sysfs fixture, with a native histogram region: 5 reads
    // and 3 writes, their latencies in native buckets of schema 0.
    FakeDm dm;
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
    region.histograms[0][10] = 2;
    region.histograms[0][12] = 5;
    region.histograms[0][15] = 1;

    test::TempDir out;
    const CliResult served = serve_once(dm, out.path());
    ASSERT_EQ(served.rc, 0) << served.err;
    EXPECT_EQ(served.err, "");
    std::ifstream in(out.path() + "/iotally.prom");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    // What the receiver took, searchable now rather than in a few seconds.
    ASSERT_TRUE(test::eventually(
        [&] {
            http.Get("/internal/force_flush");
            auto r = http.Get("/api/v1/query?query=iotally_scrapes_total");
            return r && r->status == 200 &&
                   nlohmann::json::parse(r->body)["data"]["result"].size() == 1;
        },
        60))
        << "the push never showed: " << receiver.log();
    // The receiver's answer to an instant query, once it has `n` series:
    // the rows of one request may become searchable a moment apart.
    auto query = [&](const std::string& q, std::size_t n) {
        nlohmann::json result;
        test::eventually(
            [&] {
                auto r = http.Get("/api/v1/query?query=" + httplib::detail::encode_query_param(q));
                if (!r || r->status != 200)
                    return false;
                result = nlohmann::json::parse(r->body)["data"]["result"];
                if (result.size() == n)
                    return true;
                http.Get("/internal/force_flush");
                return false;
            },
            30);
        return result;
    };

    std::size_t compared = 0, semconv_compared = 0, histogram_compared = 0;
    for (const Sample& s : samples(text)) {
        if (!s.name.starts_with("iotally_device_") && !s.name.starts_with("iotally_region_"))
            continue;
        if (s.name.ends_with("_bucket"))
            continue;  // the receiver keeps buckets its own way; count and sum below
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
        const auto result = query(q, 1);
        ASSERT_EQ(result.size(), 1u) << q << ": " << result.dump();
        EXPECT_EQ(result[0]["metric"]["service_name"], "iotally") << q;
        EXPECT_EQ(std::stod(result[0]["value"][1].get<std::string>()), s.value) << q;
        ++compared;
    }
    // The native buckets, unchanged: kernel bucket b of a native:0 region is
    // native index b - 20, the interval (2^(b-21), 2^(b-20)] s, which the
    // receiver keeps as its vmrange bucket of those bounds.
    const std::string series = R"(dm_name="delayed",region_id="0")";
    for (auto [b, count] : {std::pair{10, 2}, {12, 5}, {15, 1}}) {
        const std::string vmrange =
            fmt::format("{:.3e}...{:.3e}", std::ldexp(1.0, b - 21), std::ldexp(1.0, b - 20));
        const std::string q =
            "iotally_region_io_latency_seconds_bucket{" + series + ",vmrange=\"" + vmrange + "\"}";
        const auto result = query(q, 1);
        ASSERT_EQ(result.size(), 1u) << q << ": " << result.dump();
        EXPECT_EQ(result[0]["value"][1], std::to_string(count)) << q;
    }
    const auto buckets = query("iotally_region_io_latency_seconds_bucket{" + series + "}", 3);
    EXPECT_EQ(buckets.size(), 3u) << buckets.dump();

    // The fixture's four block devices (dm-0, dm-1, nullb0, vda), 9
    // conventions' counters each; the region's count and sum; the rest of
    // the device and region families under their own names.
    EXPECT_EQ(semconv_compared, 4u * 9u);
    EXPECT_EQ(histogram_compared, 2u);
    EXPECT_GE(compared, 4u * 16u + 2u);
}

TEST_F(OtlpReceiver, TakesGzipRequests) {
    httplib::Client& http = *http_;
    FakeDm dm;
    test::TempDir out;
    const CliResult served = serve_once(dm, out.path(), {"--otlp-compression", "gzip"});
    ASSERT_EQ(served.rc, 0) << served.err;
    EXPECT_EQ(served.err, "");
    // vda's read bytes of the sysfs fixture: 96000 sectors of 512 bytes.
    const std::string q =
        R"(system_disk_io_bytes_total{system_device="vda",disk_io_direction="read"})";
    nlohmann::json result;
    ASSERT_TRUE(test::eventually(
        [&] {
            http.Get("/internal/force_flush");
            auto r = http.Get("/api/v1/query?query=" + httplib::detail::encode_query_param(q));
            if (!r || r->status != 200)
                return false;
            result = nlohmann::json::parse(r->body)["data"]["result"];
            return result.size() == 1;
        },
        60))
        << q;
    EXPECT_EQ(result[0]["value"][1], std::to_string(96000 * 512));
}

}  // namespace
}  // namespace iotally
