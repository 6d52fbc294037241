// SPDX-License-Identifier: GPL-2.0-or-later
// Errors raised by libiotally. Each carries a kind that the CLI maps to a
// documented exit code (see iotally(8), EXIT STATUS).
#pragma once

#include <stdexcept>
#include <string>

namespace iotally {

enum class ErrorKind {
    failed = 1,       // the kernel or the system refused an operation
    usage = 2,        // malformed options or arguments
    no_device = 3,    // no such device-mapper device
    permission = 4,   // not privileged enough (usually: not root)
    unsupported = 5,  // no device-mapper, no dm statistics, no debugfs statistics
    no_region = 6,    // region id unknown, or vanished between two snapshots
    parse = 7,        // kernel output in an unexpected format
};

class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }
    int exit_code() const noexcept { return static_cast<int>(kind_); }

  private:
    ErrorKind kind_;
};

// Maps an errno value returned by the kernel to an error kind.
ErrorKind kind_from_errno(int err) noexcept;

}  // namespace iotally
