// SPDX-License-Identifier: GPL-2.0-or-later
// The Prometheus protobuf exposition: io.prometheus.client.MetricFamily
// messages, each preceded by its length as a varint ("encoding=delimited"),
// written by hand with the field numbers of client_model's metrics.proto
// (Documentation/iotally-exporter.rst says which and why no library).
// ExpositionWriter uses it for ExpositionFormat::protobuf.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exposition.hpp"

namespace iotally {

inline constexpr std::string_view protobuf_content_type =
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
    "encoding=delimited";

// The label pairs of a rendered label set (name="value",... with the text
// formats' escapes undone).
std::vector<std::pair<std::string, std::string>> split_labels(std::string_view text);

class ProtobufEncoder {
  public:
    // A family is sent once it has a metric: Prometheus refuses a family
    // without one. Counter families are named with "_total" here. Prometheus
    // (2.42) takes the kind of every histogram of a family from its first
    // one, so a family with native and classic histograms is sent as two
    // messages of the same name: the native ones, then the classic ones.
    void family(std::string_view name, MetricType type, std::string_view help);
    void sample(std::string_view labels, double value);
    // Classic buckets (`upper_bounds` as ExpositionWriter::histogram takes
    // them), or a native histogram when `native` is given.
    void histogram(std::string_view labels, const std::vector<double>& upper_bounds,
                   const std::vector<std::uint64_t>& counts, double sum,
                   const NativeLayout* native);
    std::string finish();

  private:
    void flush();
    void begin_metric(std::string_view labels);
    void end_metric(bool classic);
    std::string out_, header_, metric_, scratch_;
    // The metrics of the current family: all of a counter or gauge family,
    // the native histograms, and the classic histograms.
    std::string metrics_, classic_;
    MetricType type_ = MetricType::gauge;
};

}  // namespace iotally
