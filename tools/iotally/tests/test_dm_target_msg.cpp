// SPDX-License-Identifier: GPL-2.0-or-later
//
// send_target_message() (src/dm-stats/dm_target_msg.hpp), which the selftest
// helpers share: what it refuses before the ioctl. The ioctl itself needs
// device-mapper and root, and is run in the guests (dm-stats-msg,
// dm-stats-fuzz, and every message of iotally). A descriptor that is not
// open tells the two apart: what reaches the ioctl fails with EBADF.
#include <gtest/gtest.h>
#include <linux/dm-ioctl.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "../src/dm-stats/dm_target_msg.hpp"

namespace iotally::detail {
namespace {

constexpr int not_open = -1;

TEST(TargetMessage, ANameTheIoctlCannotHoldIsNotSent) {
    const std::string longest(DM_NAME_LEN - 1, 'd');
    EXPECT_EQ(send_target_message(not_open, longest, "@stats_list", 0).error, EBADF);
    const auto r = send_target_message(not_open, longest + "d", "@stats_list", 0);
    EXPECT_EQ(r.error, ENAMETOOLONG);
    EXPECT_EQ(r.reply, "");
    EXPECT_EQ(r.grown_to, 0U);
}

TEST(TargetMessage, ABufferTheIoctlCannotDescribeIsNotSent) {
    if constexpr (sizeof(std::size_t) > sizeof(std::uint32_t)) {
        const std::size_t too_large = std::size_t{UINT32_MAX} + 1;  // dm_ioctl.data_size
        const auto r = send_target_message(not_open, "vol", "@stats_list", too_large);
        EXPECT_EQ(r.error, EOVERFLOW);
    } else {
        GTEST_SKIP() << "a 32-bit size_t cannot ask for more than dm_ioctl describes";
    }
}

}  // namespace
}  // namespace iotally::detail
