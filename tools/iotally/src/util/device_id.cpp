// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/util/device_id.hpp"

namespace iotally {

std::string dm_kernel_name(std::uint32_t minor) {
    return "dm-" + std::to_string(minor);
}

}  // namespace iotally
