// SPDX-License-Identifier: GPL-2.0-or-later
// Host parse rate of @stats_print and @stats_list replies, in lines per second
// (items_per_second). Run: build/tools/bench_parse
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>

#include "iotally/message.hpp"

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

}  // namespace

BENCHMARK_MAIN();
