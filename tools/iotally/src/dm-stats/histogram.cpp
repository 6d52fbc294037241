// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/histogram.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numeric>

#include "iotally/util/error.hpp"
#include "iotally/util/units.hpp"

namespace iotally {

std::uint64_t Histogram::total() const {
    return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

std::uint64_t Histogram::lower_ns(std::size_t bucket) const {
    return bucket == 0 ? 0 : bounds_ns.at(bucket - 1);
}

std::optional<std::uint64_t> Histogram::upper_ns(std::size_t bucket) const {
    if (bucket >= bounds_ns.size())
        return std::nullopt;
    return bounds_ns[bucket];
}

Histogram histogram_delta(const Histogram& current, const Histogram* previous) {
    Histogram d = current;
    if (!previous || previous->bounds_ns != current.bounds_ns ||
        previous->counts.size() != current.counts.size())
        return d;
    for (std::size_t i = 0; i < d.counts.size(); ++i)
        if (previous->counts[i] > current.counts[i]) {
            return current;  // cleared in between: counts start from the clear
        }
    for (std::size_t i = 0; i < d.counts.size(); ++i)
        d.counts[i] -= previous->counts[i];
    return d;
}

std::optional<PercentileEstimate> estimate_percentile(const Histogram& h, double p) {
    if (!(p > 0 && p <= 100))
        throw Error(ErrorKind::usage, fmt::format("percentile {} is not in (0, 100]", p));
    if (!h.valid())
        throw Error(ErrorKind::usage, "histogram counts do not match its boundaries");
    const std::uint64_t n = h.total();
    if (n == 0)
        return std::nullopt;
    // Nearest rank, computed in long double so that e.g. 90 % of 10 is 9.
    auto rank = static_cast<std::uint64_t>(
        std::ceil(static_cast<long double>(p) * static_cast<long double>(n) / 100.0L - 1e-9L));
    rank = std::max<std::uint64_t>(rank, 1);
    std::uint64_t before = 0;
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        const std::uint64_t c = h.counts[i];
        if (c == 0 || before + c < rank) {
            before += c;
            continue;
        }
        PercentileEstimate e;
        e.percentile = p;
        e.bucket = i;
        e.lower_ns = h.lower_ns(i);
        e.upper_ns = h.upper_ns(i);
        if (e.upper_ns) {
            const double width = static_cast<double>(*e.upper_ns - e.lower_ns);
            e.estimate_ns = static_cast<double>(e.lower_ns) +
                            width * static_cast<double>(rank - before) / static_cast<double>(c);
        } else {
            e.estimate_ns = static_cast<double>(e.lower_ns);
        }
        return e;
    }
    return std::nullopt;  // unreachable: rank <= n
}

std::string render_quantize(const Histogram& h, int width) {
    if (!h.valid())
        throw Error(ErrorKind::usage, "histogram counts do not match its boundaries");
    width = std::max(width, 10);
    const std::uint64_t total = h.total();
    std::string dashes((static_cast<std::size_t>(width) - 12) / 2, '-');
    std::string out = fmt::format("{:>16}  {} Distribution {}{} count\n", "value", dashes, dashes,
                                  (width - 12) % 2 ? "-" : "");
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        const std::uint64_t c = h.counts[i];
        std::size_t bar = 0;
        if (total)
            bar = static_cast<std::size_t>(
                std::llround(static_cast<double>(c) * width / static_cast<double>(total)));
        std::string label = h.upper_ns(i) ? format_duration_ns(h.lower_ns(i))
                                          : ">= " + format_duration_ns(h.lower_ns(i));
        out += fmt::format("{:>16} |{:<{}} {}\n", label, std::string(bar, '@'), width, c);
    }
    out += '\n';
    for (double p : {50.0, 90.0, 99.0}) {
        auto e = estimate_percentile(h, p);
        if (!e) {
            out += fmt::format("  p{:<3} -\n", p);
            continue;
        }
        const std::string upper = e->upper_ns ? format_duration_ns(*e->upper_ns) : "inf";
        const std::string estimate =
            e->upper_ns
                ? format_duration_ns(static_cast<std::uint64_t>(std::llround(e->estimate_ns)))
                : ">= " + format_duration_ns(e->lower_ns);
        out += fmt::format("  p{:<3} {:>10}   in [{}, {})\n", p, estimate,
                           format_duration_ns(e->lower_ns), upper);
    }
    return out;
}

}  // namespace iotally
