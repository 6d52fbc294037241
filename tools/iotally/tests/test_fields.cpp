// SPDX-License-Identifier: GPL-2.0-or-later
// src/util/fields.hpp: the splitters that the parsers of sysfs lines and of
// list options share.
#include <gtest/gtest.h>

#include "fields.hpp"

namespace iotally {
namespace {

using Items = std::vector<std::string_view>;

TEST(Fields, CommaSeparatedItemsInOrder) {
    EXPECT_EQ(comma_separated_items("1"), (Items{"1"}));
    EXPECT_EQ(comma_separated_items("1-3,7,10us"), (Items{"1-3", "7", "10us"}));
    EXPECT_EQ(comma_separated_items(" a , b"), (Items{" a ", " b"}));  // no trimming
}

TEST(Fields, CommaSeparatedItemsKeepEmptyOnes) {
    // The callers reject an empty item with their own message, so it must
    // reach them: an empty text, a leading, doubled or trailing comma.
    EXPECT_EQ(comma_separated_items(""), (Items{""}));
    EXPECT_EQ(comma_separated_items(","), (Items{"", ""}));
    EXPECT_EQ(comma_separated_items("1,,2"), (Items{"1", "", "2"}));
    EXPECT_EQ(comma_separated_items(",1"), (Items{"", "1"}));
    EXPECT_EQ(comma_separated_items("1,"), (Items{"1", ""}));
}

TEST(Fields, BlankSeparatedFieldsSkipRunsOfBlanks) {
    EXPECT_EQ(blank_separated_fields("  1 2\t3\n"), (Items{"1", "2", "3"}));
    EXPECT_EQ(blank_separated_fields(" \n"), Items{});
}

}  // namespace
}  // namespace iotally
