// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "error_text.hpp"
#include "iotally/dm-stats/dmstats_group.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

TEST(IdList, ParseAndFormat) {
    EXPECT_EQ(parse_id_list("0-2,5,7-8"), (std::vector<std::uint64_t>{0, 1, 2, 5, 7, 8}));
    EXPECT_EQ(parse_id_list("5,3,3"), (std::vector<std::uint64_t>{3, 5}));
    EXPECT_EQ(format_id_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
    EXPECT_EQ(format_id_list({4}), "4");
    EXPECT_EQ(format_id_list({}), "");
    for (const char* bad : {"", "a", "1-", "-1", "3-1", "1,,2", "0-2147483648", "0-2000000"})
        EXPECT_THROW(parse_id_list(bad), Error) << bad;
}

std::string id_list_error(const char* text) {
    return test::error_text([text] { parse_id_list(text); });
}

TEST(IdList, ErrorsNameTheItemAndTheList) {
    EXPECT_EQ(id_list_error(""), "invalid region id '' in group member list ''");
    EXPECT_EQ(id_list_error("1,,2"), "invalid region id '' in group member list '1,,2'");
    EXPECT_EQ(id_list_error("4,x-5"), "invalid region id 'x' in group member list '4,x-5'");
    EXPECT_EQ(id_list_error("1,3-1"), "descending range '3-1' in group member list '1,3-1'");
    EXPECT_EQ(id_list_error("0-2000000"), "group member list '0-2000000' is too long");
}

TEST(GroupTag, AsLvm2WritesIt) {
    auto tag = parse_group_tag("DMS_GROUP=data:4-6,9#-");
    ASSERT_TRUE(tag);
    EXPECT_EQ(tag->alias, "data");
    EXPECT_EQ(tag->members, (std::vector<std::uint64_t>{4, 5, 6, 9}));
    EXPECT_EQ(tag->user_aux, "");
    EXPECT_EQ(format_group_aux(*tag), "DMS_GROUP=data:4-6,9#-");

    auto with_user = parse_group_tag("DMS_GROUP=:0#my notes");
    ASSERT_TRUE(with_user);
    EXPECT_EQ(with_user->alias, "");
    EXPECT_EQ(with_user->user_aux, "my notes");
    EXPECT_EQ(format_group_aux(*with_user), "DMS_GROUP=:0#my notes");

    auto no_user = parse_group_tag("DMS_GROUP=x:1");
    ASSERT_TRUE(no_user);
    EXPECT_EQ(no_user->user_aux, "");
}

TEST(GroupTag, NotATag) {
    EXPECT_FALSE(parse_group_tag("-"));
    EXPECT_FALSE(parse_group_tag("notes DMS_GROUP=x:1"));
    EXPECT_EQ(user_aux_data("-"), "");
    EXPECT_EQ(user_aux_data("notes"), "notes");
    EXPECT_EQ(user_aux_data("DMS_GROUP=x:1#keep"), "keep");
}

TEST(GroupTag, Malformed) {
    EXPECT_THROW(parse_group_tag("DMS_GROUP=nocolon"), Error);
    EXPECT_THROW(parse_group_tag("DMS_GROUP=x:5-3#-"), Error);
    EXPECT_THROW(parse_group_tag("DMS_GROUP=x:#-"), Error);
    EXPECT_THROW(format_group_aux(GroupTag{"a:b", {1}, ""}), Error);
    EXPECT_THROW(format_group_aux(GroupTag{"a", {}, ""}), Error);
}

}  // namespace
}  // namespace iotally
