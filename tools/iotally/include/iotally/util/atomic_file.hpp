// SPDX-License-Identifier: GPL-2.0-or-later
// Replacing a file so that readers see the old or the new contents, never a
// part: write a temporary file in the same directory, fsync, rename.
#pragma once

#include <string>

namespace iotally {

// Writes `contents` to dir/name with mode 0644. On any error the temporary
// file is removed, dir/name is untouched, and Error(failed/permission) is thrown.
void write_file_atomically(const std::string& dir, const std::string& name,
                           const std::string& contents);

}  // namespace iotally
