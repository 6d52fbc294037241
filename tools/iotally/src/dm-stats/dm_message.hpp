// SPDX-License-Identifier: GPL-2.0-or-later
// Internal: device-mapper target messages over our own DM_TARGET_MSG ioctl
// (dm_target_msg.hpp), each with a buffer its reply needs.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "dm_target_msg.hpp"
#include "fd.hpp"

namespace iotally::detail {

// Sends target messages with an ioctl buffer no larger than their replies
// need. The kernel allocates and copies in the whole buffer on every ioctl:
// in the emulated test guest 1,000 @stats_print of one-area regions took
// 0.29 s with dmsetup's 16 KiB buffer and 0.03 s with 1 KiB. libdevmapper
// keeps one process-wide size that only grows, so after one large reply
// (the @stats_list of 10,000 regions needs 512 KiB) every later ioctl copies
// that much. Here a message starts small and only a message whose reply did
// not fit (a long @stats_list, a region of many areas) is remembered, by its
// text, with the size it needed.
class MessageChannel {
  public:
    // Opens /dev/mapper/control; false (errno set) if it cannot.
    bool open();
    TargetMessageResult send(const std::string& device, const std::string& text);

  private:
    FileDescriptor control_;
    // Sizes of the messages whose replies outgrew the starting size.
    std::map<std::string, std::size_t, std::less<>> sizes_;
};

}  // namespace iotally::detail
