// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "iotally/block/saturation.hpp"

namespace iotally::test {

// The index of threshold N (%qdN) in depth_thresholds; a test failure
// when N is not one of them.
inline std::size_t threshold_index(std::uint32_t n) {
    for (std::size_t i = 0; i < depth_thresholds.size(); ++i)
        if (depth_thresholds[i] == n)
            return i;
    ADD_FAILURE() << "no threshold " << n;
    return 0;
}

}  // namespace iotally::test
