// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "iotally/dm-stats/clock_tick.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

TEST(ClockTick, ConfigHz) {
    EXPECT_EQ(config_hz("CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_SCHED_HRTICK=y\n"), 250u);
    EXPECT_EQ(config_hz("# CONFIG_HZ_1000 is not set\nCONFIG_HZ=1000"), 1000u);
    EXPECT_FALSE(config_hz("CONFIG_HZ_250=y\n"));
    EXPECT_FALSE(config_hz("CONFIG_HZ=fast\n"));
    EXPECT_FALSE(config_hz(""));
}

TEST(ClockTick, FromBootConfigOrTheCoarsest) {
    test::TempDir t;
    t.write("config-6.12.0-test", "CONFIG_HZ_250=y\nCONFIG_HZ=250\n");
    ClockTick k = clock_tick(t.path(), "6.12.0-test");
    EXPECT_EQ(k.ns, 4'000'000u);  // 1 s / 250
    EXPECT_NE(k.source.find("HZ=250"), std::string::npos) << k.source;
    ClockTick unknown = clock_tick(t.path(), "other");
    EXPECT_EQ(unknown.ns, 10'000'000u);  // HZ=100
    EXPECT_NE(unknown.source.find("assumed"), std::string::npos) << unknown.source;
}

}  // namespace
}  // namespace iotally
