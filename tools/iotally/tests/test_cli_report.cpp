// SPDX-License-Identifier: GPL-2.0-or-later
// Issue 16's findings, one test each, and the golden outputs of 'report'.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_fixture.hpp"
#include "fixtures.hpp"

namespace iotally {
namespace {

bool has(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

// 1. A histogram region measures in ns unless told otherwise; a jiffies one
// refuses sub-tick bounds and its time-based values are marked.
TEST_F(Cli, HistogramRegionsArePrecise) {
    ASSERT_EQ(run({"create", "vol", "--histogram", "1ms,5ms,20ms"}), 0) << err;
    EXPECT_TRUE(sent("@stats_create - /1 2 precise_timestamps histogram:1000000,5000000,20000000"))
        << dm.sent.back();
    EXPECT_EQ(run({"create", "vol", "--no-precise", "--histogram", "1ms,5ms"}), 2);
    EXPECT_TRUE(has(err, "clock tick")) << err;
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(dm.dev("vol").regions.size(), 1u);  // nothing created
    ASSERT_EQ(run({"create", "vol"}), 0);         // no histogram: jiffies as upstream
    dm.region("vol", 1).areas[0] = RawCounters{10, 0, 80, 40, 0, 0, 0, 0, 0, 40, 40, 40, 0};
    ASSERT_EQ(run({"report", "vol", "-o", "r_ios,r_await"}), 0) << err;
    EXPECT_TRUE(has(out, "4.00~")) << out;  // 40 ms / 10, in whole jiffies
    EXPECT_TRUE(has(out, "~ counted in whole jiffies")) << out;
}

// 2. The device row is the device's own counters, whatever its regions.
TEST_F(Cli, DeviceRowIsNotASumOfRegions) {
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(run({"create", "vol"}), 0);  // three whole-device regions
    set_stat("dm-3", "400 0 3200 400 0 0 0 0 0 1000 400 0 0 0 0 0 0");
    on_sleep = [this](double) {
        for (int i = 0; i < 3; ++i)
            dm.region("vol", i).areas[0].reads += 400;
        set_stat("dm-3", "800 0 6400 800 0 0 0 0 0 1500 800 0 0 0 0 0 0");
    };
    ASSERT_EQ(run({"-j", "report", "vol", "--level", "device", "-y", "1", "1", "-o", "r/s,%util"}),
              0)
        << err;
    auto rows = nlohmann::json::parse(out)["rows"];
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["metrics"]["r/s"], 400.0);   // not 1200
    EXPECT_EQ(rows[0]["metrics"]["%util"], 50.0);  // 500 ms of 1 s, not 100
}

// 3. A plain report has a row per block device, with rates since boot.
TEST_F(Cli, PlainReportIsIostatsFirstReport) {
    ASSERT_EQ(run({"report", "-o", "r/s,r_await,%util"}), 0) << err;
    EXPECT_TRUE(has(out, "vda")) << out;
    EXPECT_TRUE(has(out, "dm-3")) << out;
    // vda: 1000 reads, 500 ms, io_ticks 400 ms over an uptime of 100 s.
    EXPECT_TRUE(has(out, "10.00")) << out;  // r/s
    EXPECT_TRUE(has(out, "0.50")) << out;   // r_await
    EXPECT_TRUE(has(out, "0.40")) << out;   // %util
}

// 4. Timestamps in every format.
TEST_F(Cli, TimestampsEverywhere) {
    setenv("TZ", "UTC", 1);
    tzset();
    ASSERT_EQ(run({"report", "-t", "vda"}), 0) << err;
    EXPECT_EQ(out.substr(0, out.find('\n')), "2026-11-18T11:06:40+0000") << out;
    ASSERT_EQ(run({"-j", "report", "vda"}), 0) << err;
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["timestamp"], "2026-11-18T11:06:40.000000000Z");
    EXPECT_EQ(j["timestamp_ns"], 1'795'000'000'000'000'000);
    ASSERT_EQ(run({"report", "--csv", "vda"}), 0) << err;
    EXPECT_TRUE(out.rfind("timestamp,timestamp_ns,", 0) == 0) << out;
}

// 5. JSON says its schema and units and honours -o; CSV has plain decimals.
TEST_F(Cli, JsonUnitsAndPlainCsv) {
    ASSERT_EQ(run({"-j", "report", "vda", "-o", "r_await,rkB/s"}), 0) << err;
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["schema"], 2);
    EXPECT_EQ(j["units"]["r_await"], "ms");
    EXPECT_EQ(j["units"]["rkB/s"], "KiB/s");
    EXPECT_EQ(j["rows"][0]["metrics"].size(), 2u);  // -o honoured
    EXPECT_EQ(j["rows"][0]["time_resolution"], "ms");
    uptime = 1e7;  // 8000 sectors over 10^7 s: 0.0004 kB/s
    ASSERT_EQ(run({"report", "--csv", "vda", "-o", "rkB/s"}), 0) << err;
    EXPECT_TRUE(has(out, ",0.0004\n")) << out;
    EXPECT_FALSE(has(out, "e-")) << out;
}

// 6. One name per metric: header, -o, --sort and JSON key.
TEST_F(Cli, OneVocabulary) {
    ASSERT_EQ(run({"report", "--sort", "r/s", "-o", "r/s,rareq-sz,aqu-sz,%util"}), 0) << err;
    EXPECT_TRUE(has(out.substr(0, out.find('\n')), "r/s  rareq-sz  aqu-sz  %util")) << out;
    EXPECT_EQ(run({"report", "--sort", "r_tps"}), 2);  // the old names are gone
    EXPECT_TRUE(has(err, "r/s")) << err;               // and the error lists the real ones
}

// 7. -j on every command: top as JSON lines, help as JSON.
TEST_F(Cli, JsonEverywhere) {
    ASSERT_EQ(run({"create", "vol", "--areas", "4"}), 0);
    ASSERT_EQ(run({"-j", "top", "-c", "2", "-i", "1"}), 0) << err;
    std::istringstream lines(out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
        auto f = nlohmann::json::parse(line);
        EXPECT_EQ(f["command"], "top");
        EXPECT_EQ(f["frame"], n);
        ++n;
    }
    EXPECT_EQ(n, 2);
    ASSERT_EQ(run({"-j", "help"}), 0) << err;
    auto h = nlohmann::json::parse(out);
    EXPECT_EQ(h["command"], "help");
    EXPECT_GE(h["commands"].size(), 10u);
}

// 8. The basics: --version, unknown options, numbers, error messages.
TEST_F(Cli, BasicBehaviour) {
    ASSERT_EQ(run({"--version"}), 0) << err;
    EXPECT_TRUE(out.rfind("iotally ", 0) == 0) << out;
    ASSERT_EQ(run({"-j", "--version"}), 0) << err;
    EXPECT_EQ(nlohmann::json::parse(out)["command"], "version");
    EXPECT_EQ(run({"--bogus"}), 2);
    EXPECT_TRUE(has(err, "--bogus")) << err;
    ASSERT_EQ(run({"create", "vol", "--histogram", "1ms"}), 0);
    EXPECT_EQ(run({"histogram", "vol", "-1"}), 2);
    EXPECT_FALSE(has(err, "18446744073709551615")) << err;
    EXPECT_EQ(run({"report", "--count", "-1", "-i", "1"}), 2);
    EXPECT_EQ(run({"report", "1", "0"}), 2);
    EXPECT_EQ(run({"print", "vol", "9"}), 6);
    EXPECT_TRUE(has(err, "region 9 does not exist on vol")) << err;
    ASSERT_EQ(run({"help", "report"}), 0);
    EXPECT_TRUE(has(out, "DURATION")) << out;
    EXPECT_TRUE(has(out, "LEVEL")) << out;
    EXPECT_FALSE(has(out, "TEXT")) << out;
}

// 10. devstat selection: modes, --top, and a selection that matches nothing.
TEST_F(Cli, SelectionAsDevstat) {
    EXPECT_EQ(run({"report", "--select", "name=nothing*"}), 3);
    EXPECT_TRUE(has(err, "nothing*")) << err;
    EXPECT_EQ(run({"report", "nodev"}), 3);
    ASSERT_EQ(run({"report", "--select", "dm-*", "--select-mode", "remove", "-o", "r/s"}), 0)
        << err;
    EXPECT_TRUE(has(out, "vda")) << out;
    EXPECT_FALSE(has(out, "dm-3")) << out;
    ASSERT_EQ(run({"report", "--select", "target=linear", "-o", "r/s"}), 0) << err;
    EXPECT_FALSE(has(out, "vda")) << out;
    EXPECT_TRUE(has(out, "dm-3")) << out;
    set_stat("dm-3", "5000 0 40000 500 0 0 0 0 0 400 500 0 0 0 0 0 0");
    ASSERT_EQ(run({"report", "--top", "1", "-o", "r/s"}), 0) << err;  // busiest first
    EXPECT_TRUE(has(out, "dm-3")) << out;
    EXPECT_FALSE(has(out, "vda")) << out;
    EXPECT_EQ(run({"report", "--select-mode", "sideways"}), 2);
}

// Golden outputs of every format of 'report' on one fixed snapshot: two
// samples a second apart of vda and of dm-3 ("vol") with two regions.
class ReportGolden : public Cli {
  protected:
    void SetUp() override {
        setenv("TZ", "UTC", 1);
        tzset();
        ASSERT_EQ(run({"create", "vol", "--areas", "2", "--histogram", "1ms,4ms"}), 0);
        ASSERT_EQ(run({"create", "vol", "--length", "1000"}), 0);
        set_stat("vda", "1000 10 8000 500 200 5 3200 400 1 900 1200 4 0 2048 8 30 15");
        set_stat("dm-3", "300 0 2400 900 100 0 1600 300 0 800 1100 0 0 0 0 0 0");
        dm.region("vol", 0).areas[0] = RawCounters{
            200, 0, 1600, 600'000'000, 0, 0, 0, 0, 0, 500'000'000, 600'000'000, 500'000'000, 0};
        dm.region("vol", 0).areas[1] = RawCounters{
            0, 0, 0, 0, 100, 0, 1600, 300'000'000, 0, 300'000'000, 300'000'000, 0, 300'000'000};
        dm.region("vol", 1).areas[0] = RawCounters{20, 0, 160, 80, 0, 0, 0, 0, 0, 80, 80, 80, 0};
        on_sleep = [this](double) {
            set_stat("vda", "1400 30 11200 700 300 5 4800 700 2 1500 2000 6 1 4096 12 40 20");
            set_stat("dm-3", "500 0 4000 1500 150 0 2400 500 1 1400 2000 0 0 0 0 0 0");
            dm.region("vol", 0).areas[0] = RawCounters{
                400,           0, 3200, 1'200'000'000, 0, 0, 0, 0, 0, 1'000'000'000, 1'200'000'000,
                1'000'000'000, 0};
            dm.region("vol", 0).areas[1] = RawCounters{
                0, 0, 0, 0, 150, 0, 2400, 500'000'000, 1, 500'000'000, 500'000'000, 0, 500'000'000};
            dm.region("vol", 1).areas[0] =
                RawCounters{30, 0, 240, 120, 0, 0, 0, 0, 0, 120, 120, 120, 0};
        };
    }
    void check(const std::string& name) { expect_report_golden(out, name); }
};

TEST_F(ReportGolden, Text) {
    ASSERT_EQ(run({"report", "-x", "-t", "1", "2"}), 0) << err;
    check("text-x.golden");
}

TEST_F(ReportGolden, TextDmNamesArea) {
    ASSERT_EQ(run({"report", "-N", "--level", "area", "-y", "1", "1"}), 0) << err;
    check("text-area.golden");
}

TEST_F(ReportGolden, Csv) {
    ASSERT_EQ(run({"report", "--csv", "-x", "1", "2"}), 0) << err;
    check("csv-x.golden");
}

TEST_F(ReportGolden, Json) {
    ASSERT_EQ(run({"-j", "report", "1", "2"}), 0) << err;
    check("json.golden");
}

}  // namespace
}  // namespace iotally
