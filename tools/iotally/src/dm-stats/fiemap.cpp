// SPDX-License-Identifier: GPL-2.0-or-later
// FS_IOC_FIEMAP: where a file's data lives on its block device.
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fd.hpp"
#include "iotally/dm-stats/filemap.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

std::vector<Extent> merge_extents(std::vector<Extent> extents) {
    std::sort(extents.begin(), extents.end(),
              [](const Extent& a, const Extent& b) { return a.logical < b.logical; });
    std::vector<Extent> out;
    for (const auto& e : extents) {
        if (e.length == 0)
            continue;
        if (!out.empty() && out.back().logical + out.back().length == e.logical &&
            out.back().physical + out.back().length == e.physical) {
            out.back().length += e.length;
            continue;
        }
        out.push_back(e);
    }
    return out;
}

std::vector<SectorRange> extent_ranges(const std::vector<Extent>& extents) {
    std::vector<SectorRange> out;
    for (const auto& e : extents) {
        std::uint64_t first = e.physical / 512;
        std::uint64_t end = (e.physical + e.length + 511) / 512;
        out.push_back({first, end - first});
    }
    return out;
}

namespace {

detail::FileDescriptor open_regular(const std::string& path, FileInfo& info) {
    detail::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    if (!fd) {
        int err = errno;
        throw Error(err == EACCES ? ErrorKind::permission : ErrorKind::usage,
                    fmt::format("{}: {}", path, std::strerror(err)));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        throw Error(ErrorKind::failed, fmt::format("{}: {}", path, std::strerror(errno)));
    if (!S_ISREG(st.st_mode))
        throw Error(ErrorKind::usage, fmt::format("{}: not a regular file", path));
    info.dev_major = major(st.st_dev);
    info.dev_minor = minor(st.st_dev);
    return fd;
}

}  // namespace

FileInfo stat_file(const std::string& path) {
    FileInfo info;
    open_regular(path, info);
    return info;
}

FileInfo map_file(const std::string& path) {
    FileInfo info;
    detail::FileDescriptor fd = open_regular(path, info);

    constexpr std::size_t batch = 256;
    const std::size_t bytes = sizeof(fiemap) + batch * sizeof(fiemap_extent);
    std::vector<std::uint64_t> buffer((bytes + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t));
    std::uint64_t next = 0;
    bool last = false;
    std::vector<Extent> extents;
    while (!last) {
        std::fill(buffer.begin(), buffer.end(), 0);
        auto* fm = reinterpret_cast<fiemap*>(buffer.data());
        fm->fm_start = next;
        fm->fm_length = FIEMAP_MAX_OFFSET - next;
        fm->fm_flags = FIEMAP_FLAG_SYNC;  // flush delayed allocation first
        fm->fm_extent_count = batch;
        if (::ioctl(fd.get(), FS_IOC_FIEMAP, fm) != 0) {
            int err = errno;
            throw Error(
                err == EOPNOTSUPP || err == ENOTTY ? ErrorKind::unsupported : ErrorKind::failed,
                fmt::format("{}: FIEMAP failed: {}", path, std::strerror(err)));
        }
        if (fm->fm_mapped_extents == 0)
            break;
        for (std::uint32_t i = 0; i < fm->fm_mapped_extents; ++i) {
            const fiemap_extent& x = fm->fm_extents[i];
            constexpr std::uint32_t unmappable = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
                                                 FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE |
                                                 FIEMAP_EXTENT_NOT_ALIGNED;
            if (x.fe_flags & unmappable)
                throw Error(ErrorKind::unsupported,
                            fmt::format("{}: extent at offset {} has no plain location on the "
                                        "device (inline, encoded or not aligned)",
                                        path, x.fe_logical));
            extents.push_back({x.fe_logical, x.fe_physical, x.fe_length});
            next = x.fe_logical + x.fe_length;
            if (x.fe_flags & FIEMAP_EXTENT_LAST)
                last = true;
        }
    }
    info.extents = merge_extents(std::move(extents));
    return info;
}

}  // namespace iotally
