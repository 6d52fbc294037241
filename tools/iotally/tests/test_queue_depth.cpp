// SPDX-License-Identifier: GPL-2.0-or-later
// serve's queue depth families (QueueDepthMonitor through Exporter::scrape)
// in the text and protobuf expositions, over a copy of the fixture sysfs
// tree with inflight files: nullb0 (252:0), vda (253:0), dm-0 "delayed"
// (254:0) and dm-1 (254:1).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "exposition_lines.hpp"
#include "fake_dm.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/otlp_push.hpp"
#include "iotally/exporter/queue_depth.hpp"
#include "protobuf_decoder.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

struct QueueDepth : testing::Test {
    test::TempDir sys;
    test::FakeDm dm;
    double now = 50.0;
    std::vector<std::string> errors;

    QueueDepth() {
        sys.copy_from(std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0");
        dm.add_device("delayed", 2048, {"delay"}, "", 0);  // the tree's dm-0
        StatsClient(dm, "delayed").create(CreateRequest{});
        for (const char* d : {"nullb0", "vda", "dm-0", "dm-1"})
            in_flight(d, 0);
    }
    void in_flight(const std::string& device, int n) {
        sys.write("block/" + device + "/inflight", fmt::format("0 {}\n", n));
    }
    std::shared_ptr<QueueDepthMonitor> monitor(bool regions) {
        return std::make_shared<QueueDepthMonitor>(&dm, DepthSamplerOptions{sys.path(), regions},
                                                   [this] { return now; });
    }
    std::unique_ptr<Exporter> exporter(std::shared_ptr<QueueDepthMonitor> m) {
        ScrapeOptions so;
        so.sysfs_root = sys.path();
        auto e = std::make_unique<Exporter>(dm, so, [this] { return now; });
        e->set_queue_depth(std::move(m));
        e->on_error = [this](const std::string& s) { errors.push_back(s); };
        e->check();
        return e;
    }
    // `n` samples a second apart.
    void run(QueueDepthMonitor& m, int n) {
        for (int i = 0; i < n; ++i) {
            m.sample();
            now += 1.0;
        }
    }
};

// 2 in flight on nullb0 for 10 s, then 0 for 5 s; dm-0 idle throughout.
TEST_F(QueueDepth, CountersOfSecondsAtLeastN) {
    auto m = monitor(false);
    auto e = exporter(m);
    std::string text = e->scrape(ExpositionFormat::openmetrics);  // tracks, all at 0
    const std::string nullb =
        "iotally_device_queue_depth_seconds_total{device=\"nullb0\","
        "major=\"252\",minor=\"0\",";
    EXPECT_EQ(test::line_starting_with(text, nullb + "at_least=\"1\"}"),
              nullb + "at_least=\"1\"} 0")
        << text;
    in_flight("nullb0", 2);
    run(*m, 10);
    in_flight("nullb0", 0);
    run(*m, 6);
    text = e->scrape(ExpositionFormat::openmetrics);
    EXPECT_NE(text.find("# TYPE iotally_device_queue_depth_seconds counter\n"
                        "# UNIT iotally_device_queue_depth_seconds seconds\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(test::line_starting_with(text, nullb + "at_least=\"1\"}"),
              nullb + "at_least=\"1\"} 10");
    EXPECT_EQ(test::line_starting_with(text, nullb + "at_least=\"2\"}"),
              nullb + "at_least=\"2\"} 10");
    EXPECT_EQ(test::line_starting_with(text, nullb + "at_least=\"4\"}"),
              nullb + "at_least=\"4\"} 0");
    EXPECT_EQ(test::line_starting_with(text, nullb + "at_least=\"128\"}"),
              nullb + "at_least=\"128\"} 0");
    const std::string dm0 =
        "iotally_device_queue_depth_seconds_total{device=\"dm-0\","
        "dm_name=\"delayed\",dm_uuid=\"\",major=\"254\",minor=\"0\","
        "at_least=\"1\"}";
    EXPECT_EQ(test::line_starting_with(text, dm0), dm0 + " 0");
    // Regions were not asked for: no family, and no @stats_print but the scrapes'.
    EXPECT_EQ(text.find("iotally_region_queue_depth_seconds"), std::string::npos);
    // Cumulative: a later scrape only adds. Samples at 66..69 s: 1 held
    // for 3 s (the last sample's count holds only once a next one comes).
    in_flight("nullb0", 1);
    run(*m, 4);
    text = e->scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(test::line_starting_with(text, nullb + "at_least=\"1\"}"),
              nullb + "at_least=\"1\"} 13");
    EXPECT_NE(text.find("# TYPE iotally_device_queue_depth_seconds_total counter"),
              std::string::npos);
    EXPECT_TRUE(errors.empty());
}

TEST_F(QueueDepth, ProtobufCarriesTheSameCounters) {
    auto m = monitor(false);
    auto e = exporter(m);
    e->scrape(ExpositionFormat::protobuf);
    in_flight("vda", 130);
    run(*m, 3);
    auto fams = test::families(e->scrape(ExpositionFormat::protobuf));
    ASSERT_TRUE(fams.count("iotally_device_queue_depth_seconds_total"));
    const test::Message& f = fams.at("iotally_device_queue_depth_seconds_total");
    EXPECT_EQ(test::one(f, 3).v, 0u);  // COUNTER
    int vda = 0;
    for (const auto& metric : test::all(f, 4)) {
        test::Message mm = test::decode(metric.bytes);
        auto labels = test::labels_of(mm);
        if (labels["device"] != "vda")
            continue;
        ++vda;
        // 130 in flight for 2 s: at or above every threshold, 128 included.
        EXPECT_EQ(test::as_double(test::one(test::decode(test::one(mm, 3).bytes), 1)), 2.0)
            << labels["at_least"];
    }
    EXPECT_EQ(vda, 8);  // one per threshold
}

// --qd-regions: one series per region and threshold, with the region's labels.
TEST_F(QueueDepth, RegionsWhenAsked) {
    auto m = monitor(true);
    auto e = exporter(m);
    e->scrape(ExpositionFormat::openmetrics);
    dm.region("delayed", 0).areas[0].in_flight = 3;
    run(*m, 5);
    std::string text = e->scrape(ExpositionFormat::openmetrics);
    const std::string region =
        "iotally_region_queue_depth_seconds_total{device=\"dm-0\","
        "dm_name=\"delayed\",dm_uuid=\"\",major=\"254\",minor=\"0\","
        "region_id=\"0\",program_id=\"-\",";
    EXPECT_EQ(test::line_starting_with(text, region + "at_least=\"2\"}"),
              region + "at_least=\"2\"} 4")
        << text;
    EXPECT_EQ(test::line_starting_with(text, region + "at_least=\"4\"}"),
              region + "at_least=\"4\"} 0");
    // Deleted meanwhile: skipped by the sampler, gone from the next scrape,
    // not an error.
    StatsClient(dm, "delayed").remove(0);
    run(*m, 2);
    text = e->scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(test::line_starting_with(text, region), "") << text;
    EXPECT_NE(text.find("# TYPE iotally_region_queue_depth_seconds counter"), std::string::npos);
    EXPECT_TRUE(errors.empty()) << errors.front();
}

// A sample that fails (an inflight file the kernel would never write) is
// one scrape error, said once per scrape, and sampling goes on.
TEST_F(QueueDepth, FailedSamplesAreScrapeErrors) {
    auto m = monitor(false);
    auto e = exporter(m);
    e->scrape(ExpositionFormat::openmetrics);
    sys.write("block/vda/inflight", "busy\n");
    run(*m, 3);
    std::string text = e->scrape(ExpositionFormat::openmetrics);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("queue depth: 3 samples failed: "), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("vda/inflight"), std::string::npos) << errors[0];
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    in_flight("vda", 0);
    run(*m, 2);
    e->scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(errors.size(), 1u);
}

// The sampling thread beside scrapes: no scrape waits for it, the counters
// only grow, and the thread stops when its task is destroyed.
TEST(QueueDepthThread, SamplesBesideScrapes) {
    test::TempDir sys;
    sys.copy_from(std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0");
    sys.write("block/nullb0/inflight", "0 1\n");
    test::FakeDm dm;
    auto m = std::make_shared<QueueDepthMonitor>(&dm, DepthSamplerOptions{sys.path(), false},
                                                 monotonic_seconds);
    ScrapeOptions so;
    so.sysfs_root = sys.path();
    Exporter e(dm, so);
    e.set_queue_depth(m);
    std::atomic<int> samples{0};
    const std::string series =
        "iotally_device_queue_depth_seconds_total{device=\"nullb0\","
        "major=\"252\",minor=\"0\",at_least=\"1\"} ";
    double last = 0;
    {
        PeriodicTask task(0.001, [&] {
            m->sample();
            ++samples;
        });
        for (int i = 0; i < 50; ++i) {
            std::string line =
                test::line_starting_with(e.scrape(ExpositionFormat::openmetrics), series);
            ASSERT_FALSE(line.empty());
            const double v = std::stod(line.substr(series.size()));
            EXPECT_GE(v, last);
            last = v;
        }
        const int after = samples;
        while (samples < after + 3)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const int stopped = samples;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(samples, stopped);
    const std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_GT(std::stod(test::line_starting_with(text, series).substr(series.size())), 0.0);
}

// --qd-regions: the sampling thread's @stats_print and the scrapes'
// requests through one SerializedLayer are never at the same time in the
// layer below, which keeps state of its own (FakeDm's message log here).
TEST(QueueDepthThread, RegionsTakeTurnsWithTheScrapesInTheLayer) {
    test::TempDir sys;
    sys.copy_from(std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0");
    test::FakeDm dm;
    dm.add_device("delayed", 2048, {"delay"}, "", 0);  // the tree's dm-0
    StatsClient(dm, "delayed").create(CreateRequest{});
    std::atomic<int> inside{0}, most{0}, prints{0};
    dm.fail = [&](const std::string&, const std::string& text) {
        const int n = ++inside;
        most = std::max(most.load(), n);
        if (text.starts_with("@stats_print"))
            ++prints;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        --inside;
        return 0;
    };
    SerializedLayer layer(dm);
    auto m = std::make_shared<QueueDepthMonitor>(&layer, DepthSamplerOptions{sys.path(), true},
                                                 monotonic_seconds);
    ScrapeOptions so;
    so.sysfs_root = sys.path();
    Exporter e(layer, so);
    e.set_queue_depth(m);
    e.scrape(ExpositionFormat::openmetrics);  // tracks the region
    std::atomic<int> samples{0};
    {
        PeriodicTask task(0.0005, [&] {
            m->sample();
            ++samples;
        });
        for (int i = 0; i < 20; ++i)
            e.scrape(ExpositionFormat::openmetrics);
        while (samples < 10)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_GE(prints, 21 + samples);  // each scrape's and each sample's
    EXPECT_EQ(most, 1);
}

}  // namespace
}  // namespace iotally
