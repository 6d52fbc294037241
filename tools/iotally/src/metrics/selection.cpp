// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/metrics/selection.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "iotally/util/error.hpp"

namespace iotally {

bool glob_match(std::string_view pattern, std::string_view text) {
    return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

MatchExpr build_match(std::string_view text) {
    MatchExpr expr;
    std::size_t pos = 0;
    while (true) {
        auto comma = text.find(',', pos);
        auto term = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        if (term.empty())
            throw Error(ErrorKind::usage, fmt::format("empty term in match expression '{}'", text));
        auto eq = term.find('=');
        MatchTerm t{MatchTerm::Kind::name, std::string(term)};
        if (eq != std::string_view::npos) {
            auto key = term.substr(0, eq);
            t.pattern = std::string(term.substr(eq + 1));
            if (key == "name")
                t.kind = MatchTerm::Kind::name;
            else if (key == "target" || key == "type")
                t.kind = MatchTerm::Kind::target;
            else if (key == "uuid")
                t.kind = MatchTerm::Kind::uuid_prefix;
            else if (key == "driver")
                t.kind = MatchTerm::Kind::driver;
            else if (key == "lv")
                t.kind = MatchTerm::Kind::lv;
            else
                throw Error(ErrorKind::usage,
                            fmt::format("unknown match key '{}' in '{}' (use name=, target=, "
                                        "driver=, uuid=, lv=)",
                                        key, text));
            if (t.kind == MatchTerm::Kind::lv && t.pattern.find('/') == std::string::npos)
                throw Error(ErrorKind::usage,
                            fmt::format("lv= wants VG/LV in match expression '{}'", text));
            if (t.pattern.empty())
                throw Error(
                    ErrorKind::usage,
                    fmt::format("empty value for '{}' in match expression '{}'", key, text));
        }
        expr.terms.push_back(std::move(t));
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    return expr;
}

// VG and LV of an LVM device from its dm name, where lvm2 doubles every '-'
// inside the names and joins them with a single one ("vg--a-lv" is vg-a/lv).
static std::optional<std::pair<std::string, std::string>> lvm_names(const DeviceId& d) {
    if (d.dm_uuid.rfind("LVM-", 0) != 0)
        return std::nullopt;
    const std::string& name = d.dm_name;
    std::string vg;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] != '-') {
            vg += name[i];
        } else if (i + 1 < name.size() && name[i + 1] == '-') {
            vg += '-';
            ++i;
        } else {
            std::string lv;
            for (std::size_t j = i + 1; j < name.size(); ++j) {
                lv += name[j];
                if (name[j] == '-' && j + 1 < name.size() && name[j + 1] == '-')
                    ++j;
            }
            return std::pair(vg, lv);
        }
    }
    return std::nullopt;
}

bool matches(const MatchExpr& expr, const DeviceId& d) {
    for (const auto& t : expr.terms) {
        bool ok = false;
        switch (t.kind) {
            case MatchTerm::Kind::name:
                ok = glob_match(t.pattern, d.name()) ||
                     (!d.kernel_name.empty() && glob_match(t.pattern, d.kernel_name));
                break;
            case MatchTerm::Kind::driver:
                ok = glob_match(t.pattern, d.driver);
                break;
            case MatchTerm::Kind::lv: {
                auto vg_lv = lvm_names(d);
                auto slash = t.pattern.find('/');
                ok = vg_lv && glob_match(t.pattern.substr(0, slash), vg_lv->first) &&
                     glob_match(t.pattern.substr(slash + 1), vg_lv->second);
                break;
            }
            case MatchTerm::Kind::target:
                ok = std::find(d.targets.begin(), d.targets.end(), t.pattern) != d.targets.end();
                break;
            case MatchTerm::Kind::uuid_prefix:
                ok = t.pattern.find_first_of("*?[") == std::string::npos
                         ? d.dm_uuid.compare(0, t.pattern.size(), t.pattern) == 0
                         : glob_match(t.pattern, d.dm_uuid);
                break;
        }
        if (!ok)
            return false;
    }
    return true;
}

static bool matches_any(std::span<const MatchExpr> exprs, const DeviceId& d) {
    return std::any_of(exprs.begin(), exprs.end(), [&](const auto& e) { return matches(e, d); });
}

namespace {

// A new generation or a different device count rebuilds the entries, but
// devices that stay keep their selection (as devstat does); every entry
// takes this interval's activity.
void refresh_entries(SelectionState& state, std::uint64_t generation,
                     std::span<const DeviceId> devices, std::span<const std::uint64_t> activity) {
    if (!state.initialized || state.generation != generation ||
        state.entries.size() != devices.size()) {
        std::vector<SelectionEntry> rebuilt;
        for (const auto& d : devices) {
            SelectionEntry e{d.name(), false, 0};
            for (const auto& o : state.entries)
                if (o.device == d.name())
                    e.selected = o.selected;
            rebuilt.push_back(std::move(e));
        }
        state.entries = std::move(rebuilt);
        state.generation = generation;
        state.initialized = true;
    }
    for (std::size_t i = 0; i < state.entries.size(); ++i)
        state.entries[i].activity = activity.empty() ? 0 : activity[i];
}

// devstat's modes on the entries' selected flags.
void apply_mode(std::vector<SelectionEntry>& entries, std::span<const DeviceId> devices,
                const SelectRequest& req) {
    auto specified = [&](std::size_t i) {
        const auto& d = devices[i];
        return std::find(req.names.begin(), req.names.end(), d.name()) != req.names.end() ||
               matches_any(req.matches, d);
    };
    auto count_selected = [&] {
        return static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(),
                                                      [](const auto& e) { return e.selected; }));
    };

    if (req.mode == SelectMode::only)
        for (auto& e : entries)
            e.selected = false;

    if (req.mode == SelectMode::remove) {
        for (std::size_t i = 0; i < entries.size(); ++i)
            if (specified(i))
                entries[i].selected = false;
        return;
    }
    // Named devices first, in the order the user gave them, then patterns.
    for (const auto& name : req.names)
        for (auto& e : entries)
            if (e.device == name && !e.selected && count_selected() < req.max_count)
                e.selected = true;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!entries[i].selected && matches_any(req.matches, devices[i]) &&
            count_selected() < req.max_count)
            entries[i].selected = true;
    if (req.mode == SelectMode::add)
        for (auto& e : entries)
            if (!e.selected && count_selected() < req.max_count)
                e.selected = true;
}

// The positions shown, in display order: the selected entries (or, in top
// mode without a selection, every one), busiest first in top mode, at
// most max_count.
std::vector<std::size_t> display_order(const std::vector<SelectionEntry>& entries,
                                       const SelectRequest& req) {
    const bool anything_specified = !req.names.empty() || !req.matches.empty();
    std::vector<std::size_t> order(entries.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<std::size_t> chosen;
    if (req.by_activity && !anything_specified && req.mode != SelectMode::remove) {
        chosen = order;  // top mode without a selection: every device competes
    } else {
        for (auto i : order)
            if (entries[i].selected)
                chosen.push_back(i);
    }
    if (req.by_activity)
        std::stable_sort(chosen.begin(), chosen.end(), [&](std::size_t a, std::size_t b) {
            return entries[a].activity > entries[b].activity;
        });
    if (chosen.size() > req.max_count)
        chosen.resize(req.max_count);
    return chosen;
}

bool selection_changed(const std::vector<SelectionEntry>& old,
                       const std::vector<SelectionEntry>& now) {
    bool diff = old.size() != now.size();
    for (std::size_t i = 0; !diff && i < old.size(); ++i)
        diff = old[i].device != now[i].device || old[i].selected != now[i].selected;
    return diff;
}

}  // namespace

std::vector<std::size_t> select_device_indices(SelectionState& state, std::uint64_t generation,
                                               std::span<const DeviceId> devices,
                                               std::span<const std::uint64_t> activity,
                                               const SelectRequest& req, bool* changed) {
    if (!activity.empty() && activity.size() != devices.size())
        throw Error(ErrorKind::usage, "select_devices: activity does not match the device list");
    const std::vector<SelectionEntry> old = state.entries;
    refresh_entries(state, generation, devices, activity);
    apply_mode(state.entries, devices, req);
    if (changed)
        *changed = selection_changed(old, state.entries);
    return display_order(state.entries, req);
}

std::vector<std::string> select_devices(SelectionState& state, std::uint64_t generation,
                                        std::span<const DeviceId> devices,
                                        std::span<const std::uint64_t> activity,
                                        const SelectRequest& req, bool* changed) {
    std::vector<std::string> out;
    for (auto i : select_device_indices(state, generation, devices, activity, req, changed))
        out.push_back(state.entries[i].device);
    return out;
}

SelectMode parse_select_mode(const std::string& text) {
    if (text == "add")
        return SelectMode::add;
    if (text == "only")
        return SelectMode::only;
    if (text == "remove")
        return SelectMode::remove;
    if (text == "add-only")
        return SelectMode::add_only;
    throw Error(ErrorKind::usage,
                fmt::format("unknown selection mode '{}' (use add, only, remove, add-only)", text));
}

DeviceSelector::DeviceSelector(const SelectArgs& args, std::string kind)
    : args_(args), kind_(std::move(kind)) {
    for (const auto& e : args.exprs)
        request_.matches.push_back(build_match(e));
    const bool named = !args.names.empty() || !args.exprs.empty();
    request_.mode = args.mode.empty() ? (named ? SelectMode::only : SelectMode::add)
                                      : parse_select_mode(args.mode);
    if (args.max)
        request_.max_count = args.max;
    if (args.top) {
        request_.by_activity = true;
        request_.max_count = std::min(request_.max_count, args.top);
    }
}

std::vector<std::string> DeviceSelector::select_names(std::span<const DeviceId> ids,
                                                      std::span<const std::uint64_t> activity,
                                                      std::vector<std::string>* missing) {
    std::vector<std::string> names;
    for (auto i : select(ids, activity, missing))
        names.push_back(ids[i].name());
    return names;
}

std::vector<std::size_t> DeviceSelector::select(std::span<const DeviceId> ids,
                                                std::span<const std::uint64_t> activity,
                                                std::vector<std::string>* missing) {
    // Names may be kernel names (dm-0) or dm names (vol): devstat selects by
    // the list's names, which are the dm names for dm devices.
    request_.names.clear();
    for (const auto& n : args_.names) {
        auto it = std::find_if(ids.begin(), ids.end(), [&](const DeviceId& d) {
            return d.name() == n || d.kernel_name == n;
        });
        if (it != ids.end())
            request_.names.push_back(it->name());
        else if (missing)
            missing->push_back(n);
        else
            throw Error(ErrorKind::no_device, fmt::format("{}: no such {}", n, kind_));
    }
    if (!missing)
        for (std::size_t i = 0; i < request_.matches.size(); ++i)
            if (std::none_of(ids.begin(), ids.end(),
                             [&](const DeviceId& d) { return matches(request_.matches[i], d); }))
                throw Error(ErrorKind::no_device,
                            fmt::format("--select '{}' matches no {}", args_.exprs[i], kind_));
    std::vector<std::string> names;
    for (const auto& d : ids)
        names.push_back(d.name());
    if (names != last_names_) {
        ++generation_;  // a device came or went: devstat's generation
        last_names_ = names;
    }
    if (request_.mode == SelectMode::remove && !state_.initialized) {
        // devstat removes from the current selection; on the command line
        // there is none yet, so "remove" means every device but these.
        SelectRequest all;
        all.max_count = SIZE_MAX;
        select_device_indices(state_, generation_, ids, activity, all);
    }
    return select_device_indices(state_, generation_, ids, activity, request_);
}

}  // namespace iotally
