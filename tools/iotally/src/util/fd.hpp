// SPDX-License-Identifier: GPL-2.0-or-later
// Internal: an owned file descriptor.
//
// Shared with the kernel selftests' helper programs: `make patches` ships
// this file next to them (tools/testing/selftests/iotally/helpers/), where
// they build with the kernel tree and libc alone. So it includes only libc,
// the C++ standard library and linux/ uapi headers.
#pragma once

#include <unistd.h>

#include <utility>

namespace iotally::detail {

class FileDescriptor {
  public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    FileDescriptor(FileDescriptor&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& o) noexcept {
        if (this != &o)
            reset(std::exchange(o.fd_, -1));
        return *this;
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() { reset(); }

    int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = fd;
    }
    // close(2) and report its error, for files whose contents matter.
    int close() noexcept {
        int r = fd_ >= 0 ? ::close(fd_) : 0;
        fd_ = -1;
        return r;
    }

  private:
    int fd_ = -1;
};

}  // namespace iotally::detail
