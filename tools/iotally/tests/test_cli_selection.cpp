// SPDX-License-Identifier: GPL-2.0-or-later
// One selection in every command that shows devices: `report`, `top`,
// `export` and `serve` choose from the same block devices, joined to
// device-mapper's, with the same DeviceSelector.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli_fixture.hpp"

namespace iotally {
namespace {

using Devices = std::set<std::string>;

struct CliSelection : Cli {
    CliSelection() {
        // vda (253:0), dm-3 (the fake's "vol", LVM, linear), and a second
        // disk that is not dm: nullb0 (252:0).
        add_block("nullb0", "252:0", "10 0 80 5 0 0 0 0 0 4 5 0 0 0 0 0 0");
        EXPECT_EQ(run({"create", "vol"}), 0) << err;
    }

    // The kernel names of report's device rows.
    Devices reported(std::vector<std::string> args) {
        args.insert(args.begin(), {"-j", "report", "--level", "device"});
        EXPECT_EQ(run(args), 0) << err;
        const auto doc = nlohmann::json::parse(out);
        Devices devices;
        for (const auto& row : doc["rows"])
            devices.insert(row["device"].get<std::string>());
        return devices;
    }
    // The devices of top's rows: a region's by its dm device's kernel name
    // (dm-3 is vol), a block device's by its own.
    Devices topped(std::vector<std::string> args) {
        args.insert(args.begin(), {"-j", "top", "-c", "1", "-i", "1"});
        EXPECT_EQ(run(args), 0) << err;
        const auto doc = nlohmann::json::parse(out);
        Devices devices;
        for (const auto& row : doc["rows"]) {
            const std::string name = row["dm_name"];
            devices.insert(name == "vol" ? "dm-3" : name);
        }
        return devices;
    }
    // The device="..." labels of an exposition's device or region families.
    static Devices labelled(const std::string& text) {
        Devices out;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            if (!line.starts_with("iotally_device_reads_completed_total{") &&
                !line.starts_with("iotally_region_info{"))
                continue;
            auto at = line.find("device=\"") + 8;
            out.insert(line.substr(at, line.find('"', at) - at));
        }
        return out;
    }
    Devices exported(std::vector<std::string> args) {
        args.insert(args.begin(), "export");
        EXPECT_EQ(run(args), 0) << err;
        return labelled(out);
    }
    Devices served(std::vector<std::string> args) {
        test::TempDir dir;
        args.insert(args.begin(), {"serve", "--textfile", dir.path(), "--count", "1"});
        EXPECT_EQ(run(args), 0) << err;
        std::ifstream in(dir.path() + "/iotally.prom");
        return labelled(std::string(std::istreambuf_iterator<char>(in), {}));
    }
};

TEST_F(CliSelection, OneExpressionOneDeviceSetInEveryCommand) {
    // A dm device by its target: every command shows dm-3 alone.
    for (const char* expr : {"target=linear", "uuid=LVM-", "name=vol", "name=dm-3"}) {
        SCOPED_TRACE(expr);
        EXPECT_EQ(reported({"--select", expr}), Devices{"dm-3"});
        EXPECT_EQ(topped({"--select", expr}), Devices{"dm-3"});
        EXPECT_EQ(exported({"--select", expr}), Devices{"dm-3"});
        EXPECT_EQ(served({"--select", expr}), Devices{"dm-3"});
    }
    // Disks that are not dm: report and serve show their counters; top
    // (regions, with device-mapper there) and export (regions only) have
    // none of them to show, and show no other device either.
    EXPECT_EQ(reported({"--select", "name=[nv][du]*"}), (Devices{"nullb0", "vda"}));
    EXPECT_EQ(served({"--select", "name=[nv][du]*"}), (Devices{"nullb0", "vda"}));
    EXPECT_EQ(topped({"--select", "name=[nv][du]*"}), Devices{});
    EXPECT_EQ(exported({"--select", "name=[nv][du]*"}), Devices{});
}

// Without device-mapper top shows the block devices' own counters: its
// --select chooses among them as report's does (before, top showed every
// device whatever --select said).
TEST_F(CliSelection, WithoutDeviceMapperTopSelectsAsReportDoes) {
    no_dm = true;
    EXPECT_EQ(reported({"--select", "name=vda"}), Devices{"vda"});
    EXPECT_EQ(topped({"--select", "name=vda"}), Devices{"vda"});
    EXPECT_EQ(topped({"nullb0"}), Devices{"nullb0"});
    EXPECT_EQ(topped({}), (Devices{"dm-3", "nullb0", "vda"}));
}

// A selection that matches nothing is an error in top as in report (before,
// top showed an empty frame).
TEST_F(CliSelection, NothingMatchedFailsInTopAsInReport) {
    EXPECT_EQ(run({"report", "--select", "name=zzz*"}), 3);
    const std::string report_err = err;
    EXPECT_EQ(run({"top", "-c", "1", "-i", "1", "--select", "name=zzz*"}), 3);
    EXPECT_EQ(err, report_err);
    EXPECT_EQ(err, "iotally: --select 'name=zzz*' matches no block device\n");
}

}  // namespace
}  // namespace iotally
