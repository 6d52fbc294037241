// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/util/error.hpp"

#include <cerrno>

namespace iotally {

ErrorKind kind_from_errno(int err) noexcept {
    switch (err) {
        case ENXIO:
        case ENODEV:
            return ErrorKind::no_device;
        case EPERM:
        case EACCES:
            return ErrorKind::permission;
        case ENOENT:
            return ErrorKind::no_region;
        case EINVAL:
            return ErrorKind::usage;
        case ENOTTY:
        case EOPNOTSUPP:
            return ErrorKind::unsupported;
        default:
            return ErrorKind::failed;
    }
}

}  // namespace iotally
