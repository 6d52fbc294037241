// SPDX-License-Identifier: GPL-2.0-or-later
// report -c (iostat's avg-cpu block), the --count that -c used to be, and
// the %qdN fields sampled between two reports.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <cmath>
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

// /proc/stat at boot + 100 s (10,000 ticks on the aggregate line: 6 % user,
// 1 % nice, 3 % system with interrupts, 5 % iowait, 5 % steal, 80 % idle),
// then 300 ticks later (33.33 % user, 16.67 % system, 6.67 % iowait, 10 %
// steal, 33.33 % idle).
class ReportCpu : public Cli {
  protected:
    void SetUp() override {
        setenv("TZ", "UTC", 1);
        tzset();
        procfs.write("stat",
                     "cpu  600 100 200 8000 500 50 50 500 300 0\n"
                     "cpu0 600 100 200 8000 500 50 50 500 300 0\n"
                     "intr 1 0\n");
        on_sleep = [this](double) {
            procfs.write("stat",
                         "cpu  700 100 240 8100 520 50 60 530 300 0\n"
                         "cpu0 700 100 240 8100 520 50 60 530 300 0\n"
                         "intr 2 0\n");
            set_stat("vda", "1400 0 11200 700 0 0 0 0 0 900 700 0 0 0 0 0 0");
        };
    }
    void check(const std::string& name) { expect_report_golden(out, name); }
};

TEST_F(ReportCpu, CpuAloneIsIostatC) {
    ASSERT_EQ(run({"report", "-c"}), 0) << err;
    EXPECT_EQ(out,
              "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
              "           6.00    1.00    3.00    5.00    5.00   80.00\n");
    EXPECT_EQ(err, "");
    ASSERT_EQ(run({"report", "--cpu", "-y", "1", "1"}), 0) << err;
    EXPECT_EQ(out,
              "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
              "          33.33    0.00   16.67    6.67   10.00   33.33\n");
}

TEST_F(ReportCpu, CpuAndDevicesText) {
    ASSERT_EQ(run({"report", "-c", "-d", "vda", "-o", "r/s,%util", "1", "2"}), 0) << err;
    check("text-cpu.golden");
}

TEST_F(ReportCpu, CpuCsv) {
    ASSERT_EQ(run({"report", "--cpu", "--csv", "1", "2"}), 0) << err;
    check("csv-cpu.golden");
}

TEST_F(ReportCpu, CpuAndDevicesCsv) {
    ASSERT_EQ(run({"report", "-c", "-d", "--csv", "vda", "-o", "r/s", "-y", "1", "1"}), 0) << err;
    check("csv-cpu-devices.golden");
}

TEST_F(ReportCpu, CpuJson) {
    ASSERT_EQ(run({"-j", "report", "-c", "-y", "1", "1"}), 0) << err;
    auto j = nlohmann::json::parse(out);
    ASSERT_TRUE(j.contains("avg-cpu")) << out;
    EXPECT_NEAR(j["avg-cpu"]["user"].get<double>(), 100.0 / 3, 1e-9);
    EXPECT_NEAR(j["avg-cpu"]["steal"].get<double>(), 10.0, 1e-9);
    EXPECT_NEAR(j["avg-cpu"]["idle"].get<double>(), 100.0 / 3, 1e-9);
    EXPECT_EQ(j["rows"].size(), 0u);  // -c alone: no device rows
    ASSERT_EQ(run({"-j", "report", "vda"}), 0) << err;
    EXPECT_FALSE(nlohmann::json::parse(out).contains("avg-cpu"));
}

// -c N is still the report count, for one release, with a warning.
TEST_F(ReportCpu, DashCNumberIsTheDeprecatedCount) {
    ASSERT_EQ(run({"report", "vda", "-o", "r/s", "-i", "1", "-c", "2"}), 0) << err;
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_TRUE(has(err,
                    "iotally: warning: '-c 2' as the report count is deprecated: use "
                    "--count 2"))
        << err;
    EXPECT_EQ(std::count(out.begin(), out.end(), 'D'), 2) << out;  // two "Device" headers
    EXPECT_FALSE(has(out, "avg-cpu")) << out;
    ASSERT_EQ(run({"report", "vda", "-o", "r/s", "-i", "1", "--count", "2"}), 0) << err;
    EXPECT_EQ(err, "");
    EXPECT_EQ(std::count(out.begin(), out.end(), 'D'), 2) << out;
    // -c before a device name is --cpu, the name an operand.
    ASSERT_EQ(run({"report", "-c", "vda"}), 0) << err;
    EXPECT_EQ(err, "");
    EXPECT_TRUE(has(out, "avg-cpu")) << out;
    EXPECT_EQ(run({"report", "-c", "nodev"}), 3);  // and still checked
    EXPECT_EQ(run({"report", "-i", "1", "-c", "2", "--count", "3"}), 2);
    EXPECT_TRUE(has(err, "the count is given twice")) << err;
    EXPECT_EQ(run({"report", "-c", "2"}), 2);  // one line: the error, not the warning too
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_TRUE(has(err, "needs an interval")) << err;
}

TEST_F(ReportCpu, MissingProcStatIsOneError) {
    std::filesystem::remove(std::filesystem::path(procfs.path()) / "stat");
    EXPECT_EQ(run({"report", "-c"}), 5);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_TRUE(has(err, "/stat: cannot read")) << err;
    EXPECT_EQ(out, "");
}

// The %qdN fields: 32 in flight for the first quarter of a second, then 1.
class ReportDepth : public Cli {
  protected:
    int ticks = 0;
    void SetUp() override {
        sys.write("block/dm-3/inflight", "0 32\n");
        on_sleep = [this](double) {
            ++ticks;
            const long k = std::lround((now - 1000.0) / 0.01);
            const int n = k < 25 ? 32 : 1;
            sys.write("block/dm-3/inflight", fmt::format("0 {}\n", n));
            if (dm.dev("vol").regions.size())
                dm.region("vol", 0).areas[0].in_flight = n < 32 ? 0 : 8;
        };
    }
};

TEST_F(ReportDepth, DeviceFractionsOverOneInterval) {
    ASSERT_EQ(run({"-j", "report", "--level", "device", "-o", "%util,%qd1,%qd2,%qd16,%qd32,%qd64",
                   "-y", "1", "1"}),
              0)
        << err;
    auto rows = nlohmann::json::parse(out)["rows"];
    ASSERT_EQ(rows.size(), 2u) << out;
    auto dm3 = rows[0]["device"] == "dm-3" ? rows[0] : rows[1];
    auto vda = rows[0]["device"] == "vda" ? rows[0] : rows[1];
    EXPECT_NEAR(dm3["metrics"]["%qd1"].get<double>(), 100.0, 1e-6);
    EXPECT_NEAR(dm3["metrics"]["%qd2"].get<double>(), 25.0, 0.5);
    EXPECT_NEAR(dm3["metrics"]["%qd16"].get<double>(), 25.0, 0.5);
    EXPECT_NEAR(dm3["metrics"]["%qd32"].get<double>(), 25.0, 0.5);
    EXPECT_NEAR(dm3["metrics"]["%qd64"].get<double>(), 0.0, 1e-9);
    EXPECT_TRUE(vda["metrics"]["%qd1"].is_null()) << vda;  // no inflight file: not sampled
    EXPECT_GE(ticks, 100);                                 // every 10 ms by default
    EXPECT_LE(ticks, 101);
}

TEST_F(ReportDepth, RegionsAreSampledToo) {
    ASSERT_EQ(run({"create", "vol"}), 0) << err;
    dm.region("vol", 0).areas[0].in_flight = 8;
    ASSERT_EQ(run({"-j", "report", "-o", "%qd4,%qd8,%qd16", "-y", "1", "1"}), 0) << err;
    auto rows = nlohmann::json::parse(out)["rows"];
    bool seen = false;
    for (const auto& r : rows) {
        if (r["level"] != "region")
            continue;
        seen = true;
        EXPECT_NEAR(r["metrics"]["%qd8"].get<double>(), 25.0, 0.5) << r;
        EXPECT_NEAR(r["metrics"]["%qd16"].get<double>(), 0.0, 1e-9) << r;
    }
    EXPECT_TRUE(seen) << out;
}

// An area's depth is its own; a group's is the sum of its members'.
TEST_F(ReportDepth, AreasAndGroups) {
    ASSERT_EQ(run({"create", "vol", "--areas", "2"}), 0) << err;
    ASSERT_EQ(run({"create", "vol", "--length", "1000"}), 0) << err;
    dm.region("vol", 0).areas[1].in_flight = 4;
    dm.region("vol", 1).areas[0].in_flight = 2;
    ASSERT_EQ(run({"-j", "report", "--level", "area", "-o", "%qd1,%qd4", "-y", "1", "1"}), 0)
        << err;
    auto rows = nlohmann::json::parse(out)["rows"];
    int areas = 0;
    for (const auto& r : rows) {
        if (r["level"] != "area" || r["region_id"].get<int>() != 1)
            continue;
        ++areas;  // region 1's one area: always 2 in flight
        EXPECT_NEAR(r["metrics"]["%qd1"].get<double>(), 100.0, 1e-9) << r;
        EXPECT_NEAR(r["metrics"]["%qd4"].get<double>(), 0.0, 1e-9) << r;
    }
    EXPECT_EQ(areas, 1) << out;
    areas = 0;
    for (const auto& r : rows) {
        if (r["level"] != "area" || r["region_id"].get<int>() != 0 || r["area"].get<int>() != 1)
            continue;
        ++areas;  // region 0's second area: always 4 (its first follows the fixture)
        EXPECT_NEAR(r["metrics"]["%qd4"].get<double>(), 100.0, 1e-9) << r;
    }
    EXPECT_EQ(areas, 1) << out;
    ASSERT_EQ(run({"set-aux", "vol", "0", "--raw", "DMS_GROUP=both:0-1#-"}), 0) << err;
    ASSERT_EQ(run({"-j", "report", "--level", "group", "-o", "%qd4,%qd8,%qd16", "-y", "1", "1"}), 0)
        << err;
    rows = nlohmann::json::parse(out)["rows"];
    int groups = 0;
    for (const auto& r : rows) {
        if (r["level"] != "group")
            continue;
        ++groups;
        // Area 0 idle by now (the fixture's clock is past its first quarter
        // second), 4 in area 1, 2 in region 1: 6, neither 4 nor 2 alone.
        EXPECT_NEAR(r["metrics"]["%qd4"].get<double>(), 100.0, 1e-9) << r;
        EXPECT_NEAR(r["metrics"]["%qd8"].get<double>(), 0.0, 1e-9) << r;
        EXPECT_NEAR(r["metrics"]["%qd16"].get<double>(), 0.0, 1e-9) << r;
    }
    EXPECT_EQ(groups, 1) << out;
}

TEST_F(ReportDepth, TheRateIsTheUsers) {
    ASSERT_EQ(run({"report", "--qd-sample", "250ms", "-o", "%qd16", "-y", "1", "1"}), 0) << err;
    EXPECT_EQ(ticks, 4);
    ticks = 0;
    ASSERT_EQ(run({"report", "-o", "%util", "-y", "1", "1"}), 0) << err;
    EXPECT_EQ(ticks, 1);  // no %qd field: no sampling, one sleep
    EXPECT_EQ(run({"report", "--qd-sample", "0", "-o", "%qd16", "1"}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"report", "--qd-sample", "often", "-o", "%qd16", "1"}), 2);
}

TEST_F(ReportDepth, NoIntervalNoFractions) {
    ASSERT_EQ(run({"-j", "report", "--level", "device", "-o", "%qd1", "dm-3"}), 0) << err;
    auto rows = nlohmann::json::parse(out)["rows"];
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_TRUE(rows[0]["metrics"]["%qd1"].is_null()) << out;  // nothing was sampled since boot
    EXPECT_EQ(ticks, 0);
}

}  // namespace
}  // namespace iotally
