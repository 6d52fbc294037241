// SPDX-License-Identifier: GPL-2.0-or-later
// One report (device rows and the rows of their regions) as a text table,
// CSV or a JSON document, with the same field names in all three.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "iotally/metrics/cpu_stat.hpp"
#include "iotally/metrics/metrics.hpp"
#include "iotally/metrics/report.hpp"

namespace iotally::cli {

enum class Format { text, csv, json };

struct ReportHead {
    std::uint64_t sample = 0;
    std::int64_t unix_ns = 0;
    std::optional<double> interval_s;  // absent: since boot / creation
    std::uint64_t generation = 0;
    std::optional<AvgCpu> cpu;  // report -c: the avg-cpu block
};

class ReportWriter {
  public:
    ReportWriter(std::ostream& out, Format format, std::vector<const MetricField*> fields,
                 ReportLevel level, bool timestamps, bool dm_names = false)
        : out_(out),
          format_(format),
          fields_(std::move(fields)),
          level_(level),
          timestamps_(timestamps),
          dm_names_(dm_names) {}
    // What each report has: the avg-cpu block (-c), the device table, or both.
    void set_blocks(bool cpu, bool devices) {
        cpu_ = cpu;
        devices_ = devices;
    }
    const std::vector<const MetricField*>& fields() const { return fields_; }
    void write(const ReportHead& head, const std::vector<ReportRow>& rows);

  private:
    void text(const ReportHead& head, const std::vector<ReportRow>& rows);
    void csv(const ReportHead& head, const std::vector<ReportRow>& rows);
    void json(const ReportHead& head, const std::vector<ReportRow>& rows);

    std::ostream& out_;
    Format format_;
    std::vector<const MetricField*> fields_;
    ReportLevel level_;
    bool timestamps_;
    bool dm_names_;  // the text table names dm devices by dm name (iostat -N)
    bool csv_header_done_ = false;
    bool cpu_ = false, devices_ = true;
};

// "-o" lists: names from metric_fields(), or "all".
std::vector<const MetricField*> resolve_fields(const std::string& list);

}  // namespace iotally::cli
