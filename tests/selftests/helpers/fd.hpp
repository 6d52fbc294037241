// SPDX-License-Identifier: GPL-2.0-or-later
//
// Fd: owns one file descriptor and closes it, for the guest test helpers.
#pragma once

#include <unistd.h>

namespace iotally_test {

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0)
            close(fd_);
    }
    [[nodiscard]] int get() const { return fd_; }

  private:
    int fd_;
};

}  // namespace iotally_test
