// SPDX-License-Identifier: GPL-2.0-or-later
// OTLP metrics for `iotally serve --otlp URL`: a scrape's protobuf
// exposition (ExpositionFormat::protobuf) turned into an OTLP/HTTP
// ExportMetricsServiceRequest (opentelemetry-proto's metrics.proto),
// written by hand as the exposition is (Documentation/iotally-exporter.rst,
// "OTLP push"). The block device families take OpenTelemetry's disk
// semantic conventions (system.disk.*); the others keep iotally's names
// with dots between namespaces (iotally.region.read, unit "By"), which
// Prometheus' OTLP receiver turns back into the scrape's names. Counters
// are cumulative monotonic sums, native histograms exponential histograms
// of the same scale and buckets, classic ones explicit-bucket histograms.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace iotally {

inline constexpr std::string_view otlp_content_type = "application/x-protobuf";

// The resource's attributes: service.name is "iotally", service.instance.id
// the host name (Prometheus' receiver makes it the instance label).
struct OtlpResource {
    std::string host_name;
    std::string service_version;
};

// One family of iotally_device_* sent under a semantic-convention name:
// its device label becomes system.device, and disk.io.direction is added
// when `direction` is not empty.
struct OtlpSemconv {
    std::string_view family;  // the scrape's name, without _total
    std::string_view name, unit, direction, description;
};
std::span<const OtlpSemconv> otlp_semconv();

// The OTLP name and unit of one of iotally's own families (the scrape's
// name without _total): a "_seconds" or "_bytes" ending becomes the unit
// ("s", "By"), the first two underscores dots.
struct OtlpName {
    std::string name, unit;
};
OtlpName otlp_own_name(std::string_view family);

// The request for one scrape. `start_ns` is the start of the cumulative
// sums and histograms (the exporter's start), `now_ns` the scrape's time,
// both in ns since the epoch. Throws Error(parse) on a malformed exposition.
std::string otlp_request(std::string_view exposition, const OtlpResource& resource,
                         std::uint64_t start_ns, std::uint64_t now_ns);

}  // namespace iotally
