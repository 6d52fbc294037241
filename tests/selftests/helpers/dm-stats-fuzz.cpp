// SPDX-License-Identifier: GPL-2.0-or-later
//
// dm-stats-fuzz: differential fuzzing of device-mapper statistics engines.
//
//   dm-stats-fuzz gen SEED STEPS > SCRIPT     (host) a seeded script
//   dm-stats-fuzz run < SCRIPT > TRANSCRIPT   (guest) run it
//   dm-stats-fuzz compare [--hz HZ] A B       (host) compare two transcripts
//
// gen: see dm_fuzz_gen.hpp. run: sends each message with the DM_TARGET_MSG
// ioctl and does each I/O with O_DIRECT pread/pwrite, from CPU 0 only (dm-stats
// detects merges per CPU), and prints the transcript (dm_fuzz_transcript.hpp).
// compare: masks the time fields, and prints the first step where A and B
// differ, with both results; exit status 1 then, 0 if they are the same.
// With --hz, the kernel's HZ, it also checks that every time field of a
// jiffies region in A and in B is a value upstream prints at that HZ.
//
// Exit status: 0 on success, 1 on a difference or a failed run, 2 on misuse.

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dm_fuzz_gen.hpp"
#include "dm_fuzz_transcript.hpp"
#include "dm_target_msg.hpp"
#include "fd.hpp"

namespace {

using iotally::detail::FileDescriptor;
namespace fz = iotally_test::fuzz;

bool parse_u64(const char* s, std::uint64_t* v) {
    char* end = nullptr;
    errno = 0;
    *v = std::strtoull(s, &end, 10);
    return !errno && end != s && !*end && s[0] != '-';
}

std::string errno_name(int e) {
    const char* n = strerrorname_np(e);
    return n ? n : "E" + std::to_string(e);
}

int gen(std::uint64_t seed, std::uint64_t steps) {
    fz::Generator g(seed);
    for (std::uint64_t i = 0; i < steps; i++)
        std::cout << g.step() << '\n';
    return 0;
}

// The guest side: one open file per device, an aligned I/O buffer.
class Runner {
  public:
    Runner() : control_(open("/dev/mapper/control", O_RDWR | O_CLOEXEC)) {
        void* p = nullptr;
        if (posix_memalign(&p, 4096, kMaxIo))
            throw std::runtime_error("cannot allocate the I/O buffer");
        buffer_.reset(static_cast<char*>(p));
        std::memset(buffer_.get(), 0x5a, kMaxIo);
        if (!control_)
            throw std::runtime_error(std::string("/dev/mapper/control: ") + std::strerror(errno));
    }

    // Runs one script line and prints its transcript block.
    bool step(std::uint64_t n, const std::string& line) {
        std::cout << '#' << n << ' ' << line << '\n';
        const auto w = fz::split(line);
        if (w.size() >= 3 && w[0] == "M") {
            // The text is everything after "M DEVICE BUFFER ", spaces kept.
            std::size_t pos = 0;
            for (int i = 0; i < 3; i++)
                pos = line.find(' ', pos) + 1;
            std::uint64_t size;
            if (!parse_u64(w[2].c_str(), &size))
                return bad(line);
            const auto r =
                iotally::detail::send_target_message(control_.get(), w[1], line.substr(pos), size);
            std::cout << "= " << (r.error ? errno_name(r.error) : "0") << '\n';
            std::istringstream text(r.reply);
            for (std::string l; std::getline(text, l);)
                std::cout << "> " << l << '\n';
            return true;
        }
        if (w.size() == 4 && (w[0] == "R" || w[0] == "W")) {
            std::uint64_t sector, bytes;
            if (!parse_u64(w[2].c_str(), &sector) || !parse_u64(w[3].c_str(), &bytes) ||
                bytes > kMaxIo)
                return bad(line);
            const int fd = device(w[1]);
            if (fd < 0) {
                std::cout << "= " << errno_name(errno) << '\n';
                return true;
            }
            const auto off = static_cast<off_t>(sector * 512);
            const ssize_t done = w[0] == "R" ? pread(fd, buffer_.get(), bytes, off)
                                             : pwrite(fd, buffer_.get(), bytes, off);
            std::cout << "= " << (done < 0 ? errno_name(errno) : std::to_string(done)) << '\n';
            return true;
        }
        return bad(line);
    }

  private:
    static constexpr std::size_t kMaxIo = 1 << 20;
    struct Free {
        void operator()(char* p) const { std::free(p); }
    };

    static bool bad(const std::string& line) {
        std::cerr << "dm-stats-fuzz: bad script line: " << line << '\n';
        return false;
    }

    int device(const std::string& name) {
        auto it = fds_.find(name);
        if (it == fds_.end()) {
            const std::string path = "/dev/mapper/" + name;
            it = fds_.emplace(name,
                              FileDescriptor(open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC)))
                     .first;
        }
        return it->second.get();
    }

    FileDescriptor control_;
    std::unique_ptr<char, Free> buffer_;
    std::map<std::string, FileDescriptor> fds_;
};

int run() {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
        std::cerr << "dm-stats-fuzz: cannot pin to CPU 0: " << std::strerror(errno) << '\n';
        return 1;
    }
    Runner replay;
    std::uint64_t n = 0;
    for (std::string line; std::getline(std::cin, line);)
        if (!line.empty() && !replay.step(++n, line))
            return 1;
    std::cout.flush();
    return std::cout ? 0 : 1;
}

void show(const char* name, const fz::Step& s) {
    std::cout << name << ":\n";
    for (const auto& l : s.result)
        std::cout << "    " << l << '\n';
}

// Both results in full, then the lines that differ once masked.
void show_difference(const char* a_name, const fz::Step& a, const char* b_name, const fz::Step& b) {
    show(a_name, a);
    show(b_name, b);
    if (!fz::is_print(a))
        return;
    const auto ma = fz::masked(a), mb = fz::masked(b);
    std::cout << "with time fields masked, the lines that differ:\n";
    for (std::size_t i = 0; i < std::max(ma.size(), mb.size()); i++) {
        const std::string la = i < ma.size() ? ma[i] : "(none)",
                          lb = i < mb.size() ? mb[i] : "(none)";
        if (la != lb)
            std::cout << "    " << la << "\n    " << lb << "\n";
    }
}

int compare(const char* a_path, const char* b_path, std::uint64_t hz) {
    std::ifstream a_in(a_path), b_in(b_path);
    if (!a_in || !b_in) {
        std::cerr << "dm-stats-fuzz: cannot read " << (a_in ? b_path : a_path) << '\n';
        return 2;
    }
    const auto a = fz::read_transcript(a_in), b = fz::read_transcript(b_in);
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; i++) {
        if (a[i].header != b[i].header) {
            std::cout << "different scripts at step " << i + 1 << ":\n  " << a[i].header << "\n  "
                      << b[i].header << '\n';
            return 1;
        }
        if (fz::masked(a[i]) != fz::masked(b[i])) {
            std::cout << "first difference at step " << a[i].header << '\n';
            show_difference(a_path, a[i], b_path, b[i]);
            return 1;
        }
    }
    if (a.size() != b.size()) {
        std::cout << "the transcripts have " << a.size() << " and " << b.size() << " steps\n";
        return 1;
    }
    if (hz) {
        for (const auto& [path, t] : {std::pair{a_path, &a}, std::pair{b_path, &b}}) {
            if (const auto bad = fz::time_fields_check(*t, hz)) {
                std::cout << path << ": " << *bad << '\n';
                return 1;
            }
        }
        std::cout << n
                  << " steps, the same with time fields masked, times as upstream's at HZ=" << hz
                  << '\n';
        return 0;
    }
    std::cout << n << " steps, the same with time fields masked\n";
    return 0;
}

int usage() {
    std::cerr << "usage: dm-stats-fuzz gen SEED STEPS | run | compare [--hz HZ] A B\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string cmd = argc > 1 ? argv[1] : "";
        std::uint64_t seed, steps;
        if (cmd == "gen" && argc == 4 && parse_u64(argv[2], &seed) && parse_u64(argv[3], &steps))
            return gen(seed, steps);
        if (cmd == "run" && argc == 2)
            return run();
        if (cmd == "compare" && argc == 4)
            return compare(argv[2], argv[3], 0);
        std::uint64_t hz;
        if (cmd == "compare" && argc == 6 && std::string(argv[2]) == "--hz" &&
            parse_u64(argv[3], &hz) && hz > 0 && hz <= 10000)
            return compare(argv[4], argv[5], hz);
        return usage();
    } catch (const std::exception& e) {
        std::cerr << "dm-stats-fuzz: " << e.what() << '\n';
        return 1;
    }
}
