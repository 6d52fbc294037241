// SPDX-License-Identifier: GPL-2.0-or-later
// Where the per-I/O and per-task commands (snoop, tasks, serve --cgroups)
// take their data from: the patched kernel's own interfaces (the io trace
// events, the taskstats I/O attribute), or iotally's BPF programs on a
// kernel without them (Debian's own). "auto" takes the native interface
// where the kernel has it, else BPF. Documentation/iotally-bpf.rst.
#pragma once

#include <string>
#include <string_view>

namespace iotally {

enum class Backend { automatic, native, bpf };

// "auto", "native" or "bpf"; anything else is Error(usage).
Backend parse_backend(std::string_view text);
std::string_view backend_name(Backend b);

// Whether this kernel and process can load iotally's BPF programs: BTF at
// `sysfs`/kernel/btf/vmlinux and the capabilities (CAP_BPF and CAP_PERFMON,
// or CAP_SYS_ADMIN). The empty string when they can, else what is missing,
// as one phrase ("no BTF (/sys/kernel/btf/vmlinux)").
std::string bpf_missing(const std::string& sysfs = "/sys");
// Whether this process holds what loading them checks: CAP_BPF and
// CAP_PERFMON, or CAP_SYS_ADMIN, in its effective set.
bool bpf_capable();
// Whether capability `cap` (CAP_SYS_ADMIN, ...) is in this process's
// effective set.
bool has_effective_capability(int cap);

// The backend a command runs on. `native_missing` is what the native
// interface lacks on this kernel ("" when it has it). automatic picks
// native when it is there, else bpf when it can load; a backend asked for
// (or auto with neither) that cannot run raises Error(unsupported) naming
// what is missing.
Backend resolve_backend(Backend wanted, const std::string& native_missing,
                        const std::string& bpf_missing_reason, std::string_view what);

}  // namespace iotally
