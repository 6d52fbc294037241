// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/util/units.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <limits>

#include "fields.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

struct Suffix {
    std::string_view name;
    std::uint64_t factor;
};

// Splits "12.5ms" into the number and the suffix; rejects anything else.
std::pair<std::string_view, std::string_view> split_number(std::string_view text,
                                                           std::string_view what) {
    std::size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
        ++i;
    if (i == 0)
        throw Error(ErrorKind::usage,
                    fmt::format("invalid {} '{}': expected a number", what, text));
    return {text.substr(0, i), text.substr(i)};
}

// number * factor, exactly, allowing a decimal fraction that yields an
// integer; rejects overflow.
std::uint64_t scale(std::string_view number, std::uint64_t factor, std::string_view what,
                    std::string_view text) {
    auto dot = number.find('.');
    std::string_view whole = number.substr(0, dot);
    std::string_view frac =
        dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
    if (frac.find('.') != std::string_view::npos || (whole.empty() && frac.empty()) ||
        (dot != std::string_view::npos && frac.empty()))
        throw Error(ErrorKind::usage, fmt::format("invalid {} '{}'", what, text));
    unsigned __int128 value = 0;
    for (char c : whole) {
        value = value * 10 + static_cast<unsigned>(c - '0');
        if (value > std::numeric_limits<std::uint64_t>::max())
            throw Error(ErrorKind::usage, fmt::format("{} '{}' is too large", what, text));
    }
    value *= factor;
    unsigned __int128 frac_num = 0, frac_den = 1;
    for (char c : frac) {
        if (frac_den > 1'000'000'000'000'000'000ULL)
            throw Error(ErrorKind::usage, fmt::format("{} '{}' has too many digits", what, text));
        frac_num = frac_num * 10 + static_cast<unsigned>(c - '0');
        frac_den *= 10;
    }
    if ((frac_num * factor) % frac_den != 0)
        throw Error(ErrorKind::usage,
                    fmt::format("{} '{}' is not a whole number of units", what, text));
    value += frac_num * factor / frac_den;
    if (value > std::numeric_limits<std::uint64_t>::max())
        throw Error(ErrorKind::usage, fmt::format("{} '{}' is too large", what, text));
    return static_cast<std::uint64_t>(value);
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::uint64_t parse_u64(std::string_view text, std::string_view what) {
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size())
        throw Error(ErrorKind::usage,
                    fmt::format("invalid {} '{}': expected an unsigned number", what, text));
    return value;
}

std::uint64_t parse_sectors(std::string_view text) {
    auto [number, suffix] = split_number(text, "size");
    std::string s = lower(suffix);
    if (s == "b") {
        std::uint64_t bytes = scale(number, 1, "size", text);
        if (bytes % 512)
            throw Error(ErrorKind::usage,
                        fmt::format("size '{}' is not a multiple of 512 bytes", text));
        return bytes / 512;
    }
    static constexpr std::array<Suffix, 7> suffixes{{{"", 1},
                                                     {"s", 1},
                                                     {"k", 2},
                                                     {"m", 2048},
                                                     {"g", 2048ULL * 1024},
                                                     {"t", 2048ULL * 1024 * 1024},
                                                     {"p", 2048ULL * 1024 * 1024 * 1024}}};
    std::string_view base = s;
    if (base.size() == 3 && base.substr(1) == "ib")
        base = base.substr(0, 1);
    for (const auto& suf : suffixes)
        if (base == suf.name && !(suf.name.empty() && !s.empty()))
            return scale(number, suf.factor, "size", text);
    throw Error(ErrorKind::usage,
                fmt::format("invalid size '{}': unknown unit '{}' (use s, b, k, m, g, t, p)", text,
                            suffix));
}

std::uint64_t parse_duration_ns(std::string_view text) {
    auto [number, suffix] = split_number(text, "time");
    static constexpr std::array<Suffix, 5> suffixes{
        {{"", 1'000'000}, {"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}}};
    std::string s = lower(suffix);
    for (const auto& suf : suffixes)
        if (s == suf.name)
            return scale(number, suf.factor, "time", text);
    throw Error(
        ErrorKind::usage,
        fmt::format("invalid time '{}': unknown unit '{}' (use ns, us, ms, s)", text, suffix));
}

std::vector<std::uint64_t> parse_duration_list_ns(std::string_view text) {
    std::vector<std::uint64_t> out;
    for (std::string_view item : comma_separated_items(text)) {
        std::uint64_t ns = parse_duration_ns(item);
        if (ns == 0)
            throw Error(ErrorKind::usage,
                        fmt::format("histogram boundary '{}' must be greater than zero", item));
        if (!out.empty() && ns <= out.back())
            throw Error(ErrorKind::usage,
                        fmt::format("histogram boundaries must increase: '{}' after {}", item,
                                    format_duration_ns(out.back())));
        out.push_back(ns);
    }
    return out;
}

std::string format_duration_ns(std::uint64_t ns) {
    static constexpr std::array<Suffix, 4> units{
        {{"s", 1'000'000'000}, {"ms", 1'000'000}, {"us", 1'000}, {"ns", 1}}};
    // The largest unit not above the value; a fraction keeps 4 significant
    // digits below a second (6 at or above).
    for (const auto& u : units) {
        if (ns < u.factor)
            continue;
        if (ns % u.factor == 0)
            return fmt::format("{}{}", ns / u.factor, u.name);
        const double value = static_cast<double>(ns) / static_cast<double>(u.factor);
        if (u.factor == units[0].factor)
            return fmt::format("{:.6g}{}", value, u.name);
        return fmt::format("{:.4g}{}", value, u.name);
    }
    return "0";
}

RegionTimeUnit region_time_unit(bool precise_timestamps) {
    if (precise_timestamps)
        return {"ns", "ns", 1};
    return {"ms", "jiffies", ns_per_ms};
}

std::uint64_t region_time_to_ns(std::uint64_t value, bool precise_timestamps) {
    const std::uint64_t scale = region_time_unit(precise_timestamps).ns_per_unit;
    if (value > UINT64_MAX / scale)
        throw Error(ErrorKind::parse,
                    fmt::format("time {} ms does not fit in 64 bits of nanoseconds", value));
    return value * scale;
}

std::uint64_t ns_to_region_time(std::uint64_t ns, bool precise_timestamps) {
    const auto u = region_time_unit(precise_timestamps);
    if (ns % u.ns_per_unit)
        throw Error(ErrorKind::usage, fmt::format("time {} is not a whole number of {}",
                                                  format_duration_ns(ns), u.unit));
    return ns / u.ns_per_unit;
}

}  // namespace iotally
