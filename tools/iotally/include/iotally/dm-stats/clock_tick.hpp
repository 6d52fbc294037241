// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel's clock tick (1/HZ): the resolution of dm-stats regions created
// without precise_timestamps, which count time in jiffies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iotally {

struct ClockTick {
    std::uint64_t ns = 10'000'000;
    std::string source;  // "HZ=250 from /boot/config-6.12.0", or why it is assumed
};

// CONFIG_HZ from a kernel .config text; nullopt when it is not there.
std::optional<std::uint64_t> config_hz(std::string_view config_text);

// The running kernel's tick from BOOT_DIR/config-RELEASE (release: uname -r
// when empty); HZ=100, the coarsest Linux has, when that file is missing.
ClockTick clock_tick(const std::string& boot_dir = "/boot", const std::string& release = "");

}  // namespace iotally
