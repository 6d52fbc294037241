// SPDX-License-Identifier: GPL-2.0-or-later
// Internal: one device-mapper target message through the DM_TARGET_MSG
// ioctl, as `dmsetup message DEVICE 0 TEXT` sends it.
//
// Shared with the kernel selftests' helper programs: `make patches` ships
// this file next to them (tools/testing/selftests/iotally/helpers/), where
// they build with the kernel tree and libc alone. So it includes only libc,
// the C++ standard library and linux/ uapi headers.
#pragma once

#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace iotally::detail {

struct TargetMessageResult {
    int error = 0;      // errno of the ioctl, 0 on success
    std::string reply;  // the reply, when the kernel sent one
    // The buffer size the reply needed, when it did not fit the first
    // buffer; 0 when it did.
    std::size_t grown_to = 0;
};

// Sends TEXT to sector 0 of DEVICE through CONTROL (/dev/mapper/control)
// with an ioctl buffer of BUFFER_SIZE bytes, or the least the message itself
// needs. While the kernel says the reply did not fit (DM_BUFFER_FULL_FLAG),
// sends it again with twice the buffer, as libdevmapper does. A device name
// of DM_NAME_LEN bytes or more fails with ENAMETOOLONG and sends nothing; a
// buffer larger than dm_ioctl can describe (4 GiB) fails with EOVERFLOW.
inline TargetMessageResult send_target_message(int control, std::string_view device,
                                               std::string_view text, std::size_t buffer_size) {
    if (device.size() >= DM_NAME_LEN)
        return {ENAMETOOLONG, {}, 0};
    const std::size_t need = sizeof(dm_ioctl) + sizeof(dm_target_msg) + text.size() + 1;
    const std::size_t first = buffer_size < need ? need : buffer_size;
    if (static_cast<std::uint64_t>(first) > UINT32_MAX)  // dm_ioctl.data_size
        return {EOVERFLOW, {}, 0};
    for (std::size_t size = first;;) {
        std::vector<std::uint64_t> words((size + 7) / 8, 0);  // dm_ioctl is 8-byte aligned
        auto* base = reinterpret_cast<char*>(words.data());
        auto* io = reinterpret_cast<dm_ioctl*>(base);
        io->version[0] = DM_VERSION_MAJOR;
        io->data_size = static_cast<std::uint32_t>(size);
        io->data_start = sizeof(dm_ioctl);
        std::memcpy(io->name, device.data(), device.size());
        auto* msg = reinterpret_cast<dm_target_msg*>(base + io->data_start);
        msg->sector = 0;
        std::memcpy(msg->message, text.data(), text.size());
        if (::ioctl(control, DM_TARGET_MSG, io) < 0)
            return {errno, {}, 0};
        if (io->flags & DM_BUFFER_FULL_FLAG) {
            if (size > UINT32_MAX / 2)
                return {EOVERFLOW, {}, 0};
            size *= 2;
            continue;
        }
        TargetMessageResult r;
        const std::size_t end = io->data_size < size ? io->data_size : size;
        if ((io->flags & DM_DATA_OUT_FLAG) && io->data_start < end)
            r.reply.assign(base + io->data_start,
                           strnlen(base + io->data_start, end - io->data_start));
        if (size != first)
            r.grown_to = size;
        return r;
    }
}

}  // namespace iotally::detail
