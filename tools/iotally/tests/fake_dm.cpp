// SPDX-License-Identifier: GPL-2.0-or-later
#include "fake_dm.hpp"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "iotally/util/error.hpp"

namespace iotally::test {
namespace {

[[noreturn]] void fail_with(int err, const std::string& what) {
    throw Error(kind_from_errno(err), fmt::format("{}: {}", what, std::strerror(err)));
}

// sscanf("%llu%c") == 1 as the kernel uses it: all digits.
bool number(const std::string& s, std::uint64_t& v) {
    if (s.empty() || s.size() > 19)
        return false;
    v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

}  // namespace

FakeDevice& FakeDm::add_device(const std::string& name, std::uint64_t sectors,
                               std::vector<std::string> targets, std::string uuid,
                               std::uint32_t minor) {
    FakeDevice d;
    d.id.dm_name = name;
    d.id.dm_uuid = std::move(uuid);
    d.id.major = 254;
    d.id.minor = minor ? minor : static_cast<std::uint32_t>(devices_.size());
    d.id.kernel_name = dm_kernel_name(d.id.minor);
    d.id.size_sectors = sectors;
    d.id.targets = std::move(targets);
    return devices_[name] = std::move(d);
}

std::vector<DeviceId> FakeDm::list_devices() {
    std::vector<DeviceId> out;
    for (const auto& [name, d] : devices_)
        out.push_back(d.id);
    return out;
}

DeviceId FakeDm::device(const std::string& name) {
    auto it = devices_.find(name);
    if (it == devices_.end())
        throw Error(ErrorKind::no_device, name + ": no such device");
    return it->second.id;
}

std::string FakeDm::message(const std::string& device, const std::string& text) {
    sent.push_back(text);
    auto it = devices_.find(device);
    if (it == devices_.end())
        fail_with(ENXIO, device);
    if (fail)
        if (int err = fail(device, text))
            fail_with(err, device);
    auto argv = split_message(text);
    if (argv.empty())
        fail_with(EINVAL, device);
    return handle(it->second, argv);
}

namespace {

using Args = std::vector<std::string>;

FakeRegion& find_region(FakeDevice& d, const Args& argv, const std::string& id_text) {
    std::uint64_t id = 0;
    if (!number(id_text, id) || id > 2147483647)
        fail_with(EINVAL, argv[0]);
    auto it = d.regions.find(static_cast<int>(id));
    if (it == d.regions.end())
        fail_with(ENOENT, argv[0]);
    return it->second;
}

// "-" or START+LENGTH: the region's sectors.
void parse_range(const FakeDevice& d, const Args& argv, const std::string& text, FakeRegion& r) {
    std::uint64_t start = 0, len = 0;
    if (text == "-") {
        len = d.id.size_sectors ? d.id.size_sectors : 1;
    } else {
        auto plus = text.find('+');
        if (plus == std::string::npos || !number(text.substr(0, plus), start) ||
            !number(text.substr(plus + 1), len))
            fail_with(EINVAL, argv[0]);
    }
    if (start + len <= start)
        fail_with(EINVAL, argv[0]);
    r.start = start;
    r.end = start + len;
}

// "/AREAS" or STEP.
void parse_step(const Args& argv, const std::string& text, FakeRegion& r) {
    std::uint64_t v = 0;
    const std::uint64_t len = r.end - r.start;
    if (text[0] == '/' && number(text.substr(1), v)) {
        if (!v)
            fail_with(EINVAL, argv[0]);
        r.step = (len + v - 1) / v;
        if (!r.step)
            r.step = 1;
    } else if (number(text, v) && v) {
        r.step = v;
    } else {
        fail_with(EINVAL, argv[0]);
    }
}

// "histogram:B1,B2,...": strictly increasing boundaries above zero.
void parse_histogram(const Args& argv, const std::string& list, FakeRegion& r) {
    std::size_t p = 0;
    while (true) {
        auto comma = list.find(',', p);
        std::uint64_t b = 0;
        if (!number(list.substr(p, comma - p), b) || (!r.bounds.empty() && b <= r.bounds.back()) ||
            !b)
            fail_with(EINVAL, argv[0]);
        r.bounds.push_back(b);
        if (comma == std::string::npos)
            break;
        p = comma + 1;
    }
}

// @stats_create RANGE STEP [N OPTION...] [PROGRAM_ID [AUX_DATA]]
std::string stats_create(FakeDevice& d, const Args& argv) {
    const std::size_t argc = argv.size();
    if (argc < 3)
        fail_with(EINVAL, argv[0]);
    FakeRegion r;
    parse_range(d, argv, argv[1], r);
    parse_step(argv, argv[2], r);
    std::size_t i = 3;
    std::uint64_t v = 0;
    if (i < argc && number(argv[i], v)) {
        ++i;
        while (v--) {
            if (i >= argc)
                fail_with(EINVAL, argv[0]);
            const std::string& o = argv[i++];
            if (!strcasecmp(o.c_str(), "precise_timestamps"))
                r.precise = true;
            else if (!strncasecmp(o.c_str(), "histogram:", 10))
                parse_histogram(argv, o.substr(10), r);
            else
                fail_with(EINVAL, argv[0]);
        }
    }
    if (i < argc)
        r.program_id = argv[i++];
    if (i < argc)
        r.aux_data = argv[i++];
    if (i < argc)
        fail_with(EINVAL, argv[0]);
    std::size_t n = (r.end - r.start + r.step - 1) / r.step;
    r.areas.assign(n, RawCounters{});
    if (!r.bounds.empty())
        r.histograms.assign(n, std::vector<std::uint64_t>(r.bounds.size() + 1, 0));
    int id = 0;
    while (d.regions.count(id))
        ++id;
    d.regions[id] = std::move(r);
    return std::to_string(id);
}

std::string stats_delete(FakeDevice& d, const Args& argv) {
    if (argv.size() != 2)
        fail_with(EINVAL, argv[0]);
    find_region(d, argv, argv[1]);
    d.regions.erase(std::stoi(argv[1]));
    return "";
}

std::string stats_clear(FakeDevice& d, const Args& argv) {
    if (argv.size() != 2)
        fail_with(EINVAL, argv[0]);
    auto& r = find_region(d, argv, argv[1]);
    for (auto& a : r.areas) {
        auto in_flight = a.in_flight;
        a = RawCounters{};
        a.in_flight = in_flight;
    }
    for (auto& h : r.histograms)
        std::fill(h.begin(), h.end(), 0);
    return "";
}

std::string stats_list(FakeDevice& d, const Args& argv) {
    if (argv.size() > 2)
        fail_with(EINVAL, argv[0]);
    std::string out;
    for (const auto& [id, r] : d.regions) {
        if (argv.size() == 2 && argv[1] != r.program_id)
            continue;
        out += fmt::format("{}: {}+{} {} {} {}", id, r.start, r.end - r.start, r.step, r.program_id,
                           r.aux_data);
        if (r.precise)
            out += " precise_timestamps";
        for (std::size_t b = 0; b < r.bounds.size(); ++b)
            out += fmt::format("{}{}", b ? "," : " histogram:", r.bounds[b]);
        out += "\n";
    }
    return out;
}

std::string stats_print(FakeDevice& d, const Args& argv) {
    const std::size_t argc = argv.size();
    if (argc != 2 && argc != 4)
        fail_with(EINVAL, argv[0]);
    auto& r = find_region(d, argv, argv[1]);
    std::uint64_t first = 0, count = UINT64_MAX;
    if (argc == 4) {
        if (argv[2] != "-" && !number(argv[2], first))
            fail_with(EINVAL, argv[0]);
        if (argv[3] != "-" && !number(argv[3], count))
            fail_with(EINVAL, argv[0]);
    }
    std::uint64_t last = first + count < first
                             ? r.areas.size()
                             : std::min<std::uint64_t>(first + count, r.areas.size());
    std::string out;
    for (std::uint64_t x = first; x < last; ++x) {
        const auto& a = r.areas[x];
        out += fmt::format("{}+{} {} {} {} {} {} {} {} {} {} {} {} {} {}", r.start + x * r.step,
                           r.step, a.reads, a.reads_merged, a.read_sectors, a.read_time, a.writes,
                           a.writes_merged, a.write_sectors, a.write_time, a.in_flight, a.io_time,
                           a.weighted_time, a.read_busy_time, a.write_busy_time);
        if (!r.histograms.empty())
            for (std::size_t b = 0; b < r.histograms[x].size(); ++b)
                out += fmt::format("{}{}", b ? ":" : " ", r.histograms[x][b]);
        out += "\n";
    }
    return out;
}

std::string stats_print_clear(FakeDevice& d, const Args& argv) {
    std::string out = stats_print(d, argv);
    stats_clear(d, {argv[0], argv[1]});
    return out;
}

std::string stats_set_aux(FakeDevice& d, const Args& argv) {
    if (argv.size() != 3)
        fail_with(EINVAL, argv[0]);
    find_region(d, argv, argv[1]).aux_data = argv[2];
    return "";
}

// The messages the fake answers, as dm-stats' message handler dispatches.
struct Handler {
    const char* name;
    std::string (*handle)(FakeDevice&, const Args&);
};
constexpr Handler handlers[] = {
    {"@stats_create", stats_create},   {"@stats_delete", stats_delete},
    {"@stats_clear", stats_clear},     {"@stats_list", stats_list},
    {"@stats_print", stats_print},     {"@stats_print_clear", stats_print_clear},
    {"@stats_set_aux", stats_set_aux},
};

}  // namespace

std::string FakeDm::handle(FakeDevice& d, const std::vector<std::string>& argv) {
    for (const auto& h : handlers)
        if (!strcasecmp(argv[0].c_str(), h.name))
            return h.handle(d, argv);
    fail_with(EINVAL, argv[0]);
}

}  // namespace iotally::test
