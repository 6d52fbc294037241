// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/otlp_request.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "iotally/util/error.hpp"
#include "protobuf_wire.hpp"

namespace iotally {

using namespace wire;

namespace {

constexpr std::array<OtlpSemconv, 9> semconv{{
    {"iotally_device_read_bytes", "system.disk.io", "By", "read", "Disk bytes transferred."},
    {"iotally_device_written_bytes", "system.disk.io", "By", "write", "Disk bytes transferred."},
    {"iotally_device_reads_completed", "system.disk.operations", "{operation}", "read",
     "Disk operations count."},
    {"iotally_device_writes_completed", "system.disk.operations", "{operation}", "write",
     "Disk operations count."},
    {"iotally_device_read_time_seconds", "system.disk.operation_time", "s", "read",
     "Sum of the time each operation took to complete."},
    {"iotally_device_write_time_seconds", "system.disk.operation_time", "s", "write",
     "Sum of the time each operation took to complete."},
    {"iotally_device_reads_merged", "system.disk.merged", "{operation}", "read",
     "The number of disk reads/writes merged into single physical disk access operations."},
    {"iotally_device_writes_merged", "system.disk.merged", "{operation}", "write",
     "The number of disk reads/writes merged into single physical disk access operations."},
    {"iotally_device_io_time_seconds", "system.disk.io_time", "s", "",
     "Time disk spent activated."},
}};

// io.prometheus.client's field numbers (client_model metrics.proto), as the
// exposition (exposition_protobuf.cpp) writes them.
namespace prom {
constexpr int family_name = 1, family_help = 2, family_type = 3, family_metric = 4;
constexpr int metric_label = 1, metric_gauge = 2, metric_counter = 3, metric_histogram = 7;
constexpr int label_name = 1, label_value = 2, value = 1;
constexpr int hist_count = 1, hist_sum = 2, hist_bucket = 3, hist_schema = 5,
              hist_zero_threshold = 6, hist_zero_count = 7, hist_positive_span = 12,
              hist_positive_delta = 13;
constexpr int bucket_cumulative = 1, bucket_upper = 2, span_offset = 1, span_length = 2;
constexpr std::uint64_t type_counter = 0, type_gauge = 1, type_histogram = 4;
}  // namespace prom

// opentelemetry-proto's field numbers (collector/metrics/v1/metrics_service,
// metrics/v1/metrics, resource/v1/resource, common/v1/common).
namespace otlp {
constexpr int request_resource_metrics = 1;
constexpr int rm_resource = 1, rm_scope_metrics = 2, resource_attributes = 1;
constexpr int sm_scope = 1, sm_metrics = 2, scope_name = 1, scope_version = 2;
constexpr int kv_key = 1, kv_value = 2, any_string = 1;
constexpr int metric_name = 1, metric_description = 2, metric_unit = 3, metric_gauge = 5,
              metric_sum = 7, metric_histogram = 9, metric_exponential_histogram = 10;
constexpr int data_points = 1, temporality = 2, monotonic = 3;
constexpr std::uint64_t cumulative = 2;
// NumberDataPoint
constexpr int num_attributes = 7, start_time = 2, time = 3, as_double = 4, as_int = 6;
// HistogramDataPoint
constexpr int hist_attributes = 9, count = 4, sum = 5, bucket_counts = 6, explicit_bounds = 7;
// ExponentialHistogramDataPoint
constexpr int exp_attributes = 1, scale = 6, zero_count = 7, positive = 8, zero_threshold = 14;
constexpr int buckets_offset = 1, buckets_counts = 2;
}  // namespace otlp

using Attributes = std::vector<std::pair<std::string, std::string>>;

struct PromHistogram {
    std::uint64_t count = 0;
    double sum = 0;
    bool native = false;
    std::int32_t schema = 0;
    double zero_threshold = 0;
    std::uint64_t zero_count = 0;
    std::vector<std::pair<std::int32_t, std::uint32_t>> spans;
    std::vector<std::int64_t> deltas;
    std::vector<std::pair<std::uint64_t, double>> buckets;  // cumulative, upper bound
};

struct PromMetric {
    Attributes labels;
    double value = 0;
    std::optional<PromHistogram> histogram;
};

struct PromFamily {
    std::string name, help;
    std::uint64_t type = prom::type_gauge;
    std::vector<PromMetric> metrics;
};

PromHistogram read_histogram(std::string_view bytes) {
    PromHistogram h;
    Reader r(bytes);
    while (r.next()) {
        switch (r.number()) {
            case prom::hist_count:
                h.count = r.v();
                break;
            case prom::hist_sum:
                h.sum = r.as_double();
                break;
            case prom::hist_bucket: {
                std::pair<std::uint64_t, double> b{};
                Reader br(r.bytes());
                while (br.next())
                    if (br.number() == prom::bucket_cumulative)
                        b.first = br.v();
                    else if (br.number() == prom::bucket_upper)
                        b.second = br.as_double();
                h.buckets.push_back(b);
                break;
            }
            case prom::hist_schema:
                h.schema = static_cast<std::int32_t>(unzigzag(r.v()));
                h.native = true;
                break;
            case prom::hist_zero_threshold:
                h.zero_threshold = r.as_double();
                h.native = true;
                break;
            case prom::hist_zero_count:
                h.zero_count = r.v();
                h.native = true;
                break;
            case prom::hist_positive_span: {
                std::pair<std::int32_t, std::uint32_t> s{};
                Reader sr(r.bytes());
                while (sr.next())
                    if (sr.number() == prom::span_offset)
                        s.first = static_cast<std::int32_t>(unzigzag(sr.v()));
                    else if (sr.number() == prom::span_length)
                        s.second = static_cast<std::uint32_t>(sr.v());
                h.spans.push_back(s);
                h.native = true;
                break;
            }
            case prom::hist_positive_delta:
                if (r.wire() == length) {  // packed
                    std::string_view packed = r.bytes();
                    while (!packed.empty())
                        h.deltas.push_back(unzigzag(Reader::read_varint(packed)));
                } else {
                    h.deltas.push_back(unzigzag(r.v()));
                }
                break;
            default:
                break;
        }
    }
    return h;
}

PromMetric read_metric(std::string_view bytes) {
    PromMetric m;
    Reader r(bytes);
    while (r.next()) {
        if (r.number() == prom::metric_label) {
            std::pair<std::string, std::string> l;
            Reader lr(r.bytes());
            while (lr.next())
                if (lr.number() == prom::label_name)
                    l.first = lr.bytes();
                else if (lr.number() == prom::label_value)
                    l.second = lr.bytes();
            m.labels.push_back(std::move(l));
        } else if (r.number() == prom::metric_gauge || r.number() == prom::metric_counter) {
            Reader vr(r.bytes());
            while (vr.next())
                if (vr.number() == prom::value)
                    m.value = vr.as_double();
        } else if (r.number() == prom::metric_histogram) {
            m.histogram = read_histogram(r.bytes());
        }
    }
    return m;
}

std::vector<PromFamily> read_exposition(std::string_view in) {
    std::vector<PromFamily> families;
    while (!in.empty()) {
        const std::uint64_t n = Reader::read_varint(in);
        if (n > in.size())
            throw Error(ErrorKind::parse, "protobuf exposition: truncated MetricFamily");
        PromFamily f;
        Reader r(in.substr(0, n));
        in.remove_prefix(n);
        while (r.next()) {
            if (r.number() == prom::family_name)
                f.name = r.bytes();
            else if (r.number() == prom::family_help)
                f.help = r.bytes();
            else if (r.number() == prom::family_type)
                f.type = r.v();
            else if (r.number() == prom::family_metric)
                f.metrics.push_back(read_metric(r.bytes()));
        }
        families.push_back(std::move(f));
    }
    return families;
}

// ---- the request

enum class Kind { gauge, sum, histogram, exponential };

// One OTLP metric: its data points as they are encoded.
struct OutMetric {
    std::string name, description, unit;
    Kind kind = Kind::gauge;
    std::string points;
};

void put_attributes(std::string& out, int number, const Attributes& attributes) {
    std::string kv, any;
    for (const auto& [key, value] : attributes) {
        kv.clear();
        any.clear();
        put_bytes(kv, otlp::kv_key, key);
        put_bytes(any, otlp::any_string, value);
        put_bytes(kv, otlp::kv_value, any);
        put_bytes(out, number, kv);
    }
}

bool integral(double v) {
    return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0;  // 2^53
}

std::string number_point(const Attributes& a, double value, bool as_int, bool cumulative,
                         std::uint64_t start_ns, std::uint64_t now_ns) {
    std::string p;
    put_attributes(p, otlp::num_attributes, a);
    if (cumulative)
        put_fixed64(p, otlp::start_time, start_ns);
    put_fixed64(p, otlp::time, now_ns);
    if (as_int)
        put_fixed64(p, otlp::as_int, static_cast<std::uint64_t>(static_cast<std::int64_t>(value)));
    else
        put_double(p, otlp::as_double, value);
    return p;
}

std::string histogram_point(const Attributes& a, const PromHistogram& h, std::uint64_t start_ns,
                            std::uint64_t now_ns) {
    std::string p, packed;
    put_attributes(p, otlp::hist_attributes, a);
    put_fixed64(p, otlp::start_time, start_ns);
    put_fixed64(p, otlp::time, now_ns);
    put_fixed64(p, otlp::count, h.count);
    put_double(p, otlp::sum, h.sum);
    // Prometheus' buckets are cumulative with +Inf implied by the count;
    // OTLP's are per bucket, one more than the bounds.
    std::uint64_t below = 0;
    for (const auto& [cumulative, upper] : h.buckets) {
        if (cumulative < below || cumulative > h.count)
            throw Error(ErrorKind::parse, "protobuf exposition: buckets not cumulative");
        put_raw64(packed, cumulative - below);
        below = cumulative;
    }
    put_raw64(packed, h.count - below);
    put_bytes(p, otlp::bucket_counts, packed);
    if (!h.buckets.empty()) {
        packed.clear();
        for (const auto& b : h.buckets)
            put_raw64(packed, std::bit_cast<std::uint64_t>(b.second));
        put_bytes(p, otlp::explicit_bounds, packed);
    }
    return p;
}

constexpr std::int64_t max_dense_buckets = 1 << 16;

// Prometheus' native bucket i holds (2^((i-1)·2^-s), 2^(i·2^-s)], OTLP's
// exponential bucket i holds (base^i, base^(i+1)] with base 2^(2^-s): the
// same buckets, OTLP's index one lower. Spans and deltas become one dense
// run of counts from the first bucket to the last.
std::string exponential_point(const Attributes& a, const PromHistogram& h, std::uint64_t start_ns,
                              std::uint64_t now_ns) {
    std::vector<std::uint64_t> dense;
    std::int64_t first = 0, index = 0;
    std::size_t d = 0;
    std::int64_t count = 0;
    for (std::size_t s = 0; s < h.spans.size(); ++s) {
        index += h.spans[s].first;
        if (s > 0 && h.spans[s].first < 0)
            throw Error(ErrorKind::parse, "protobuf exposition: overlapping native spans");
        for (std::uint32_t k = 0; k < h.spans[s].second; ++k, ++index) {
            if (d >= h.deltas.size())
                throw Error(ErrorKind::parse, "protobuf exposition: fewer deltas than spans say");
            count += h.deltas[d++];
            if (count < 0)
                throw Error(ErrorKind::parse, "protobuf exposition: negative bucket count");
            if (dense.empty())
                first = index;
            // Schemas 0..8 over any durations need far fewer; a gap this
            // wide is a broken exposition, not memory to spend.
            if (index - first >= max_dense_buckets)
                throw Error(ErrorKind::parse, "protobuf exposition: native buckets too far apart");
            dense.resize(static_cast<std::size_t>(index - first) + 1, 0);
            dense.back() = static_cast<std::uint64_t>(count);
        }
    }
    if (d != h.deltas.size())
        throw Error(ErrorKind::parse, "protobuf exposition: more deltas than spans say");
    std::string p, buckets, packed;
    put_attributes(p, otlp::exp_attributes, a);
    put_fixed64(p, otlp::start_time, start_ns);
    put_fixed64(p, otlp::time, now_ns);
    put_fixed64(p, otlp::count, h.count);
    put_double(p, otlp::sum, h.sum);
    put_sint(p, otlp::scale, h.schema);
    put_fixed64(p, otlp::zero_count, h.zero_count);
    if (!dense.empty()) {
        put_sint(buckets, otlp::buckets_offset, first - 1);
        for (auto c : dense)
            put_varint(packed, c);
        put_bytes(buckets, otlp::buckets_counts, packed);
    }
    put_bytes(p, otlp::positive, buckets);
    put_double(p, otlp::zero_threshold, h.zero_threshold);
    return p;
}

std::string encode_metric(const OutMetric& m) {
    std::string data, out;
    // The points are already fields 1 of the data message.
    data = m.points;
    if (m.kind != Kind::gauge)
        put_uint(data, otlp::temporality, otlp::cumulative);
    if (m.kind == Kind::sum)
        put_uint(data, otlp::monotonic, 1);
    put_bytes(out, otlp::metric_name, m.name);
    put_bytes(out, otlp::metric_description, m.description);
    put_bytes(out, otlp::metric_unit, m.unit);
    put_bytes(out,
              m.kind == Kind::gauge       ? otlp::metric_gauge
              : m.kind == Kind::sum       ? otlp::metric_sum
              : m.kind == Kind::histogram ? otlp::metric_histogram
                                          : otlp::metric_exponential_histogram,
              data);
    return out;
}

const OtlpSemconv* find_semconv(std::string_view family) {
    for (const auto& s : semconv)
        if (s.family == family)
            return &s;
    return nullptr;
}

}  // namespace

std::span<const OtlpSemconv> otlp_semconv() {
    return semconv;
}

OtlpName otlp_own_name(std::string_view family) {
    OtlpName n;
    if (family.size() > 8 && family.ends_with("_seconds")) {
        n = {std::string(family.substr(0, family.size() - 8)), std::string("s")};
    } else if (family.size() > 6 && family.ends_with("_bytes")) {
        n = {std::string(family.substr(0, family.size() - 6)), std::string("By")};
    } else {
        n.name = family;
    }
    std::size_t at = 0;
    for (int dots = 0; dots < 2; ++dots) {
        at = n.name.find('_', at);
        if (at == std::string::npos || at + 1 >= n.name.size())
            break;
        n.name[at++] = '.';
    }
    return n;
}

std::string otlp_request(std::string_view exposition, const OtlpResource& resource,
                         std::uint64_t start_ns, std::uint64_t now_ns) {
    std::vector<OutMetric> metrics;
    std::map<std::pair<std::string, Kind>, std::size_t> index;
    auto metric = [&](const std::string& name, Kind kind) -> OutMetric& {
        auto [it, added] = index.try_emplace({name, kind}, metrics.size());
        if (added) {
            metrics.emplace_back();
            metrics.back().name = name;
            metrics.back().kind = kind;
        }
        return metrics[it->second];
    };
    for (PromFamily& f : read_exposition(exposition)) {
        if (f.metrics.empty())
            continue;
        std::string family = f.name;
        if (f.type == prom::type_counter && family.ends_with("_total"))
            family.resize(family.size() - 6);
        if (f.type == prom::type_histogram) {
            OtlpName n = otlp_own_name(family);
            for (const auto& m : f.metrics) {
                if (!m.histogram)
                    throw Error(ErrorKind::parse,
                                fmt::format("protobuf exposition: {}: not a histogram", f.name));
                const bool native = m.histogram->native;
                OutMetric& out = metric(n.name, native ? Kind::exponential : Kind::histogram);
                out.description = f.help;
                out.unit = n.unit;
                put_bytes(out.points, otlp::data_points,
                          native ? exponential_point(m.labels, *m.histogram, start_ns, now_ns)
                                 : histogram_point(m.labels, *m.histogram, start_ns, now_ns));
            }
            continue;
        }
        if (f.type != prom::type_counter && f.type != prom::type_gauge)
            throw Error(ErrorKind::parse,
                        fmt::format("protobuf exposition: {}: type {}", f.name, f.type));
        const bool counter = f.type == prom::type_counter;
        const OtlpSemconv* sc = counter ? find_semconv(family) : nullptr;
        OtlpName n =
            sc ? OtlpName{std::string(sc->name), std::string(sc->unit)} : otlp_own_name(family);
        bool as_int = n.unit != "s";
        for (const auto& m : f.metrics)
            as_int = as_int && integral(m.value);
        OutMetric& out = metric(n.name, counter ? Kind::sum : Kind::gauge);
        out.description = sc ? std::string(sc->description) : f.help;
        out.unit = n.unit;
        for (PromMetric& m : f.metrics) {
            if (sc) {
                for (auto& [key, value] : m.labels)
                    if (key == "device")
                        key = "system.device";
                if (!sc->direction.empty())
                    m.labels.emplace_back("disk.io.direction", sc->direction);
            }
            put_bytes(out.points, otlp::data_points,
                      number_point(m.labels, m.value, as_int, counter, start_ns, now_ns));
        }
    }

    std::string scope_metrics, scope;
    put_bytes(scope, otlp::scope_name, "iotally");
    put_bytes(scope, otlp::scope_version, resource.service_version);
    put_bytes(scope_metrics, otlp::sm_scope, scope);
    for (const auto& m : metrics)
        put_bytes(scope_metrics, otlp::sm_metrics, encode_metric(m));
    std::string res;
    put_attributes(res, otlp::resource_attributes,
                   {{"service.name", "iotally"},
                    {"service.version", resource.service_version},
                    {"service.instance.id", resource.host_name},
                    {"host.name", resource.host_name}});
    std::string rm;
    put_bytes(rm, otlp::rm_resource, res);
    put_bytes(rm, otlp::rm_scope_metrics, scope_metrics);
    std::string request;
    put_bytes(request, otlp::request_resource_metrics, rm);
    return request;
}

}  // namespace iotally
