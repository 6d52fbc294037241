// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/exposition_protobuf.hpp"

#include <fmt/format.h>

#include <cstring>

#include "iotally/util/error.hpp"
#include "protobuf_wire.hpp"

namespace iotally {
namespace {

// Field numbers of io.prometheus.client (client_model metrics.proto).
namespace field {
constexpr int family_name = 1, family_help = 2, family_type = 3, family_metric = 4;
constexpr int metric_label = 1, metric_gauge = 2, metric_counter = 3, metric_histogram = 7;
constexpr int label_name = 1, label_value = 2;
constexpr int value = 1;  // Gauge.value, Counter.value
constexpr int hist_count = 1, hist_sum = 2, hist_bucket = 3, hist_schema = 5,
              hist_zero_threshold = 6, hist_zero_count = 7, hist_positive_span = 12,
              hist_positive_delta = 13;
constexpr int bucket_cumulative = 1, bucket_upper = 2;
constexpr int span_offset = 1, span_length = 2;
}  // namespace field

// MetricType enum values.
constexpr std::uint64_t type_counter = 0, type_gauge = 1, type_histogram = 4;

using namespace wire;

}  // namespace

std::vector<std::pair<std::string, std::string>> split_labels(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> pairs;
    std::size_t i = 0;
    auto bad = [&] { return Error(ErrorKind::parse, fmt::format("bad label set '{}'", text)); };
    while (i < text.size()) {
        std::size_t eq = text.find("=\"", i);
        if (eq == std::string_view::npos)
            throw bad();
        std::pair<std::string, std::string> p{std::string(text.substr(i, eq - i)), {}};
        for (i = eq + 2;; ++i) {
            if (i >= text.size())
                throw bad();
            char c = text[i];
            if (c == '"')
                break;
            if (c == '\\') {
                if (++i >= text.size())
                    throw bad();
                c = text[i] == 'n' ? '\n' : text[i];
            }
            p.second += c;
        }
        pairs.push_back(std::move(p));
        ++i;  // the closing quote
        if (i < text.size() && text[i++] != ',')
            throw bad();
    }
    return pairs;
}

void ProtobufEncoder::flush() {
    for (std::string* metrics : {&metrics_, &classic_}) {
        if (metrics->empty())
            continue;
        put_varint(out_, header_.size() + metrics->size());
        out_ += header_;
        out_ += *metrics;
        metrics->clear();
    }
    header_.clear();
}

void ProtobufEncoder::family(std::string_view name, MetricType type, std::string_view help) {
    flush();
    type_ = type;
    put_bytes(header_, field::family_name,
              type == MetricType::counter ? fmt::format("{}_total", name) : std::string(name));
    put_bytes(header_, field::family_help, help);
    put_uint(header_, field::family_type,
             type == MetricType::counter ? type_counter
             : type == MetricType::gauge ? type_gauge
                                         : type_histogram);
}

void ProtobufEncoder::begin_metric(std::string_view labels) {
    metric_.clear();
    for (const auto& [name, value] : split_labels(labels)) {
        scratch_.clear();
        put_bytes(scratch_, field::label_name, name);
        put_bytes(scratch_, field::label_value, value);
        put_bytes(metric_, field::metric_label, scratch_);
    }
}

void ProtobufEncoder::end_metric(bool classic) {
    put_bytes(classic ? classic_ : metrics_, field::family_metric, metric_);
}

void ProtobufEncoder::sample(std::string_view labels, double value) {
    if (type_ == MetricType::histogram)
        throw Error(ErrorKind::usage, "a plain sample in a histogram family");
    begin_metric(labels);
    scratch_.clear();
    put_double(scratch_, field::value, value);
    put_bytes(metric_, type_ == MetricType::counter ? field::metric_counter : field::metric_gauge,
              scratch_);
    end_metric(false);
}

void ProtobufEncoder::histogram(std::string_view labels, const std::vector<double>& upper_bounds,
                                const std::vector<std::uint64_t>& counts, double sum,
                                const NativeLayout* native) {
    if (type_ != MetricType::histogram)
        throw Error(ErrorKind::usage, "a histogram in a counter or gauge family");
    if (counts.size() != upper_bounds.size() + 1)
        throw Error(ErrorKind::usage,
                    fmt::format("{} buckets for {} bounds", counts.size(), upper_bounds.size()));
    std::uint64_t total = 0;
    for (auto c : counts)
        total += c;
    begin_metric(labels);
    std::string h;
    put_uint(h, field::hist_count, total);
    put_double(h, field::hist_sum, sum);
    if (native) {
        check_native_layout(*native, counts.size());
        NativeBuckets nb = native_buckets(*native, counts);
        put_sint(h, field::hist_schema, native->schema);
        put_double(h, field::hist_zero_threshold, native->zero_threshold);
        put_uint(h, field::hist_zero_count, nb.zero_count);
        // Prometheus tells a native histogram from a classic one by a span,
        // a zero threshold or a zero count: an empty one gets an empty span.
        if (nb.spans.empty() && native->zero_threshold == 0 && nb.zero_count == 0)
            nb.spans.emplace_back(0, 0);
        for (const auto& [offset, len] : nb.spans) {
            scratch_.clear();
            put_sint(scratch_, field::span_offset, offset);
            put_uint(scratch_, field::span_length, len);
            put_bytes(h, field::hist_positive_span, scratch_);
        }
        if (!nb.deltas.empty()) {  // packed
            scratch_.clear();
            for (auto d : nb.deltas)
                put_varint(scratch_, zigzag(d));
            put_bytes(h, field::hist_positive_delta, scratch_);
        }
    } else {
        // Cumulative; +Inf is implied by the count.
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
            cumulative += counts[i];
            scratch_.clear();
            put_uint(scratch_, field::bucket_cumulative, cumulative);
            put_double(scratch_, field::bucket_upper, upper_bounds[i]);
            put_bytes(h, field::hist_bucket, scratch_);
        }
    }
    put_bytes(metric_, field::metric_histogram, h);
    end_metric(type_ == MetricType::histogram && !native);
}

std::string ProtobufEncoder::finish() {
    flush();
    std::string out = std::move(out_);
    out_.clear();
    return out;
}

}  // namespace iotally
