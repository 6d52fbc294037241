// SPDX-License-Identifier: GPL-2.0-or-later
#include "bpf_log.hpp"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace iotally {
namespace {

std::mutex log_mu;
std::string captured;
libbpf_print_fn_t previous = nullptr;

// libbpf's debug messages (every relocation) would bury its warnings.
int capture_print(enum libbpf_print_level level, const char* format, va_list args) {
    if (level == LIBBPF_DEBUG)
        return 0;
    char buf[1024];
    va_list copy;
    va_copy(copy, args);
    int n = std::vsnprintf(buf, sizeof(buf), format, copy);
    va_end(copy);
    std::lock_guard lock(log_mu);
    if (n >= static_cast<int>(sizeof(buf))) {
        std::string big(static_cast<std::size_t>(n) + 1, '\0');
        std::vsnprintf(big.data(), big.size(), format, args);
        big.resize(static_cast<std::size_t>(n));
        captured += big;
    } else if (n > 0) {
        captured.append(buf, static_cast<std::size_t>(n));
    }
    return n;
}

}  // namespace

BpfLogCapture::BpfLogCapture() {
    std::lock_guard lock(log_mu);
    captured.clear();
    previous = libbpf_set_print(capture_print);
}

BpfLogCapture::~BpfLogCapture() {
    libbpf_set_print(previous);
}

std::string BpfLogCapture::text() const {
    std::lock_guard lock(log_mu);
    return captured;
}

}  // namespace iotally
