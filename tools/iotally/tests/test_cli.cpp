// SPDX-License-Identifier: GPL-2.0-or-later
// The iotally commands end to end against the fake kernel.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "fake_dm.hpp"
#include "fixtures.hpp"
#include "iotally/filemap.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

using test::FakeDm;

class Borrowed : public DeviceLayer {
  public:
    explicit Borrowed(FakeDm& dm) : dm_(dm) {}
    std::vector<DeviceInfo> list_devices() override { return dm_.list_devices(); }
    DeviceInfo device(const std::string& n) override { return dm_.device(n); }
    std::string message(const std::string& d, const std::string& t) override {
        return dm_.message(d, t);
    }

  private:
    FakeDm& dm_;
};

struct Cli : testing::Test {
    FakeDm dm;
    double now = 1000.0;
    std::function<void(double)> on_sleep;  // I/O "happening" while we wait
    std::string out, err;

    int run(std::vector<std::string> args) {
        std::ostringstream o, e;
        cli::Context ctx;
        ctx.make_layer = [this] { return std::make_unique<Borrowed>(dm); };
        ctx.out = &o;
        ctx.err = &e;
        ctx.clock = [this] { return now; };
        ctx.sleep = [this](double s) {
            now += s;
            if (on_sleep)
                on_sleep(s);
        };
        ctx.interactive = [] { return false; };
        ctx.terminal_width = [] { return 100; };
        if (!debugfs.empty())
            ctx.debugfs = debugfs;
        int rc = cli::run(args, ctx);
        out = o.str();
        err = e.str();
        return rc;
    }
    std::string debugfs;

    Cli() { dm.add_device("vol", 204800, {"linear"}, "LVM-xyz", 3); }
    bool sent(const std::string& prefix) const {
        for (const auto& m : dm.sent)
            if (m.rfind(prefix, 0) == 0)
                return true;
        return false;
    }
    static bool one_line(const std::string& s) {
        return !s.empty() && s.find('\n') == s.size() - 1;
    }
};

TEST_F(Cli, HelpListsEveryCommand) {
    ASSERT_EQ(run({"help"}), 0);
    for (const char* c : {"message", "create", "delete", "clear", "list", "print", "set-aux",
                          "update", "report", "histogram", "top", "export", "stat"})
        EXPECT_NE(out.find(c), std::string::npos) << c;
    ASSERT_EQ(run({"report", "--help"}), 0);
    EXPECT_NE(out.find("--interval"), std::string::npos);
    ASSERT_EQ(run({"help", "create"}), 0);
    EXPECT_NE(out.find("--histogram"), std::string::npos);
}

TEST_F(Cli, UsageErrorsExitTwoWithOneLine) {
    EXPECT_EQ(run({}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"frobnicate"}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"create", "vol", "--areas", "2", "--area-size", "8"}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"create", "vol", "--histogram", "5ms,1ms"}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"create", "vol", "--length", "12q"}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"report", "-o", "nope"}), 2);
    EXPECT_EQ(run({"help", "nope"}), 2);
    EXPECT_TRUE(dm.dev("vol").regions.empty());
}

TEST_F(Cli, NoSuchDeviceExitsThree) {
    EXPECT_EQ(run({"create", "nodev"}), 3);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_NE(err.find("nodev"), std::string::npos);
    EXPECT_EQ(run({"list", "nodev"}), 3);
}

TEST_F(Cli, CreateListPrintDelete) {
    ASSERT_EQ(run({"create", "vol", "--start", "1m", "--length", "4m", "--areas", "4",
                   "--histogram", "1ms,5ms,20ms", "--aux", "my notes"}),
              0)
        << err;
    EXPECT_EQ(out, "0\n");
    EXPECT_EQ(dm.sent.back(), "@stats_create 2048+8192 /4 1 histogram:1,5,20 iotally my\\ notes");
    // A sub-millisecond boundary switches to nanoseconds, as lvm2 does.
    ASSERT_EQ(run({"-j", "create", "vol", "--histogram", "500us,2ms"}), 0) << err;
    EXPECT_EQ(nlohmann::json::parse(out)["region_id"], 1);
    EXPECT_EQ(dm.sent.back(),
              "@stats_create - /1 2 precise_timestamps histogram:500000,2000000 iotally");

    ASSERT_EQ(run({"list"}), 0) << err;
    EXPECT_NE(out.find("my notes"), std::string::npos) << out;
    EXPECT_NE(out.find("1ms,5ms,20ms"), std::string::npos) << out;
    ASSERT_EQ(run({"-j", "list", "vol"}), 0);
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j[0]["regions"][0]["areas"], 4);
    EXPECT_EQ(j[0]["regions"][1]["precise_timestamps"], true);

    dm.region("vol", 0).areas[1].reads = 9;
    ASSERT_EQ(run({"print", "vol", "0"}), 0);
    EXPECT_EQ(out,
              "2048+2048 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0:0\n"
              "4096+2048 9 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0:0\n"
              "6144+2048 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0:0\n"
              "8192+2048 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0:0\n");
    ASSERT_EQ(run({"-j", "print", "vol", "0", "--first", "1", "--count", "1"}), 0);
    EXPECT_EQ(nlohmann::json::parse(out)["areas"][0]["reads"], 9);
    EXPECT_FALSE(sent("@stats_print_clear"));

    ASSERT_EQ(run({"delete", "vol", "0", "1"}), 0) << err;
    EXPECT_TRUE(dm.dev("vol").regions.empty());
}

TEST_F(Cli, MissingRegionExitsSixAndChangesNothing) {
    ASSERT_EQ(run({"create", "vol"}), 0);
    EXPECT_EQ(run({"delete", "vol", "0", "7"}), 6);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(dm.dev("vol").regions.size(), 1u);
    EXPECT_FALSE(sent("@stats_delete"));
    EXPECT_EQ(run({"clear", "vol", "7"}), 6);
    EXPECT_EQ(run({"print", "vol", "7"}), 6);
    EXPECT_EQ(run({"set-aux", "vol", "7", "x"}), 6);
}

TEST_F(Cli, KernelRejectionIsOneLine) {
    dm.fail = [](const std::string&, const std::string& t) {
        return t.rfind("@stats_create", 0) == 0 ? EINVAL : 0;
    };
    EXPECT_EQ(run({"create", "vol"}), 1);
    EXPECT_TRUE(one_line(err)) << err;
    dm.fail = [](const std::string&, const std::string&) { return EPERM; };
    EXPECT_EQ(run({"list", "vol"}), 4);
    EXPECT_TRUE(one_line(err)) << err;
}

TEST_F(Cli, MessagePassthrough) {
    ASSERT_EQ(run({"message", "vol", "@stats_create", "-", "/2"}), 0) << err;
    EXPECT_EQ(out, "0\n");  // the kernel's reply has no newline; dmsetup adds one
    ASSERT_EQ(run({"message", "vol", "@stats_set_aux", "0", "foo\\ bar"}), 0);
    EXPECT_EQ(out, "");
    ASSERT_EQ(run({"message", "vol", "@stats_list"}), 0);
    EXPECT_EQ(out, "0: 0+204800 102400 - foo bar\n");
}

TEST_F(Cli, SetAuxKeepsTheGroupTag) {
    ASSERT_EQ(run({"create", "vol"}), 0);
    ASSERT_EQ(run({"create", "vol"}), 0);
    ASSERT_EQ(run({"message", "vol", "@stats_set_aux", "0", "DMS_GROUP=g:0-1#-"}), 0);
    ASSERT_EQ(run({"set-aux", "vol", "0", "hello world"}), 0) << err;
    EXPECT_EQ(dm.region("vol", 0).aux_data, "DMS_GROUP=g:0-1#hello world");
    ASSERT_EQ(run({"set-aux", "--raw", "vol", "0", "plain"}), 0) << err;
    EXPECT_EQ(dm.region("vol", 0).aux_data, "plain");
}

TEST_F(Cli, DeletingAMemberUpdatesTheLeader) {
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(run({"create", "vol", "--program-id", "dmstats"}), 0);
    ASSERT_EQ(run({"message", "vol", "@stats_set_aux", "0", "DMS_GROUP=g:0-2#-"}), 0);
    ASSERT_EQ(run({"delete", "vol", "1"}), 0) << err;
    EXPECT_EQ(dm.region("vol", 0).aux_data, "DMS_GROUP=g:0,2#-");
    ASSERT_EQ(run({"delete", "vol", "--all", "--program-id", "dmstats"}), 0) << err;
    EXPECT_TRUE(dm.dev("vol").regions.empty());
}

TEST_F(Cli, ReportSinceCreation) {
    ASSERT_EQ(run({"create", "vol", "--areas", "2"}), 0);
    // Area 0: 10 reads of 8 sectors in 30 ms; area 1: 4 writes of 16 sectors in 8 ms.
    dm.region("vol", 0).areas[0] = RawCounters{10, 2, 80, 30, 0, 0, 0, 0, 0, 30, 30, 30, 0};
    dm.region("vol", 0).areas[1] = RawCounters{0, 0, 0, 0, 4, 0, 64, 8, 1, 8, 8, 0, 8};
    ASSERT_EQ(run({"-j", "report", "vol", "--level", "region"}), 0) << err;
    auto row = nlohmann::json::parse(out)["rows"][0];
    EXPECT_EQ(row["metrics"]["r_ios"], 10);
    EXPECT_EQ(row["metrics"]["w_bytes"], 32768);  // 64 * 512
    EXPECT_EQ(row["metrics"]["r_ms"], 3.0);       // 30 ms / 10
    EXPECT_EQ(row["metrics"]["w_kbpt"], 8.0);     // 32 KiB / 4
    EXPECT_EQ(row["metrics"]["queue"], 1);
    EXPECT_TRUE(row["metrics"]["r_tps"].is_null());  // no time base since creation
    EXPECT_TRUE(row["metrics"]["ms_free"].is_null());

    ASSERT_EQ(run({"report", "--level", "area", "-o", "r_ios,w_ios,r_ms"}), 0) << err;
    EXPECT_NE(out.find("REGION"), std::string::npos);
    EXPECT_NE(out.find("3.00"), std::string::npos) << out;
}

TEST_F(Cli, ReportRatesNeverClearAndTwoReadersAgree) {
    ASSERT_EQ(run({"create", "vol"}), 0);
    // Every 2 s interval: 100 more reads of 8 sectors, 20 of them merged.
    on_sleep = [this](double) {
        auto& a = dm.region("vol", 0).areas[0];
        a.reads += 100;
        a.reads_merged += 20;
        a.read_sectors += 800;
        a.read_time += 50;
        a.io_time += 500;
    };
    for (int reader = 0; reader < 2; ++reader) {
        ASSERT_EQ(run({"-j", "report", "vol", "--interval", "2", "--count", "2"}), 0) << err;
        std::istringstream lines(out);
        std::string line;
        int n = 0;
        while (std::getline(lines, line)) {
            auto row = nlohmann::json::parse(line)["rows"][0];
            EXPECT_EQ(row["elapsed_s"], 2.0);  // the clock between the two snapshots
            auto m = row["metrics"];
            EXPECT_EQ(m["r_ios"], 100);  // a count: an integer in JSON
            EXPECT_TRUE(m["r_ios"].is_number_unsigned());
            EXPECT_EQ(m["r_tps"], 50.0);        // 100 / 2 s
            EXPECT_EQ(m["rrqm"], 10.0);         // 20 / 2 s
            EXPECT_EQ(m["r_mbps"], 0.1953125);  // 800 * 512 B = 0.390625 MiB / 2 s
            EXPECT_EQ(m["r_ms"], 0.5);          // 50 ms / 100
            EXPECT_EQ(m["busy"], 25.0);         // 500 ms of 2000 ms
            ++n;
        }
        EXPECT_EQ(n, 2);
    }
    EXPECT_FALSE(sent("@stats_print_clear"));
    EXPECT_FALSE(sent("@stats_clear"));
}

TEST_F(Cli, ReportCsvSortAndSelect) {
    dm.add_device("other", 1000, {"striped"}, "CRYPT-1", 4);
    ASSERT_EQ(run({"create", "vol"}), 0);
    ASSERT_EQ(run({"create", "other"}), 0);
    dm.region("vol", 0).areas[0].reads = 5;
    dm.region("other", 0).areas[0].reads = 50;
    ASSERT_EQ(run({"report", "--csv", "-o", "r_ios", "--sort", "r_ios"}), 0) << err;
    EXPECT_EQ(out,
              "sample,device,level,group,region,area,start,length,new,counters_reset,r_ios\n"
              "0,other,region,,0,,0,1000,0,0,50\n"
              "0,vol,region,,0,,0,204800,0,0,5\n");
    ASSERT_EQ(run({"report", "--csv", "-o", "r_ios", "--select", "uuid=LVM-"}), 0) << err;
    EXPECT_EQ(out.find("other"), std::string::npos);
    EXPECT_NE(out.find("vol"), std::string::npos);
}

TEST_F(Cli, Histogram) {
    ASSERT_EQ(run({"create", "vol", "--histogram", "1ms,5ms,20ms"}), 0);
    dm.region("vol", 0).histograms[0] = {10, 5, 4, 1};
    ASSERT_EQ(run({"histogram", "vol", "0"}), 0) << err;
    EXPECT_NE(out.find("20 I/Os"), std::string::npos) << out;
    EXPECT_NE(out.find("p90"), std::string::npos);
    ASSERT_EQ(run({"-j", "histogram", "vol", "0"}), 0);
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["percentiles"]["p90"]["estimate_ns"], 16'250'000.0);  // see test_histogram
    EXPECT_TRUE(j["buckets"][3]["upper_ns"].is_null());
    ASSERT_EQ(run({"create", "vol"}), 0);
    EXPECT_EQ(run({"histogram", "vol", "1"}), 2);  // no histogram on region 1
}

TEST_F(Cli, TopShowsTheHotArea) {
    ASSERT_EQ(run({"create", "vol", "--areas", "10"}), 0);
    on_sleep = [this](double) { dm.region("vol", 0).areas[7].write_sectors += 2048; };
    ASSERT_EQ(run({"top", "--count", "1", "--interval", "1"}), 0) << err;
    // Only area 7 of 10 saw I/O: the strip is blank except its column.
    EXPECT_NE(out.find("|       @  |"), std::string::npos) << out;
    EXPECT_NE(out.find("1.00"), std::string::npos) << out;  // 1 MiB/s written
}

TEST(HeatStrip, BinsAndScales) {
    EXPECT_EQ(cli::heat_strip({0, 0, 10, 0}, 10), "  @ ");
    // 5 of max 10 -> level 1 + 5 * 8 / 10 = 5, '+' in " .:-=+*#%@".
    EXPECT_EQ(cli::heat_strip({10, 5, 0, 0}, 10), "@+  ");
    // 8 areas into 4 columns: sums 2, 0, 8, 4 of max 8 -> levels 3, 0, 9, 5.
    EXPECT_EQ(cli::heat_strip({1, 1, 0, 0, 4, 4, 2, 2}, 4), "- @+");
    EXPECT_EQ(cli::heat_strip({}, 4), "");
}

TEST_F(Cli, ExportToTextfileDirIsAtomic) {
    ASSERT_EQ(run({"create", "vol", "--histogram", "1ms"}), 0);
    test::TempDir dir;
    ASSERT_EQ(run({"export", "--openmetrics", "--textfile-dir", dir.path()}), 0) << err;
    auto files = std::filesystem::directory_iterator(dir.path());
    std::vector<std::string> names;
    for (const auto& f : files)
        names.push_back(f.path().filename());
    EXPECT_EQ(names, (std::vector<std::string>{"iotally.prom"}));
    std::string text = test::read_text(dir.path() + "/iotally.prom");
    EXPECT_NE(text.find("iotally_region_io_latency_seconds_bucket"), std::string::npos);
    EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
    // Without --openmetrics a textfile is text 0.0.4, what node_exporter reads.
    ASSERT_EQ(run({"export", "--textfile-dir", dir.path()}), 0) << err;
    text = test::read_text(dir.path() + "/iotally.prom");
    EXPECT_EQ(text.find("# EOF"), std::string::npos);
    EXPECT_NE(text.find("# TYPE iotally_region_read_bytes_total counter\n"), std::string::npos);
    EXPECT_EQ(run({"export", "--textfile-dir", dir.path() + "/missing"}), 1);
    EXPECT_TRUE(one_line(err)) << err;
    ASSERT_EQ(run({"export", "--prometheus"}), 0);
    EXPECT_EQ(out.find("# EOF"), std::string::npos);
}

// A definition file takes commands: what matters is the line written, which
// the regular file standing in for it keeps at its start.
std::string first_line(const std::string& path) {
    std::string text = test::read_text(path);
    return text.substr(0, text.find('\n') + 1);
}

TEST_F(Cli, StatCommands) {
    test::TempDir dir;
    debugfs = dir.path();
    dir.write("statistics/dm-0/definition",
              "name=latency on=0 type=array range_min=0 range_max=1024 scale=log2 "
              "base_interval=1 units=us/incidents\n");
    dir.write("statistics/dm-0/data", "latency <=1 4\nlatency >1024 0\n");
    ASSERT_EQ(run({"stat", "list"}), 0) << err;
    EXPECT_EQ(out, "dm-0\n");
    ASSERT_EQ(run({"stat", "show", "dm-0"}), 0) << err;
    EXPECT_NE(out.find("latency"), std::string::npos);
    EXPECT_NE(out.find("array"), std::string::npos);
    ASSERT_EQ(run({"-j", "stat", "show", "dm-0"}), 0);
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["interface"], "dm-0");
    ASSERT_EQ(j["statistics"].size(), 1u);
    const auto& st = j["statistics"][0];
    EXPECT_EQ(st["name"], "latency");
    EXPECT_EQ(st["type"], "array");
    EXPECT_EQ(st["on"], false);
    EXPECT_EQ(st["attributes"]["scale"], "log2");
    EXPECT_EQ(st["columns"], nlohmann::json({"bucket", "count"}));
    EXPECT_EQ(st["data"], nlohmann::json::parse(
                              R"([{"bucket":"<=1","count":4},{"bucket":">1024","count":0}])"));
    // Data of a statistic the definition file does not list, or in the wrong shape.
    dir.write("statistics/dm-0/data", "latency <=1 4\nghost 3\n");
    EXPECT_EQ(run({"stat", "show", "dm-0"}), 7);
    EXPECT_TRUE(one_line(err)) << err;
    dir.write("statistics/dm-0/data", "latency 4\n");
    EXPECT_EQ(run({"-j", "stat", "show", "dm-0"}), 7);
    EXPECT_TRUE(one_line(err)) << err;
    dir.write("statistics/dm-0/data", "latency <=1 4\nlatency >1024 0\n");

    ASSERT_EQ(run({"stat", "on", "dm-0", "latency"}), 0) << err;
    EXPECT_EQ(first_line(dir.path() + "/statistics/dm-0/definition"), "name=latency on=1\n");
    dir.write("statistics/dm-0/definition", "name=latency on=1 type=array\n");
    ASSERT_EQ(run({"stat", "reset", "dm-0"}), 0) << err;
    EXPECT_EQ(first_line(dir.path() + "/statistics/dm-0/definition"), "data=reset\n");
    dir.write("statistics/dm-0/definition", "name=latency on=1 type=array\n");
    ASSERT_EQ(run({"stat", "set", "dm-0", "name=latency", "scale=lin", "base_interval=8"}), 0)
        << err;
    EXPECT_EQ(first_line(dir.path() + "/statistics/dm-0/definition"),
              "name=latency scale=lin base_interval=8\n");
    dir.write("statistics/dm-0/definition", "name=latency on=1 type=array\n");
    EXPECT_EQ(run({"stat", "set", "dm-0", "name=nope", "on=1"}), 2);
    EXPECT_EQ(run({"stat", "set", "dm-0", "name=latency", "units=x"}), 2);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(test::read_text(dir.path() + "/statistics/dm-0/definition"),
              "name=latency on=1 type=array\n");
    EXPECT_EQ(run({"stat", "show", "nope"}), 3);
    debugfs = dir.path() + "/none";
    EXPECT_EQ(run({"stat", "list"}), 5);
}

}  // namespace
}  // namespace iotally

namespace iotally {
namespace {

// A file on this host's disk, mapped onto a fake device that claims the
// file system's device number: FIEMAP is real, the regions are fake.
struct CliFile : Cli {
    test::TempDir dir;
    std::string path;
    CliFile() {
        path = dir.write("data.bin", std::string(256 << 10, 'x'));
        struct stat st {};
        EXPECT_EQ(stat(path.c_str(), &st), 0);
        auto& d = dm.add_device("fsdev", 1ULL << 40);
        d.info.major = major(st.st_dev);
        d.info.minor = minor(st.st_dev);
    }
    std::size_t extents() { return extent_ranges(map_file(path).extents).size(); }
};

TEST_F(CliFile, CreateAndUpdateAFileMap) {
    const std::size_t n = extents();
    ASSERT_GE(n, 1u);
    ASSERT_EQ(run({"-j", "create", "--file", path}), 0) << err;
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["device"], "fsdev");  // found by device number
    EXPECT_EQ(j["region_ids"].size(), n);
    EXPECT_EQ(dm.region("fsdev", 0).program_id, "dmstats");
    EXPECT_EQ(dm.region("fsdev", 0).aux_data.rfind("DMS_GROUP=data.bin:0", 0), 0u)
        << dm.region("fsdev", 0).aux_data;

    // The file grows: update maps the new extents into the same group.
    {
        std::ofstream f(path, std::ios::app | std::ios::binary);
        f << std::string(1 << 20, 'y');
    }
    const std::size_t grown = extents();
    ASSERT_EQ(run({"-j", "update", "--file", path}), 0) << err;
    auto u = nlohmann::json::parse(out);
    EXPECT_EQ(u["region_ids"].size(), grown);
    EXPECT_EQ(dm.dev("fsdev").regions.size(), grown);
    ASSERT_EQ(run({"-j", "list", "fsdev"}), 0);
    auto l = nlohmann::json::parse(out);
    ASSERT_EQ(l[0]["groups"].size(), 1u);
    EXPECT_EQ(l[0]["groups"][0]["alias"], "data.bin");
    EXPECT_EQ(l[0]["groups"][0]["members"].size(), grown);
}

TEST_F(CliFile, FailedFileMapLeavesNoRegion) {
    dm.fail = [](const std::string&, const std::string& t) {
        return t.rfind("@stats_set_aux", 0) == 0 ? ENOMEM : 0;
    };
    EXPECT_EQ(run({"create", "--file", path}), 1);
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_TRUE(dm.dev("fsdev").regions.empty());
}

TEST_F(CliFile, WrongDeviceAndMissingGroup) {
    EXPECT_EQ(run({"create", "vol", "--file", path}), 2);  // the file is not on vol
    EXPECT_TRUE(one_line(err)) << err;
    EXPECT_EQ(run({"update", "--file", path}), 6);  // no group named data.bin yet
    EXPECT_EQ(run({"create", "--file", path, "--areas", "2"}), 2);
    EXPECT_TRUE(dm.dev("fsdev").regions.empty());
}

TEST_F(Cli, FileNotOnADmDevice) {
    // The host file system is on no fake device: named as such (exit 3),
    // whether or not it supports FIEMAP, and nothing is made.
    test::TempDir dir;
    const std::string path = dir.write("plain", "x");
    for (const std::string cmd : {"create", "update"}) {
        EXPECT_EQ(run({cmd, "--file", path}), 3) << cmd;
        EXPECT_TRUE(one_line(err)) << err;
        EXPECT_NE(err.find("not a device-mapper device"), std::string::npos) << err;
    }
    EXPECT_TRUE(dm.dev("vol").regions.empty());
}

}  // namespace
}  // namespace iotally
