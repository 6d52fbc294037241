// SPDX-License-Identifier: GPL-2.0-or-later
//
// dm-stats-msg: send many device-mapper messages from one process.
//
//   dm-stats-msg [-q] [-k] [-t] [-b BYTES] DEVICE < MESSAGES
//
// Reads one message per line ("@stats_create 0+8 8", ...) and sends each to
// sector 0 of the mapped device DEVICE with the DM_TARGET_MSG ioctl, the way
// `dmsetup message DEVICE 0 ...` does, but without a process per message
// (one dmsetup process costs about 0.1 s in the test guest).
//
//   -q  do not print replies
//   -k  keep going after a failed message (exit status is still 1)
//   -t  print "MESSAGES N SECONDS S" to stderr: the time spent in the ioctls
//   -b  size of the ioctl buffer to start with (default 16384, as dmsetup);
//       a reply that does not fit is asked for again with twice the size
//
// Each reply is printed on stdout, followed by a newline if it lacks one. A
// failed message prints "dm-stats-msg: MESSAGE: ERROR" on stderr.
// Exit status: 0 if every message succeeded, 1 if one failed, 2 on misuse.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "dm_target_msg.hpp"
#include "fd.hpp"

namespace {

using iotally::detail::FileDescriptor;
using iotally::detail::send_target_message;
using iotally::detail::TargetMessageResult;

int usage() {
    std::cerr << "usage: dm-stats-msg [-q] [-k] [-t] [-b BYTES] DEVICE < MESSAGES\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    bool quiet = false, keep_going = false, timing = false;
    std::size_t buffer = 16384;
    int opt;

    while ((opt = getopt(argc, argv, "qktb:")) != -1) {
        switch (opt) {
            case 'q':
                quiet = true;
                break;
            case 'k':
                keep_going = true;
                break;
            case 't':
                timing = true;
                break;
            case 'b': {
                char* end = nullptr;
                errno = 0;
                const unsigned long v = std::strtoul(optarg, &end, 10);
                if (errno || end == optarg || *end || v < 1 || v > (1UL << 30)) {
                    std::cerr << "dm-stats-msg: bad buffer size '" << optarg << "'\n";
                    return 2;
                }
                buffer = v;
                break;
            }
            default:
                return usage();
        }
    }
    if (optind + 1 != argc)
        return usage();
    const std::string device = argv[optind];
    if (device.empty() || device.size() >= DM_NAME_LEN) {
        std::cerr << "dm-stats-msg: bad device name '" << device << "'\n";
        return 2;
    }

    const FileDescriptor control(open("/dev/mapper/control", O_RDWR | O_CLOEXEC));
    if (!control) {
        std::cerr << "dm-stats-msg: /dev/mapper/control: " << std::strerror(errno) << '\n';
        return 1;
    }

    std::vector<std::string> messages;
    for (std::string line; std::getline(std::cin, line);)
        if (!line.empty())
            messages.push_back(std::move(line));

    int status = 0;
    std::size_t sent = 0;
    std::chrono::steady_clock::duration spent{};
    for (const auto& m : messages) {
        const auto t0 = std::chrono::steady_clock::now();
        const TargetMessageResult r = send_target_message(control.get(), device, m, buffer);
        spent += std::chrono::steady_clock::now() - t0;
        sent++;
        if (r.error) {
            std::cerr << "dm-stats-msg: " << m << ": " << std::strerror(r.error) << '\n';
            status = 1;
            if (!keep_going)
                break;
            continue;
        }
        if (!quiet && !r.reply.empty()) {
            std::cout << r.reply;
            if (r.reply.back() != '\n')
                std::cout << '\n';
        }
    }
    std::cout.flush();
    if (timing)
        std::fprintf(stderr, "MESSAGES %zu SECONDS %.6f\n", sent,
                     std::chrono::duration<double>(spent).count());
    return status;
}
