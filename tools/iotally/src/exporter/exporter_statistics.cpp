// SPDX-License-Identifier: GPL-2.0-or-later
// The generic statistics layer family of `iotally serve --statistics IFACE`.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/statistic/statfs.hpp"
#include "iotally/util/error.hpp"

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
        log2_.clear();
        for (const auto& iface : interfaces_) {
            try {
                write_interface(w, iface);
            } catch (const Error&) {
                ++errors;
            }
        }
        write_log2_histograms(w);
        return errors;
    }

  private:
    // An array statistic with scale=log2, gathered line by line.
    struct Log2 {
        Labels labels;
        std::vector<long long> bounds;  // the numbers of the "<=" lines
        std::vector<std::uint64_t> counts;
        bool valid = true;  // no negative total of Y
    };

    void add_log2_line(const std::string& iface, const StatDefinition& def,
                       const std::vector<StatValue>& values) {
        if (values.size() != 2 || values[0].kind != StatValue::Kind::text ||
            values[1].kind != StatValue::Kind::integer)
            return;
        if (log2_.empty() || log2_.back().first != iface + "/" + def.name) {
            Log2 l;
            l.labels.add("interface", iface)
                .add("statistic", def.name)
                .add("units", def.get("units").value_or(""));
            log2_.emplace_back(iface + "/" + def.name, std::move(l));
        }
        Log2& l = log2_.back().second;
        const std::string& bucket = values[0].text;
        if (bucket.starts_with("<=")) {
            try {
                l.bounds.push_back(std::stoll(bucket.substr(2)));
            } catch (const std::exception&) {
                l.valid = false;
            }
        }
        if (values[1].integer < 0)
            l.valid = false;
        l.counts.push_back(static_cast<std::uint64_t>(values[1].integer));
    }

    // Their X distribution as a histogram (the layer keeps no sum of X: the
    // sum is NaN); native where the bounds are powers of two from 0.
    void write_log2_histograms(ExpositionWriter& w) {
        w.family("iotally_statistic_log2", MetricType::histogram, "",
                 "Generic statistics layer: array statistics with scale=log2, the total of Y "
                 "per interval of X (in the statistic's units).");
        std::vector<double> bounds;
        for (auto& [key, l] : log2_) {
            if (!l.valid || l.counts.size() != l.bounds.size() + 1)
                continue;
            bounds.assign(l.bounds.begin(), l.bounds.end());
            auto native = statistic_log2_layout(l.bounds);
            w.histogram(l.labels, bounds, l.counts, std::numeric_limits<double>::quiet_NaN(),
                        native ? &*native : nullptr);
        }
    }

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
            if (type == "array" && def->get("scale") == "log2")
                add_log2_line(iface, *def, values);
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
    std::vector<std::pair<std::string, Log2>> log2_;
};

}  // namespace

std::unique_ptr<Collector> make_statistics_collector(std::string root,
                                                     std::vector<std::string> interfaces) {
    return std::make_unique<StatisticsCollector>(std::move(root), std::move(interfaces));
}

}  // namespace iotally
