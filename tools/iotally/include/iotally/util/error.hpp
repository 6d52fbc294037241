// SPDX-License-Identifier: GPL-2.0-or-later
// Errors raised by libiotally. Each carries a kind that the CLI maps to a
// documented exit code (see iotally(8), EXIT STATUS).
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

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

// The exit status of each outcome: 0, then one per ErrorKind. The one table
// that `iotally --help`, the JSON help and iotally(8)'s EXIT STATUS are
// written from (GoogleTest ExitStatus.ManPageMatchesTable keeps the man
// page equal to it).
struct ExitStatus {
    int code;
    std::string_view summary;      // "no such device": --help and the JSON help
    std::string_view description;  // iotally(8)'s sentence
};
inline constexpr std::array<ExitStatus, 8> exit_statuses{{
    {0, "success", "Success."},
    {static_cast<int>(ErrorKind::failed), "operation failed",
     "The operation failed (the kernel rejected it, an I/O error)."},
    {static_cast<int>(ErrorKind::usage), "usage error",
     "Usage error: malformed options or arguments."},
    {static_cast<int>(ErrorKind::no_device), "no such device",
     "No such device (or statistics interface)."},
    {static_cast<int>(ErrorKind::permission), "permission denied",
     "Permission denied: device-mapper and debugfs need root."},
    {static_cast<int>(ErrorKind::unsupported), "not supported by the kernel",
     "Not supported: no device-mapper, no dm statistics, no statistics layer."},
    {static_cast<int>(ErrorKind::no_region), "no such region",
     "No such region (or it vanished between two snapshots)."},
    {static_cast<int>(ErrorKind::parse), "unexpected kernel output",
     "The kernel's output had an unexpected format."},
}};

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
