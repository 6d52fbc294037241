// SPDX-License-Identifier: GPL-2.0-or-later
// The expositions Prometheus reads: OpenMetrics 1.0, the classic Prometheus
// text format 0.0.4 (which node_exporter's textfile collector needs) and
// the protobuf format (native histograms, exposition_protobuf.hpp), written
// by one writer so that all carry the same families.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iotally {

enum class ExpositionFormat { openmetrics, prometheus, protobuf };
enum class MetricType { counter, gauge, histogram };

// The Content-Type header of each format.
std::string_view content_type(ExpositionFormat format);

// Picks the format for an HTTP Accept header the way Prometheus' own client
// libraries do: OpenMetrics 1.0 when the client accepts
// application/openmetrics-text (version 1.0.0 or none) at least as much as
// text/plain, else text 0.0.4; the protobuf format when the client accepts
// application/vnd.google.protobuf with proto=io.prometheus.client.MetricFamily
// and encoding=delimited at least as much as either (Prometheus asks for it
// first when its native histograms are on). Malformed parts of the header
// are ignored.
ExpositionFormat negotiate_format(std::string_view accept);

// Label value escaping of both formats: backslash, double quote, newline.
std::string escape_label_value(std::string_view value);

// Whether `name` is a valid metric or label name ([a-zA-Z_:][a-zA-Z0-9_:]*;
// label names without ':').
bool valid_metric_name(std::string_view name);
bool valid_label_name(std::string_view name);

// A label set rendered once ("a=\"x\",b=\"y\"") and reused by every family
// of one series.
class Labels {
  public:
    Labels() = default;
    Labels& add(std::string_view name, std::string_view value);
    Labels& add(std::string_view name, std::uint64_t value);
    const std::string& text() const { return text_; }
    bool empty() const { return text_.empty(); }

  private:
    std::string text_;
};

// Writes families in order. Counters are named without "_total" (the writer
// adds it to the samples, and to the HELP/TYPE names of text 0.0.4);
// `unit` is "" or the unit the name ends in ("seconds", "bytes").
struct NativeLayout;
class ProtobufEncoder;
class ExpositionWriter {
  public:
    explicit ExpositionWriter(ExpositionFormat format);
    ExpositionFormat format() const { return format_; }

    void family(std::string_view name, MetricType type, std::string_view unit,
                std::string_view help);
    // A counter or gauge sample of the current family.
    void sample(const Labels& labels, std::uint64_t value);
    void sample(const Labels& labels, std::int64_t value);
    void sample(const Labels& labels, double value);
    // A histogram of the current family: `upper_bounds` ascending (seconds),
    // `counts` per bucket, one more than the bounds (the last is +Inf), not
    // cumulative; `sum` in the family's unit. With `native` (the kernel's
    // buckets are exponential) the protobuf format sends a native histogram
    // instead of the classic buckets; the text formats ignore it.
    void histogram(const Labels& labels, const std::vector<double>& upper_bounds,
                   const std::vector<std::uint64_t>& counts, double sum,
                   const NativeLayout* native = nullptr);

    // The text, with "# EOF" for OpenMetrics. The writer is empty after.
    std::string finish();
    void reserve(std::size_t bytes) {
        if (!protobuf_)  // the text's size
            out_.reserve(bytes);
    }

  private:
    void begin_sample(std::string_view suffix, const Labels& labels);
    ExpositionFormat format_;
    std::string out_;
    std::string name_;
    MetricType type_ = MetricType::gauge;
    std::shared_ptr<ProtobufEncoder> protobuf_;
};

// A number as both formats write it: shortest round-trip decimal, "+Inf",
// "-Inf", "NaN".
std::string format_value(double value);

}  // namespace iotally
