// SPDX-License-Identifier: GPL-2.0-or-later
// The protobuf exposition and native histograms, read back by the
// independent decoder of protobuf_decoder.hpp and compared with values worked
// out by hand.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "fake_dm.hpp"
#include "iotally/dm-stats/histogram.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/exposition_protobuf.hpp"
#include "iotally/util/error.hpp"
#include "protobuf_decoder.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

using namespace test;  // the decoder

// ---------------------------------------------------------------- tests

TEST(Protobuf, NegotiatedWhenPrometheusAsksForIt) {
    // What Debian's Prometheus 2.42 sends with --enable-feature=native-histograms
    // (captured from it).
    EXPECT_EQ(negotiate_format(
                  "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
                  "encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,"
                  "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                  "q=0.5,*/*;q=0.1"),
              ExpositionFormat::protobuf);
    // And without it.
    EXPECT_EQ(negotiate_format("application/openmetrics-text;version=1.0.0,application/"
                               "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                               "q=0.5,*/*;q=0.1"),
              ExpositionFormat::openmetrics);
    // Another message type, another encoding, or a lower q: not protobuf.
    EXPECT_EQ(negotiate_format("application/vnd.google.protobuf;proto=other.Message;"
                               "encoding=delimited"),
              ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("application/vnd.google.protobuf;"
                               "proto=io.prometheus.client.MetricFamily;encoding=text"),
              ExpositionFormat::prometheus);
    EXPECT_EQ(negotiate_format("application/vnd.google.protobuf;"
                               "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.4,"
                               "text/plain;version=0.0.4;q=0.5"),
              ExpositionFormat::prometheus);
    EXPECT_EQ(content_type(ExpositionFormat::protobuf),
              "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
              "encoding=delimited");
}

TEST(Protobuf, CountersGaugesAndLabels) {
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("x_reads", MetricType::counter, "", "Reads.");
    w.sample(Labels().add("dev", "a\"b\\c\nd").add("n", std::uint64_t{7}), std::uint64_t{42});
    w.family("x_empty", MetricType::gauge, "", "Never sampled.");
    w.family("x_now", MetricType::gauge, "", "Now.");
    w.sample(Labels(), std::int64_t{-3});
    w.sample(Labels().add("k", ""), 0.25);
    auto fams = families(w.finish());
    ASSERT_EQ(fams.size(), 2u);  // a family without a metric is left out
    const Message& reads = fams.at("x_reads_total");
    EXPECT_EQ(one(reads, 2).bytes, "Reads.");
    EXPECT_EQ(one(reads, 3).v, 0u);  // COUNTER
    ASSERT_EQ(all(reads, 4).size(), 1u);
    Message m = decode(one(reads, 4).bytes);
    EXPECT_EQ(labels_of(m),
              (std::map<std::string, std::string>{{"dev", "a\"b\\c\nd"}, {"n", "7"}}));
    EXPECT_EQ(as_double(one(decode(one(m, 3).bytes), 1)), 42.0);
    const Message& now = fams.at("x_now");
    EXPECT_EQ(one(now, 3).v, 1u);  // GAUGE
    auto metrics = all(now, 4);
    ASSERT_EQ(metrics.size(), 2u);
    EXPECT_EQ(as_double(one(decode(one(decode(metrics[0].bytes), 2).bytes), 1)), -3.0);
    Message second = decode(metrics[1].bytes);
    EXPECT_EQ(labels_of(second), (std::map<std::string, std::string>{{"k", ""}}));
    EXPECT_EQ(as_double(one(decode(one(second, 2).bytes), 1)), 0.25);
}

TEST(Protobuf, ClassicHistogramIsCumulative) {
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("x_seconds", MetricType::histogram, "seconds", "Latency.");
    w.histogram(Labels().add("r", "1"), {0.001, 0.01}, {3, 0, 5}, 1.5);
    auto fams = families(w.finish());
    const Message& f = fams.at("x_seconds");
    EXPECT_EQ(one(f, 3).v, 4u);  // HISTOGRAM
    Message h = decode(one(decode(one(f, 4).bytes), 7).bytes);
    EXPECT_EQ(one(h, 1).v, 8u);
    EXPECT_EQ(as_double(one(h, 2)), 1.5);
    auto buckets = all(h, 3);
    ASSERT_EQ(buckets.size(), 2u);  // +Inf is the count
    EXPECT_EQ(one(decode(buckets[0].bytes), 1).v, 3u);
    EXPECT_EQ(as_double(one(decode(buckets[0].bytes), 2)), 0.001);
    EXPECT_EQ(one(decode(buckets[1].bytes), 1).v, 3u);
    EXPECT_EQ(as_double(one(decode(buckets[1].bytes), 2)), 0.01);
    EXPECT_EQ(h.count(5), 0u);  // no schema: classic
}

TEST(Protobuf, NativeHistogramSpansAndDeltas) {
    // Kernel buckets: the zero bucket, then native indices 11..16.
    NativeLayout l;
    l.schema = 0;
    l.zero_threshold = 1024;
    l.index = {NativeLayout::zero_bucket, 11, 12, 13, 14, 15, 16};
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("x_nanoseconds", MetricType::histogram, "nanoseconds", "Waits.");
    w.histogram(Labels(), {1, 2, 3, 4, 5, 6}, {3, 0, 5, 0, 0, 7, 2}, 99, &l);
    auto fams = families(w.finish());
    Message h = decode(one(decode(one(fams.at("x_nanoseconds"), 4).bytes), 7).bytes);
    Native n = native_of(h);
    EXPECT_EQ(n.count, 17u);
    EXPECT_EQ(n.sum, 99);
    EXPECT_EQ(n.schema, 0);
    EXPECT_EQ(n.zero_threshold, 1024);
    EXPECT_EQ(n.zero_count, 3u);
    // Worked by hand: 12 holds 5, 15 holds 7, 16 holds 2.
    EXPECT_EQ(n.spans, (std::vector<std::pair<std::int64_t, std::uint32_t>>{{12, 1}, {2, 2}}));
    EXPECT_EQ(n.deltas, (std::vector<std::int64_t>{5, 2, -5}));
    EXPECT_EQ(n.buckets, (std::map<std::int64_t, std::int64_t>{{12, 5}, {15, 7}, {16, 2}}));
    EXPECT_EQ(h.count(3), 0u);  // no classic buckets
}

TEST(Protobuf, EmptyNativeHistogramStillReadsAsNative) {
    NativeLayout l;
    l.index = {NativeLayout::zero_bucket, 0, 1};
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("x", MetricType::histogram, "", "h");
    w.histogram(Labels(), {0, 1}, {0, 0, 0}, 0, &l);
    Message h = decode(one(decode(one(families(w.finish()).at("x"), 4).bytes), 7).bytes);
    Native n = native_of(h);
    EXPECT_EQ(n.spans, (std::vector<std::pair<std::int64_t, std::uint32_t>>{{0, 0}}));
    EXPECT_EQ(n.count, 0u);
}

TEST(Protobuf, BadLayoutsAreRefused) {
    NativeLayout l;
    l.index = {0, NativeLayout::zero_bucket};
    ExpositionWriter w(ExpositionFormat::protobuf);
    w.family("x", MetricType::histogram, "", "h");
    EXPECT_THROW(w.histogram(Labels(), {1}, {1, 1}, 0, &l), Error);
    l.index = {3, 3};
    EXPECT_THROW(w.histogram(Labels(), {1}, {1, 1}, 0, &l), Error);
    l.index = {1, 2};
    l.schema = 9;
    EXPECT_THROW(w.histogram(Labels(), {1}, {1, 1}, 0, &l), Error);
    l.schema = 0;
    EXPECT_THROW(w.histogram(Labels(), {1}, {1, 1, 1}, 0, &l), Error);
}

TEST(NativeHistogram, RegionBoundsByHand) {
    // 2^-20 s = 953.674 ns, 2^-19.5 s = 1348.699 ns, 2^6 s = 64 s exactly;
    // each written as floor + 1.
    auto s0 = native_region_bounds(0);
    ASSERT_EQ(s0.size(), 27u);
    EXPECT_EQ(s0.front(), 954u);
    EXPECT_EQ(s0[1], 1908u);             // 2^-19 s = 1907.349 ns
    EXPECT_EQ(s0[11], 1953126u);         // 2^-9 s = 1953125 ns exactly
    EXPECT_EQ(s0.back(), 64000000001u);  // 2^6 s
    auto s1 = native_region_bounds(1);
    ASSERT_EQ(s1.size(), 53u);
    EXPECT_EQ(s1[1], 1349u);
    EXPECT_EQ(native_region_bounds(2).size(), 105u);
    EXPECT_EQ(native_region_bounds(4).size(), 417u);
    EXPECT_THROW(native_region_bounds(5), Error);
    EXPECT_EQ(*parse_native_histogram("native"), s0);
    EXPECT_EQ(*parse_native_histogram("native:1"), s1);
    EXPECT_FALSE(parse_native_histogram("1ms,2ms"));
    for (const char* bad : {"native:", "native:x", "native:-1", "native:5", "native:123"})
        EXPECT_THROW(parse_native_histogram(bad), Error) << bad;
}

// Whether d ns lies in (2^(i-1), 2^i] seconds, in integers: d·2^-i <= 1e9
// for i < 0, d <= 2^i·1e9 otherwise.
bool at_most_pow2_seconds(std::uint64_t d, int i) {
    const unsigned __int128 giga = 1000000000;
    if (i < 0)
        return (static_cast<unsigned __int128>(d) << -i) <= giga;
    return static_cast<unsigned __int128>(d) <= (giga << i);
}

TEST(NativeHistogram, RegionMappingIsExactForEveryIntegerDuration) {
    auto bounds = native_region_bounds(0);
    auto layout = region_native_layout(bounds, true);
    ASSERT_TRUE(layout);
    EXPECT_EQ(layout->schema, 0);
    EXPECT_EQ(layout->zero_threshold, std::ldexp(1.0, -20));
    ASSERT_EQ(layout->index.size(), 28u);
    EXPECT_EQ(layout->index[1], -19);
    EXPECT_EQ(layout->index[27], 7);  // the kernel's last bucket: above 64 s
    Histogram h{bounds, {}};
    // Around every boundary and every power of two in range, and between.
    std::vector<std::uint64_t> ds;
    for (int i = -21; i <= 6; ++i)
        for (std::int64_t delta = -2; delta <= 2; ++delta) {
            auto p = i < 0 ? static_cast<std::uint64_t>(1e9 / std::ldexp(1.0, -i))
                           : (std::uint64_t{1000000000} << i);
            ds.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(p) + delta));
        }
    for (auto b : bounds)
        for (std::uint64_t d : {b - 1, b, b + 1})
            ds.push_back(d);
    for (std::uint64_t d : ds) {
        // The kernel's bucket: b_i <= d < b_(i+1).
        std::size_t bucket = 0;
        while (bucket < bounds.size() && bounds[bucket] <= d)
            ++bucket;
        const std::int32_t index = layout->index[bucket];
        if (index == NativeLayout::zero_bucket) {
            EXPECT_TRUE(at_most_pow2_seconds(d, -20)) << d;
        } else if (bucket < bounds.size()) {
            EXPECT_TRUE(at_most_pow2_seconds(d, index) && !at_most_pow2_seconds(d, index - 1))
                << d << " ns in kernel bucket " << bucket << ", native " << index;
        } else {
            EXPECT_FALSE(at_most_pow2_seconds(d, 6)) << d;
        }
    }
    // Other boundaries, or no precise timestamps: classic.
    EXPECT_FALSE(region_native_layout({1000000, 10000000}, true));
    EXPECT_FALSE(region_native_layout(bounds, false));
    // Any run of consecutive boundaries of one schema is native.
    auto s2 = native_region_bounds(2);
    auto part = region_native_layout({s2.begin() + 10, s2.begin() + 20}, true);
    ASSERT_TRUE(part);
    EXPECT_EQ(part->schema, 2);
    EXPECT_EQ(part->index[1], -80 + 11);
}

TEST(NativeHistogram, TaskWaitLayout) {
    auto l = task_wait_native_layout(10, 24);
    EXPECT_EQ(l.zero_threshold, 1024);
    EXPECT_EQ(l.index[0], NativeLayout::zero_bucket);
    EXPECT_EQ(l.index[1], 11);  // [1024, 2048) ns within (1024, 2048] but for 1024 itself
    EXPECT_EQ(l.index[23], 33);
    auto b = task_wait_classic_bounds_ns(10, 24);
    ASSERT_EQ(b.size(), 23u);
    EXPECT_EQ(b.front(), 1024);
    EXPECT_EQ(b.back(), 4294967296.0);
}

TEST(NativeHistogram, StatisticLog2Layouts) {
    auto one_base = statistic_log2_layout({0, 1, 2, 4, 8});
    ASSERT_TRUE(one_base);
    EXPECT_EQ(one_base->zero_threshold, 0.5);
    EXPECT_EQ(one_base->index,
              (std::vector<std::int32_t>{NativeLayout::zero_bucket, 0, 1, 2, 3, 4}));
    auto four = statistic_log2_layout({0, 4, 8, 16});
    ASSERT_TRUE(four);
    EXPECT_EQ(four->zero_threshold, 4);
    EXPECT_EQ(four->index, (std::vector<std::int32_t>{NativeLayout::zero_bucket,
                                                      NativeLayout::zero_bucket, 3, 4, 5}));
    EXPECT_FALSE(statistic_log2_layout({0, 3, 6, 12}));
    EXPECT_FALSE(statistic_log2_layout({5, 6, 7, 9}));
    EXPECT_FALSE(statistic_log2_layout({0, 1, 2, 5}));
    EXPECT_FALSE(statistic_log2_layout({0}));
}

TEST(Protobuf, ScrapeServesNativeRegionsAndEveryFamily) {
    test::FakeDm dm;
    dm.add_device("a", 2048, {"linear"}, "", 1);
    CreateRequest native;
    native.precise_timestamps = true;
    native.histogram = native_region_bounds(0);
    const int nid = StatsClient(dm, "a").create(native);
    CreateRequest classic;
    classic.precise_timestamps = true;
    classic.histogram = {1000000, 10000000};
    const int cid = StatsClient(dm, "a").create(classic);
    // 4 I/Os under 954 ns, 2 in (2^-10, 2^-9] s, 1 above 64 s.
    std::vector<std::uint64_t> counts(28, 0);
    counts[0] = 4;
    counts[11] = 2;
    counts[27] = 1;
    dm.region("a", nid).histograms[0] = counts;
    dm.region("a", cid).histograms[0] = {1, 2, 3};
    ScrapeOptions so;
    so.device_stats = false;
    Exporter e(dm, so);
    const std::string pb = e.scrape(ExpositionFormat::protobuf);
    auto fams = families(pb);
    // Prometheus takes a family's kind of histogram from its first metric:
    // the native and the classic ones are two messages.
    std::vector<std::vector<bool>> kinds;  // per message: native or not, per metric
    for (const auto& mf : family_list(pb)) {
        if (one(mf, 1).bytes != "iotally_region_io_latency_seconds")
            continue;
        kinds.emplace_back();
        for (const auto& f : all(mf, 4))
            kinds.back().push_back(decode(one(decode(f.bytes), 7).bytes).count(5) == 1);
    }
    EXPECT_EQ(kinds, (std::vector<std::vector<bool>>{{true}, {false}}));
    // The same families as the text format has samples for.
    std::string text = e.scrape(ExpositionFormat::prometheus);
    for (const auto& [name, mf] : fams)
        EXPECT_NE(text.find("\n" + name), std::string::npos) << name;
    EXPECT_TRUE(fams.count("iotally_region_reads_completed_total"));
    EXPECT_TRUE(fams.count("iotally_scrape_errors_total"));
    auto metrics = all(fams.at("iotally_region_io_latency_seconds"), 4);
    ASSERT_EQ(metrics.size(), 2u);
    for (const auto& f : metrics) {
        Message m = decode(f.bytes);
        Message h = decode(one(m, 7).bytes);
        if (labels_of(m).at("region_id") == std::to_string(nid)) {
            Native n = native_of(h);
            EXPECT_EQ(n.zero_count, 4u);
            EXPECT_EQ(n.zero_threshold, std::ldexp(1.0, -20));
            EXPECT_EQ(n.buckets, (std::map<std::int64_t, std::int64_t>{{-9, 2}, {7, 1}}));
            EXPECT_EQ(n.count, 7u);
        } else {
            EXPECT_EQ(h.count(5), 0u);
            EXPECT_EQ(all(h, 3).size(), 2u);
            EXPECT_EQ(one(h, 1).v, 6u);
        }
    }
}

TEST(Protobuf, StatisticLog2FamilyIsNative) {
    test::TempDir dir;
    dir.write("statistics/blk/definition",
              "name=lat type=array on=1 started=1 base_interval=1 scale=log2 range_min=0 "
              "range_max=7 units=us/incidents\n"
              "name=lin type=array on=1 started=1 base_interval=2 scale=lin range_min=0 "
              "range_max=4\n");
    dir.write("statistics/blk/data",
              "lat <=0 1\nlat <=1 0\nlat <=2 2\nlat <=4 3\nlat >4 4\n"
              "lin <=0 1\nlin <=2 1\nlin <=4 1\nlin >4 1\n");
    auto c = make_statistics_collector(dir.path() + "/statistics", {"blk"});
    c->check();
    ExpositionWriter w(ExpositionFormat::protobuf);
    EXPECT_EQ(c->collect(w), 0u);
    auto fams = families(w.finish());
    auto metrics = all(fams.at("iotally_statistic_log2"), 4);
    ASSERT_EQ(metrics.size(), 1u);  // not the linear one
    Message m = decode(metrics[0].bytes);
    EXPECT_EQ(labels_of(m),
              (std::map<std::string, std::string>{
                  {"interface", "blk"}, {"statistic", "lat"}, {"units", "us/incidents"}}));
    Native n = native_of(decode(one(m, 7).bytes));
    EXPECT_EQ(n.zero_count, 1u);
    EXPECT_EQ(n.buckets, (std::map<std::int64_t, std::int64_t>{{1, 2}, {2, 3}, {3, 4}}));
    EXPECT_EQ(n.count, 10u);
    EXPECT_TRUE(std::isnan(n.sum));
    // The text format: the same intervals as classic buckets.
    ExpositionWriter t(ExpositionFormat::prometheus);
    c->collect(t);
    std::string text = t.finish();
    EXPECT_NE(text.find("iotally_statistic_log2_bucket{interface=\"blk\",statistic=\"lat\","
                        "units=\"us/incidents\",le=\"4\"} 6\n"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace iotally
