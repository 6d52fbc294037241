// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/message.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "iotally/util/error.hpp"

namespace iotally {
namespace {

// The kernel's isspace(): these split message words.
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

[[noreturn]] void parse_error(std::string_view what, std::string_view line) {
    constexpr std::size_t max_shown = 120;
    std::string shown(line.substr(0, max_shown));
    for (auto& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    throw Error(ErrorKind::parse,
                fmt::format("{} in '{}{}'", what, shown, line.size() > max_shown ? "..." : ""));
}

// Reads a %llu as the kernel prints it: digits, no sign, no leading zero.
class Cursor {
  public:
    explicit Cursor(std::string_view line) : line_(line), rest_(line) {}

    std::uint64_t number(std::string_view what) {
        std::uint64_t value = 0;
        auto [ptr, ec] = std::from_chars(rest_.data(), rest_.data() + rest_.size(), value);
        std::size_t used = static_cast<std::size_t>(ptr - rest_.data());
        if (ec == std::errc::result_out_of_range)
            parse_error(fmt::format("{} out of range", what), line_);
        if (ec != std::errc{} || used == 0)
            parse_error(fmt::format("expected {}", what), line_);
        if (used > 1 && rest_[0] == '0')
            parse_error(fmt::format("leading zero in {}", what), line_);
        rest_.remove_prefix(used);
        return value;
    }

    std::int64_t signed_number(std::string_view what) {
        bool negative = !rest_.empty() && rest_[0] == '-';
        if (negative)
            rest_.remove_prefix(1);
        std::uint64_t magnitude = number(what);
        if (magnitude > (negative ? 2147483648ULL : 2147483647ULL))
            parse_error(fmt::format("{} out of range", what), line_);
        if (negative && magnitude == 0)
            parse_error(fmt::format("invalid {}", what), line_);
        return negative ? -static_cast<std::int64_t>(magnitude)
                        : static_cast<std::int64_t>(magnitude);
    }

    void expect(std::string_view literal) {
        if (rest_.substr(0, literal.size()) != literal)
            parse_error(fmt::format("expected '{}'", literal), line_);
        rest_.remove_prefix(literal.size());
    }

    bool consume(char c) {
        if (rest_.empty() || rest_[0] != c)
            return false;
        rest_.remove_prefix(1);
        return true;
    }

    std::string_view rest() const { return rest_; }
    bool done() const { return rest_.empty(); }

  private:
    std::string_view line_;
    std::string_view rest_;
};

// "b1,b2,...": non-zero and strictly increasing, as the kernel enforces;
// nullopt for anything else.
std::optional<std::vector<std::uint64_t>> try_parse_bounds(std::string_view text) {
    std::vector<std::uint64_t> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto comma = text.find(',', pos);
        auto item = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        std::uint64_t v = 0;
        auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc{} || ptr != item.data() + item.size() ||
            (item.size() > 1 && item[0] == '0') || v == 0 || (!out.empty() && v <= out.back()))
            return std::nullopt;
        out.push_back(v);
        if (comma == std::string_view::npos)
            return out;
        pos = comma + 1;
    }
    return std::nullopt;
}

// "<program_id> <aux_data>": two non-empty parts around the first space.
bool has_program_and_aux(std::string_view text) {
    auto space = text.find(' ');
    return space != 0 && space != std::string_view::npos && space + 1 < text.size();
}

template <typename Parse>
auto parse_lines(std::string_view reply, Parse parse) {
    std::vector<decltype(parse(std::string_view{}))> out;
    while (!reply.empty()) {
        auto nl = reply.find('\n');
        std::string_view line = reply.substr(0, nl);
        out.push_back(parse(line));
        if (nl == std::string_view::npos)
            break;
        reply.remove_prefix(nl + 1);
    }
    return out;
}

void check_word_text(std::string_view text, std::string_view what) {
    for (char c : text)
        if (c == '\n' || c == '\0')
            throw Error(ErrorKind::usage,
                        fmt::format("{} must not contain a newline or NUL character", what));
}

// @stats_list prints program_id and aux_data unquoted, followed by the flags:
// refuse text that would read back differently.
void check_program_id(std::string_view program_id) {
    check_word_text(program_id, "program_id");
    for (char c : program_id)
        if (is_space(c))
            throw Error(ErrorKind::usage, "program_id must not contain white space");
}

void check_aux_data(std::string_view aux) {
    check_word_text(aux, "aux_data");
    constexpr std::string_view precise = " precise_timestamps";
    if (aux.find(" histogram:") != std::string_view::npos ||
        (aux.size() >= precise.size() && aux.substr(aux.size() - precise.size()) == precise))
        throw Error(ErrorKind::usage,
                    "aux_data must not contain ' histogram:' or end in ' precise_timestamps': "
                    "@stats_list could not be read back");
}

bool looks_numeric(std::string_view word) {
    return !word.empty() && (std::isdigit(static_cast<unsigned char>(word[0])) || word[0] == '+' ||
                             word[0] == '-' || is_space(word[0]));
}

}  // namespace

std::string escape_word(std::string_view text) {
    if (text.empty())
        return "-";
    std::string out;
    out.reserve(text.size() + 8);
    for (char c : text) {
        if (c == '\\' || is_space(c))
            out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

std::vector<std::string> split_message(std::string_view message) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (true) {
        while (i < message.size() && is_space(message[i]))
            ++i;
        if (i >= message.size())
            break;
        std::string word;
        while (i < message.size() && !is_space(message[i])) {
            if (message[i] == '\\' && i + 1 < message.size()) {
                word.push_back(message[i + 1]);
                i += 2;
                continue;
            }
            word.push_back(message[i++]);
        }
        words.push_back(std::move(word));
    }
    return words;
}

void validate(const CreateRequest& request) {
    if (request.range) {
        if (request.range->length == 0)
            throw Error(ErrorKind::usage, "region length must be greater than zero");
        if (request.range->start + request.range->length < request.range->start)
            throw Error(ErrorKind::usage, "region end is beyond 2^64 sectors");
    }
    if (const auto* size = std::get_if<AreaSize>(&request.step); size && size->sectors == 0)
        throw Error(ErrorKind::usage, "area size must be greater than zero");
    if (const auto* count = std::get_if<AreaCount>(&request.step); count && count->count == 0)
        throw Error(ErrorKind::usage, "number of areas must be greater than zero");
    for (std::size_t i = 0; i < request.histogram.size(); ++i)
        if (request.histogram[i] == 0 || (i && request.histogram[i] <= request.histogram[i - 1]))
            throw Error(ErrorKind::usage,
                        "histogram boundaries must be greater than zero and increasing");
    check_program_id(request.program_id);
    check_aux_data(request.aux_data);
}

std::string build_create(const CreateRequest& request) {
    validate(request);
    std::string msg = "@stats_create ";
    if (request.range)
        msg += fmt::format("{}+{}", request.range->start, request.range->length);
    else
        msg += "-";
    if (const auto* size = std::get_if<AreaSize>(&request.step))
        msg += fmt::format(" {}", size->sectors);
    else
        msg += fmt::format(" /{}", std::get<AreaCount>(request.step).count);

    std::vector<std::string> options;
    if (request.precise_timestamps)
        options.emplace_back("precise_timestamps");
    if (!request.histogram.empty())
        options.push_back(fmt::format("histogram:{}", fmt::join(request.histogram, ",")));
    bool has_words = !request.program_id.empty() || !request.aux_data.empty();
    // A numeric program_id would be read as the option count: spell out "0".
    if (!options.empty() || (has_words && looks_numeric(request.program_id)))
        msg += fmt::format(" {}{}{}", options.size(), options.empty() ? "" : " ",
                           fmt::join(options, " "));
    // Each piece appended on its own: `" " + word` made GCC 12 at -O3 report a
    // bogus -Wrestrict inside std::string (GCC bug 105329).
    if (has_words) {
        msg += ' ';
        msg += escape_word(request.program_id);
        if (!request.aux_data.empty()) {
            msg += ' ';
            msg += escape_word(request.aux_data);
        }
    }
    return msg;
}

std::string build_delete(std::uint64_t region_id) {
    return fmt::format("@stats_delete {}", region_id);
}

std::string build_clear(std::uint64_t region_id) {
    return fmt::format("@stats_clear {}", region_id);
}

std::string build_list(std::optional<std::string_view> program_id) {
    if (!program_id)
        return "@stats_list";
    check_program_id(*program_id);
    return "@stats_list " + escape_word(*program_id);
}

std::string build_print(std::uint64_t region_id, std::optional<LineRange> lines, bool clear) {
    std::string msg =
        fmt::format("{} {}", clear ? "@stats_print_clear" : "@stats_print", region_id);
    if (lines)
        msg += fmt::format(" {} {}", lines->first, lines->count);
    return msg;
}

std::string build_set_aux(std::uint64_t region_id, std::string_view aux_data) {
    check_aux_data(aux_data);
    return fmt::format("@stats_set_aux {} {}", region_id, escape_word(aux_data));
}

std::uint64_t parse_create_reply(std::string_view reply) {
    if (!reply.empty() && reply.back() == '\n')
        reply.remove_suffix(1);
    Cursor c(reply);
    std::uint64_t id = c.number("region id");
    if (!c.done() || id > 2147483647ULL)
        parse_error("unexpected @stats_create reply", reply);
    return id;
}

ListEntry parse_list_line(std::string_view line) {
    ListEntry e;
    Cursor c(line);
    e.region_id = c.number("region id");
    if (e.region_id > 2147483647ULL)
        parse_error("region id out of range", line);
    c.expect(": ");
    e.start = c.number("start sector");
    c.expect("+");
    e.length = c.number("length");
    c.expect(" ");
    e.step = c.number("step");
    c.expect(" ");
    std::string_view rest = c.rest();

    // The flags follow aux_data, which may itself contain spaces; a suffix
    // is only a flag if what precedes it is still "<program_id> <aux_data>".
    constexpr std::string_view hist_tag = " histogram:";
    if (auto pos = rest.rfind(hist_tag); pos != std::string_view::npos) {
        auto bounds = try_parse_bounds(rest.substr(pos + hist_tag.size()));
        if (bounds && has_program_and_aux(rest.substr(0, pos))) {
            e.histogram = std::move(*bounds);
            rest = rest.substr(0, pos);
        }
    }
    constexpr std::string_view precise_tag = " precise_timestamps";
    if (rest.size() > precise_tag.size() &&
        rest.substr(rest.size() - precise_tag.size()) == precise_tag &&
        has_program_and_aux(rest.substr(0, rest.size() - precise_tag.size()))) {
        e.precise_timestamps = true;
        rest.remove_suffix(precise_tag.size());
    }
    if (!has_program_and_aux(rest))
        parse_error("expected '<program_id> <aux_data>'", line);
    auto space = rest.find(' ');
    e.program_id = std::string(rest.substr(0, space));
    e.aux_data = std::string(rest.substr(space + 1));
    if (e.step == 0 || e.length == 0 || e.start + e.length < e.start)
        parse_error("impossible region geometry", line);
    return e;
}

std::vector<ListEntry> parse_list_reply(std::string_view reply) {
    return parse_lines(reply, parse_list_line);
}

std::string format_list_line(const ListEntry& e) {
    std::string out = fmt::format("{}: {}+{} {} {} {}", e.region_id, e.start, e.length, e.step,
                                  e.program_id, e.aux_data);
    if (e.precise_timestamps)
        out += " precise_timestamps";
    if (!e.histogram.empty())
        out += fmt::format(" histogram:{}", fmt::join(e.histogram, ","));
    return out;
}

PrintLine parse_print_line(std::string_view line) {
    PrintLine p;
    Cursor c(line);
    auto& k = p.counters;
    p.start = c.number("start sector");
    c.expect("+");
    p.step = c.number("area length");
    for (const auto& f : dmstats_counters) {
        c.expect(" ");
        if (f.raw)
            k.*f.raw = c.number("counter");
        else
            k.in_flight = c.signed_number("in-flight counter");
    }
    if (c.consume(' ')) {
        do
            p.histogram.push_back(c.number("histogram count"));
        while (c.consume(':'));
        if (p.histogram.size() < 2)
            parse_error("histogram with a single bucket", line);
    }
    if (!c.done())
        parse_error("junk after the counters", line);
    if (p.step == 0)
        parse_error("zero area length", line);
    return p;
}

std::vector<PrintLine> parse_print_reply(std::string_view reply) {
    auto lines = parse_lines(reply, parse_print_line);
    for (std::size_t i = 1; i < lines.size(); ++i)
        if (lines[i].histogram.size() != lines[0].histogram.size())
            throw Error(ErrorKind::parse,
                        fmt::format("@stats_print line {} has {} histogram buckets, line 1 has {}",
                                    i + 1, lines[i].histogram.size(), lines[0].histogram.size()));
    return lines;
}

std::string format_print_line(const PrintLine& p) {
    const auto& k = p.counters;
    std::string out = fmt::format("{}+{}", p.start, p.step);
    for (const auto& f : dmstats_counters)
        out += f.raw ? fmt::format(" {}", k.*f.raw) : fmt::format(" {}", k.in_flight);
    if (!p.histogram.empty())
        out += fmt::format(" {}", fmt::join(p.histogram, ":"));
    return out;
}

}  // namespace iotally
