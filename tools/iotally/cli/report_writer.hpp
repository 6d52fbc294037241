// SPDX-License-Identifier: GPL-2.0-or-later
// One report (device rows and the rows of their regions) as a text table,
// CSV or a JSON document, with the same field names in all three.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "iotally/cpu_stat.hpp"
#include "iotally/metrics.hpp"
#include "iotally/report.hpp"

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
                 ReportLevel level, bool timestamps)
        : out_(out),
          format_(format),
          fields_(std::move(fields)),
          level_(level),
          timestamps_(timestamps) {}
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
    bool csv_header_done_ = false;
    bool cpu_ = false, devices_ = true;
};

// "-o" lists: names from metric_fields(), or "all".
std::vector<const MetricField*> resolve_fields(const std::string& list);

}  // namespace iotally::cli
