// SPDX-License-Identifier: GPL-2.0-or-later
// The sender of `iotally serve --otlp URL`: OTLP/HTTP requests
// (otlp_request.hpp) POSTed from a thread of its own through a bounded
// queue, so that a receiver that is down or slow never blocks a scrape.
// A failed request is retried with exponential back-off; when the queue is
// full the oldest request is dropped. Everything is counted and exported as
// the iotally_otlp_* families (make_otlp_collector).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace iotally {

struct OtlpPushOptions {
    std::string url;  // http:// or https://; an empty path means /v1/metrics
    std::size_t queue_max = 16;
    bool gzip = false;  // Content-Encoding: gzip (compressed by submit())
    std::chrono::milliseconds backoff_initial{1000}, backoff_max{60000};
    std::chrono::milliseconds timeout{10000};  // connect, and each read or write
    // At stop: how long the requests still queued may take to be sent.
    std::chrono::milliseconds drain{5000};
    // A push that fails after one that worked (or the first one), and the
    // first that works again after failures: one line each, no flood.
    std::function<void(const std::string&)> on_state;
};

struct OtlpCounters {
    std::uint64_t sent = 0;     // requests the receiver accepted (2xx)
    std::uint64_t failed = 0;   // attempts that failed (each retry counts)
    std::uint64_t dropped = 0;  // requests given up: queue full, refused for good, left at stop
    std::uint64_t queued = 0;   // requests waiting now
};

// Where to POST: checked at construction (Error(usage) for a bad URL).
struct OtlpEndpoint {
    std::string scheme_host_port, path;
};
OtlpEndpoint parse_otlp_url(const std::string& url);

class OtlpPusher {
  public:
    explicit OtlpPusher(OtlpPushOptions options);
    ~OtlpPusher();  // stop()
    OtlpPusher(const OtlpPusher&) = delete;
    OtlpPusher& operator=(const OtlpPusher&) = delete;

    // Queues a request body (gzip-compressed first with options.gzip, on
    // the caller's thread); never waits for the network.
    void submit(std::string body);
    OtlpCounters counters() const;
    // Sends what is queued for at most options.drain, then ends the thread;
    // what is left is dropped. Idempotent.
    void stop();

  private:
    void run();
    bool post(const std::string& body, std::string& why, bool& retry,
              std::chrono::seconds& retry_after);
    OtlpPushOptions options_;
    OtlpEndpoint endpoint_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::pair<std::uint64_t, std::string>> queue_;  // (id, body)
    std::uint64_t submitted_ = 0;
    OtlpCounters counters_;
    bool stopping_ = false;
    std::chrono::steady_clock::time_point drain_until_;
    std::thread thread_;  // last: starts after everything above exists
};

// Calls `task` now and then every `seconds` from a thread of its own until
// destroyed (the destructor waits for a call under way).
class PeriodicTask {
  public:
    PeriodicTask(double seconds, std::function<void()> task);
    ~PeriodicTask();
    PeriodicTask(const PeriodicTask&) = delete;
    PeriodicTask& operator=(const PeriodicTask&) = delete;

  private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

class Collector;
// The iotally_otlp_* families of a pusher, for Exporter::add_collector.
std::unique_ptr<Collector> make_otlp_collector(std::shared_ptr<const OtlpPusher> pusher);

}  // namespace iotally
