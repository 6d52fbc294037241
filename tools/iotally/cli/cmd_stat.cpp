// SPDX-License-Identifier: GPL-2.0-or-later
// iotally stat: the generic statistics layer in debugfs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/statistic/statfs.hpp"
#include "iotally/util/error.hpp"
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

nlohmann::json to_json(const StatValue& v) {
    switch (v.kind) {
        case StatValue::Kind::integer:
            return v.integer;
        case StatValue::Kind::decimal:
            return v.decimal;
        case StatValue::Kind::text:
            break;
    }
    return v.text;
}

const StatDefinition& definition_of(const std::vector<StatDefinition>& defs,
                                    const std::string& iface, const std::string& name) {
    for (const auto& d : defs)
        if (d.name == name)
            return d;
    throw Error(ErrorKind::parse,
                fmt::format("{}: data for '{}', which the definition file does not list", iface,
                            name.substr(0, 80)));
}

// The definitions, then each statistic's data decoded by its type: a table
// per statistic, or JSON {"interface", "statistics": [{name, type, attributes,
// columns, data: [{column: value}]}]}.
void show(Context& ctx, bool json, const std::string& iface) {
    StatFs fs = statfs(ctx);
    auto defs = parse_definitions(fs.read_definition(iface));
    auto data = parse_data(fs.read_data(iface));
    std::vector<std::vector<const StatDataLine*>> lines_of(defs.size());
    for (const auto& line : data) {
        const StatDefinition& d = definition_of(defs, iface, line.name);
        lines_of[static_cast<std::size_t>(&d - defs.data())].push_back(&line);
    }
    if (json) {
        nlohmann::json stats = nlohmann::json::array();
        for (std::size_t i = 0; i < defs.size(); ++i) {
            const auto& d = defs[i];
            nlohmann::json attrs = nlohmann::json::object();
            for (const auto& [k, v] : d.attributes)
                attrs[k] = v;
            auto columns =
                stat_data_columns(d.get("type").value_or(""), d.get("mode").value_or("increments"));
            nlohmann::json rows = nlohmann::json::array();
            for (const auto* line : lines_of[i]) {
                auto values = decode_stat_line(*line, d);
                nlohmann::json row = nlohmann::json::object();
                for (std::size_t c = 0; c < columns.size(); ++c)
                    row[std::string(columns[c])] = to_json(values[c]);
                rows.push_back(std::move(row));
            }
            stats.push_back({{"name", d.name},
                             {"type", d.get("type").value_or("")},
                             {"on", d.get("on") == "1"},
                             {"attributes", attrs},
                             {"columns", columns},
                             {"data", rows}});
        }
        *ctx.out << stamped("stat", {{"interface", iface}, {"statistics", stats}}).dump() << "\n";
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
    *ctx.out << t.render();
    for (std::size_t i = 0; i < defs.size(); ++i) {
        const auto& d = defs[i];
        auto columns =
            stat_data_columns(d.get("type").value_or(""), d.get("mode").value_or("increments"));
        std::vector<std::string> headers;
        for (auto c : columns)
            headers.push_back(c == "bucket" || c == "time" ? fmt::format("<{}", c)
                                                           : std::string(c));
        Table dt(headers);
        for (const auto* line : lines_of[i]) {
            decode_stat_line(*line, d);  // checks the shape
            dt.add(line->fields);
        }
        *ctx.out << fmt::format("\n{} ({})\n", d.name, d.get("type").value_or("-")) << dt.render();
    }
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
            *ctx.out << stamped("stat", {{"interfaces", ifaces}}).dump() << "\n";
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
