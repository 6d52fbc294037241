// SPDX-License-Identifier: GPL-2.0-or-later
// What every JSON document of iotally carries (schema version, command,
// timestamp), and the timestamps and plain numbers of the text and CSV forms.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace iotally::cli {

// Bumped whenever a key changes meaning or goes away (iotally(8), JSON OUTPUT).
inline constexpr int json_schema_version = 2;

// {"schema": 2, "command": COMMAND}: the head of every JSON document.
nlohmann::json json_document(std::string_view command);

// An object document: BODY with "schema" and "command" added.
nlohmann::json stamped(std::string_view command, nlohmann::json body);

// Adds "timestamp" (ISO 8601, UTC, ns) and "timestamp_ns" (Unix time in ns).
void add_timestamp(nlohmann::json& doc, std::int64_t unix_ns);

// "2026-11-25T08:30:01.123456789Z"
std::string iso8601_utc(std::int64_t unix_ns);
// Local time with its offset, to the second, as iostat -t with
// S_TIME_FORMAT=ISO prints it: "2026-11-25T09:30:01+0100".
std::string iso8601_local(std::int64_t unix_ns);

// A decimal without exponent and without trailing zeros: 0.00006, 12.5, 3.
std::string plain_decimal(double v);

}  // namespace iotally::cli
