// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/block/diskstats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "fields.hpp"
#include "iotally/util/error.hpp"

namespace fs = std::filesystem;

namespace iotally {
namespace {

// The file's text, or nullopt when it does not exist (the device went away,
// or the attribute is not there on this kernel).
std::optional<std::string> read_attr(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
            return std::nullopt;
        throw Error(kind_from_errno(errno), fmt::format("{}: cannot read", p.string()));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool parse_dev(std::string_view s, std::uint32_t& major, std::uint32_t& minor) {
    auto colon = s.find(':');
    std::uint64_t ma = 0, mi = 0;
    if (colon == std::string_view::npos || !parse_u64(s.substr(0, colon), ma) ||
        !parse_u64(s.substr(colon + 1), mi) || ma > UINT32_MAX || mi > UINT32_MAX)
        return false;
    major = static_cast<std::uint32_t>(ma);
    minor = static_cast<std::uint32_t>(mi);
    return true;
}

// Reads one device directory; nullopt when it vanished meanwhile.
std::optional<BlockDevice> read_device(const fs::path& dir, const std::string& parent,
                                       const std::string& driver) {
    BlockDevice d;
    d.id.kernel_name = dir.filename().string();
    d.id.driver = driver;
    d.parent = parent;
    auto dev = read_attr(dir / "dev");
    auto stat = read_attr(dir / "stat");
    auto size = read_attr(dir / "size");
    if (!dev || !stat || !size)
        return std::nullopt;
    if (!parse_dev(*dev, d.id.major, d.id.minor))
        throw Error(ErrorKind::parse,
                    fmt::format("{}: not MAJOR:MINOR: '{}'", (dir / "dev").string(), *dev));
    if (!parse_u64(*size, d.id.size_sectors))
        throw Error(ErrorKind::parse,
                    fmt::format("{}: not a number: '{}'", (dir / "size").string(), *size));
    try {
        d.stat = parse_block_stat(*stat);
    } catch (const Error& e) {
        throw Error(e.kind(), fmt::format("{}: {}", (dir / "stat").string(), e.what()));
    }
    if (parent.empty() && fs::is_directory(dir / "dm")) {
        d.id.dm_name = read_attr(dir / "dm" / "name").value_or("");
        d.id.dm_uuid = read_attr(dir / "dm" / "uuid").value_or("");
    }
    return d;
}

std::string driver_of(const fs::path& disk_dir) {
    std::error_code ec;
    auto target = fs::read_symlink(disk_dir / "device" / "driver", ec);
    return ec ? std::string() : target.filename().string();
}

}  // namespace

BlockStat parse_block_stat(std::string_view text) {
    std::array<std::uint64_t, 17> v{};
    unsigned n = 0;
    for (std::string_view field : blank_separated_fields(text)) {
        std::uint64_t x = 0;
        if (!parse_u64(field, x))
            throw Error(ErrorKind::parse,
                        fmt::format("field {} is not a number: '{}'", n + 1, field));
        if (n < v.size())
            v[n] = x;  // later kernels may append fields: the known ones keep their place
        ++n;
    }
    if (n != 11 && n != 15 && n < 17)
        throw Error(ErrorKind::parse,
                    fmt::format("{} fields where the kernel writes 11, 15 or 17", n));
    BlockStat s;
    for (std::size_t i = 0; i < block_stat_fields.size(); ++i)
        s.*block_stat_fields[i].member = v[i];
    s.fields = std::min(n, 17u);
    return s;
}

std::vector<BlockDevice> read_block_devices(const DiskstatsOptions& options) {
    fs::path block = fs::path(options.sysfs_root) / "block";
    std::error_code ec;
    fs::directory_iterator it(block, ec);
    if (ec)
        throw Error(ErrorKind::unsupported,
                    fmt::format("{}: {} (is sysfs mounted?)", block.string(), ec.message()));
    std::vector<BlockDevice> out;
    for (const auto& entry : it) {
        fs::path dir = entry.path();
        std::string driver = driver_of(dir);
        auto disk = read_device(dir, "", driver);
        if (!disk)
            continue;
        std::string disk_name = disk->id.kernel_name;
        out.push_back(std::move(*disk));
        if (!options.partitions)
            continue;
        std::error_code pec;
        for (const auto& sub : fs::directory_iterator(dir, pec)) {
            std::error_code sec;
            if (!sub.is_directory(sec) || !fs::exists(sub.path() / "partition", sec))
                continue;
            if (auto part = read_device(sub.path(), disk_name, driver))
                out.push_back(std::move(*part));
        }
    }
    std::sort(out.begin(), out.end(), [](const BlockDevice& a, const BlockDevice& b) {
        return std::tie(a.id.major, a.id.minor, a.id.kernel_name) <
               std::tie(b.id.major, b.id.minor, b.id.kernel_name);
    });
    return out;
}

}  // namespace iotally
