// SPDX-License-Identifier: GPL-2.0-or-later
#include "dm_message.hpp"

#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace iotally::detail {

namespace {

// Room for the header and a one-area @stats_print reply with a histogram.
constexpr std::size_t min_buffer = 2048;
// Messages whose size is remembered: a hint, forgotten all at once when full.
constexpr std::size_t max_remembered = 16384;

}  // namespace

bool MessageChannel::open() {
    if (!control_)
        control_ = FileDescriptor(::open("/dev/mapper/control", O_RDWR | O_CLOEXEC));
    return static_cast<bool>(control_);
}

MessageChannel::Result MessageChannel::send(const std::string& device, const std::string& text) {
    const std::size_t need = sizeof(dm_ioctl) + sizeof(dm_target_msg) + text.size() + 1;
    const auto known = sizes_.find(text);
    const std::size_t start = std::max(known != sizes_.end() ? known->second : min_buffer, need);
    std::size_t size = start;
    for (;;) {
        std::vector<std::uint64_t> words((size + 7) / 8, 0);  // dm_ioctl is 8-byte aligned
        auto* base = reinterpret_cast<char*>(words.data());
        auto* io = reinterpret_cast<dm_ioctl*>(base);
        io->version[0] = DM_VERSION_MAJOR;
        io->data_size = static_cast<std::uint32_t>(words.size() * 8);
        io->data_start = sizeof(dm_ioctl);
        std::memcpy(io->name, device.data(), device.size());  // the caller checked the length
        auto* msg = reinterpret_cast<dm_target_msg*>(base + io->data_start);
        msg->sector = 0;
        std::memcpy(msg->message, text.data(), text.size());
        if (::ioctl(control_.get(), DM_TARGET_MSG, io) < 0)
            return {errno, {}};
        if (io->flags & DM_BUFFER_FULL_FLAG) {
            size *= 2;
            continue;
        }
        if (size != start) {
            if (sizes_.size() >= max_remembered)
                sizes_.clear();
            sizes_.insert_or_assign(text, size);
        }
        Result r;
        if ((io->flags & DM_DATA_OUT_FLAG) && io->data_start < io->data_size)
            r.reply.assign(base + io->data_start,
                           strnlen(base + io->data_start, io->data_size - io->data_start));
        return r;
    }
}

}  // namespace iotally::detail
