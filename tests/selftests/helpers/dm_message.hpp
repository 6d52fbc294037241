// SPDX-License-Identifier: GPL-2.0-or-later
//
// send_message(): one device-mapper target message through the
// DM_TARGET_MSG ioctl, as `dmsetup message DEVICE 0 TEXT` sends it, for
// the guest test helpers that send many messages from one process.
#pragma once

#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fd.hpp"

namespace iotally_test {

struct Reply {
    int error = 0;     // errno of a failed ioctl, 0 on success
    std::string text;  // the reply, when the kernel sent one
};

// Sends MESSAGE to sector 0 of DEVICE with a result buffer of SIZE bytes;
// while the kernel says the reply did not fit (DM_BUFFER_FULL_FLAG), sends
// it again with twice the buffer, as libdevmapper does.
inline Reply send_message(const Fd& control, const std::string& device, std::string_view message,
                          std::size_t size) {
    for (;;) {
        const std::size_t need = sizeof(dm_ioctl) + sizeof(dm_target_msg) + message.size() + 1;
        if (size < need)
            size = need;
        std::vector<std::uint64_t> words((size + 7) / 8, 0);
        auto* base = reinterpret_cast<char*>(words.data());
        auto* io = reinterpret_cast<dm_ioctl*>(base);
        io->version[0] = DM_VERSION_MAJOR;
        io->version[1] = 0;
        io->version[2] = 0;
        io->data_size = static_cast<std::uint32_t>(size);
        io->data_start = sizeof(dm_ioctl);
        std::snprintf(io->name, sizeof(io->name), "%s", device.c_str());
        auto* msg = reinterpret_cast<dm_target_msg*>(base + io->data_start);
        msg->sector = 0;
        std::memcpy(msg->message, message.data(), message.size());
        msg->message[message.size()] = '\0';

        if (ioctl(control.get(), DM_TARGET_MSG, io) < 0)
            return Reply{errno, {}};
        if (io->flags & DM_BUFFER_FULL_FLAG) {
            size *= 2;
            continue;
        }
        Reply r;
        if (io->flags & DM_DATA_OUT_FLAG)
            r.text.assign(base + io->data_start);
        return r;
    }
}

}  // namespace iotally_test
