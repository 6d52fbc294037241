// SPDX-License-Identifier: GPL-2.0-or-later
//
// ioab: the IOPS cost of a kernel switch, measured with the switch flipped
// many times inside one run, so that a noisy host (a TCG guest shares its
// host's CPUs) slows both sides alike.
//
//   ioab DEVICE SWITCH SLICE_MS PAIRS [THREADS]
//
// THREADS (default 2) threads read 4 KiB blocks at random offsets of DEVICE
// with O_DIRECT pread(), as fio --rw=randread --ioengine=psync --direct=1
// does, for the whole run. Meanwhile the main thread writes 1 and 0 to the
// sysfs file SWITCH in PAIRS pairs of slices of SLICE_MS ms each, in the
// order on-off, off-on, on-off, ... (A-B-B-A), and counts the reads that
// complete in each slice. After each write it lets GUARD_MS ms pass before
// the slice starts, so the cost of flipping (a static key rewrites code on
// every CPU) lands in no slice. SWITCH is left as it was found.
//
// Prints one line:
//
//   pairs N on_iops X off_iops Y ratio R paired P
//
// R is the IOPS with the switch on over the IOPS with it off, over all
// slices; P is the median over pairs of the same ratio within a pair.
// Exit status: 0 on success, 1 when an I/O or the switch fails (the message
// says which), 2 on misuse.

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "fd.hpp"

namespace {

using iotally::detail::FileDescriptor;

using Clock = std::chrono::steady_clock;
constexpr std::size_t block_size = 4096;
constexpr auto guard = std::chrono::milliseconds(20);

struct AlignedFree {
    void operator()(void* p) const { std::free(p); }
};

// One reader's count, alone on its cache line so readers do not share one.
struct alignas(64) Counter {
    std::atomic<std::uint64_t> reads{0};
};

struct Shared {
    std::string device;
    std::uint64_t blocks = 0;
    std::atomic<bool> stop{false};
    std::atomic<int> error{0};
};

template <typename T>
bool parse_number(std::string_view s, T& out, T min, T max) {
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && p == end && out >= min && out <= max;
}

// Reads random blocks until told to stop; the first error stops everyone.
void reader(Shared& shared, Counter& counter, unsigned int seed) {
    FileDescriptor fd(open(shared.device.c_str(), O_RDONLY | O_DIRECT));
    std::unique_ptr<void, AlignedFree> buf(std::aligned_alloc(block_size, block_size));
    // xorshift64: cheap, and good enough to spread offsets over the device.
    std::uint64_t x = 0x9e3779b97f4a7c15ULL ^ (seed + 1) * 0xbf58476d1ce4e5b9ULL;

    if (fd.get() < 0 || !buf) {
        shared.error.store(fd.get() < 0 ? errno : ENOMEM);
        shared.stop.store(true);
        return;
    }
    while (!shared.stop.load(std::memory_order_relaxed)) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        off_t off = static_cast<off_t>(x % shared.blocks * block_size);
        if (pread(fd.get(), buf.get(), block_size, off) != static_cast<ssize_t>(block_size)) {
            shared.error.store(errno ? errno : EIO);
            shared.stop.store(true);
            return;
        }
        counter.reads.fetch_add(1, std::memory_order_relaxed);
    }
}

bool write_switch(const std::string& path, const char* value) {
    std::ofstream f(path);
    f << value << std::flush;
    return static_cast<bool>(f);
}

std::uint64_t total(const std::vector<Counter>& counters) {
    std::uint64_t sum = 0;
    for (const auto& c : counters)
        sum += c.reads.load(std::memory_order_relaxed);
    return sum;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned int slice_ms = 0, pairs = 0, threads = 2;

    if (argc < 5 || argc > 6 || !parse_number<unsigned int>(argv[3], slice_ms, 10, 60000) ||
        !parse_number<unsigned int>(argv[4], pairs, 1, 100000) ||
        (argc == 6 && !parse_number<unsigned int>(argv[5], threads, 1, 64))) {
        std::fprintf(stderr, "usage: ioab DEVICE SWITCH SLICE_MS PAIRS [THREADS]\n");
        return 2;
    }
    Shared shared;
    shared.device = argv[1];
    const std::string switch_path = argv[2];

    {
        FileDescriptor fd(open(argv[1], O_RDONLY));
        std::uint64_t bytes = 0;
        if (fd.get() < 0 || ioctl(fd.get(), BLKGETSIZE64, &bytes) < 0 || bytes < block_size) {
            std::fprintf(stderr, "ioab: %s: not a readable block device (%s)\n", argv[1],
                         std::strerror(errno));
            return 1;
        }
        shared.blocks = bytes / block_size;
    }
    std::string was;
    if (!std::getline(std::ifstream(switch_path), was)) {
        std::fprintf(stderr, "ioab: cannot read %s\n", switch_path.c_str());
        return 1;
    }
    const char* restore = (was == "Y" || was == "1") ? "1" : "0";

    std::vector<Counter> counters(threads);
    std::vector<std::jthread> readers;
    for (unsigned int i = 0; i < threads; i++)
        readers.emplace_back(reader, std::ref(shared), std::ref(counters[i]), i);

    // [0] off, [1] on: reads and seconds over all slices; ratios per pair.
    std::uint64_t reads[2] = {0, 0};
    double seconds[2] = {0, 0};
    std::vector<double> ratios;
    const char* failed = nullptr;

    for (unsigned int p = 0; p < pairs && !failed && !shared.stop.load(); p++) {
        double iops[2] = {0, 0};
        for (int half = 0; half < 2; half++) {
            const int on = (p % 2 == 0) == (half == 0);
            if (!write_switch(switch_path, on ? "1" : "0")) {
                failed = "write the switch";
                break;
            }
            std::this_thread::sleep_for(guard);
            const auto t0 = Clock::now();
            const std::uint64_t r0 = total(counters);
            std::this_thread::sleep_for(std::chrono::milliseconds(slice_ms));
            const std::uint64_t r1 = total(counters);
            const double s = std::chrono::duration<double>(Clock::now() - t0).count();
            reads[on] += r1 - r0;
            seconds[on] += s;
            iops[on] = static_cast<double>(r1 - r0) / s;
        }
        if (!failed && iops[0] > 0)
            ratios.push_back(iops[1] / iops[0]);
    }
    shared.stop.store(true);
    readers.clear();
    const bool restored = write_switch(switch_path, restore);

    if (failed || !restored) {
        std::fprintf(stderr, "ioab: cannot %s %s\n", failed ? failed : "restore",
                     switch_path.c_str());
        return 1;
    }
    if (int e = shared.error.load()) {
        std::fprintf(stderr, "ioab: reading %s: %s\n", argv[1], std::strerror(e));
        return 1;
    }
    if (ratios.empty() || seconds[0] <= 0 || seconds[1] <= 0 || reads[0] == 0) {
        std::fprintf(stderr, "ioab: no reads completed\n");
        return 1;
    }
    std::sort(ratios.begin(), ratios.end());
    const std::size_t n = ratios.size();
    const double paired = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
    const double on_iops = static_cast<double>(reads[1]) / seconds[1];
    const double off_iops = static_cast<double>(reads[0]) / seconds[0];
    std::printf("pairs %zu on_iops %.0f off_iops %.0f ratio %.4f paired %.4f\n", n, on_iops,
                off_iops, on_iops / off_iops, paired);
    return 0;
}
