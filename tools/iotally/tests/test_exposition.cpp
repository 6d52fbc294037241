// SPDX-License-Identifier: GPL-2.0-or-later
// Exposition output checked by real parsers: promtool (Prometheus text
// format, lint-clean) and prometheus_client's OpenMetrics parser, and the
// writer's rules: names, escaping, bucket order, +Inf, # EOF, negotiation.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "fake_dm.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

Snapshot sample_snapshot() {
    static test::FakeDm dm;
    static bool made = false;
    if (!made) {
        made = true;
        dm.add_device("vol", 2048, {"linear"}, "CRYPT-abc", 3);
        dm.add_device("we\"ird\\name", 2048);
        dm.add_device("data--vg-my--lv", 2048, {"linear"}, "LVM-0123456789abcdef", 7);
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
        StatsClient l(dm, "data--vg-my--lv");
        CreateRequest h;
        h.precise_timestamps = true;
        h.histogram = {1000000, 20000000};
        l.create(h);
        dm.region("data--vg-my--lv", 0).areas[0] =
            RawCounters{4, 0, 8, 40000000, 0, 0, 0, 0, 1, 1, 1, 1, 0};
        dm.region("data--vg-my--lv", 0).histograms[0] = {1, 2, 1};
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

std::string promtool_output(const std::string& text) {
    std::string path = write_temp(text);
    std::string out = path + ".out";
    int rc = run_shell(std::string(IOTALLY_PROMTOOL) + " check metrics < " + path + " > " + out +
                       " 2>&1");
    std::ifstream f(out);
    std::string s((std::istreambuf_iterator<char>(f)), {});
    std::filesystem::remove(path);
    std::filesystem::remove(out);
    return fmt::format("rc={} {}", rc, s);
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
        // Silent and successful: no "no help text", no lint finding at all.
        EXPECT_EQ(promtool_output(text), "rc=0 ") << text;
    }
}

TEST(Exposition, EveryFamilyHasHelpAndTypeInTextFormat) {
    ExportOptions o;
    o.format = ExpositionFormat::prometheus;
    std::string text = render_exposition(sample_snapshot(), o);
    std::istringstream in(text);
    std::string line, help, type;
    std::set<std::string> seen;
    while (std::getline(in, line)) {
        if (line.starts_with("# HELP ")) {
            help = line.substr(7, line.find(' ', 7) - 7);
            continue;
        }
        if (line.starts_with("# TYPE ")) {
            type = line.substr(7, line.find(' ', 7) - 7);
            EXPECT_EQ(type, help) << "TYPE without its HELP right before: " << line;
            continue;
        }
        std::string name = line.substr(0, line.find_first_of("{ "));
        EXPECT_TRUE(name == type || name == type + "_bucket" || name == type + "_sum" ||
                    name == type + "_count")
            << line << " under # TYPE " << type;
    }
}

TEST(Exposition, InvalidTextIsRejectedByBothCheckers) {
    // The checkers must be able to fail: a histogram without +Inf, and a
    // counter without _total.
    std::string om = write_temp(
        "# TYPE x_seconds histogram\n# UNIT x_seconds seconds\n"
        "x_seconds_bucket{le=\"1\"} 1\nx_seconds_count 1\n# EOF\n");
    EXPECT_NE(run_shell(std::string(IOTALLY_PYTHON3) + " " + IOTALLY_OM_VALIDATOR + " " + om +
                        " 2>/dev/null >/dev/null"),
              0);
    EXPECT_NE(promtool_output("# HELP x X.\n# TYPE x counter\nx 1\n").substr(0, 4), "rc=0");
    std::filesystem::remove(om);
}

TEST(Exposition, LabelsNameTheDeviceAsNodeExporterAndLvm2Do) {
    std::string text = render_exposition(sample_snapshot());
    // Region 0 of vol (minor 3): area 0 read 2 sectors = 1024 bytes in 3 ms.
    const std::string vol =
        "device=\"dm-3\",dm_name=\"vol\",dm_uuid=\"CRYPT-abc\",major=\"254\","
        "minor=\"3\",region_id=\"0\",program_id=\"dmstats\",group_id=\"0\","
        "group_alias=\"db\"";
    EXPECT_NE(text.find("iotally_region_read_bytes_total{" + vol + "} 1024\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("iotally_region_reads_completed_total{" + vol + "} 2\n"),
              std::string::npos);
    EXPECT_NE(text.find("iotally_region_read_time_seconds_total{" + vol + "} 0.003\n"),
              std::string::npos);
    EXPECT_NE(text.find("iotally_region_written_bytes_total{" + vol + "} 4096\n"),
              std::string::npos);
    // lvm2's VG-LV name, dashes doubled inside names.
    const std::string lv =
        "device=\"dm-7\",dm_name=\"data--vg-my--lv\","
        "dm_uuid=\"LVM-0123456789abcdef\",major=\"254\",minor=\"7\","
        "vg=\"data-vg\",lv=\"my-lv\",region_id=\"0\",program_id=\"-\"";
    EXPECT_NE(text.find("iotally_region_io_now{" + lv + "} 1\n"), std::string::npos) << text;
    // Escaping: backslash and double quote of a dm name.
    EXPECT_NE(text.find("dm_name=\"we\\\"ird\\\\name\""), std::string::npos);
}

TEST(Exposition, HistogramBucketsAreCumulativeInSecondsEndingInInf) {
    std::string text = render_exposition(sample_snapshot());
    const std::string lv =
        "device=\"dm-7\",dm_name=\"data--vg-my--lv\","
        "dm_uuid=\"LVM-0123456789abcdef\",major=\"254\",minor=\"7\","
        "vg=\"data-vg\",lv=\"my-lv\",region_id=\"0\",program_id=\"-\"";
    const std::string h = "iotally_region_io_latency_seconds";
    // Counts 1, 2, 1 for [0,1ms) [1ms,20ms) [20ms,inf): cumulative 1, 3, 4.
    std::string expect = h + "_bucket{" + lv + ",le=\"0.001\"} 1\n" + h + "_bucket{" + lv +
                         ",le=\"0.02\"} 3\n" + h + "_bucket{" + lv + ",le=\"+Inf\"} 4\n" + h +
                         "_sum{" + lv + "} 0.04\n" + h + "_count{" + lv + "} 4\n";
    EXPECT_NE(text.find(expect), std::string::npos) << text;
    // A region without histogram has no histogram series.
    EXPECT_EQ(text.find(h + "_count{device=\"dm-0\""), std::string::npos);
}

TEST(Exposition, OpenMetricsEndsWithEofAndTextDoesNot) {
    std::string om = render_exposition(sample_snapshot());
    EXPECT_TRUE(om.ends_with("\n# EOF\n"));
    EXPECT_EQ(om.find("# EOF"), om.size() - 6);
    EXPECT_NE(om.find("# TYPE iotally_region_read_bytes counter\n"
                      "# UNIT iotally_region_read_bytes bytes\n"),
              std::string::npos);
    ExportOptions o;
    o.format = ExpositionFormat::prometheus;
    std::string text = render_exposition(sample_snapshot(), o);
    EXPECT_EQ(text.find("# EOF"), std::string::npos);
    EXPECT_EQ(text.find("# UNIT"), std::string::npos);
    EXPECT_NE(text.find("# TYPE iotally_region_read_bytes_total counter\n"), std::string::npos);
}

TEST(ExpositionWriter, RejectsInvalidNamesAndShapes) {
    ExpositionWriter w(ExpositionFormat::openmetrics);
    EXPECT_THROW(w.family("9bad", MetricType::gauge, "", "x"), Error);
    EXPECT_THROW(w.family("x_total", MetricType::counter, "", "x"), Error);
    EXPECT_THROW(w.family("x_time", MetricType::counter, "seconds", "x"), Error);
    Labels l;
    EXPECT_THROW(l.add("le", "1"), Error);
    EXPECT_THROW(l.add("a-b", "1"), Error);
    EXPECT_THROW(l.add("__name__", "1"), Error);
    w.family("x_seconds", MetricType::histogram, "seconds", "x");
    EXPECT_THROW(w.histogram(Labels(), {1, 2}, {1, 1}, 0), Error);
}

TEST(ExpositionWriter, HelpAndValuesAreEscapedPerFormat) {
    ExpositionWriter om(ExpositionFormat::openmetrics);
    om.family("a", MetricType::gauge, "", "back\\slash \"q\"\nnl");
    om.sample(Labels().add("l", "x\ny"), std::nan(""));
    EXPECT_EQ(om.finish(),
              "# TYPE a gauge\n# HELP a back\\\\slash \\\"q\\\"\\nnl\na{l=\"x\\ny\"} NaN\n# EOF\n");
    ExpositionWriter text(ExpositionFormat::prometheus);
    text.family("a", MetricType::gauge, "", "back\\slash \"q\"\nnl");
    text.sample(Labels(), -std::numeric_limits<double>::infinity());
    EXPECT_EQ(text.finish(), "# HELP a back\\\\slash \"q\"\\nnl\n# TYPE a gauge\na -Inf\n");
}

TEST(Exposition, EscapeLabelValue) {
    EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(Exposition, LvmNamesDecodeOnlyForLvmUuids) {
    DeviceId d;
    d.dm_name = "vg-lv";
    EXPECT_FALSE(decode_lvm_name(d));  // not LVM's uuid
    d.dm_uuid = "LVM-x";
    auto l = decode_lvm_name(d);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->vg, "vg");
    EXPECT_EQ(l->lv, "lv");
    d.dm_name = "v--g-l--v-real";
    l = decode_lvm_name(d);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->vg, "v-g");
    EXPECT_EQ(l->lv, "l-v");
    EXPECT_EQ(l->layer, "real");
    d.dm_name = "nodash";
    EXPECT_FALSE(decode_lvm_name(d));
    EXPECT_EQ(dm_kernel_name(12), "dm-12");
}

TEST(Negotiation, PrometheusScrapeHeaderGetsOpenMetrics) {
    // Prometheus 2.42's scrape Accept header.
    EXPECT_EQ(negotiate_format("application/openmetrics-text;version=1.0.0,application/"
                               "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                               "q=0.5,*/*;q=0.1"),
              ExpositionFormat::openmetrics);
    EXPECT_EQ(negotiate_format("application/openmetrics-text"), ExpositionFormat::openmetrics);
}

TEST(Negotiation, TextWhenPreferredAbsentOrMalformed) {
    EXPECT_EQ(negotiate_format(""), ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("*/*"), ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("text/plain;version=0.0.4"), ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("text/plain;q=1, application/openmetrics-text;q=0.5"),
              ExpositionFormat::prometheus);
    // q=0 refuses; an OpenMetrics version we do not write is not taken.
    EXPECT_EQ(negotiate_format("application/openmetrics-text;q=0"), ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("application/openmetrics-text;version=2.0.0"),
              ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("application/openmetrics-text;q=abc"), ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format(",,;;==,APPLICATION/OpenMetrics-Text ; Q=0.9 ,text/plain;q=0.8"),
              ExpositionFormat::openmetrics);
}

TEST(Negotiation, ContentTypes) {
    EXPECT_EQ(content_type(ExpositionFormat::openmetrics),
              "application/openmetrics-text; version=1.0.0; charset=utf-8");
    EXPECT_EQ(content_type(ExpositionFormat::prometheus),
              "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace
}  // namespace iotally
