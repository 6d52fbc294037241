// SPDX-License-Identifier: GPL-2.0-or-later
// The OTLP request of `iotally serve --otlp`, decoded with the tests' own
// protobuf decoder (protobuf_decoder.hpp) and checked field by field against
// opentelemetry-proto's metrics.proto: the numbers below are its field
// numbers, the values worked out by hand from the exposition written here.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "iotally/block/diskstats.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/exporter/otlp_request.hpp"
#include "iotally/exporter/queue_depth.hpp"
#include "iotally/util/error.hpp"
#include "protobuf_decoder.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

using namespace test;

constexpr std::uint64_t start_ns = 1'700'000'000'000'000'000, now_ns = 1'700'000'015'000'000'000;

std::map<std::string, std::string> attributes(const Message& m, int field) {
    std::map<std::string, std::string> out;
    for (const auto& kv : all(m, field)) {
        Message p = decode(kv.bytes);
        out[one(p, 1).bytes] = one(decode(one(p, 2).bytes), 1).bytes;  // AnyValue.string_value
    }
    return out;
}

struct Request {
    std::map<std::string, std::string> resource;
    Message scope;
    std::vector<Message> metrics;
    const Message& metric(const std::string& name, int data_field) const {
        for (const auto& m : metrics)
            if (one(m, 1).bytes == name && m.count(data_field))
                return m;
        throw std::runtime_error("no metric " + name);
    }
};

Request read(const std::string& body) {
    Message req = decode(body);
    Message rm = decode(one(req, 1).bytes);  // ResourceMetrics, once
    Request r;
    r.resource = attributes(decode(one(rm, 1).bytes), 1);
    Message sm = decode(one(rm, 2).bytes);  // ScopeMetrics, once
    r.scope = decode(one(sm, 1).bytes);
    for (const auto& m : all(sm, 2))
        r.metrics.push_back(decode(m.bytes));
    return r;
}

std::vector<Message> points(const Message& metric, int data_field) {
    std::vector<Message> out;
    for (const auto& p : all(decode(one(metric, data_field).bytes), 1))
        out.push_back(decode(p.bytes));
    return out;
}

std::string two_devices_and_a_region() {
    ExpositionWriter w(ExpositionFormat::protobuf);
    Labels vda, dm0;
    vda.add("device", "vda").add("major", "254").add("minor", "0");
    dm0.add("device", "dm-0").add("dm_name", "slow");
    w.family("iotally_device_read_bytes", MetricType::counter, "bytes", "Bytes read.");
    w.sample(vda, std::uint64_t{1638400});
    w.sample(dm0, std::uint64_t{512});
    w.family("iotally_device_written_bytes", MetricType::counter, "bytes", "Bytes written.");
    w.sample(vda, std::uint64_t{4096});
    w.family("iotally_device_read_time_seconds", MetricType::counter, "seconds", "Reads' time.");
    w.sample(vda, 0.4);
    w.family("iotally_device_io_time_seconds", MetricType::counter, "seconds", "Busy.");
    w.sample(vda, 0.5);
    w.family("iotally_device_discards_completed", MetricType::counter, "", "Discards.");
    w.sample(vda, std::uint64_t{10});
    w.family("iotally_device_io_now", MetricType::gauge, "", "In flight.");
    w.sample(vda, std::uint64_t{1});
    w.family("iotally_scrape_duration_seconds", MetricType::gauge, "seconds", "Took.");
    w.sample(Labels(), 0.25);
    return w.finish();
}

TEST(OtlpRequest, ResourceAndScope) {
    OtlpResource res{"host1", "0.1.0"};
    Request r = read(otlp_request(two_devices_and_a_region(), res, start_ns, now_ns));
    EXPECT_EQ(r.resource, (std::map<std::string, std::string>{{"service.name", "iotally"},
                                                              {"service.version", "0.1.0"},
                                                              {"service.instance.id", "host1"},
                                                              {"host.name", "host1"}}));
    EXPECT_EQ(one(r.scope, 1).bytes, "iotally");
    EXPECT_EQ(one(r.scope, 2).bytes, "0.1.0");
}

TEST(OtlpRequest, BlockDevicesTakeTheDiskSemanticConventions) {
    Request r = read(otlp_request(two_devices_and_a_region(), {"h", "v"}, start_ns, now_ns));
    // Read and written bytes: one metric, two directions, cumulative monotonic.
    const Message& io = r.metric("system.disk.io", 7);
    EXPECT_EQ(one(io, 3).bytes, "By");
    Message sum = decode(one(io, 7).bytes);
    EXPECT_EQ(one(sum, 2).v, 2u);  // AGGREGATION_TEMPORALITY_CUMULATIVE
    EXPECT_EQ(one(sum, 3).v, 1u);  // is_monotonic
    auto p = points(io, 7);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(attributes(p[0], 7),
              (std::map<std::string, std::string>{{"system.device", "vda"},
                                                  {"major", "254"},
                                                  {"minor", "0"},
                                                  {"disk.io.direction", "read"}}));
    EXPECT_EQ(one(p[0], 6).v, 1638400u);  // as_int (sfixed64)
    EXPECT_EQ(one(p[0], 6).wire, 1);
    EXPECT_EQ(p[0].count(4), 0u);  // not as_double
    EXPECT_EQ(one(p[0], 2).v, start_ns);
    EXPECT_EQ(one(p[0], 3).v, now_ns);
    EXPECT_EQ(attributes(p[1], 7).at("system.device"), "dm-0");
    EXPECT_EQ(attributes(p[1], 7).at("dm_name"), "slow");
    EXPECT_EQ(one(p[1], 6).v, 512u);
    EXPECT_EQ(attributes(p[2], 7).at("disk.io.direction"), "write");
    EXPECT_EQ(one(p[2], 6).v, 4096u);

    const Message& t = r.metric("system.disk.operation_time", 7);
    EXPECT_EQ(one(t, 3).bytes, "s");
    auto tp = points(t, 7);
    ASSERT_EQ(tp.size(), 1u);
    EXPECT_EQ(as_double(one(tp[0], 4)), 0.4);  // seconds: as_double
    EXPECT_EQ(attributes(tp[0], 7).at("disk.io.direction"), "read");
    // io_time has no direction.
    auto busy = points(r.metric("system.disk.io_time", 7), 7);
    ASSERT_EQ(busy.size(), 1u);
    EXPECT_EQ(attributes(busy[0], 7).count("disk.io.direction"), 0u);
    EXPECT_EQ(as_double(one(busy[0], 4)), 0.5);
}

TEST(OtlpRequest, OtherFamiliesKeepTheirNamesWithDots) {
    Request r = read(otlp_request(two_devices_and_a_region(), {"h", "v"}, start_ns, now_ns));
    const Message& d = r.metric("iotally.device.discards_completed", 7);
    EXPECT_EQ(one(d, 3).bytes, "");
    EXPECT_EQ(one(points(d, 7)[0], 6).v, 10u);
    EXPECT_EQ(attributes(points(d, 7)[0], 7).at("device"), "vda");  // not renamed here
    // Gauges: no temporality, no start time.
    const Message& g = r.metric("iotally.device.io_now", 5);
    EXPECT_EQ(decode(one(g, 5).bytes).count(2), 0u);
    auto gp = points(g, 5);
    EXPECT_EQ(gp[0].count(2), 0u);
    EXPECT_EQ(one(gp[0], 6).v, 1u);
    const Message& sd = r.metric("iotally.scrape.duration", 5);
    EXPECT_EQ(one(sd, 3).bytes, "s");
    EXPECT_EQ(as_double(one(points(sd, 5)[0], 4)), 0.25);
    EXPECT_EQ(points(sd, 5)[0].count(7), 0u);  // no attributes
}

// serve --qd-sample's counters go as they are: a cumulative monotonic sum
// in seconds, one point per at_least.
TEST(OtlpRequest, QueueDepthIsACumulativeSumInSeconds) {
    TempDir sys;
    sys.write("block/sda/inflight", "1 2\n");
    double now = 10;
    QueueDepthMonitor monitor(nullptr, {sys.path(), false}, [&] { return now; });
    BlockDevice sda;
    sda.id.kernel_name = "sda";
    sda.id.major = 8;
    const std::vector<JoinedDevice> devices{{sda.id, &sda, nullptr}};
    ExpositionWriter first(ExpositionFormat::protobuf);
    monitor.write(first, devices);  // tracked from here
    monitor.sample();
    now = 12.5;
    monitor.sample();
    ExpositionWriter w(ExpositionFormat::protobuf);
    monitor.write(w, devices);
    Request r = read(otlp_request(w.finish(), {"h", "v"}, start_ns, now_ns));
    const Message& q = r.metric("iotally.device.queue_depth", 7);
    EXPECT_EQ(one(q, 3).bytes, "s");
    Message sum = decode(one(q, 7).bytes);
    EXPECT_EQ(one(sum, 2).v, 2u);  // AGGREGATION_TEMPORALITY_CUMULATIVE
    EXPECT_EQ(one(sum, 3).v, 1u);  // is_monotonic
    std::map<std::string, double> by_n;
    for (const auto& p : points(q, 7)) {
        auto a = attributes(p, 7);
        EXPECT_EQ(a.at("device"), "sda");
        by_n[a.at("at_least")] = as_double(one(p, 4));
    }
    EXPECT_EQ(by_n.size(), depth_thresholds.size());
    EXPECT_EQ(by_n["2"], 2.5);  // 3 in flight for 2.5 s
    EXPECT_EQ(by_n["4"], 0.0);
}

TEST(OtlpRequest, ConventionsNameFamiliesOfTheBlockStatTable) {
    // A family renamed in block_stat_fields cannot leave the mapping behind:
    // each row names one of its counters, and the 9 rows are the 9 the
    // conventions have (read and write of io, operations, operation_time,
    // merged; io_time).
    std::size_t found = 0;
    for (const auto& s : otlp_semconv()) {
        bool counter = false;
        for (const auto& f : block_stat_fields)
            counter = counter || (f.family == s.family && f.unit != BlockStatUnit::in_flight);
        EXPECT_TRUE(counter) << s.family;
        found += counter;
    }
    EXPECT_EQ(found, 9u);
}

TEST(OtlpRequest, OwnNames) {
    EXPECT_EQ(otlp_own_name("iotally_region_read_bytes").name, "iotally.region.read");
    EXPECT_EQ(otlp_own_name("iotally_region_read_bytes").unit, "By");
    EXPECT_EQ(otlp_own_name("iotally_region_io_latency_seconds").name, "iotally.region.io_latency");
    EXPECT_EQ(otlp_own_name("iotally_region_io_latency_seconds").unit, "s");
    EXPECT_EQ(otlp_own_name("iotally_scrapes").name, "iotally.scrapes");
    EXPECT_EQ(otlp_own_name("iotally_scrapes").unit, "");
    EXPECT_EQ(otlp_own_name("iotally_source_up").name, "iotally.source.up");
    EXPECT_EQ(otlp_own_name("iotally_region_info").name, "iotally.region.info");
}

TEST(OtlpRequest, NativeHistogramIsExponentialWithTheSameBuckets) {
    // Kernel buckets: the zero bucket [0, 2^-20 s], then Prometheus' native
    // indices -19, -18, -16 of schema 0, i.e. (2^-20, 2^-19], (2^-19, 2^-18]
    // and (2^-17, 2^-16]. OTLP's bucket i is (2^i, 2^(i+1)]: the same
    // buckets are OTLP's -20, -19 and -17, -18 empty between them.
    NativeLayout l;
    l.schema = 0;
    l.zero_threshold = 1.0 / (1 << 20);
    l.index = {NativeLayout::zero_bucket, -19, -18, -16};
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("iotally_region_io_latency_seconds", MetricType::histogram, "seconds", "Latency.");
    Labels a;
    a.add("dm_name", "slow").add("region_id", "0");
    w.histogram(a, {1, 2, 3}, {1, 4, 0, 6}, 0.125, &l);
    Request r = read(otlp_request(w.finish(), {"h", "v"}, start_ns, now_ns));
    const Message& m = r.metric("iotally.region.io_latency", 10);
    EXPECT_EQ(one(m, 3).bytes, "s");
    EXPECT_EQ(one(m, 2).bytes, "Latency.");
    EXPECT_EQ(one(decode(one(m, 10).bytes), 2).v, 2u);  // cumulative
    auto p = points(m, 10);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(attributes(p[0], 1),
              (std::map<std::string, std::string>{{"dm_name", "slow"}, {"region_id", "0"}}));
    EXPECT_EQ(one(p[0], 2).v, start_ns);
    EXPECT_EQ(one(p[0], 3).v, now_ns);
    EXPECT_EQ(one(p[0], 4).v, 11u);  // count, fixed64
    EXPECT_EQ(one(p[0], 4).wire, 1);
    EXPECT_EQ(as_double(one(p[0], 5)), 0.125);
    EXPECT_EQ(unzigzag(one(p[0], 6).v), 0);  // scale = schema
    EXPECT_EQ(one(p[0], 7).v, 1u);           // zero_count, fixed64
    EXPECT_EQ(as_double(one(p[0], 14)), 1.0 / (1 << 20));
    Message pos = decode(one(p[0], 8).bytes);
    EXPECT_EQ(unzigzag(one(pos, 1).v), -20);
    std::vector<std::uint64_t> counts;
    for (const auto& f : all(pos, 2)) {
        ASSERT_EQ(f.wire, 2);  // packed
        std::string_view b = f.bytes;
        while (!b.empty())
            counts.push_back(read_varint(b));
    }
    EXPECT_EQ(counts, (std::vector<std::uint64_t>{4, 0, 0, 6}));
    EXPECT_EQ(p[0].count(9), 0u);  // no negative buckets
}

TEST(OtlpRequest, NativeScaleFollowsTheSchema) {
    NativeLayout l;
    l.schema = 3;
    l.index = {NativeLayout::zero_bucket, 5, 6};
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("x_seconds", MetricType::histogram, "seconds", "h");
    w.histogram(Labels(), {1, 2}, {0, 2, 3}, 1, &l);
    Request r = read(otlp_request(w.finish(), {"h", "v"}, start_ns, now_ns));
    auto p = points(r.metric("x", 10), 10);  // "_seconds" is the unit
    EXPECT_EQ(unzigzag(one(p[0], 6).v), 3);
    Message pos = decode(one(p[0], 8).bytes);
    EXPECT_EQ(unzigzag(one(pos, 1).v), 4);
}

TEST(OtlpRequest, EmptyNativeHistogramHasNoBuckets) {
    NativeLayout l;
    l.index = {NativeLayout::zero_bucket, 0, 1};
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("iotally_region_io_latency_seconds", MetricType::histogram, "seconds", "h");
    w.histogram(Labels(), {1, 2}, {0, 0, 0}, 0, &l);
    Request r = read(otlp_request(w.finish(), {"h", "v"}, start_ns, now_ns));
    auto p = points(r.metric("iotally.region.io_latency", 10), 10);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(one(p[0], 4).v, 0u);
    EXPECT_EQ(decode(one(p[0], 8).bytes).count(2), 0u);
}

TEST(OtlpRequest, ClassicHistogramHasExplicitBounds) {
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("iotally_region_io_latency_seconds", MetricType::histogram, "seconds", "h");
    w.histogram(Labels(), {0.001, 0.01}, {2, 3, 1}, 0.5);
    Request r = read(otlp_request(w.finish(), {"h", "v"}, start_ns, now_ns));
    const Message& m = r.metric("iotally.region.io_latency", 9);
    EXPECT_EQ(one(decode(one(m, 9).bytes), 2).v, 2u);  // cumulative
    auto p = points(m, 9);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(one(p[0], 4).v, 6u);
    EXPECT_EQ(as_double(one(p[0], 5)), 0.5);
    // bucket_counts: packed fixed64, per bucket (not cumulative), +Inf last.
    std::string_view b = one(p[0], 6).bytes;
    ASSERT_EQ(b.size(), 24u);
    std::vector<std::uint64_t> counts;
    for (std::size_t i = 0; i < b.size(); i += 8) {
        std::uint64_t v = 0;
        for (int k = 7; k >= 0; --k)
            v = (v << 8) | static_cast<unsigned char>(b[i + static_cast<std::size_t>(k)]);
        counts.push_back(v);
    }
    EXPECT_EQ(counts, (std::vector<std::uint64_t>{2, 3, 1}));
    std::string_view e = one(p[0], 7).bytes;
    ASSERT_EQ(e.size(), 16u);
    std::uint64_t bits = 0;
    for (int k = 7; k >= 0; --k)
        bits = (bits << 8) | static_cast<unsigned char>(e[static_cast<std::size_t>(k)]);
    EXPECT_EQ(std::bit_cast<double>(bits), 0.001);
}

TEST(OtlpRequest, MalformedExpositionIsAParseError) {
    std::string good = two_devices_and_a_region();
    EXPECT_THROW(otlp_request(good.substr(0, good.size() - 3), {"h", "v"}, 0, 0), Error);
    EXPECT_THROW(otlp_request(std::string("\x05\x0a\x09", 3), {"h", "v"}, 0, 0), Error);
    EXPECT_NO_THROW(otlp_request("", {"h", "v"}, 0, 0));
    // Two native buckets 2^30 indices apart: refused, not a dense run of
    // a billion counts. MetricFamily{name "x", type HISTOGRAM, metric {
    // histogram {count 2, schema 0, spans (0,1) (2^30,1), deltas 1 0}}}.
    auto bytes = [](std::initializer_list<int> b) {
        std::string out;
        for (int c : b)
            out += static_cast<char>(c);
        return out;
    };
    std::string h = bytes({0x08, 0x02,                          // sample_count 2
                           0x28, 0x00,                          // schema 0
                           0x62, 0x04, 0x08, 0x00, 0x10, 0x01,  // span offset 0, length 1
                           0x62, 0x08, 0x08, 0x80, 0x80, 0x80, 0x80, 0x08, 0x10,
                           0x01,                      // span offset 2^30 (zigzag 2^31), length 1
                           0x6a, 0x02, 0x02, 0x00});  // deltas +1, 0 (packed)
    std::string m = "\x3a" + std::string(1, static_cast<char>(h.size())) + h;
    std::string f = "\x0a\x01x\x18\x04\x22" + std::string(1, static_cast<char>(m.size())) + m;
    std::string stream = std::string(1, static_cast<char>(f.size())) + f;
    try {
        otlp_request(stream, {"h", "v"}, 0, 0);
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "protobuf exposition: native buckets too far apart");
    }
}

}  // namespace
}  // namespace iotally
