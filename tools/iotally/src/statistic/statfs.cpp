// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/statistic/statfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>

#include "fd.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::vector<std::string_view> words(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i]))
            ++i;
        std::size_t start = i;
        while (i < text.size() && !is_space(text[i]))
            ++i;
        if (i > start)
            out.push_back(text.substr(start, i - start));
    }
    return out;
}

bool is_integer(std::string_view v, bool allow_sign) {
    if (allow_sign && !v.empty() && v[0] == '-')
        v.remove_prefix(1);
    if (v.empty())
        return false;
    std::uint64_t x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    return ec == std::errc{} && p == v.data() + v.size();
}

struct AttrRule {
    std::string_view key;
    bool changeable;
    std::string_view values;  // "|"-separated list, "int", "uint" or "" (read-only)
};

constexpr std::array<AttrRule, 16> rules{{
    {"type", true, "value|range|array|list|history|raw"},
    {"on", true, "0|1"},
    {"data", true, "reset"},
    {"range_min", true, "int"},
    {"range_max", true, "int"},
    {"entries_max", true, "uint"},
    {"scale", true, "lin|log2"},
    {"base_interval", true, "uint"},
    {"mode", true, "increments|products|range"},
    {"period", true, "uint"},
    {"name", false, ""},
    {"units", false, ""},
    {"started", false, ""},
    {"stopped", false, ""},
    {"hits_out_of_range", false, ""},
    {"hits_missed", false, ""},
}};

void check_value(const AttrRule& rule, std::string_view value) {
    if (rule.values == "int" || rule.values == "uint") {
        if (!is_integer(value, rule.values == "int"))
            throw Error(ErrorKind::usage, fmt::format("{}={}: expected {} integer", rule.key, value,
                                                      rule.values == "int" ? "an" : "an unsigned"));
        return;
    }
    std::string_view allowed = rule.values;
    while (!allowed.empty()) {
        auto bar = allowed.find('|');
        if (allowed.substr(0, bar) == value)
            return;
        if (bar == std::string_view::npos)
            break;
        allowed.remove_prefix(bar + 1);
    }
    std::string list(rule.values);
    std::replace(list.begin(), list.end(), '|', ',');
    throw Error(ErrorKind::usage, fmt::format("{}={}: expected one of {}", rule.key, value, list));
}

void check_iface_name(const std::string& iface) {
    if (iface.empty() || iface == "." || iface == ".." || iface.find('/') != std::string::npos)
        throw Error(ErrorKind::usage, fmt::format("invalid statistics interface '{}'", iface));
}

}  // namespace

std::optional<std::string> StatDefinition::get(std::string_view key) const {
    for (const auto& [k, v] : attributes)
        if (k == key)
            return v;
    return std::nullopt;
}

std::pair<std::string, std::string> parse_assignment(std::string_view word) {
    auto eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw Error(ErrorKind::usage, fmt::format("'{}' is not a key=value attribute", word));
    return {std::string(word.substr(0, eq)), std::string(word.substr(eq + 1))};
}

std::vector<StatDefinition> parse_definitions(std::string_view text) {
    std::vector<StatDefinition> defs;
    for (auto w : words(text)) {
        auto eq = w.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw Error(
                ErrorKind::parse,
                fmt::format("definition file: '{}' is not a key=value attribute", w.substr(0, 80)));
        auto key = w.substr(0, eq);
        auto value = w.substr(eq + 1);
        if (key == "name") {
            if (value.empty())
                throw Error(ErrorKind::parse, "definition file: empty statistic name");
            defs.push_back(StatDefinition{std::string(value), {}});
            continue;
        }
        if (defs.empty())
            throw Error(
                ErrorKind::parse,
                fmt::format("definition file: attribute '{}' before any name=", key.substr(0, 80)));
        defs.back().attributes.emplace_back(std::string(key), std::string(value));
    }
    return defs;
}

std::vector<StatDataLine> parse_data(std::string_view text) {
    std::vector<StatDataLine> out;
    while (!text.empty()) {
        auto nl = text.find('\n');
        auto line = text.substr(0, nl);
        auto w = words(line);
        if (!w.empty()) {
            StatDataLine d;
            d.name = std::string(w[0]);
            for (std::size_t i = 1; i < w.size(); ++i)
                d.fields.emplace_back(w[i]);
            out.push_back(std::move(d));
        }
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
    return out;
}

std::vector<std::string_view> stat_data_columns(std::string_view type, std::string_view mode) {
    if (type == "value")
        return {"total"};
    if (type == "range")
        return {"count", "min", "avg", "max"};
    if (type == "array")
        return {"bucket", "count"};
    if (type == "list")
        return {"x", "count"};
    if (type == "history")
        return mode == "range" ? std::vector<std::string_view>{"time", "count", "min", "avg", "max"}
                               : std::vector<std::string_view>{"time", "total"};
    if (type == "raw")
        return {"time", "serial", "x", "y"};
    throw Error(ErrorKind::parse, fmt::format("unknown statistic type '{}'", type.substr(0, 40)));
}

namespace {

bool parse_signed(std::string_view v, int base, long long& out) {
    bool neg = !v.empty() && v[0] == '-';
    if (neg)
        v.remove_prefix(1);
    if (base == 16) {
        if (v.size() < 3 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
            return false;
        v.remove_prefix(2);
    }
    std::uint64_t mag = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), mag, base);
    if (v.empty() || ec != std::errc{} || p != v.data() + v.size())
        return false;
    constexpr std::uint64_t max = static_cast<std::uint64_t>(INT64_MAX);
    if (mag > max + (neg ? 1 : 0))
        return false;
    out = neg ? static_cast<long long>(0 - mag) : static_cast<long long>(mag);
    return true;
}

bool parse_decimal(std::string_view v, double& out) {
    // Digits, one point, digits: the kernel's "%llu.%03llu" and "%llu.%06u".
    std::string_view body = v;
    if (!body.empty() && body[0] == '-')
        body.remove_prefix(1);
    auto dot = body.find('.');
    if (body.empty() || dot == std::string_view::npos || dot == 0 || dot + 1 == body.size() ||
        body.find_first_not_of("0123456789.") != std::string_view::npos ||
        body.find('.', dot + 1) != std::string_view::npos)
        return false;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return ec == std::errc{} && p == v.data() + v.size();
}

[[noreturn]] void bad_field(std::string_view column, std::string_view field) {
    throw Error(ErrorKind::parse, fmt::format("statistics data: '{}' is not a valid {}",
                                              field.substr(0, 40), column));
}

}  // namespace

StatValue decode_stat_field(std::string_view column, std::string_view field) {
    StatValue v;
    if (column == "time") {
        if (field.size() < 3 || field.front() != '[' || field.back() != ']' ||
            !parse_decimal(field.substr(1, field.size() - 2), v.decimal) || v.decimal < 0)
            bad_field(column, field);
        v.kind = StatValue::Kind::decimal;
        return v;
    }
    if (column == "bucket") {
        std::string_view bound = field.starts_with("<=")  ? field.substr(2)
                                 : field.starts_with(">") ? field.substr(1)
                                                          : std::string_view();
        long long ignored = 0;
        if (!parse_signed(bound, 10, ignored))
            bad_field(column, field);
        v.text = std::string(field);
        return v;
    }
    if (column == "avg") {
        if (!parse_decimal(field, v.decimal))
            bad_field(column, field);
        v.kind = StatValue::Kind::decimal;
        return v;
    }
    const bool is_signed = column == "min" || column == "max" || column == "x";
    if (!parse_signed(field, column == "x" && field.find("0x") != std::string_view::npos ? 16 : 10,
                      v.integer) ||
        (!is_signed && field.starts_with("-")))
        bad_field(column, field);
    v.kind = StatValue::Kind::integer;
    return v;
}

std::vector<StatValue> decode_stat_line(const StatDataLine& line, const StatDefinition& def) {
    auto columns =
        stat_data_columns(def.get("type").value_or(""), def.get("mode").value_or("increments"));
    if (line.fields.size() != columns.size())
        throw Error(
            ErrorKind::parse,
            fmt::format("statistics data: {} has {} fields, a {} statistic has {}", line.name,
                        line.fields.size(), def.get("type").value_or("?"), columns.size()));
    std::vector<StatValue> out;
    out.reserve(columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i)
        out.push_back(decode_stat_field(columns[i], line.fields[i]));
    return out;
}

std::string build_definition_write(const std::optional<std::string>& name,
                                   const std::vector<std::pair<std::string, std::string>>& attrs) {
    std::string line;
    if (name) {
        if (name->empty() || std::any_of(name->begin(), name->end(), is_space) ||
            name->find('=') != std::string::npos)
            throw Error(ErrorKind::usage, fmt::format("invalid statistic name '{}'", *name));
        line = "name=" + *name;
    }
    if (attrs.empty())
        throw Error(ErrorKind::usage, "nothing to set: give at least one key=value");
    for (const auto& attr : attrs) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const std::string& key = attr.first;
        const std::string& value = attr.second;
        auto rule = std::find_if(rules.begin(), rules.end(),
                                 [&key](const AttrRule& r) { return r.key == key; });
        if (rule == rules.end())
            throw Error(ErrorKind::usage, fmt::format("unknown attribute '{}'", key));
        if (!rule->changeable)
            throw Error(ErrorKind::usage, fmt::format("attribute '{}' is read-only", key));
        check_value(*rule, value);
        if (!line.empty())
            line += ' ';
        line += fmt::format("{}={}", key, value);
    }
    return line + "\n";
}

std::string parse_lockdown(std::string_view text) {
    auto open = text.find('[');
    auto close = text.find(']', open);
    if (open == std::string_view::npos || close == std::string_view::npos)
        return "";
    auto mode = std::string(text.substr(open + 1, close - open - 1));
    return mode == "none" ? "" : mode;
}

namespace {

// The lockdown mode, or "" when the kernel is not locked down or does not
// say (no lockdown LSM, securityfs not mounted).
std::string lockdown_mode(const std::string& path) {
    detail::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        return "";
    std::array<char, 256> buf{};
    ssize_t n = ::read(fd.get(), buf.data(), buf.size() - 1);
    return n > 0 ? parse_lockdown(std::string_view(buf.data(), static_cast<std::size_t>(n))) : "";
}

}  // namespace

void StatFs::io_error(const std::string& what, int err) const {
    if (err == EACCES || err == EPERM || err == ENOENT) {
        if (auto mode = lockdown_mode(lockdown_); !mode.empty())
            throw Error(ErrorKind::unsupported,
                        fmt::format("{}: the kernel is locked down ({}): debugfs files cannot be "
                                    "written, so the statistics layer is off",
                                    what, mode));
    }
    if (err == EACCES || err == EPERM)
        throw Error(ErrorKind::permission,
                    fmt::format("{}: permission denied (debugfs needs root)", what));
    if (err == ENOENT)
        throw Error(ErrorKind::no_device, fmt::format("{}: no such statistics interface", what));
    throw Error(kind_from_errno(err), fmt::format("{}: {}", what, std::strerror(err)));
}

std::string StatFs::read_all(const std::string& path) const {
    detail::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        io_error(path, errno);
    std::string out;
    std::array<char, 65536> buf;
    while (true) {
        ssize_t n = ::read(fd.get(), buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            io_error(path, errno);
        }
        if (n == 0)
            break;
        out.append(buf.data(), static_cast<std::size_t>(n));
    }
    return out;
}

std::string StatFs::path(const std::string& iface, const char* file) const {
    check_iface_name(iface);
    return fmt::format("{}/{}/{}", root_, iface, file);
}

std::vector<std::string> StatFs::interfaces() const {
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(root_.c_str()), ::closedir);
    if (!dir) {
        int err = errno;
        if (err == ENOENT && lockdown_mode(lockdown_).empty())
            throw Error(ErrorKind::unsupported,
                        fmt::format("{} does not exist: debugfs is not mounted or the kernel has "
                                    "no statistics layer",
                                    root_));
        io_error(root_, err);
    }
    std::vector<std::string> out;
    while (dirent* e = ::readdir(dir.get())) {
        std::string n = e->d_name;
        if (n == "." || n == "..")
            continue;
        struct stat st {};
        if (::stat(fmt::format("{}/{}", root_, n).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            out.push_back(std::move(n));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string StatFs::read_definition(const std::string& iface) const {
    return read_all(path(iface, "definition"));
}

std::string StatFs::read_data(const std::string& iface) const {
    return read_all(path(iface, "data"));
}

void StatFs::write_definition(const std::string& iface, const std::string& line) const {
    const std::string p = path(iface, "definition");
    detail::FileDescriptor fd(::open(p.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd)
        io_error(p, errno);
    ssize_t n;
    do
        n = ::write(fd.get(), line.data(), line.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        int err = errno;
        if (err == EINVAL)
            throw Error(ErrorKind::usage,
                        fmt::format("{}: the kernel rejected '{}'", p,
                                    line.substr(0, line.find_last_not_of('\n') + 1)));
        io_error(p, err);
    }
    if (static_cast<std::size_t>(n) != line.size())
        throw Error(ErrorKind::failed, fmt::format("{}: short write", p));
    if (fd.close() != 0)
        io_error(p, errno);
}

}  // namespace iotally
