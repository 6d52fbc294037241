// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace iotally::test {

inline std::string fixture_dir() {
    return IOTALLY_FIXTURE_DIR;
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Fixture files of a directory with one of the extensions, sorted.
inline std::vector<std::filesystem::path> fixture_files(const std::string& subdir,
                                                        const std::vector<std::string>& exts) {
    std::vector<std::filesystem::path> out;
    std::filesystem::path dir = std::filesystem::path(fixture_dir()) / subdir;
    if (!std::filesystem::is_directory(dir))
        return out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        for (const auto& x : exts)
            if (e.is_regular_file() && e.path().extension() == x)
                out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace iotally::test
