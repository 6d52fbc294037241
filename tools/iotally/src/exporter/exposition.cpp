// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/exposition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "iotally/exporter/exposition_protobuf.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

std::string_view content_type(ExpositionFormat format) {
    if (format == ExpositionFormat::protobuf)
        return protobuf_content_type;
    return format == ExpositionFormat::openmetrics
               ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
               : "text/plain; version=0.0.4; charset=utf-8";
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// One media range of an Accept header: type/subtype;param=value;q=0.5
struct MediaRange {
    std::string_view type;
    std::string_view version;  // "" when absent
    std::string_view proto, encoding;
    double q = 1;
    bool valid = false;
};

MediaRange parse_media_range(std::string_view part) {
    MediaRange m;
    std::size_t semi = part.find(';');
    m.type = trim(part.substr(0, semi));
    if (m.type.find('/') == std::string_view::npos)
        return m;
    while (semi != std::string_view::npos) {
        part.remove_prefix(semi + 1);
        semi = part.find(';');
        std::string_view param = trim(part.substr(0, semi));
        std::size_t eq = param.find('=');
        if (eq == std::string_view::npos)
            continue;
        std::string_view key = trim(param.substr(0, eq));
        std::string_view value = trim(param.substr(eq + 1));
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
            value = value.substr(1, value.size() - 2);
        if (iequals(key, "q")) {
            // q is 0, 1 or a decimal with up to three digits (RFC 9110 12.4.2).
            if (value.empty() || value.size() > 5 ||
                value.find_first_not_of("0123456789.") != std::string_view::npos)
                return m;
            std::string v(value);
            char* end = nullptr;
            double q = std::strtod(v.c_str(), &end);
            if (end != v.c_str() + v.size() || q < 0 || q > 1)
                return m;
            m.q = q;
        } else if (iequals(key, "version")) {
            m.version = value;
        } else if (iequals(key, "proto")) {
            m.proto = value;
        } else if (iequals(key, "encoding")) {
            m.encoding = value;
        }
    }
    m.valid = true;
    return m;
}

}  // namespace

ExpositionFormat negotiate_format(std::string_view accept) {
    double om = -1, text = -1, pb = -1;
    while (!accept.empty()) {
        std::size_t comma = accept.find(',');
        MediaRange m = parse_media_range(accept.substr(0, comma));
        accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
        if (!m.valid || m.q <= 0)
            continue;
        if (iequals(m.type, "application/openmetrics-text")) {
            if (m.version.empty() || m.version == "1.0.0")
                om = std::max(om, m.q);
        } else if (iequals(m.type, "text/plain")) {
            if (m.version.empty() || m.version == "0.0.4")
                text = std::max(text, m.q);
        } else if (iequals(m.type, "application/vnd.google.protobuf")) {
            if (m.proto == "io.prometheus.client.MetricFamily" && m.encoding == "delimited")
                pb = std::max(pb, m.q);
        }
    }
    if (pb >= 0 && pb >= om && pb >= text)
        return ExpositionFormat::protobuf;
    return om >= 0 && om >= text ? ExpositionFormat::openmetrics : ExpositionFormat::prometheus;
}

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

namespace {

bool name_char(char c, bool first, bool colon) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (colon && c == ':') ||
           (!first && std::isdigit(static_cast<unsigned char>(c)));
}

bool valid_name(std::string_view name, bool colon) {
    if (name.empty())
        return false;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!name_char(name[i], i == 0, colon))
            return false;
    return true;
}

// HELP text: OpenMetrics escapes backslash, newline and double quote; text
// 0.0.4 only backslash and newline.
std::string escape_help(std::string_view help, bool om) {
    std::string out;
    for (char c : help) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' && om)
            out += "\\\"";
        else
            out += c;
    }
    return out;
}

}  // namespace

bool valid_metric_name(std::string_view name) {
    return valid_name(name, true);
}

bool valid_label_name(std::string_view name) {
    return valid_name(name, false) && !name.starts_with("__");
}

Labels& Labels::add(std::string_view name, std::string_view value) {
    if (!valid_label_name(name) || name == "le")
        throw Error(ErrorKind::usage, fmt::format("invalid label name '{}'", name));
    if (!text_.empty())
        text_ += ',';
    text_ += name;
    text_ += "=\"";
    text_ += escape_label_value(value);
    text_ += '"';
    return *this;
}

Labels& Labels::add(std::string_view name, std::uint64_t value) {
    return add(name, std::string_view(fmt::format("{}", value)));
}

std::string format_value(double v) {
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", v);
}

ExpositionWriter::ExpositionWriter(ExpositionFormat format) : format_(format) {
    if (format == ExpositionFormat::protobuf)
        protobuf_ = std::make_shared<ProtobufEncoder>();
}

void ExpositionWriter::family(std::string_view name, MetricType type, std::string_view unit,
                              std::string_view help) {
    if (!valid_metric_name(name) || name.ends_with("_total"))
        throw Error(ErrorKind::usage, fmt::format("invalid family name '{}'", name));
    if (!unit.empty() && !name.ends_with(fmt::format("_{}", unit)))
        throw Error(ErrorKind::usage, fmt::format("family '{}' must end in _{}", name, unit));
    name_ = name;
    type_ = type;
    if (protobuf_)
        return protobuf_->family(name, type, help);
    const std::string_view type_name = type == MetricType::counter ? "counter"
                                       : type == MetricType::gauge ? "gauge"
                                                                   : "histogram";
    const bool om = format_ == ExpositionFormat::openmetrics;
    // Text 0.0.4 names a counter family by its samples' name.
    const std::string meta_name =
        !om && type == MetricType::counter ? fmt::format("{}_total", name) : std::string(name);
    if (om) {
        out_ += fmt::format("# TYPE {} {}\n", meta_name, type_name);
        if (!unit.empty())
            out_ += fmt::format("# UNIT {} {}\n", meta_name, unit);
        out_ += fmt::format("# HELP {} {}\n", meta_name, escape_help(help, true));
    } else {
        out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", meta_name, escape_help(help, false),
                            meta_name, type_name);
    }
}

namespace {

// Appends without fmt's per-character back_inserter: a scrape of 10,000
// regions is 150,000 lines.
void append_uint(std::string& out, std::uint64_t v) {
    fmt::format_int f(v);
    out.append(f.data(), f.size());
}

void append_double(std::string& out, double v) {
    if (std::isnan(v) || std::isinf(v)) {
        out += format_value(v);
        return;
    }
    char buf[64];
    auto r = fmt::format_to_n(buf, sizeof(buf), "{}", v);
    out.append(buf, std::min(r.size, sizeof(buf)));
}

}  // namespace

void ExpositionWriter::begin_sample(std::string_view suffix, const Labels& labels) {
    out_ += name_;
    out_ += suffix;
    if (!labels.empty()) {
        out_ += '{';
        out_ += labels.text();
        out_ += '}';
    }
    out_ += ' ';
}

void ExpositionWriter::sample(const Labels& labels, std::uint64_t value) {
    if (protobuf_)
        return protobuf_->sample(labels.text(), static_cast<double>(value));
    begin_sample(type_ == MetricType::counter ? "_total" : "", labels);
    append_uint(out_, value);
    out_ += '\n';
}

void ExpositionWriter::sample(const Labels& labels, std::int64_t value) {
    if (protobuf_)
        return protobuf_->sample(labels.text(), static_cast<double>(value));
    begin_sample(type_ == MetricType::counter ? "_total" : "", labels);
    if (value < 0) {
        out_ += '-';
        append_uint(out_, static_cast<std::uint64_t>(-(value + 1)) + 1);
    } else {
        append_uint(out_, static_cast<std::uint64_t>(value));
    }
    out_ += '\n';
}

void ExpositionWriter::sample(const Labels& labels, double value) {
    if (protobuf_)
        return protobuf_->sample(labels.text(), value);
    begin_sample(type_ == MetricType::counter ? "_total" : "", labels);
    append_double(out_, value);
    out_ += '\n';
}

void ExpositionWriter::histogram(const Labels& labels, const std::vector<double>& upper_bounds,
                                 const std::vector<std::uint64_t>& counts, double sum,
                                 const NativeLayout* native) {
    if (protobuf_)
        return protobuf_->histogram(labels.text(), upper_bounds, counts, sum, native);
    if (counts.size() != upper_bounds.size() + 1)
        throw Error(ErrorKind::usage, fmt::format("{}: {} buckets for {} bounds", name_,
                                                  counts.size(), upper_bounds.size()));
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        cumulative += counts[i];
        out_ += name_;
        out_ += "_bucket{";
        if (!labels.empty()) {
            out_ += labels.text();
            out_ += ',';
        }
        out_ += "le=\"";
        if (i < upper_bounds.size())
            append_double(out_, upper_bounds[i]);
        else
            out_ += "+Inf";
        out_ += "\"} ";
        append_uint(out_, cumulative);
        out_ += '\n';
    }
    begin_sample("_sum", labels);
    append_double(out_, sum);
    out_ += '\n';
    begin_sample("_count", labels);
    append_uint(out_, cumulative);
    out_ += '\n';
}

std::string ExpositionWriter::finish() {
    if (protobuf_)
        return protobuf_->finish();
    if (format_ == ExpositionFormat::openmetrics)
        out_ += "# EOF\n";
    std::string out = std::move(out_);
    out_.clear();
    return out;
}

}  // namespace iotally
