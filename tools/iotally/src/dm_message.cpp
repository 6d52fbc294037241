// SPDX-License-Identifier: GPL-2.0-or-later
#include "dm_message.hpp"

#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace iotally::detail {

namespace {

constexpr std::size_t min_buffer = 16 * 1024;

}  // namespace

bool MessageChannel::open() {
    if (!control_)
        control_ = FileDescriptor(::open("/dev/mapper/control", O_RDWR | O_CLOEXEC));
    return static_cast<bool>(control_);
}

MessageChannel::Result MessageChannel::send(const std::string& device, const std::string& text) {
    const std::string verb = text.substr(0, text.find(' '));
    std::size_t& size = sizes_.try_emplace(verb, min_buffer).first->second;
    const std::size_t need = sizeof(dm_ioctl) + sizeof(dm_target_msg) + text.size() + 1;
    if (size < need)
        size = need;
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
        Result r;
        if ((io->flags & DM_DATA_OUT_FLAG) && io->data_start < io->data_size)
            r.reply.assign(base + io->data_start,
                           strnlen(base + io->data_start, io->data_size - io->data_start));
        return r;
    }
}

}  // namespace iotally::detail
