// SPDX-License-Identifier: GPL-2.0-or-later
// iotally stat: the generic statistics layer in debugfs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "iotally/error.hpp"
#include "iotally/statfs.hpp"
#include "output.hpp"

namespace iotally::cli {
namespace {

StatFs statfs(const Context& ctx) {
    return StatFs(ctx.debugfs + "/statistics");
}

void require_statistic(const StatFs& fs, const std::string& iface, const std::string& name) {
    auto defs = parse_definitions(fs.read_definition(iface));
    if (std::none_of(defs.begin(), defs.end(), [&](const auto& d) { return d.name == name; }))
        throw Error(ErrorKind::usage, fmt::format("{}: no statistic named '{}'", iface, name));
}

void show(Context& ctx, bool json, const std::string& iface) {
    StatFs fs = statfs(ctx);
    auto defs = parse_definitions(fs.read_definition(iface));
    auto data = parse_data(fs.read_data(iface));
    if (json) {
        nlohmann::json jd = nlohmann::json::array();
        for (const auto& d : defs) {
            nlohmann::json attrs = nlohmann::json::object();
            for (const auto& [k, v] : d.attributes)
                attrs[k] = v;
            jd.push_back({{"name", d.name}, {"attributes", attrs}});
        }
        nlohmann::json jdata = nlohmann::json::object();
        for (const auto& line : data)
            jdata[line.name].push_back(line.fields);
        *ctx.out
            << nlohmann::json{{"interface", iface}, {"definitions", jd}, {"data", jdata}}.dump()
            << "\n";
        return;
    }
    Table t({"<NAME", "<TYPE", "<ON", "<ATTRIBUTES"});
    for (const auto& d : defs) {
        std::vector<std::string> rest;
        for (const auto& [k, v] : d.attributes)
            if (k != "type" && k != "on")
                rest.push_back(k + "=" + v);
        t.add({d.name, d.get("type").value_or("-"), d.get("on").value_or("-"),
               fmt::format("{}", fmt::join(rest, " "))});
    }
    *ctx.out << t.render() << "\n";
    Table dt({"<NAME", "<DATA"});
    for (const auto& line : data)
        dt.add({line.name, fmt::format("{}", fmt::join(line.fields, " "))});
    *ctx.out << dt.render();
}

}  // namespace

void register_stat(Registry& r) {
    Context& ctx = r.ctx;
    bool& json = r.json;
    auto* stat = r.app.add_subcommand(
        "stat", "The statistics layer: /sys/kernel/debug/statistics/<iface>/{definition,data}");
    stat->require_subcommand(1);

    auto* list = stat->add_subcommand("list", "List the statistics interfaces");
    r.add(list, [&ctx, &json] {
        auto ifaces = statfs(ctx).interfaces();
        if (json) {
            *ctx.out << nlohmann::json(ifaces).dump() << "\n";
            return;
        }
        for (const auto& i : ifaces)
            *ctx.out << i << "\n";
    });

    auto show_iface = std::make_shared<std::string>();
    auto* sh = stat->add_subcommand("show", "Show an interface's definitions and data");
    sh->add_option("interface", *show_iface, "Interface")->required();
    r.add(sh, [show_iface, &ctx, &json] { show(ctx, json, *show_iface); });

    struct SetArgs {
        std::string iface;
        std::vector<std::string> assignments;
    };
    auto sa = std::make_shared<SetArgs>();
    auto* set = stat->add_subcommand("set", "Change attributes: name=STAT key=value ...");
    set->add_option("interface", sa->iface, "Interface")->required();
    set->add_option("assignments", sa->assignments, "name=STAT key=value ...")->required();
    r.add(set, [sa, &ctx] {
        std::optional<std::string> name;
        std::vector<std::pair<std::string, std::string>> attrs;
        for (const auto& w : sa->assignments) {
            auto kv = parse_assignment(w);
            if (kv.first == "name") {
                if (name)
                    throw Error(ErrorKind::usage, "name= given twice");
                name = kv.second;
            } else {
                attrs.push_back(std::move(kv));
            }
        }
        StatFs fs = statfs(ctx);
        std::string line = build_definition_write(name, attrs);
        if (name)
            require_statistic(fs, sa->iface, *name);
        fs.write_definition(sa->iface, line);
    });

    struct Toggle {
        std::string iface, name;
    };
    auto add_toggle = [&](const char* verb, const char* help,
                          std::pair<std::string, std::string> kv) {
        auto t = std::make_shared<Toggle>();
        auto* sub = stat->add_subcommand(verb, help);
        sub->add_option("interface", t->iface, "Interface")->required();
        sub->add_option("name", t->name, "One statistic (default: all of the interface)");
        r.add(sub, [t, kv, &ctx] {
            StatFs fs = statfs(ctx);
            std::optional<std::string> name;
            if (!t->name.empty()) {
                name = t->name;
                require_statistic(fs, t->iface, t->name);
            }
            fs.write_definition(t->iface, build_definition_write(name, {kv}));
        });
    };
    add_toggle("on", "Start gathering", {"on", "1"});
    add_toggle("off", "Stop gathering", {"on", "0"});
    add_toggle("reset", "Discard the data gathered so far", {"data", "reset"});
}

}  // namespace iotally::cli
