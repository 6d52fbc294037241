// SPDX-License-Identifier: GPL-2.0-or-later
// Internal: what a loaded BPF object's maps hold in kernel memory, as the
// kernel charges it ("memlock:" in each map's /proc/self/fdinfo/FD), for
// the -v line that states the backend's memory bound as measured.
#pragma once

#include <cstdint>
#include <string>

struct bpf_object;

namespace iotally {

// The "memlock:" value of an fdinfo text, 0 when it has none.
std::uint64_t fdinfo_memlock(const std::string& fdinfo);

// The sum over @obj's maps; maps whose fdinfo cannot be read add 0.
std::uint64_t bpf_object_map_bytes(const bpf_object* obj);

}  // namespace iotally
