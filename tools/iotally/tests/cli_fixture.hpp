// SPDX-License-Identifier: GPL-2.0-or-later
// The iotally commands end to end against the fake kernel and a sysfs tree.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "app.hpp"
#include "fake_dm.hpp"
#include "fixtures.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {

using test::FakeDm;

// One iotally command, with the context `setup` leaves (by default the
// real one), its output kept.
struct CliResult {
    int rc = 0;
    std::string out, err;
};

inline CliResult run_cli(const std::vector<std::string>& args,
                         const std::function<void(cli::Context&)>& setup = {}) {
    std::ostringstream o, e;
    cli::Context ctx;
    ctx.out = &o;
    ctx.err = &e;
    if (setup)
        setup(ctx);
    CliResult r;
    r.rc = cli::run(args, ctx);
    r.out = o.str();
    r.err = e.str();
    return r;
}

class Borrowed : public DeviceLayer {
  public:
    explicit Borrowed(FakeDm& dm) : dm_(dm) {}
    std::vector<DeviceId> list_devices() override { return dm_.list_devices(); }
    DeviceId device(const std::string& n) override { return dm_.device(n); }
    std::string message(const std::string& d, const std::string& t) override {
        return dm_.message(d, t);
    }

  private:
    FakeDm& dm_;
};

// The fake, or a kernel without device-mapper (dm_mod not loaded) while
// `missing` is true.
class MaybeDeviceMapper : public DeviceLayer {
  public:
    MaybeDeviceMapper(FakeDm& dm, const bool& missing) : dm_(dm), missing_(missing) {}
    std::vector<DeviceId> list_devices() override { return check().list_devices(); }
    DeviceId device(const std::string& n) override { return check().device(n); }
    std::string message(const std::string& d, const std::string& t) override {
        return check().message(d, t);
    }

  private:
    FakeDm& check() {
        if (missing_)
            throw Error(ErrorKind::unsupported, "device-mapper is not available in this kernel");
        return dm_;
    }
    FakeDm& dm_;
    const bool& missing_;
};

struct Cli : testing::Test {
    FakeDm dm;
    bool no_dm = false;  // no device-mapper (yet): MaybeDeviceMapper
    double now = 1000.0;
    std::function<void(double)> on_sleep;  // I/O "happening" while we wait
    std::string out, err;

    int run(std::vector<std::string> args) {
        CliResult r = run_cli(args, [this](cli::Context& ctx) {
            ctx.make_layer = [this]() -> std::unique_ptr<DeviceLayer> {
                if (no_dm)
                    return std::make_unique<MaybeDeviceMapper>(dm, no_dm);
                return std::make_unique<Borrowed>(dm);
            };
            ctx.clock = [this] { return now; };
            ctx.sleep = [this](double s) {
                now += s;
                if (on_sleep)
                    on_sleep(s);
            };
            ctx.interactive = [] { return false; };
            ctx.realtime_ns = [this] {
                return wall_ns + static_cast<std::int64_t>((now - 1000.0) * 1e9);
            };
            ctx.uptime_s = [this] { return uptime; };
            ctx.sysfs = sys.path();
            ctx.proc = procfs.path();
            ctx.terminal_width = [] { return 100; };
            if (!debugfs.empty())
                ctx.debugfs = debugfs;
        });
        out = std::move(r.out);
        err = std::move(r.err);
        return r.rc;
    }
    std::string debugfs;

    // The block devices of sysfs: vda, and dm-3 which is the fake's "vol".
    test::TempDir sys;
    test::TempDir procfs;                              // proc/stat for report -c
    std::int64_t wall_ns = 1'795'000'000'000'000'000;  // 2026-11-18T11:06:40Z
    double uptime = 100.0;
    void set_stat(const std::string& name, const std::string& stat) {
        sys.write("block/" + name + "/stat", stat + "\n");
    }
    void add_block(const std::string& name, const std::string& dev, const std::string& stat,
                   const std::string& dm_name = "") {
        sys.write("block/" + name + "/dev", dev + "\n");
        sys.write("block/" + name + "/size", "204800\n");
        set_stat(name, stat);
        if (!dm_name.empty()) {
            sys.write("block/" + name + "/dm/name", dm_name + "\n");
            sys.write("block/" + name + "/dm/uuid", "LVM-xyz\n");
        }
    }

    Cli() {
        dm.add_device("vol", 204800, {"linear"}, "LVM-xyz", 3);
        add_block("vda", "253:0", "1000 0 8000 500 0 0 0 0 0 400 500 0 0 0 0 0 0");
        add_block("dm-3", "254:3", "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", "vol");
    }
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

// Compares a command's output with tests/fixtures/report/NAME; with
// IOTALLY_UPDATE_GOLDEN set, writes it there first (then check the diff).
inline void expect_report_golden(const std::string& out, const std::string& name) {
    auto path = std::filesystem::path(test::fixture_dir()) / "report" / name;
    if (getenv("IOTALLY_UPDATE_GOLDEN")) {
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << out;
    }
    EXPECT_EQ(out, test::read_text(path)) << "differs from " << path;
}

}  // namespace iotally
