// SPDX-License-Identifier: GPL-2.0-or-later
// Exposition output checked by real parsers: promtool (Prometheus text
// format, lint-clean) and prometheus_client's OpenMetrics parser.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fake_dm.hpp"
#include "iotally/openmetrics.hpp"
#include "iotally/stats_client.hpp"

namespace iotally {
namespace {

Snapshot sample_snapshot() {
    static test::FakeDm dm;
    static bool made = false;
    if (!made) {
        made = true;
        dm.add_device("vol", 2048);
        dm.add_device("we\"ird\\name", 2048);
        StatsClient c(dm, "vol");
        CreateRequest r;
        r.step = AreaCount{2};
        r.histogram = {1, 5, 20};
        r.program_id = "dmstats";
        c.create(r);
        dm.region("vol", 0).areas[0] = RawCounters{2, 0, 2, 3, 1, 0, 8, 5, 0, 7, 9, 3, 5};
        dm.region("vol", 0).histograms[0] = {1, 1, 0, 1};
        c.set_aux(0, "DMS_GROUP=db:0#-");
        CreateRequest p;
        p.precise_timestamps = true;
        c.create(p);
        StatsClient w(dm, "we\"ird\\name");
        w.create(CreateRequest{});
    }
    Snapshotter s(dm);
    return s.take();
}

std::string write_temp(const std::string& text) {
    std::string path = testing::TempDir() + "/iotally-om-XXXXXX";
    std::vector<char> buf(path.begin(), path.end());
    buf.push_back('\0');
    int fd = mkstemp(buf.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    return buf.data();
}

int run_shell(const std::string& cmd) {
    int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Exposition, OpenMetricsParsesWithTheReferenceParser) {
    for (bool areas : {false, true}) {
        ExportOptions o;
        o.areas = areas;
        std::string text = render_exposition(sample_snapshot(), o);
        std::string path = write_temp(text);
        EXPECT_EQ(run_shell(std::string(IOTALLY_PYTHON3) + " " + IOTALLY_OM_VALIDATOR + " " + path),
                  0)
            << text;
        std::filesystem::remove(path);
    }
}

TEST(Exposition, PrometheusFormatIsLintCleanForPromtool) {
    for (bool areas : {false, true}) {
        ExportOptions o;
        o.format = ExpositionFormat::prometheus;
        o.areas = areas;
        std::string text = render_exposition(sample_snapshot(), o);
        std::string path = write_temp(text);
        EXPECT_EQ(run_shell(std::string(IOTALLY_PROMTOOL) + " check metrics < " + path), 0) << text;
        std::filesystem::remove(path);
    }
}

TEST(Exposition, InvalidTextIsRejectedByBothCheckers) {
    // The checkers must be able to fail: a counter sample before its TYPE
    // line in a wrong family, and a histogram without +Inf.
    std::string om = write_temp(
        "# TYPE x_seconds histogram\n# UNIT x_seconds seconds\n"
        "x_seconds_bucket{le=\"1\"} 1\nx_seconds_count 1\n# EOF\n");
    EXPECT_NE(run_shell(std::string(IOTALLY_PYTHON3) + " " + IOTALLY_OM_VALIDATOR + " " + om +
                        " 2>/dev/null >/dev/null"),
              0);
    std::string prom = write_temp("# TYPE x counter\nx 1\n");  // counters need _total
    EXPECT_NE(
        run_shell(std::string(IOTALLY_PROMTOOL) + " check metrics < " + prom + " >/dev/null 2>&1"),
        0);
    std::filesystem::remove(om);
    std::filesystem::remove(prom);
}

TEST(Exposition, ValuesAndLabels) {
    std::string text = render_exposition(sample_snapshot());
    // Region 0: area 0 read 2 sectors = 1024 bytes; 3 ms reading = 0.003 s.
    EXPECT_NE(
        text.find("iotally_read_bytes_total{device=\"vol\",region=\"0\",program_id=\"dmstats\","
                  "group=\"0\",group_alias=\"db\"} 1024\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("iotally_read_time_seconds_total{device=\"vol\",region=\"0\","
                        "program_id=\"dmstats\",group=\"0\",group_alias=\"db\"} 0.003\n"),
              std::string::npos);
    // Cumulative buckets 1, 1+1, 2+0, 2+1; le in seconds; sum = (3 + 5) ms.
    EXPECT_NE(text.find("group_alias=\"db\",le=\"0.001\"} 1\n"), std::string::npos);
    EXPECT_NE(text.find("group_alias=\"db\",le=\"0.005\"} 2\n"), std::string::npos);
    EXPECT_NE(text.find("group_alias=\"db\",le=\"0.02\"} 2\n"), std::string::npos);
    EXPECT_NE(text.find("group_alias=\"db\",le=\"+Inf\"} 3\n"), std::string::npos);
    EXPECT_NE(text.find("iotally_latency_seconds_sum{device=\"vol\",region=\"0\","
                        "program_id=\"dmstats\",group=\"0\",group_alias=\"db\"} 0.008\n"),
              std::string::npos);
    EXPECT_NE(text.find("device=\"we\\\"ird\\\\name\""), std::string::npos);
    EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

TEST(Exposition, EscapeLabelValue) {
    EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

}  // namespace
}  // namespace iotally
