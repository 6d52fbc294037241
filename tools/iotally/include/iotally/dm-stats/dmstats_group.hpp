// SPDX-License-Identifier: GPL-2.0-or-later
// lvm2 dmstats groups. A group lives in the aux_data of its lowest member:
//   DMS_GROUP=<alias>:<members>#<user aux_data>
// where <members> is a list like "0-3,7" and user aux_data "-" means none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iotally {

inline constexpr std::string_view dmstats_program_id = "dmstats";

struct GroupTag {
    std::string alias;
    std::vector<std::uint64_t> members;  // sorted, unique
    std::string user_aux;                // without the tag; empty if none
    bool operator==(const GroupTag&) const = default;
};

// "0-3,7" <-> {0,1,2,3,7}. Throws Error(parse) on malformed lists.
std::vector<std::uint64_t> parse_id_list(std::string_view text);
std::string format_id_list(const std::vector<std::uint64_t>& ids);

// nullopt: aux_data carries no group. Throws Error(parse) on a malformed tag.
std::optional<GroupTag> parse_group_tag(std::string_view aux_data);
std::string format_group_aux(const GroupTag& tag);

// The user part of aux_data ("" for the kernel's "-"), tag or not.
std::string user_aux_data(std::string_view aux_data);

}  // namespace iotally
