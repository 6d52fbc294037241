// SPDX-License-Identifier: GPL-2.0-or-later
// Internal: device-mapper target messages over our own DM_TARGET_MSG ioctl.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "fd.hpp"

namespace iotally::detail {

// Sends target messages with a buffer sized per message verb. libdevmapper
// keeps one process-wide ioctl buffer size that only grows: after one large
// reply (the @stats_list of 10,000 regions needs 512 KiB) every later ioctl
// of the process would copy that much into and out of the kernel, once per
// @stats_print. Here each verb starts from the size its replies needed.
class MessageChannel {
  public:
    struct Result {
        int error = 0;  // errno of the ioctl, 0 on success
        std::string reply;
    };

    // Opens /dev/mapper/control; false (errno set) if it cannot.
    bool open();
    Result send(const std::string& device, const std::string& text);

  private:
    FileDescriptor control_;
    std::map<std::string, std::size_t, std::less<>> sizes_;
};

}  // namespace iotally::detail
