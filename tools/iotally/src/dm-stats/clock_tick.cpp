// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/clock_tick.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace iotally {

std::optional<std::uint64_t> config_hz(std::string_view text) {
    constexpr std::string_view key = "CONFIG_HZ=";
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        auto line = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
        if (line.substr(0, key.size()) == key) {
            auto v = line.substr(key.size());
            std::uint64_t hz = 0;
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), hz);
            if (ec == std::errc() && p == v.data() + v.size() && hz > 0 && hz <= 100000)
                return hz;
            return std::nullopt;
        }
        if (end == std::string_view::npos)
            break;
        pos = end + 1;
    }
    return std::nullopt;
}

ClockTick clock_tick(const std::string& boot_dir, const std::string& release) {
    std::string rel = release;
    if (rel.empty()) {
        utsname u{};
        if (uname(&u) == 0)
            rel = u.release;
    }
    std::string path = fmt::format("{}/config-{}", boot_dir, rel);
    std::ifstream in(path);
    if (in) {
        std::stringstream ss;
        ss << in.rdbuf();
        if (auto hz = config_hz(ss.str()))
            return {1'000'000'000 / *hz, fmt::format("HZ={} from {}", *hz, path)};
    }
    return {10'000'000, fmt::format("HZ=100 assumed: no CONFIG_HZ in {}", path)};
}

}  // namespace iotally
