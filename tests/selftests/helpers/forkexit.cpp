// SPDX-License-Identifier: GPL-2.0-or-later
//
// forkexit: measure how fast tasks can be created and reaped.
//
//   forkexit SECONDS
//
// Forks a child that exits at once, waits for it, and repeats until SECONDS
// (a positive decimal, e.g. 2 or 0.5) have passed on the monotonic clock.
// Every exit goes through taskstats_exit(), so the rate shows what an exit
// listener (`iotally tasks -m`) costs each exiting task. Prints one line:
//
//   forks N seconds S rate R
//
// with R in tasks per second. Exit status: 0 on success, 1 when a fork or a
// wait fails (the message says which), 2 on misuse.

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <system_error>

namespace {

using Clock = std::chrono::steady_clock;

// Parses a positive number of seconds; false on anything else.
bool parse_seconds(std::string_view s, double& out) {
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && p == end && out > 0 && out <= 3600;
}

// One child: fork, the child exits with status 0, the parent reaps it.
// Returns 0 or the errno of what failed, with *what naming it.
int one_task(const char** what) {
    pid_t pid = fork();

    if (pid < 0) {
        *what = "fork";
        return errno;
    }
    if (pid == 0)
        _exit(0);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            *what = "waitpid";
            return errno;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        *what = "child exit status";
        return ECHILD;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 0;

    if (argc != 2 || !parse_seconds(argv[1], seconds)) {
        std::fprintf(stderr, "usage: forkexit SECONDS (0 < SECONDS <= 3600)\n");
        return 2;
    }
    const auto limit = std::chrono::duration<double>(seconds);
    const auto start = Clock::now();
    long forks = 0;
    std::chrono::duration<double> elapsed{};
    do {
        const char* what = "";
        int err = one_task(&what);
        if (err) {
            std::fprintf(stderr, "forkexit: %s: %s\n", what, std::strerror(err));
            return 1;
        }
        forks++;
        elapsed = Clock::now() - start;
    } while (elapsed < limit);
    std::printf("forks %ld seconds %.3f rate %.1f\n", forks, elapsed.count(),
                static_cast<double>(forks) / elapsed.count());
    return 0;
}
