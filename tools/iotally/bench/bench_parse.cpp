// SPDX-License-Identifier: GPL-2.0-or-later
// Host parse rate of @stats_print and @stats_list replies, in lines per second
// (items_per_second), and the cost of writing a scrape of 10,000 regions in
// each exposition format (bytes, gzip_bytes). Run: build/tools/bench_parse
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>

#include "iotally/dm-stats/message.hpp"
#include "iotally/dm-stats/native_histogram.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/http_server.hpp"
#include "iotally/exporter/otlp_request.hpp"

namespace {

// A reply of `lines` areas with realistic counter magnitudes.
std::string print_reply(std::size_t lines, bool histogram) {
    std::string out;
    for (std::size_t i = 0; i < lines; ++i) {
        out += fmt::format("{}+2048 {} {} {} {} {} {} {} {} {} {} {} {} {}", i * 2048, 1245 + i, 17,
                           99600 + i * 8, 2332, 873, 412, 35808, 15080, i % 3, 11884, 17412, 2332,
                           15080);
        if (histogram)
            out += fmt::format(" {}:{}:{}:{}:{}", 120 + i, 3400, 912, 17, 1);
        out += '\n';
    }
    return out;
}

std::string list_reply(std::size_t lines) {
    std::string out;
    for (std::size_t i = 0; i < lines; ++i)
        out += fmt::format("{}: {}+2048 2048 dmstats {}\n", i, i * 2048,
                           i == 0 ? "DMS_GROUP=data:0-9999#-" : "-");
    return out;
}

void BM_ParsePrint(benchmark::State& state) {
    const std::string reply = print_reply(static_cast<std::size_t>(state.range(0)), state.range(1));
    for (auto _ : state) {
        auto lines = iotally::parse_print_reply(reply);
        benchmark::DoNotOptimize(lines.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(reply.size()));
}
BENCHMARK(BM_ParsePrint)->Args({1, 0})->Args({10000, 0})->Args({10000, 1});

void BM_ParseList(benchmark::State& state) {
    const std::string reply = list_reply(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        auto entries = iotally::parse_list_reply(reply);
        benchmark::DoNotOptimize(entries.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParseList)->Arg(10000);

// 10,000 one-area regions of one device, with a histogram of 16 classic
// boundaries (native = 0) or the 27 of `--histogram native` (native = 1).
iotally::Snapshot regions(std::size_t n, bool native) {
    iotally::Snapshot snap;
    auto& d = snap.devices.emplace_back();
    d.id.dm_name = "vg0-data";
    d.id.major = 254;
    d.id.minor = 3;
    std::vector<std::uint64_t> bounds;
    if (native)
        bounds = iotally::native_region_bounds(0);
    else
        for (std::uint64_t i = 1; i <= 16; ++i)
            bounds.push_back(i * 1000000);
    for (std::size_t i = 0; i < n; ++i) {
        auto& r = d.regions.emplace_back();
        r.id = i;
        r.start = i * 2048;
        r.length = r.step = 2048;
        r.program_id = "iotally";
        r.precise_timestamps = true;
        r.histogram_bounds_ns = bounds;
        auto& a = r.areas.emplace_back();
        a.length = 2048;
        a.counters.reads = 1245 + i;
        a.counters.read_sectors = 99600 + i * 8;
        a.counters.read_time_ns = 15080000000 + i;
        a.histogram.assign(bounds.size() + 1, 0);
        // Latencies over a few neighbouring buckets, as a device gives them.
        for (std::size_t b = 8; b < 12 && b < a.histogram.size(); ++b)
            a.histogram[b] = 100 + i % 50 + b;
    }
    return snap;
}

void BM_RenderRegions(benchmark::State& state) {
    const auto format = static_cast<iotally::ExpositionFormat>(state.range(0));
    const auto snap = regions(10000, state.range(1));
    std::size_t bytes = 0;
    std::string out;
    for (auto _ : state) {
        iotally::ExpositionWriter w(format);
        iotally::write_region_families(w, snap, false);
        out = w.finish();
        bytes = out.size();
    }
    state.counters["bytes"] = static_cast<double>(bytes);
    state.counters["gzip_bytes"] = static_cast<double>(iotally::gzip_compress(out).size());
}
// Formats: 0 OpenMetrics, 1 text 0.0.4, 2 protobuf.
BENCHMARK(BM_RenderRegions)->ArgsProduct({{0, 1, 2}, {0, 1}})->Unit(benchmark::kMillisecond);

// serve --otlp's request from the protobuf scrape of the same regions
// (classic histograms: native = 0, --histogram native: 1), CPU on top of
// the scrape's own; gzip = 1: and its compression (--otlp-compression gzip).
void BM_OtlpRequest(benchmark::State& state) {
    const auto snap = regions(10000, state.range(0));
    iotally::ExpositionWriter w(iotally::ExpositionFormat::protobuf);
    iotally::write_region_families(w, snap, false);
    const std::string exposition = w.finish();
    std::string out;
    for (auto _ : state) {
        out = iotally::otlp_request(exposition, {"db1", "0.1.0"}, 1, 2);
        if (state.range(1))
            out = iotally::gzip_compress(out);
    }
    state.counters["bytes"] = static_cast<double>(out.size());
}
BENCHMARK(BM_OtlpRequest)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
