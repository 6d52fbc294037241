// SPDX-License-Identifier: GPL-2.0-or-later
#include "document.hpp"

#include <fmt/format.h>
#include <time.h>

namespace iotally::cli {

nlohmann::json json_document(std::string_view command) {
    return nlohmann::json{{"schema", json_schema_version}, {"command", command}};
}

nlohmann::json stamped(std::string_view command, nlohmann::json body) {
    nlohmann::json doc = json_document(command);
    doc.update(body);
    return doc;
}

void add_timestamp(nlohmann::json& doc, std::int64_t unix_ns) {
    doc["timestamp"] = iso8601_utc(unix_ns);
    doc["timestamp_ns"] = unix_ns;
}

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

std::string iso8601_utc(std::int64_t unix_ns) {
    time_t secs = static_cast<time_t>(floor_div(unix_ns, 1'000'000'000));
    long ns = static_cast<long>(unix_ns - static_cast<std::int64_t>(secs) * 1'000'000'000);
    tm t{};
    gmtime_r(&secs, &t);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", t.tm_year + 1900, t.tm_mon + 1,
                       t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, ns);
}

std::string iso8601_local(std::int64_t unix_ns) {
    time_t secs = static_cast<time_t>(floor_div(unix_ns, 1'000'000'000));
    tm t{};
    localtime_r(&secs, &t);
    long off = t.tm_gmtoff / 60;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}{:02}", t.tm_year + 1900,
                       t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, sign, off / 60,
                       off % 60);
}

std::string plain_decimal(double v) {
    std::string s = fmt::format("{:.9f}", v);
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    if (s == "-0")
        s = "0";
    return s;
}

}  // namespace iotally::cli
