// SPDX-License-Identifier: GPL-2.0-or-later
//
// The script generator of dm-stats-fuzz: from a seed, a sequence of steps,
// each a device-mapper statistics message (valid or malformed) or a direct
// I/O, one per line:
//
//   M DEVICE BUFFER TEXT      send TEXT with a result buffer of BUFFER bytes
//   R DEVICE SECTOR BYTES     direct read
//   W DEVICE SECTOR BYTES     direct write
//
// The same seed gives the same script on any machine: the generator uses its
// own random number generator (splitmix64), not <random>'s distributions,
// whose results the C++ standard leaves to the library.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iotally_test::fuzz {

// The devices the guest sets up before a script runs (dm-stats-fuzz suite).
struct Device {
    const char* name;
    std::uint64_t sectors;
};
inline const std::vector<Device>& devices() {
    static const std::vector<Device> d{
        {"fz_linear", 16384}, {"fz_striped", 16384}, {"fz_zero", 16384}, {"fz_error", 16384}};
    return d;
}

class Rng {
  public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // A number in [0, n), n > 0.
    std::uint64_t below(std::uint64_t n) { return next() % n; }
    // A number in [lo, hi].
    std::uint64_t range(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
    bool percent(unsigned p) { return below(100) < p; }
    template <class T>
    const T& pick(const std::vector<T>& v) {
        return v[below(v.size())];
    }

  private:
    std::uint64_t state_;
};

class Generator {
  public:
    explicit Generator(std::uint64_t seed) : rng_(seed), state_(devices().size()) {}

    // The next step, one script line.
    std::string step() {
        if (rng_.percent(42))
            return io();
        const std::size_t d = rng_.below(devices().size());
        const std::string text = message(d);
        return "M " + std::string(devices()[d].name) + " " + std::to_string(buffer()) + " " + text;
    }

  private:
    // What the generator knows of a device: its regions' area counts as it
    // expects them (used only to keep replies small) and the last I/O.
    struct DeviceState {
        std::map<std::uint64_t, std::uint64_t> areas;  // region id -> areas
        std::uint64_t last_end = 0;
        bool last_write = false;
    };

    static std::string u(std::uint64_t v) { return std::to_string(v); }

    std::size_t buffer() {
        if (rng_.percent(85))
            return 16384;
        return rng_.pick(std::vector<std::size_t>{1, 64, 128, 200, 512, 1024, 4096});
    }

    std::string io() {
        const std::size_t d = rng_.below(devices().size());
        auto& st = state_[d];
        const std::uint64_t sectors = devices()[d].sectors;
        const std::uint64_t bytes = 512ULL << rng_.below(8);
        std::uint64_t sector;
        bool write;
        if (rng_.percent(35)) {
            // Where the last I/O on this device ended: a merge candidate.
            sector = st.last_end;
            write = rng_.percent(80) ? st.last_write : !st.last_write;
        } else {
            sector = rng_.below(sectors + 32);
            write = rng_.percent(50);
        }
        st.last_end = sector + bytes / 512;
        st.last_write = write;
        return std::string(write ? "W " : "R ") + devices()[d].name + " " + u(sector) + " " +
               u(bytes);
    }

    std::string message(std::size_t d) {
        const unsigned r = static_cast<unsigned>(rng_.below(100));
        if (r < 30)
            return create(d);
        if (r < 52)
            return print(d);
        if (r < 60)
            return list();
        if (r < 70)
            return remove(d);
        if (r < 77)
            return clear(d);
        if (r < 85)
            return set_aux(d);
        if (r < 92)
            return spelling(d);
        return bare();
    }

    // ---- @stats_create ----------------------------------------------------

    std::string program_token() {
        return rng_.pick(std::vector<std::string>{"-", "prog", "other", "12345", "a_b", "PROG"});
    }
    std::string aux_token() {
        return rng_.pick(std::vector<std::string>{"-", "aux", "x", "foo\\ bar", "99", "a:b"});
    }

    // A valid histogram: 1 to 6 increasing boundaries.
    std::string histogram() {
        std::string h = rng_.percent(80) ? "histogram:" : "HISTOGRAM:";
        std::uint64_t b = 0;
        const std::uint64_t n = rng_.range(1, 6);
        for (std::uint64_t i = 0; i < n; i++) {
            b += rng_.range(1, rng_.percent(50) ? 100 : 1000000000);
            h += (i ? "," : "") + u(b);
        }
        return h;
    }
    std::string bad_histogram() {
        return rng_.pick(std::vector<std::string>{
            "histogram:", "histogram:0,10", "histogram:10,10", "histogram:20,10", "histogram:10,",
            "histogram:,10", "histogram:10,20x", "histogram:18446744073709551616", "histogram:-1",
            "histogram", "histogram:1,,2", "histogram: 5"});
    }

    std::string create(std::size_t d) {
        const std::uint64_t sectors = devices()[d].sectors;
        bool valid = true;
        std::uint64_t len = sectors;

        // Sizes at and past the limits: 2^23 areas, 2^27 histogram counters.
        if (rng_.percent(3))
            return rng_.pick(std::vector<std::string>{
                "@stats_create 0+8388609 1",
                "@stats_create 0+8388608 1 1 histogram:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                "@stats_create 0+18446744073709551615 /4",
                "@stats_create 18446744073709551615+1 /1",
                "@stats_create 18446744073709551615+2 /1",
                "@stats_create 0+18446744073709551616 /1",
                "@stats_create 9223372036854775808+9223372036854775807 /3"});

        std::string range;
        if (rng_.percent(88)) {
            if (rng_.percent(25)) {
                range = "-";
            } else {
                const std::uint64_t start = rng_.below(sectors + 64);
                len = rng_.range(1, rng_.percent(80) ? 4096 : sectors);
                range = u(start) + "+" + u(len);
            }
        } else {
            valid = false;
            range = rng_.pick(std::vector<std::string>{"abc", "10+0", "10+", "10", "0+10x", "+10",
                                                       "1+2+3", "0x10+4", "18446744073709551615+2",
                                                       "", "- -"});
        }

        std::string step;
        std::uint64_t areas = 1;
        if (rng_.percent(90)) {
            if (rng_.percent(50)) {
                const std::uint64_t n = rng_.range(1, 40);
                step = "/" + u(n);
                const std::uint64_t size = (len + n - 1) / n;
                areas = (len + size - 1) / size;
            } else {
                // A step giving at most 4096 areas.
                const std::uint64_t min = (len + 4095) / 4096;
                const std::uint64_t size = rng_.range(min ? min : 1, len + 8);
                step = u(size);
                areas = (len + size - 1) / size;
            }
        } else {
            valid = false;
            step = rng_.pick(
                std::vector<std::string>{"0", "/0", "abc", "/abc", "10x", "/-1", "-1", "/", "//2"});
        }

        std::string text = "@stats_create " + range + " " + step;
        if (rng_.percent(45)) {
            std::vector<std::string> opts;
            const unsigned kind = static_cast<unsigned>(rng_.below(10));
            if (kind < 6) {
                if (rng_.percent(60))
                    opts.push_back(rng_.percent(80) ? "precise_timestamps" : "PRECISE_TIMESTAMPS");
                if (rng_.percent(60))
                    opts.push_back(histogram());
                if (opts.size() == 2 && rng_.percent(50))
                    std::swap(opts[0], opts[1]);
                if (rng_.percent(10))
                    opts.push_back("precise_timestamps");
                text += " " + u(opts.size());
            } else {
                valid = false;
                opts.push_back(kind == 6   ? bad_histogram()
                               : kind == 7 ? "no_such_option"
                                           : histogram());
                if (kind == 8)
                    opts.push_back(histogram());  // two histograms
                // A count larger than the arguments that follow (kind 9).
                text += " " + u(opts.size() + (kind == 9 ? 2 : 0));
            }
            for (const auto& o : opts)
                text += " " + o;
        }
        if (rng_.percent(40)) {
            text += " " + program_token();
            if (rng_.percent(50))
                text += " " + aux_token();
            if (rng_.percent(8)) {
                valid = false;
                text += " extra";
            }
        }
        if (valid)
            note_created(d, areas);
        return text;
    }

    void note_created(std::size_t d, std::uint64_t areas) {
        auto& m = state_[d].areas;
        std::uint64_t id = 0;
        while (m.count(id))
            id++;
        m[id] = areas;
    }

    // ---- region ids ------------------------------------------------------

    // A region id: usually one the generator expects to exist.
    std::string id(std::size_t d, bool* known, std::uint64_t* areas) {
        const auto& m = state_[d].areas;
        *known = false;
        if (!m.empty() && rng_.percent(70)) {
            auto it = m.begin();
            std::advance(it, static_cast<long>(rng_.below(m.size())));
            *known = true;
            *areas = it->second;
            return u(it->first);
        }
        if (rng_.percent(75))
            return u(rng_.below(10));
        return rng_.pick(std::vector<std::string>{
            "-1", "abc", "1x", "4294967296", "18446744073709551616", "-", "0x1", "2147483647"});
    }

    std::string line_number(std::uint64_t areas) {
        if (rng_.percent(10))
            return rng_.pick(std::vector<std::string>{"-", "4294967295", "18446744073709551615",
                                                      "18446744073709551616", "x", "-1", "1x"});
        return u(rng_.below(areas + 3));
    }

    std::string print(std::size_t d) {
        bool known;
        std::uint64_t areas = 0;
        std::string text = rng_.percent(70) ? "@stats_print " : "@stats_print_clear ";
        text += id(d, &known, &areas);
        const unsigned form = static_cast<unsigned>(rng_.below(100));
        if (known && areas <= 64 && form < 35)
            return text;
        if (form < 90) {
            const std::string start = line_number(known ? areas : 16);
            // At most 8 lines: "-" (to the last line) only where that is few.
            std::string count;
            if (known && areas <= 64 && rng_.percent(20))
                count = "-";
            else
                count = rng_.percent(8) ? rng_.pick(std::vector<std::string>{"x", "-1", "1x"})
                                        : u(rng_.below(9));
            return text + " " + start + " " + count;
        }
        return text + rng_.pick(std::vector<std::string>{" 1", " 1 1 1", " x 1", " 0 1 extra"});
    }

    std::string list() {
        const unsigned r = static_cast<unsigned>(rng_.below(10));
        if (r < 4)
            return "@stats_list";
        if (r < 9)
            return "@stats_list " + program_token();
        return "@stats_list a b";
    }

    std::string remove(std::size_t d) {
        bool known;
        std::uint64_t areas;
        const std::string i = id(d, &known, &areas);
        if (rng_.percent(8))
            return "@stats_delete " + i + " 1";
        if (known)
            state_[d].areas.erase(std::stoull(i));
        return "@stats_delete " + i;
    }

    std::string clear(std::size_t d) {
        bool known;
        std::uint64_t areas;
        return "@stats_clear " + id(d, &known, &areas) + (rng_.percent(8) ? " 1" : "");
    }

    std::string set_aux(std::size_t d) {
        bool known;
        std::uint64_t areas;
        std::string text = "@stats_set_aux " + id(d, &known, &areas);
        const unsigned r = static_cast<unsigned>(rng_.below(10));
        if (r < 8)
            return text + " " + aux_token();
        return r == 8 ? text : text + " a b";
    }

    // Message names in other cases, and messages no target knows.
    std::string spelling(std::size_t d) {
        bool known;
        std::uint64_t areas;
        const std::string i = id(d, &known, &areas);
        return rng_.pick(std::vector<std::string>{
            "@STATS_LIST", "@Stats_Clear " + i, "@stats_nosuch " + i, "@stats_list_all",
            "@stats_printclear " + i, "@stats", "@", "stats_list"});
    }

    // A message with no arguments at all.
    std::string bare() {
        return rng_.pick(std::vector<std::string>{"@stats_create", "@stats_delete", "@stats_clear",
                                                  "@stats_print", "@stats_print_clear",
                                                  "@stats_set_aux"});
    }

    Rng rng_;
    std::vector<DeviceState> state_;
};

}  // namespace iotally_test::fuzz
