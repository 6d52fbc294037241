// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/util/backend.hpp"

#include <fmt/format.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "iotally/util/error.hpp"

namespace iotally {

Backend parse_backend(std::string_view text) {
    if (text == "auto")
        return Backend::automatic;
    if (text == "native")
        return Backend::native;
    if (text == "bpf")
        return Backend::bpf;
    throw Error(ErrorKind::usage,
                fmt::format("--backend '{}': expected auto, native or bpf", text));
}

std::string_view backend_name(Backend b) {
    switch (b) {
        case Backend::native:
            return "native";
        case Backend::bpf:
            return "bpf";
        case Backend::automatic:
            break;
    }
    return "auto";
}

namespace {

// The effective capability set (capget(2): libcap is not worth a
// dependency for one read).
bool has_capability(int cap) {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (::syscall(SYS_capget, &hdr, data) != 0)
        return false;
    unsigned word = static_cast<unsigned>(cap) / 32;
    if (word >= _LINUX_CAPABILITY_U32S_3)
        return false;
    return data[word].effective & (1u << (static_cast<unsigned>(cap) % 32));
}

}  // namespace

bool has_effective_capability(int cap) {
    return has_capability(cap);
}

bool bpf_capable() {
    // CAP_BPF and CAP_PERFMON (Linux 5.8) load tracing programs; before
    // them, and still, CAP_SYS_ADMIN does.
    constexpr int cap_perfmon = 38, cap_bpf = 39;
    return has_capability(CAP_SYS_ADMIN) ||
           (has_capability(cap_bpf) && has_capability(cap_perfmon));
}

std::string bpf_missing(const std::string& sysfs) {
    std::string btf = sysfs + "/kernel/btf/vmlinux";
    if (::access(btf.c_str(), R_OK) != 0)
        return fmt::format("no BTF ({}: a kernel without CONFIG_DEBUG_INFO_BTF)", btf);
    if (bpf_capable())
        return {};
    return "no CAP_BPF and CAP_PERFMON (run as root, or grant both)";
}

Backend resolve_backend(Backend wanted, const std::string& native_missing,
                        const std::string& bpf_missing_reason, std::string_view what) {
    switch (wanted) {
        case Backend::native:
            if (!native_missing.empty())
                throw Error(ErrorKind::unsupported,
                            fmt::format("{}: the native backend needs {}", what, native_missing));
            return Backend::native;
        case Backend::bpf:
            if (!bpf_missing_reason.empty())
                throw Error(
                    ErrorKind::unsupported,
                    fmt::format("{}: the bpf backend cannot load: {}", what, bpf_missing_reason));
            return Backend::bpf;
        case Backend::automatic:
            break;
    }
    if (native_missing.empty())
        return Backend::native;
    if (bpf_missing_reason.empty())
        return Backend::bpf;
    throw Error(ErrorKind::unsupported, fmt::format("{}: neither backend can run: {}; {}", what,
                                                    native_missing, bpf_missing_reason));
}

}  // namespace iotally
