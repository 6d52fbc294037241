// SPDX-License-Identifier: GPL-2.0-or-later
#include "bpf_memory.hpp"

#include <bpf/libbpf.h>

#include <fstream>
#include <sstream>

namespace iotally {

std::uint64_t fdinfo_memlock(const std::string& fdinfo) {
    std::istringstream in(fdinfo);
    std::string line;
    while (std::getline(in, line)) {
        constexpr std::string_view key = "memlock:";
        if (line.compare(0, key.size(), key) != 0)
            continue;
        try {
            return std::stoull(line.substr(key.size()));
        } catch (const std::exception&) {
            return 0;
        }
    }
    return 0;
}

std::uint64_t bpf_object_map_bytes(const bpf_object* obj) {
    std::uint64_t total = 0;
    const bpf_map* map = nullptr;
    bpf_object__for_each_map(map, obj) {
        int fd = bpf_map__fd(map);
        if (fd < 0)
            continue;
        std::ifstream f("/proc/self/fdinfo/" + std::to_string(fd));
        std::stringstream text;
        text << f.rdbuf();
        total += fdinfo_memlock(text.str());
    }
    return total;
}

}  // namespace iotally
