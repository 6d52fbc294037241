// SPDX-License-Identifier: GPL-2.0-or-later
#include "dm_message.hpp"

#include <fcntl.h>

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

TargetMessageResult MessageChannel::send(const std::string& device, const std::string& text) {
    const auto known = sizes_.find(text);
    TargetMessageResult r = send_target_message(control_.get(), device, text,
                                                known != sizes_.end() ? known->second : min_buffer);
    if (r.grown_to) {
        if (sizes_.size() >= max_remembered)
            sizes_.clear();
        sizes_.insert_or_assign(text, r.grown_to);
    }
    return r;
}

}  // namespace iotally::detail
