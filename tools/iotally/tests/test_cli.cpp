// SPDX-License-Identifier: GPL-2.0-or-later
// The iotally commands end to end against the fake kernel.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "cli_fixture.hpp"
#include "fake_dm.hpp"
#include "fixtures.hpp"
#include "iotally/dm-stats/filemap.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

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

// iotally(8)'s EXIT STATUS section, as (code, sentence) pairs: ".TP",
// ".B CODE", the sentence on the next line.
std::vector<std::pair<int, std::string>> man_exit_statuses(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << path;
    std::vector<std::pair<int, std::string>> out;
    std::string line;
    bool in_section = false;
    while (std::getline(in, line)) {
        if (line.starts_with(".SH")) {
            in_section = line == ".SH EXIT STATUS";
            continue;
        }
        if (in_section && line.starts_with(".B ")) {
            std::string sentence;
            std::getline(in, sentence);
            out.emplace_back(std::stoi(line.substr(3)), sentence);
        }
    }
    return out;
}

// The man page says what the table says: they cannot drift apart.
TEST(ExitStatus, ManPageMatchesTable) {
    std::vector<std::pair<int, std::string>> table;
    for (const auto& s : exit_statuses)
        table.emplace_back(s.code, std::string(s.description));
    EXPECT_EQ(man_exit_statuses(IOTALLY_MAN_PAGE), table);
    // One status per error kind, each the code that Error carries.
    for (auto kind :
         {ErrorKind::failed, ErrorKind::usage, ErrorKind::no_device, ErrorKind::permission,
          ErrorKind::unsupported, ErrorKind::no_region, ErrorKind::parse}) {
        const int code = Error(kind, "x").exit_code();
        EXPECT_EQ(std::count_if(exit_statuses.begin(), exit_statuses.end(),
                                [&](const ExitStatus& s) { return s.code == code; }),
                  1)
            << code;
    }
}

// --help's footer and the JSON help list every status of the table.
TEST_F(Cli, HelpAndJsonHelpListEveryExitStatus) {
    ASSERT_EQ(run({"--help"}), 0);
    std::string help = out;
    std::replace(help.begin(), help.end(), '\n', ' ');
    ASSERT_EQ(run({"-j", "help"}), 0) << err;
    auto json = nlohmann::json::parse(out)["exit_status"];
    EXPECT_EQ(json.size(), exit_statuses.size());
    for (const auto& s : exit_statuses) {
        const std::string item = std::to_string(s.code) + " " + std::string(s.summary);
        EXPECT_NE(help.find(item), std::string::npos) << item << " in\n" << help;
        EXPECT_EQ(json[std::to_string(s.code)], s.summary);
    }
}

// The command table names every cli/cmd_NAME.cpp once, and nothing else.
TEST(CommandTable, OneEntryPerFile) {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(IOTALLY_CLI_DIR)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with("cmd_") && name.ends_with(".cpp"))
            files.push_back(name.substr(4, name.size() - 8));
    }
    std::vector<std::string> table;
    for (const auto& c : cli::command_table())
        table.emplace_back(c.file);
    std::sort(files.begin(), files.end());
    std::sort(table.begin(), table.end());
    EXPECT_EQ(table, files);
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
    // A histogram measures in nanoseconds unless told otherwise (issue 16).
    EXPECT_EQ(dm.sent.back(),
              "@stats_create 2048+8192 /4 2 precise_timestamps "
              "histogram:1000000,5000000,20000000 iotally my\\ notes");
    ASSERT_EQ(run({"-j", "create", "vol", "--histogram", "500us,2ms"}), 0) << err;
    EXPECT_EQ(nlohmann::json::parse(out)["region_id"], 1);
    EXPECT_EQ(dm.sent.back(),
              "@stats_create - /1 2 precise_timestamps histogram:500000,2000000 iotally");

    ASSERT_EQ(run({"list"}), 0) << err;
    EXPECT_NE(out.find("my notes"), std::string::npos) << out;
    EXPECT_NE(out.find("1ms,5ms,20ms"), std::string::npos) << out;
    ASSERT_EQ(run({"-j", "list", "vol"}), 0);
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["schema"], 2);
    EXPECT_EQ(j["devices"][0]["regions"][0]["areas"], 4);
    EXPECT_EQ(j["devices"][0]["regions"][0]["length_sectors"], 8192);  // 4m
    EXPECT_EQ(j["devices"][0]["regions"][1]["precise_timestamps"], true);

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

// -j print says in which unit its times are: the kernel prints ns for a
// region with precise_timestamps and ms (counted in jiffies) for the others.
TEST_F(Cli, JsonPrintNamesEachRegionsTimeUnit) {
    ASSERT_EQ(run({"create", "vol", "--histogram", "1ms"}), 0) << err;
    ASSERT_EQ(run({"create", "vol"}), 0) << err;
    ASSERT_EQ(dm.sent.back().find("precise_timestamps"), std::string::npos) << dm.sent.back();
    dm.region("vol", 0).areas[0].read_time = 1'500'000;
    dm.region("vol", 1).areas[0].read_time = 12;

    ASSERT_EQ(run({"-j", "print", "vol", "0"}), 0) << err;
    auto precise = nlohmann::json::parse(out);
    EXPECT_EQ(precise["time_unit"], "ns");
    EXPECT_EQ(precise["time_resolution"], "ns");
    EXPECT_EQ(precise["areas"][0]["read_time"], 1'500'000);

    ASSERT_EQ(run({"-j", "print", "vol", "1"}), 0) << err;
    auto coarse = nlohmann::json::parse(out);
    EXPECT_EQ(coarse["time_unit"], "ms");
    EXPECT_EQ(coarse["time_resolution"], "jiffies");
    EXPECT_EQ(coarse["areas"][0]["read_time"], 12);
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
    ASSERT_EQ(run({"-j", "report", "vol", "--level", "region", "-o", "all"}), 0) << err;
    auto rows = nlohmann::json::parse(out)["rows"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0]["level"], "device");  // the device's own row first
    EXPECT_EQ(rows[0]["device"], "dm-3");
    auto row = rows[1];
    EXPECT_EQ(row["level"], "region");
    EXPECT_EQ(row["dm_name"], "vol");
    EXPECT_EQ(row["metrics"]["r_ios"], 10);
    EXPECT_EQ(row["metrics"]["w_bytes"], 32768);  // 64 * 512
    EXPECT_EQ(row["metrics"]["r_await"], 3.0);    // 30 ms / 10
    EXPECT_EQ(row["metrics"]["wareq-sz"], 8.0);   // 32 KiB / 4
    EXPECT_EQ(row["metrics"]["in_flight"], 1);
    EXPECT_TRUE(row["metrics"]["r/s"].is_null());  // no time base since creation
    EXPECT_TRUE(row["metrics"]["d/s"].is_null());  // dm-stats counts discards as writes

    ASSERT_EQ(run({"report", "--level", "area", "-o", "r_ios,w_ios,r_await"}), 0) << err;
    EXPECT_NE(out.find("Region"), std::string::npos);
    EXPECT_NE(out.find("3.00"), std::string::npos) << out;
}

TEST_F(Cli, ReportRatesNeverClearAndTwoReadersAgree) {
    ASSERT_EQ(run({"create", "vol", "--precise"}), 0);
    // Every 2 s interval: 100 more reads of 8 sectors, 20 of them merged.
    on_sleep = [this](double) {
        auto& a = dm.region("vol", 0).areas[0];
        a.reads += 100;
        a.reads_merged += 20;
        a.read_sectors += 800;
        a.read_time += 50'000'000;
        a.io_time += 500'000'000;
    };
    for (int reader = 0; reader < 2; ++reader) {
        ASSERT_EQ(
            run({"-j", "report", "vol", "-y", "--interval", "2", "--count", "2", "-o", "all"}), 0)
            << err;
        std::istringstream lines(out);
        std::string line;
        int n = 0;
        while (std::getline(lines, line)) {
            auto row = nlohmann::json::parse(line)["rows"][1];
            EXPECT_EQ(row["elapsed_s"], 2.0);  // the clock between the two snapshots
            auto m = row["metrics"];
            EXPECT_EQ(m["r_ios"], 100);  // a count: an integer in JSON
            EXPECT_TRUE(m["r_ios"].is_number_unsigned());
            EXPECT_EQ(m["r/s"], 50.0);         // 100 / 2 s
            EXPECT_EQ(m["rrqm/s"], 10.0);      // 20 / 2 s
            EXPECT_EQ(m["rMB/s"], 0.1953125);  // 800 * 512 B = 0.390625 MiB / 2 s
            EXPECT_EQ(m["rkB/s"], 200.0);      // 400 KiB / 2 s
            EXPECT_EQ(m["r_await"], 0.5);      // 50 ms / 100
            EXPECT_EQ(m["%util"], 25.0);       // 500 ms of 2000 ms
            ++n;
        }
        EXPECT_EQ(n, 2);
    }
    EXPECT_FALSE(sent("@stats_print_clear"));
    EXPECT_FALSE(sent("@stats_clear"));
}

TEST_F(Cli, ReportCsvSortAndSelect) {
    dm.add_device("other", 1000, {"striped"}, "CRYPT-1", 4);
    add_block("dm-4", "254:4", "50 0 400 10 0 0 0 0 0 10 10 0 0 0 0 0 0", "other");
    sys.write("block/dm-4/dm/uuid", "CRYPT-1\n");
    ASSERT_EQ(run({"create", "vol"}), 0);
    ASSERT_EQ(run({"create", "other"}), 0);
    dm.region("vol", 0).areas[0].reads = 5;
    dm.region("other", 0).areas[0].reads = 50;
    ASSERT_EQ(run({"report", "--csv", "-o", "r_ios", "--sort", "r_ios", "--select", "dm-*"}), 0)
        << err;
    EXPECT_EQ(out,
              "timestamp,timestamp_ns,sample,device,dm_name,major,minor,level,group,region,area,"
              "start_sector,length_sectors,new,counters_reset,time_resolution,r_ios\n"
              "2026-11-18T11:06:40.000000000Z,1795000000000000000,0,dm-4,other,254,4,device,,,,"
              "0,204800,0,0,ms,50\n"
              "2026-11-18T11:06:40.000000000Z,1795000000000000000,0,dm-4,other,254,4,region,,0,,"
              "0,1000,0,0,jiffies,50\n"
              "2026-11-18T11:06:40.000000000Z,1795000000000000000,0,dm-3,vol,254,3,region,,0,,"
              "0,204800,0,0,jiffies,5\n"
              "2026-11-18T11:06:40.000000000Z,1795000000000000000,0,dm-3,vol,254,3,device,,,,"
              "0,204800,0,0,ms,0\n");
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

// A host without device-mapper: top and report show the block devices, from
// their own counters, and exit 0.
TEST_F(Cli, WithoutDeviceMapperTopAndReportShowTheBlockDevices) {
    no_dm = true;
    // vda: 1000 reads so far; 250 more in the 1 s interval.
    on_sleep = [this](double) {
        set_stat("vda", "1250 0 10000 600 0 0 0 0 0 500 600 0 0 0 0 0 0");
    };
    ASSERT_EQ(run({"top", "--count", "1", "--interval", "1"}), 0) << err;
    EXPECT_NE(out.find("(no device-mapper in this kernel: block devices only)"), std::string::npos)
        << out;
    std::istringstream lines(out);
    std::string line, vda;
    while (std::getline(lines, line))
        if (line.starts_with("vda "))
            vda = line;
    EXPECT_TRUE(vda.starts_with("vda  ")) << out;
    EXPECT_NE(vda.find(" 250.00 "), std::string::npos) << out;  // r/s
    EXPECT_NE(out.find("dm-3"), std::string::npos) << out;      // sysfs lists it still
    EXPECT_EQ(err, "");
    ASSERT_EQ(run({"report", "--level", "region"}), 0) << err;
    EXPECT_NE(out.find("\nvda "), std::string::npos) << out;
    EXPECT_EQ(err, "");
}

// dm_mod loaded while `report` runs: its regions from the next sample on.
TEST_F(Cli, ReportPicksUpDeviceMapperWhenItAppears) {
    ASSERT_EQ(run({"create", "vol"}), 0) << err;
    no_dm = true;
    on_sleep = [this](double) { no_dm = false; };
    ASSERT_EQ(run({"report", "--level", "region", "-o", "r/s", "1", "2"}), 0) << err;
    std::istringstream lines(out);
    std::string line;
    std::vector<std::string> region_rows;  // Device, Region 0, Group -
    while (std::getline(lines, line))
        if (line.starts_with("dm-3 ") && line.find(" 0 ") != std::string::npos)
            region_rows.push_back(line);
    EXPECT_EQ(region_rows.size(), 1u) << out;  // in the second report only
    EXPECT_EQ(err, "");
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
        d.id.major = major(st.st_dev);
        d.id.minor = minor(st.st_dev);
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
    auto l = nlohmann::json::parse(out)["devices"];
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
