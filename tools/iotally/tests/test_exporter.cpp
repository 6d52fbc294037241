// SPDX-License-Identifier: GPL-2.0-or-later
// iotally serve's scrapes and their fault paths, against the fake dm layer:
// a device that fails is left out and counted, regions deleted meanwhile are
// skipped, a start without permission serves the other sources.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "app.hpp"
#include "block_devices.hpp"
#include "cli_fixture.hpp"
#include "exposition_lines.hpp"
#include "fake_dm.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/unavailable_collector.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

// Two devices with one region each.
struct Fixture {
    test::FakeDm dm;
    Fixture() {
        dm.add_device("a", 1024, {"linear"}, "", 1);
        dm.add_device("b", 1024, {"linear"}, "", 2);
        StatsClient(dm, "a").create(CreateRequest{});
        StatsClient(dm, "a").create(CreateRequest{});
        StatsClient(dm, "b").create(CreateRequest{});
    }
};

// Lists a device that is gone by the time it is read, or fails to list.
class FlakyLayer : public DeviceLayer {
  public:
    explicit FlakyLayer(DeviceLayer& inner) : inner_(inner) {}
    std::vector<DeviceId> list_devices() override {
        if (list_error)
            throw Error(*list_error, "cannot list: injected");
        auto l = inner_.list_devices();
        std::erase_if(l, [&](const DeviceId& d) {
            return std::find(removed.begin(), removed.end(), d.dm_name) != removed.end();
        });
        if (ghost) {
            DeviceId g;
            g.dm_name = "ghost";
            g.kernel_name = dm_kernel_name(g.minor);
            l.push_back(g);
        }
        return l;
    }
    DeviceId device(const std::string& name) override {
        if (std::find(removed.begin(), removed.end(), name) != removed.end())
            throw Error(ErrorKind::no_device, name + ": no such device");
        return inner_.device(name);
    }
    std::string message(const std::string& d, const std::string& t) override {
        if (std::find(removed.begin(), removed.end(), d) != removed.end())
            throw Error(ErrorKind::no_device, d + ": no such device");
        return inner_.message(d, t);
    }
    bool ghost = false;
    std::vector<std::string> removed;  // gone from device-mapper
    std::optional<ErrorKind> list_error;

  private:
    DeviceLayer& inner_;
};

// The host's /sys/block is not part of these tests.
ScrapeOptions no_sysfs() {
    ScrapeOptions o;
    o.device_stats = false;
    return o;
}

TEST(Exporter, ScrapeReadsWithoutClearing) {
    Fixture f;
    Exporter e(f.dm, no_sysfs());
    e.check();
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_NE(text.find("dm_name=\"a\",dm_uuid=\"\",major=\"254\",minor=\"1\",region_id=\"1\""),
              std::string::npos);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 0");
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_devices"), "iotally_scrape_devices 2");
    for (const auto& m : f.dm.sent) {
        EXPECT_FALSE(m.starts_with("@stats_print_clear")) << m;
        EXPECT_FALSE(m.starts_with("@stats_clear")) << m;
    }
}

TEST(Exporter, UnreadableDeviceIsLeftOutAndCounted) {
    Fixture f;
    f.dm.fail = [](const std::string& d, const std::string&) { return d == "a" ? EIO : 0; };
    Exporter e(f.dm, no_sysfs());
    std::vector<std::string> errors;
    e.on_error = [&](const std::string& m) { errors.push_back(m); };
    std::string text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(text.find("dm_name=\"a\""), std::string::npos);
    EXPECT_NE(text.find("dm_name=\"b\""), std::string::npos);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(errors[0].starts_with("a: ")) << errors[0];
    EXPECT_NE(errors[0].find("Input/output error"), std::string::npos) << errors[0];
    // The counter counts across scrapes; a device that recovers comes back.
    text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 2");
    f.dm.fail = nullptr;
    text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 2");
    EXPECT_NE(text.find("dm_name=\"a\""), std::string::npos);
}

TEST(Exporter, DeviceRemovedMidScrapeIsLeftOutAndCounted) {
    Fixture f;
    FlakyLayer layer(f.dm);
    layer.ghost = true;
    Exporter e(layer, no_sysfs());
    std::vector<std::string> errors;
    e.on_error = [&](const std::string& m) { errors.push_back(m); };
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_devices"), "iotally_scrape_devices 2");
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], "ghost: no such device");
}

TEST(Exporter, NamedDeviceRemovedAfterStartIsCountedNotFatal) {
    Fixture f;
    ScrapeOptions o = no_sysfs();
    o.devices = {"a", "b"};
    Exporter e(f.dm, o);
    e.check();
    f.dm.fail = [](const std::string& d, const std::string&) { return d == "b" ? ENXIO : 0; };
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    EXPECT_NE(text.find("dm_name=\"a\""), std::string::npos);
}

TEST(Exporter, RegionDeletedMidScrapeIsSkippedNotAnError) {
    Fixture f;
    bool deleted = false;
    f.dm.fail = [&](const std::string& d, const std::string& t) {
        if (d == "a" && t.starts_with("@stats_print 1") && !deleted) {
            deleted = true;
            f.dm.dev("a").regions.erase(1);  // another tool deleted it
        }
        return 0;
    };
    Exporter e(f.dm, no_sysfs());
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_TRUE(deleted);
    EXPECT_NE(text.find("dm_name=\"a\",dm_uuid=\"\",major=\"254\",minor=\"1\",region_id=\"0\""),
              std::string::npos);
    EXPECT_EQ(text.find("dm_name=\"a\",dm_uuid=\"\",major=\"254\",minor=\"1\",region_id=\"1\""),
              std::string::npos);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 0");
}

TEST(Exporter, ListingFailureDuringScrapeIsCountedAndServed) {
    Fixture f;
    FlakyLayer layer(f.dm);
    Exporter e(layer, no_sysfs());
    e.check();
    layer.list_error = ErrorKind::failed;
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    EXPECT_TRUE(text.ends_with("# EOF\n"));
}

// A host where dm_mod is not loaded (yet): serve starts, serves the block
// devices with iotally_source_up{source="dm"} 0 and no error, and picks up
// device-mapper and its regions when it appears, without a restart.
TEST(Exporter, StartsWithoutDeviceMapperAndPicksItUpWhenItAppears) {
    Fixture f;
    FlakyLayer layer(f.dm);
    layer.list_error = ErrorKind::unsupported;
    ScrapeOptions o;
    o.sysfs_root = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    Exporter e(layer, o);
    std::vector<std::string> notices, errors;
    e.on_source = [&](const std::string& m) { notices.push_back(m); };
    e.on_error = [&](const std::string& m) { errors.push_back(m); };
    ASSERT_NO_THROW(e.check());
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_EQ(notices[0], "dm: cannot list: injected; serving without it until it appears");
    for (int i = 0; i < 2; ++i) {
        std::string text = e.scrape(ExpositionFormat::openmetrics);
        EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"dm\"}"),
                  "iotally_source_up{source=\"dm\"} 0");
        EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"block\"}"),
                  "iotally_source_up{source=\"block\"} 1");
        EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
                  "iotally_scrape_errors_total 0");
        EXPECT_EQ(test::line_starting_with(text, "iotally_region_info{"), "");
        EXPECT_EQ(
            test::line_starting_with(text, "iotally_device_reads_completed_total{device=\"vda\""),
            "iotally_device_reads_completed_total{device=\"vda\",major=\"253\","
            "minor=\"0\"} 1200");
        EXPECT_TRUE(text.ends_with("# EOF\n"));
    }
    EXPECT_EQ(notices.size(), 1u);  // said once, not at every scrape
    EXPECT_TRUE(errors.empty());

    layer.list_error.reset();  // modprobe dm_mod; regions created
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"dm\"}"),
              "iotally_source_up{source=\"dm\"} 1");
    EXPECT_NE(test::line_starting_with(text, "iotally_region_info{device=\"dm-1\",dm_name=\"a\""),
              "");
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_devices"), "iotally_scrape_devices 2");
    ASSERT_EQ(notices.size(), 2u);
    EXPECT_EQ(notices[1], "dm: available again");

    // A collector that fails is a source that is down, named as it names itself.
    struct Broken : Collector {
        void check() override {}
        std::uint64_t collect(ExpositionWriter&) override {
            throw Error(ErrorKind::unsupported, "broken: gone");
        }
        std::string source() const override { return "statistics"; }
    };
    e.add_collector(std::make_unique<Broken>());
    text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"statistics\"}"),
              "iotally_source_up{source=\"statistics\"} 0");
    EXPECT_EQ(notices.back(), "statistics: broken: gone; serving without it until it appears");
}

// iotally against a FlakyLayer over the two-device fake (run_cli() of
// cli_fixture.hpp); `setup` adjusts each layer the command makes.
struct ServeCli : testing::Test {
    Fixture f;
    std::function<void(FlakyLayer&)> setup;
    CliResult run(const std::vector<std::string>& args) {
        return run_cli(args, [this](cli::Context& ctx) {
            ctx.make_layer = [this]() -> std::unique_ptr<DeviceLayer> {
                auto l = std::make_unique<FlakyLayer>(f.dm);
                if (setup)
                    setup(*l);
                return l;
            };
        });
    }
};

// Without device-mapper (not loaded) or without its privilege
// (CAP_SYS_ADMIN) serve starts all the same: dm is a source down, said
// once, and the rest is served with no scrape error counted.
TEST_F(ServeCli, ServeWithoutDeviceMapperOrItsPrivilegeServesTheRestAndSaysWhyOnce) {
    for (ErrorKind kind : {ErrorKind::unsupported, ErrorKind::permission}) {
        SCOPED_TRACE(static_cast<int>(kind));
        test::TempDir dir;
        setup = [kind](FlakyLayer& l) { l.list_error = kind; };
        auto run =
            this->run({"serve", "--textfile", dir.path(), "--interval", "0.1", "--count", "2"});
        ASSERT_EQ(run.rc, 0) << run.err;
        EXPECT_EQ(
            run.err,
            "iotally serve: dm: cannot list: injected; serving without it until it appears\n");
        std::ifstream in(dir.path() + "/iotally.prom");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"dm\"}"),
                  "iotally_source_up{source=\"dm\"} 0");
        EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
                  "iotally_scrape_errors_total 0");
    }
}

// A privilege missing for one source (dm's CAP_SYS_ADMIN, taskstats'
// CAP_NET_ADMIN, the BPF backend's CAP_BPF and CAP_PERFMON): that source is
// down with its reason said once, nothing is counted as a scrape error, the
// other sources are served, and dm comes back when it is permitted.
TEST(Exporter, MissingPrivilegeIsASourceDownNotAnError) {
    Fixture f;
    FlakyLayer layer(f.dm);
    layer.list_error = ErrorKind::permission;
    ScrapeOptions o;
    o.sysfs_root = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    Exporter e(layer, o);
    // Refused at start and at every scrape, as taskstats without CAP_NET_ADMIN.
    struct Refused : Collector {
        int checks = 0;
        void check() override {
            ++checks;
            throw Error(ErrorKind::permission, "taskstats: query: Operation not permitted");
        }
        std::uint64_t collect(ExpositionWriter&) override {
            check();
            return 0;
        }
        std::string source() const override { return "tasks"; }
    };
    auto refused = std::make_unique<Refused>();
    Refused* tasks = refused.get();
    e.add_collector(std::move(refused));
    e.add_collector(make_unavailable_collector(
        "cgroups", "serve --cgroups: neither backend can run: no CAP_BPF and CAP_PERFMON"));
    std::vector<std::string> notices, errors;
    e.on_source = [&](const std::string& m) { notices.push_back(m); };
    e.on_error = [&](const std::string& m) { errors.push_back(m); };
    ASSERT_NO_THROW(e.check());
    const std::vector<std::string> said{
        "dm: cannot list: injected; serving without it until it appears",
        "tasks: taskstats: query: Operation not permitted; serving without it until it appears",
        "cgroups: serve --cgroups: neither backend can run: no CAP_BPF and CAP_PERFMON; serving "
        "without it until it appears"};
    EXPECT_EQ(notices, said);
    for (int i = 0; i < 3; ++i) {
        std::string text = e.scrape(ExpositionFormat::openmetrics);
        for (const char* down : {"dm", "tasks", "cgroups"})
            EXPECT_EQ(test::line_starting_with(
                          text, fmt::format("iotally_source_up{{source=\"{}\"}}", down)),
                      fmt::format("iotally_source_up{{source=\"{}\"}} 0", down));
        EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"block\"}"),
                  "iotally_source_up{source=\"block\"} 1");
        EXPECT_EQ(
            test::line_starting_with(text, "iotally_device_reads_completed_total{device=\"vda\""),
            "iotally_device_reads_completed_total{device=\"vda\",major=\"253\","
            "minor=\"0\"} 1200");
        EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
                  "iotally_scrape_errors_total 0");
    }
    EXPECT_EQ(notices, said);  // once each, not at every scrape
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(tasks->checks, 4);  // asked again at each scrape

    layer.list_error.reset();  // /dev/mapper/control given to the process
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    EXPECT_EQ(test::line_starting_with(text, "iotally_source_up{source=\"dm\"}"),
              "iotally_source_up{source=\"dm\"} 1");
    EXPECT_NE(test::line_starting_with(text, "iotally_region_info{device=\"dm-1\",dm_name=\"a\""),
              "");
    EXPECT_EQ(notices.back(), "dm: available again");
}

TEST_F(ServeCli, MissingNamedDeviceFailsAtStart) {
    auto run = this->run({"serve", "nosuch"});
    EXPECT_EQ(run.rc, 3);
    EXPECT_EQ(run.err, "iotally: nosuch: no such device\n");
}

TEST_F(ServeCli, BadArgumentsAreUsageErrors) {
    for (std::vector<std::string> args : {std::vector<std::string>{"serve", "--tasks", "0"},
                                          {"serve", "--tasks", "101"},
                                          {"serve", "--tasks-by", "cpu", "--tasks", "3"},
                                          {"serve", "--interval", "5"},
                                          {"serve", "--listen", "localhost"},
                                          {"serve", "--listen", ":70000"},
                                          {"serve", "--threads", "0"},
                                          {"serve", "--qd-sample", "often"},
                                          {"serve", "--qd-sample", "500us"},
                                          {"serve", "--qd-sample", "0", "--qd-regions"}}) {
        auto run = this->run(args);
        EXPECT_EQ(run.rc, 2) << args.back() << ": " << run.err;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    }
}

TEST_F(ServeCli, TextfileModeWritesText004AtomicallyWithoutTimestamps) {
    test::TempDir dir;
    auto run = this->run({"serve", "--textfile", dir.path(), "--interval", "0.1", "--count", "2"});
    ASSERT_EQ(run.rc, 0) << run.err;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        names.push_back(e.path().filename());
    EXPECT_EQ(names, std::vector<std::string>{"iotally.prom"});
    std::ifstream in(dir.path() + "/iotally.prom");
    std::string line;
    std::size_t samples = 0;
    while (std::getline(in, line)) {
        EXPECT_NE(line, "# EOF");
        if (line.starts_with("#"))
            continue;
        ++samples;
        // name{labels} value: no third field (a timestamp).
        std::string tail = line.substr(line.rfind('}') == std::string::npos ? 0 : line.rfind('}'));
        EXPECT_EQ(std::count(tail.begin(), tail.end(), ' '), 1) << line;
    }
    EXPECT_GT(samples, 10u);
    EXPECT_EQ(run.out, "");
}

// --qd-sample: the queue depth family of each device, from the sampling
// thread's counts (nullb0 of a copy of the fixture tree, 5 in flight
// throughout); --qd-sample 0: none.
TEST_F(ServeCli, TextfileHasTheQueueDepthOfEachDevice) {
    test::TempDir sys, dir;
    sys.copy_from(std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0");
    sys.write("block/nullb0/inflight", "0 5\n");
    auto serve = [&](const std::string& period) {
        return run_cli({"serve", "--textfile", dir.path(), "--interval", "0.2", "--count", "3",
                        "--qd-sample", period},
                       [&](cli::Context& ctx) {
                           ctx.sysfs = sys.path();
                           ctx.make_layer = [this]() -> std::unique_ptr<DeviceLayer> {
                               return std::make_unique<FlakyLayer>(f.dm);
                           };
                       });
    };
    auto run = serve("10ms");
    ASSERT_EQ(run.rc, 0) << run.err;
    std::ifstream in(dir.path() + "/iotally.prom");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string series =
        "iotally_device_queue_depth_seconds_total{device=\"nullb0\","
        "major=\"252\",minor=\"0\",at_least=";
    // Tracked from the first write on, 0.4 s before the third: at or above
    // 1, 2 and 4 all that time (less the last sample's lag), never 8.
    for (const char* n : {"\"4\"} ", "\"8\"} "}) {
        const std::string line = test::line_starting_with(text, series + n);
        ASSERT_FALSE(line.empty()) << text;
        const double v = std::stod(line.substr(line.rfind(' ') + 1));
        if (std::string(n) == "\"8\"} ")
            EXPECT_EQ(v, 0.0) << line;
        else
            EXPECT_GT(v, 0.2) << line;
    }
    EXPECT_NE(text.find("# TYPE iotally_device_queue_depth_seconds_total counter"),
              std::string::npos);
    EXPECT_EQ(text.find("iotally_region_queue_depth"), std::string::npos);  // no --qd-regions
    run = serve("0");
    ASSERT_EQ(run.rc, 0) << run.err;
    std::ifstream again(dir.path() + "/iotally.prom");
    const std::string off((std::istreambuf_iterator<char>(again)),
                          std::istreambuf_iterator<char>());
    EXPECT_EQ(off.find("queue_depth"), std::string::npos);
    EXPECT_NE(off.find("iotally_device_reads_completed_total{device=\"nullb0\""),
              std::string::npos);
}

TEST_F(ServeCli, TextfileIntoAMissingDirectoryFailsAtStart) {
    auto run = this->run({"serve", "--textfile", "/nonexistent/dir", "--count", "1"});
    EXPECT_EQ(run.rc, 1);
    EXPECT_EQ(run.err,
              "iotally: cannot use directory /nonexistent/dir: No such file or directory\n");
}

TEST(Exporter, StatisticsFamilyFromDebugfsData) {
    test::TempDir dir;
    dir.write("statistics/blk/definition",
              "name=lat type=array on=1 started=1 entries_max=8 base_interval=4 "
              "scale=lin range_min=0 range_max=8\n"
              "name=ops type=value on=1 started=1\n");
    dir.write("statistics/blk/data", "lat <=4 3\nlat >4 1\nops 42\n");
    auto c = make_statistics_collector(dir.path() + "/statistics", {"blk"});
    c->check();
    ExpositionWriter w(ExpositionFormat::prometheus);
    EXPECT_EQ(c->collect(w), 0u);
    std::string text = w.finish();
    EXPECT_NE(text.find("iotally_statistic{interface=\"blk\",statistic=\"ops\",type=\"value\","
                        "column=\"total\"} 42\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("statistic=\"lat\",type=\"array\",bucket=\"<=4\",column=\"count\"} 3\n"),
              std::string::npos)
        << text;
    // An interface that vanishes later is counted, not fatal.
    std::filesystem::remove_all(dir.path() + "/statistics/blk");
    ExpositionWriter w2(ExpositionFormat::prometheus);
    EXPECT_EQ(c->collect(w2), 1u);
    auto missing = make_statistics_collector(dir.path() + "/statistics", {"nope"});
    EXPECT_THROW(missing->check(), Error);
}

TEST(Exporter, DeviceFamiliesOfTheNamedDevicesInTheOrderAsked) {
    test::FakeDm dm;
    dm.add_device("delayed", 2048, {"delay"}, "", 0);        // the fixture's dm-0
    dm.add_device("vg0-lv1", 2048, {"linear"}, "LVM-x", 1);  // dm-1
    dm.add_device("other", 2048, {"linear"}, "", 9);         // no /sys/block entry
    ScrapeOptions o;
    o.sysfs_root = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    o.devices = {"vg0-lv1", "other", "delayed"};
    Exporter e(dm, o);
    std::istringstream in(e.scrape(ExpositionFormat::prometheus));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("iotally_device_reads_completed_total{"))
            lines.push_back(line);
    // Device-mapper's names and uuid, the counters of /sys/block/dm-N/stat;
    // "other" has no counters to show and vda was not asked for.
    EXPECT_EQ(lines, (std::vector<std::string>{
                         "iotally_device_reads_completed_total{device=\"dm-1\",dm_name=\"vg0-lv1\","
                         "dm_uuid=\"LVM-x\",major=\"254\",minor=\"1\",vg=\"vg0\",lv=\"lv1\"} 0",
                         "iotally_device_reads_completed_total{device=\"dm-0\",dm_name=\"delayed\","
                         "dm_uuid=\"\",major=\"254\",minor=\"0\"} 100"}));
}

// A selection chooses among /sys/block's devices joined to device-mapper's,
// as report's and top's do: a disk that is not dm is chosen by its kernel
// name or driver-less glob and shows its own counters; a dm device by its
// dm name shows its regions and counters.
TEST(Exporter, SelectionIsOverTheJoinedBlockDevices) {
    test::FakeDm dm;
    dm.add_device("delayed", 2048, {"delay"}, "", 0);  // the fixture's dm-0
    StatsClient(dm, "delayed").create(CreateRequest{});
    ScrapeOptions o;
    o.sysfs_root = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    o.select = SelectArgs{{}, {"name=vda", "target=delay"}, "", 0, 0};
    Exporter e(dm, o);
    ASSERT_NO_THROW(e.check());
    std::istringstream in(e.scrape(ExpositionFormat::prometheus));
    std::vector<std::string> devices, regions;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("iotally_device_reads_completed_total{"))
            devices.push_back(line.substr(0, line.find(',')));
        if (line.starts_with("iotally_region_info{"))
            regions.push_back(line.substr(0, line.find(',')));
    }
    // dm-0 (scraped dm devices first), then vda; not nullb0 nor dm-1.
    EXPECT_EQ(devices,
              (std::vector<std::string>{"iotally_device_reads_completed_total{device=\"dm-0\"",
                                        "iotally_device_reads_completed_total{device=\"vda\""}));
    EXPECT_EQ(regions, (std::vector<std::string>{"iotally_region_info{device=\"dm-0\""}));
    // The disk alone: no region series, its counters still.
    o.select = SelectArgs{{"vda"}, {}, "", 0, 0};
    Exporter only_vda(dm, o);
    std::string text = only_vda.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(text.find("iotally_region_info{"), std::string::npos) << text;
    EXPECT_NE(text.find("iotally_device_reads_completed_total{device=\"vda\""), std::string::npos)
        << text;
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_devices"), "iotally_scrape_devices 0");
}

TEST(Exporter, DeviceFamiliesFromTheKernelsOwnCounters) {
    test::FakeDm dm;
    dm.add_device("delayed", 2048, {"delay"}, "", 0);  // 254:0, as the fixture's dm-0
    dm.add_device("other", 2048, {"linear"}, "", 9);   // not in the fixture tree
    ScrapeOptions o;
    o.sysfs_root = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    Exporter e(dm, o);
    std::string text = e.scrape(ExpositionFormat::prometheus);
    const std::string l =
        "{device=\"dm-0\",dm_name=\"delayed\",dm_uuid=\"\",major=\"254\",minor=\"0\"}";
    // stat: 100 0 3200 400 50 0 1600 200 1 500 600 10 0 2048 30 5 2
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_reads_completed_total" + l),
              "iotally_device_reads_completed_total" + l + " 100");
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_read_bytes_total" + l),
              "iotally_device_read_bytes_total" + l + " 1638400");
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_read_time_seconds_total" + l),
              "iotally_device_read_time_seconds_total" + l + " 0.4");
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_io_now" + l),
              "iotally_device_io_now" + l + " 1");
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_discarded_bytes_total" + l),
              "iotally_device_discarded_bytes_total" + l + " 1048576");
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_flush_requests_total" + l),
              "iotally_device_flush_requests_total" + l + " 5");
    EXPECT_EQ(text.find("dm_name=\"other\",dm_uuid=\"\",major=\"254\",minor=\"9\"}"),
              std::string::npos);
    // Every block device of the tree, dm or not: vda by its kernel name, and
    // dm-1 (not listed by device-mapper) by its names in sysfs.
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_reads_completed_total{device=\"vda\""),
              "iotally_device_reads_completed_total{device=\"vda\",major=\"253\",minor=\"0\"} "
              "1200");
    EXPECT_NE(text.find("iotally_device_io_now{device=\"dm-1\",dm_name=\"vg0-lv1\",dm_uuid="),
              std::string::npos)
        << text;
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 0");
    // No /sys/block: the device families are empty and the error counted.
    ScrapeOptions bad;
    bad.sysfs_root = "/nonexistent";
    Exporter e2(dm, bad);
    text = e2.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    EXPECT_EQ(test::line_starting_with(text, "iotally_device_reads_completed_total{"), "");
}

// Every family, once, from one scrape; written to $IOTALLY_SAMPLE_SCRAPE for
// the Grafana dashboard check (CMakeLists.txt, grafana_dashboard).
TEST(Exporter, SampleScrapeHasEveryFamily) {
    test::FakeDm dm;
    dm.add_device("delayed", 2048, {"delay"}, "", 0);  // the fixture tree's dm-0
    dm.add_device("vg-lv", 2048, {"linear"}, "LVM-abc", 4);
    CreateRequest h;
    h.precise_timestamps = true;
    h.histogram = {1000000, 10000000};
    StatsClient(dm, "vg-lv").create(h);
    test::TempDir dir;
    dir.write("statistics/blk/definition", "name=ops type=value on=1 started=1\n");
    dir.write("statistics/blk/data", "ops 42\n");
    StatsClient(dm, "delayed").create(CreateRequest{});
    ScrapeOptions so;
    so.sysfs_root = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    Exporter e(dm, so);
    e.add_collector(make_statistics_collector(dir.path() + "/statistics", {"blk"}));
    // serve --qd-sample --qd-regions: tracked at a scrape, so the second
    // has their series (at 0: the fixture tree has no inflight files).
    e.set_queue_depth(std::make_shared<QueueDepthMonitor>(
        &dm, DepthSamplerOptions{so.sysfs_root, true}, monotonic_seconds));
    e.check();
    e.scrape(ExpositionFormat::openmetrics);
    std::string text = e.scrape(ExpositionFormat::openmetrics);
    for (const char* family : {"iotally_region_info",
                               "iotally_region_reads_completed",
                               "iotally_region_reads_merged",
                               "iotally_region_read_bytes",
                               "iotally_region_read_time_seconds",
                               "iotally_region_writes_completed",
                               "iotally_region_writes_merged",
                               "iotally_region_written_bytes",
                               "iotally_region_write_time_seconds",
                               "iotally_region_io_time_seconds",
                               "iotally_region_io_time_weighted_seconds",
                               "iotally_region_read_busy_seconds",
                               "iotally_region_write_busy_seconds",
                               "iotally_region_io_now",
                               "iotally_region_io_latency_seconds",
                               "iotally_statistic",
                               "iotally_source_up",
                               "iotally_statistic_log2",
                               "iotally_scrape_devices",
                               "iotally_scrape_errors",
                               "iotally_scrapes",
                               "iotally_scrape_duration_seconds",
                               "iotally_device_queue_depth_seconds",
                               "iotally_region_queue_depth_seconds"})
        EXPECT_NE(text.find(fmt::format("# TYPE {} ", family)), std::string::npos) << family;
    EXPECT_NE(
        text.find("iotally_region_io_latency_seconds_bucket{device=\"dm-4\",dm_name=\"vg-lv\","
                  "dm_uuid=\"LVM-abc\",major=\"254\",minor=\"4\",vg=\"vg\",lv=\"lv\","),
        std::string::npos)
        << text;
    if (const char* path = std::getenv("IOTALLY_SAMPLE_SCRAPE"))
        std::ofstream(path) << text;
}

// serve --select: devstat's selection (as in report) over the dm devices.
// Devices a (minor 1) and b (minor 2) are linear, slow (minor 3) is delay.
struct Selection : testing::Test {
    Fixture f;
    test::TempDir dir, sysfs;
    std::string out, err;
    Selection() {
        f.dm.add_device("slow", 1024, {"delay"}, "LVM-slowuuid", 3);
        StatsClient(f.dm, "slow").create(CreateRequest{});
        // A /sys/block with no device: the selection is over device-mapper's.
        std::filesystem::create_directory(sysfs.path() + "/block");
    }
    int run(std::vector<std::string> args) {
        CliResult r = run_cli(args, [this](cli::Context& ctx) {
            ctx.sysfs = sysfs.path();
            ctx.make_layer = [this]() -> std::unique_ptr<DeviceLayer> {
                return std::make_unique<FlakyLayer>(f.dm);
            };
        });
        out = std::move(r.out);
        err = std::move(r.err);
        return r.rc;
    }
    // The dm devices of the region series in the serve --textfile output.
    std::vector<std::string> served(std::vector<std::string> args) {
        std::vector<std::string> full{"serve", "--textfile", dir.path(), "--count", "1"};
        full.insert(full.end(), args.begin(), args.end());
        EXPECT_EQ(run(full), 0) << err;
        std::ifstream in(dir.path() + "/iotally.prom");
        return devices_of(std::string(std::istreambuf_iterator<char>(in), {}));
    }
    std::vector<std::string> exported(std::vector<std::string> args) {
        args.insert(args.begin(), "export");
        EXPECT_EQ(run(args), 0) << err;
        return devices_of(out);
    }
    static std::vector<std::string> devices_of(const std::string& text) {
        std::vector<std::string> names;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            if (!line.starts_with("iotally_region_info{"))
                continue;
            auto at = line.find("dm_name=\"") + 9;
            names.push_back(line.substr(at, line.find('"', at) - at));
        }
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        return names;
    }
};

using Names = std::vector<std::string>;

TEST_F(Selection, ServeSelectsByExpressionModeNameAndMax) {
    EXPECT_EQ(served({}), (Names{"a", "b", "slow"}));
    EXPECT_EQ(served({"--select", "target=delay"}), Names{"slow"});
    EXPECT_EQ(served({"--select", "uuid=LVM-"}), Names{"slow"});
    EXPECT_EQ(served({"--select", "name=a", "--select", "name=b"}), (Names{"a", "b"}));
    // Kernel names as in report: dm-2 is b.
    EXPECT_EQ(served({"dm-2", "--select-mode", "only"}), Names{"b"});
    EXPECT_EQ(served({"a", "--select-mode", "remove"}), (Names{"b", "slow"}));
    EXPECT_EQ(served({"--select-mode", "remove", "--select", "target=linear"}), Names{"slow"});
    EXPECT_EQ(served({"slow", "--select-mode", "add"}), (Names{"a", "b", "slow"}));
    EXPECT_EQ(served({"slow", "--select-mode", "add-only"}), Names{"slow"});
    EXPECT_EQ(served({"--select-mode", "add", "--max", "1"}), Names{"a"});
    EXPECT_EQ(served({"slow", "--select", "target=linear", "--max", "2"}), (Names{"a", "slow"}));
}

TEST_F(Selection, ExportSelectsAsServeDoes) {
    EXPECT_EQ(exported({"--select", "target=delay"}), Names{"slow"});
    EXPECT_EQ(exported({"a", "--select-mode", "remove"}), (Names{"b", "slow"}));
    // Everything removed: an empty exposition, not every device.
    EXPECT_EQ(exported({"a", "b", "slow", "--select-mode", "remove"}), Names{});
    EXPECT_NE(out.find("# EOF"), std::string::npos);
    EXPECT_EQ(run({"export", "--select", "target=striped"}), 3);
    EXPECT_EQ(err, "iotally: --select 'target=striped' matches no device\n");
}

TEST_F(Selection, SelectionMatchingNothingFailsAtStart) {
    EXPECT_EQ(run({"serve", "--select", "name=zzz*"}), 3);
    EXPECT_EQ(err, "iotally: --select 'name=zzz*' matches no device\n");
    EXPECT_EQ(run({"serve", "nosuch", "--select", "target=linear"}), 3);
    EXPECT_EQ(err, "iotally: nosuch: no such device\n");
    EXPECT_EQ(run({"serve", "--textfile", dir.path(), "--select-mode", "bogus"}), 2);
    EXPECT_EQ(err, "iotally: unknown selection mode 'bogus' (use add, only, remove, add-only)\n");
    EXPECT_EQ(run({"serve", "--select", "colour=red"}), 2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    // Nothing was written by a serve that did not start.
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// After start devices come and go: a named one that is gone is counted as a
// scrape error, an expression that matches nothing any more is not, and a
// device that appears and matches is scraped from then on.
TEST_F(Selection, DevicesComingAndGoingAfterStart) {
    FlakyLayer layer(f.dm);
    ScrapeOptions o = no_sysfs();
    o.select.emplace();
    o.select->names = {"a"};
    o.select->exprs = {"target=delay"};
    Exporter e(layer, o);
    std::vector<std::string> errors;
    e.on_error = [&](const std::string& m) { errors.push_back(m); };
    e.check();
    EXPECT_EQ(devices_of(e.scrape(ExpositionFormat::prometheus)), (Names{"a", "slow"}));

    layer.removed = {"slow"};
    std::string text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(devices_of(text), Names{"a"});
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 0");

    layer.removed = {"a"};
    text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(devices_of(text), Names{"slow"});
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_errors_total"),
              "iotally_scrape_errors_total 1");
    EXPECT_EQ(errors, Names{"a: no such device"});

    // With everything gone the scrape still answers, and check() would fail.
    layer.removed = {"a", "slow"};
    text = e.scrape(ExpositionFormat::prometheus);
    EXPECT_EQ(devices_of(text), Names{});
    EXPECT_EQ(test::line_starting_with(text, "iotally_scrape_devices"), "iotally_scrape_devices 0");
    EXPECT_THROW(e.check(), Error);
}

}  // namespace
}  // namespace iotally
