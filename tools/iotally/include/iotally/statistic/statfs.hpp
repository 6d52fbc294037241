// SPDX-License-Identifier: GPL-2.0-or-later
// The generic statistics layer in debugfs:
// /sys/kernel/debug/statistics/<interface>/{definition,data}.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iotally {

inline constexpr std::string_view statfs_default_root = "/sys/kernel/debug/statistics";
inline constexpr std::string_view lockdown_default_path = "/sys/kernel/security/lockdown";

// The kernel's lockdown mode, from the text of /sys/kernel/security/lockdown
// ("none [integrity] confidentiality"): the word in brackets, or "" if none.
std::string parse_lockdown(std::string_view text);

struct StatDefinition {
    std::string name;
    std::vector<std::pair<std::string, std::string>> attributes;  // in file order, name excluded
    std::optional<std::string> get(std::string_view key) const;
};

// A definition file: key=value words; each "name=" starts a statistic, so an
// entry may span lines. Throws Error(parse).
std::vector<StatDefinition> parse_definitions(std::string_view text);

// One line of a data file: "<name> <fields...>".
struct StatDataLine {
    std::string name;
    std::vector<std::string> fields;
};
std::vector<StatDataLine> parse_data(std::string_view text);

// The meaning of a data line's fields, by the statistic's type (and mode, for
// history), as statistics-infrastructure.txt lays them out:
//   value    total                 range    count min avg max
//   array    bucket count          list     x count
//   history  time total            history (mode=range)  time count min avg max
//   raw      time serial x y
// Throws Error(parse) for a type it does not know.
std::vector<std::string_view> stat_data_columns(std::string_view type, std::string_view mode);

// One field as a typed value: integers (also the list's hex X values, e.g.
// "-0x10" is -16), decimals, printk times "[12.345678]" as seconds, and
// array buckets ("<=4", ">1024") kept as text.
struct StatValue {
    enum class Kind { integer, decimal, text } kind = Kind::text;
    long long integer = 0;
    double decimal = 0;
    std::string text;
};
StatValue decode_stat_field(std::string_view column, std::string_view field);

// A data line decoded against its statistic's definition: one value per
// column. Throws Error(parse) if the line does not have the type's shape.
std::vector<StatValue> decode_stat_line(const StatDataLine& line, const StatDefinition& def);

// A write to a definition file: "[name=N] key=value ...". Validates keys
// against the documented changeable attributes and values against their
// types. Throws Error(usage).
std::string build_definition_write(const std::optional<std::string>& name,
                                   const std::vector<std::pair<std::string, std::string>>& attrs);
std::pair<std::string, std::string> parse_assignment(std::string_view word);

class StatFs {
  public:
    // `lockdown`: where the kernel shows its lockdown mode. A locked-down
    // kernel keeps the layer closed (no directory, no writable files), and
    // the errors say so.
    explicit StatFs(std::string root = std::string(statfs_default_root),
                    std::string lockdown = std::string(lockdown_default_path))
        : root_(std::move(root)), lockdown_(std::move(lockdown)) {}
    const std::string& root() const { return root_; }
    std::vector<std::string> interfaces() const;
    std::string read_definition(const std::string& iface) const;
    std::string read_data(const std::string& iface) const;
    // One write(2) of `line`; the kernel applies it or rejects it whole.
    void write_definition(const std::string& iface, const std::string& line) const;

  private:
    std::string path(const std::string& iface, const char* file) const;
    std::string read_all(const std::string& path) const;
    [[noreturn]] void io_error(const std::string& what, int err) const;
    std::string root_;
    std::string lockdown_;
};

}  // namespace iotally
