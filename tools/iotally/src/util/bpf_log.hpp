// SPDX-License-Identifier: GPL-2.0-or-later
// libbpf's log, captured: while a BpfLogCapture lives, what libbpf prints
// (the verifier's log among it) is kept instead of going to stderr, so
// that a load failure is one clear line and the log is shown only with -v.
// libbpf's print callback is process-wide: one capture at a time.
#pragma once

#include <string>

namespace iotally {

class BpfLogCapture {
  public:
    BpfLogCapture();
    ~BpfLogCapture();
    BpfLogCapture(const BpfLogCapture&) = delete;
    BpfLogCapture& operator=(const BpfLogCapture&) = delete;
    // Everything libbpf printed since the capture began.
    std::string text() const;
};

}  // namespace iotally
