// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/dmstats_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "fields.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

constexpr std::string_view group_tag = "DMS_GROUP=";
// Region ids are ints in the kernel; a member list longer than this is junk.
constexpr std::uint64_t max_members = 1u << 20;

std::uint64_t parse_id(std::string_view text, std::string_view list) {
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || v > 2147483647ULL)
        throw Error(ErrorKind::parse,
                    fmt::format("invalid region id '{}' in group member list '{}'", text, list));
    return v;
}

}  // namespace

std::vector<std::uint64_t> parse_id_list(std::string_view text) {
    std::vector<std::uint64_t> ids;
    for (std::string_view item : comma_separated_items(text)) {
        auto dash = item.find('-');
        std::uint64_t first = parse_id(item.substr(0, dash), text);
        std::uint64_t last =
            dash == std::string_view::npos ? first : parse_id(item.substr(dash + 1), text);
        if (last < first)
            throw Error(ErrorKind::parse, fmt::format("descending range '{}' in group member "
                                                      "list '{}'",
                                                      item, text));
        if (last - first + ids.size() >= max_members)
            throw Error(ErrorKind::parse,
                        fmt::format("group member list '{}' is too long", text.substr(0, 64)));
        for (std::uint64_t id = first; id <= last; ++id)
            ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

std::string format_id_list(const std::vector<std::uint64_t>& ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
            ++j;
        if (!out.empty())
            out += ',';
        out += j == i ? fmt::format("{}", ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
        i = j + 1;
    }
    return out;
}

std::optional<GroupTag> parse_group_tag(std::string_view aux) {
    if (aux.substr(0, group_tag.size()) != group_tag)
        return std::nullopt;
    aux.remove_prefix(group_tag.size());
    auto colon = aux.find(':');
    if (colon == std::string_view::npos)
        throw Error(ErrorKind::parse, "malformed DMS_GROUP tag: no ':' after the alias");
    GroupTag tag;
    tag.alias = std::string(aux.substr(0, colon));
    aux.remove_prefix(colon + 1);
    auto hash = aux.find('#');
    tag.members = parse_id_list(aux.substr(0, hash));
    if (hash != std::string_view::npos) {
        auto user = aux.substr(hash + 1);
        tag.user_aux = user == "-" ? "" : std::string(user);
    }
    return tag;
}

std::string format_group_aux(const GroupTag& tag) {
    if (tag.members.empty())
        throw Error(ErrorKind::usage, "a dmstats group needs at least one member");
    if (tag.alias.find(':') != std::string::npos || tag.alias.find('#') != std::string::npos)
        throw Error(ErrorKind::usage,
                    fmt::format("group alias '{}' must not contain ':' or '#'", tag.alias));
    return fmt::format("{}{}:{}#{}", group_tag, tag.alias, format_id_list(tag.members),
                       tag.user_aux.empty() ? "-" : tag.user_aux);
}

std::string user_aux_data(std::string_view aux) {
    if (auto tag = parse_group_tag(aux))
        return tag->user_aux;
    return aux == "-" ? std::string() : std::string(aux);
}

}  // namespace iotally
