// SPDX-License-Identifier: GPL-2.0-or-later
// The generic statistics layer family of `iotally serve --statistics IFACE`.
#include <fmt/format.h>

#include "iotally/error.hpp"
#include "iotally/exporter.hpp"
#include "iotally/statfs.hpp"

namespace iotally {
namespace {

class StatisticsCollector final : public Collector {
  public:
    StatisticsCollector(std::string root, std::vector<std::string> interfaces)
        : fs_(std::move(root)), interfaces_(std::move(interfaces)) {}

    void check() override {
        for (const auto& i : interfaces_)
            parse_definitions(fs_.read_definition(i));
    }

    std::string source() const override { return "statistics"; }

    // history and raw statistics are logs of past values with their times,
    // not a current state a scrape could sample: they are left out.
    std::uint64_t collect(ExpositionWriter& w) override {
        std::uint64_t errors = 0;
        w.family("iotally_statistic", MetricType::gauge, "",
                 "Generic statistics layer (debugfs statistics/<interface>/data): one sample "
                 "per numeric column of value, range, array and list statistics.");
        for (const auto& iface : interfaces_) {
            try {
                write_interface(w, iface);
            } catch (const Error&) {
                ++errors;
            }
        }
        return errors;
    }

  private:
    void write_interface(ExpositionWriter& w, const std::string& iface) {
        auto defs = parse_definitions(fs_.read_definition(iface));
        auto data = parse_data(fs_.read_data(iface));
        for (const auto& line : data) {
            const StatDefinition* def = nullptr;
            for (const auto& d : defs)
                if (d.name == line.name)
                    def = &d;
            if (!def)
                throw Error(ErrorKind::parse,
                            fmt::format("{}: data for unknown '{}'", iface, line.name));
            const std::string type = def->get("type").value_or("");
            if (type != "value" && type != "range" && type != "array" && type != "list")
                continue;
            auto columns = stat_data_columns(type, def->get("mode").value_or(""));
            auto values = decode_stat_line(line, *def);
            Labels base;
            base.add("interface", iface).add("statistic", line.name).add("type", type);
            // Text columns (array buckets) and list X values identify the sample.
            for (std::size_t i = 0; i < values.size() && i < columns.size(); ++i) {
                if (values[i].kind == StatValue::Kind::text)
                    base.add(std::string(columns[i]), values[i].text);
                else if (type == "list" && columns[i] == "x")
                    base.add("x", std::string_view(fmt::format("{}", values[i].integer)));
            }
            for (std::size_t i = 0; i < values.size() && i < columns.size(); ++i) {
                const auto& v = values[i];
                if (v.kind == StatValue::Kind::text || (type == "list" && columns[i] == "x"))
                    continue;
                Labels l = base;
                l.add("column", columns[i]);
                w.sample(l, v.kind == StatValue::Kind::integer ? static_cast<double>(v.integer)
                                                               : v.decimal);
            }
        }
    }

    StatFs fs_;
    std::vector<std::string> interfaces_;
};

}  // namespace

std::unique_ptr<Collector> make_statistics_collector(std::string root,
                                                     std::vector<std::string> interfaces) {
    return std::make_unique<StatisticsCollector>(std::move(root), std::move(interfaces));
}

}  // namespace iotally
