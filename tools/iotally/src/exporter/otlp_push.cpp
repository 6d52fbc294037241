// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/otlp_push.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>

#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/http_server.hpp"
#include "iotally/exporter/otlp_request.hpp"
#include "iotally/util/error.hpp"

namespace iotally {

OtlpEndpoint parse_otlp_url(const std::string& url) {
    auto bad = [&](std::string_view why) {
        return Error(ErrorKind::usage, fmt::format("--otlp '{}': {}", url, why));
    };
    const std::size_t colon = url.find("://");
    if (colon == std::string::npos)
        throw bad("expected http://HOST[:PORT][/PATH] or https://...");
    const std::string scheme = url.substr(0, colon);
    if (scheme != "http" && scheme != "https")
        throw bad("the scheme must be http or https");
    const std::size_t slash = url.find('/', colon + 3);
    OtlpEndpoint e;
    e.scheme_host_port = url.substr(0, slash);
    e.path = slash == std::string::npos ? "/v1/metrics" : url.substr(slash);
    const std::string host = e.scheme_host_port.substr(colon + 3);
    if (host.empty() || host.front() == ':' || host.find_first_of("@?# ") != std::string::npos)
        throw bad("no host");
    if (const std::size_t p = host.rfind(':'); p != std::string::npos && host.back() != ']') {
        const std::string port = host.substr(p + 1);
        if (port.empty() || port.size() > 5 ||
            port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
            std::stoi(port) > 65535)
            throw bad("bad port");
    }
    return e;
}

OtlpPusher::OtlpPusher(OtlpPushOptions options)
    : options_(std::move(options)), endpoint_(parse_otlp_url(options_.url)) {
    if (options_.queue_max == 0)
        throw Error(ErrorKind::usage, "the OTLP queue needs room for one request");
    thread_ = std::thread([this] { run(); });
}

OtlpPusher::~OtlpPusher() {
    stop();
}

void OtlpPusher::stop() {
    {
        std::lock_guard lock(mutex_);
        if (!stopping_) {
            stopping_ = true;
            drain_until_ = std::chrono::steady_clock::now() + options_.drain;
        }
    }
    wake_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void OtlpPusher::submit(std::string body) {
    if (options_.gzip)
        body = gzip_compress(body);
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            ++counters_.dropped;
            return;
        }
        if (queue_.size() >= options_.queue_max) {
            // The oldest goes: a newer cumulative request carries its counts.
            queue_.pop_front();
            ++counters_.dropped;
        }
        queue_.emplace_back(++submitted_, std::move(body));
        counters_.queued = queue_.size();
    }
    wake_.notify_all();
}

OtlpCounters OtlpPusher::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

namespace {

// httplib's error names, in words.
std::string describe(httplib::Error e) {
    switch (e) {
        case httplib::Error::Connection:
            return "cannot connect";
        case httplib::Error::ConnectionTimeout:
            return "connection timed out";
        case httplib::Error::Read:
            return "no answer (read failed or timed out)";
        case httplib::Error::Write:
            return "cannot send the request";
        case httplib::Error::SSLConnection:
            return "TLS handshake failed";
        case httplib::Error::SSLLoadingCerts:
            return "cannot load the CA certificates";
        case httplib::Error::SSLServerVerification:
            return "the server's certificate is not trusted";
        default:
            return httplib::to_string(e);
    }
}

// The start of a receiver's answer, printable: OTLP receivers may answer in
// protobuf (google.rpc.Status).
std::string printable(const std::string& body) {
    std::string out;
    for (char c : body.substr(0, 200))
        out += c >= 0x20 && c < 0x7f ? c : ' ';
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

}  // namespace

// One POST. `retry`: whether the failure may pass (OTLP/HTTP: 429, 502,
// 503, 504 and no answer at all) or the request is refused for good;
// `retry_after`: the receiver's Retry-After in seconds, 0 if none.
bool OtlpPusher::post(const std::string& body, std::string& why, bool& retry,
                      std::chrono::seconds& retry_after) {
    httplib::Client client(endpoint_.scheme_host_port);
    const auto t = options_.timeout;
    client.set_connection_timeout(t);
    client.set_read_timeout(t);
    client.set_write_timeout(t);
    client.set_keep_alive(false);
    httplib::Headers headers;
    if (options_.gzip)
        headers.emplace("Content-Encoding", "gzip");
    auto res = client.Post(endpoint_.path, headers, body, std::string(otlp_content_type).c_str());
    if (!res) {
        why = describe(res.error());
        retry = true;
        return false;
    }
    if (res->status >= 200 && res->status < 300)
        return true;
    const std::string text = printable(res->body);
    why = fmt::format("HTTP {}{}{}", res->status, text.empty() ? "" : ": ", text);
    retry = res->status == 429 || res->status == 502 || res->status == 503 || res->status == 504;
    // Retry-After in seconds (the HTTP-date form is not taken).
    const std::string after = res->get_header_value("Retry-After");
    if (retry && !after.empty() && after.size() <= 6 &&
        after.find_first_not_of("0123456789") == std::string::npos)
        retry_after = std::chrono::seconds(std::stol(after));
    return false;
}

void OtlpPusher::run() {
    using clock = std::chrono::steady_clock;
    auto backoff = options_.backoff_initial;
    auto next = clock::now();
    bool failing = false;
    std::uint64_t failures = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
        const auto now = clock::now();
        if (stopping_ && (queue_.empty() || now >= drain_until_))
            break;
        if (queue_.empty()) {
            wake_.wait(lock);
            continue;  // whatever woke it, look again
        }
        if (now < next) {
            wake_.wait_until(lock, stopping_ ? std::min(next, drain_until_) : next);
            continue;
        }
        const auto [id, body] = queue_.front();  // a copy: submit() may drop the front
        lock.unlock();
        std::string why;
        bool retry = false;
        std::chrono::seconds retry_after{0};
        const bool ok = post(body, why, retry, retry_after);
        lock.lock();
        if (ok || !retry) {
            if (!queue_.empty() && queue_.front().first == id)
                queue_.pop_front();
            ++(ok ? counters_.sent : counters_.dropped);
            if (!ok)
                ++counters_.failed;
        } else {
            ++counters_.failed;
        }
        counters_.queued = queue_.size();
        std::string note;
        if (ok) {
            if (failing)
                note = fmt::format("OTLP push to {}: delivered again after {} failed attempt{}",
                                   options_.url, failures, failures == 1 ? "" : "s");
            failing = false;
            failures = 0;
            backoff = options_.backoff_initial;
            next = clock::now();
        } else {
            if (!failing)
                note = fmt::format(
                    "OTLP push to {} failed: {}{}", options_.url, why,
                    retry ? "; retrying with back-off, queueing meanwhile" : "; request dropped");
            failing = true;
            ++failures;
            // The receiver's Retry-After when it is longer than the back-off
            // (capped by the back-off's own limit).
            auto wait = retry ? backoff : decltype(backoff){};
            if (retry_after > wait)
                wait = std::min<decltype(backoff)>(retry_after, options_.backoff_max);
            next = clock::now() + wait;
            if (retry)
                backoff = std::min(backoff * 2, options_.backoff_max);
        }
        if (!note.empty() && options_.on_state) {
            lock.unlock();
            options_.on_state(note);
            lock.lock();
        }
    }
    if (!queue_.empty()) {
        const auto n = queue_.size();
        counters_.dropped += n;
        queue_.clear();
        counters_.queued = 0;
        if (options_.on_state) {
            lock.unlock();
            options_.on_state(fmt::format("OTLP push to {}: {} request{} not sent at stop",
                                          options_.url, n, n == 1 ? "" : "s"));
        }
    }
}

PeriodicTask::PeriodicTask(double seconds, std::function<void()> task) {
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
    thread_ = std::thread([this, period, task = std::move(task)] {
        auto next = std::chrono::steady_clock::now();
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            lock.unlock();
            task();
            lock.lock();
            // On time; after a call that overran its period, one period
            // from now: the missed calls are skipped, not made back to back.
            next += period;
            if (const auto now = std::chrono::steady_clock::now(); next < now)
                next = now + period;
            wake_.wait_until(lock, next, [&] { return stopping_; });
        }
    });
}

PeriodicTask::~PeriodicTask() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

namespace {

class OtlpCollector final : public Collector {
  public:
    explicit OtlpCollector(std::shared_ptr<const OtlpPusher> p) : pusher_(std::move(p)) {}
    void check() override {}
    std::uint64_t collect(ExpositionWriter& w) override {
        const OtlpCounters c = pusher_->counters();
        w.family("iotally_otlp_requests_sent", MetricType::counter, "",
                 "OTLP requests the receiver accepted.");
        w.sample(Labels(), c.sent);
        w.family("iotally_otlp_requests_failed", MetricType::counter, "",
                 "OTLP push attempts that failed (no answer, or an error status); each retry "
                 "counts.");
        w.sample(Labels(), c.failed);
        w.family("iotally_otlp_requests_dropped", MetricType::counter, "",
                 "OTLP requests given up: the queue was full, the receiver refused them for "
                 "good, or they were still queued at stop.");
        w.sample(Labels(), c.dropped);
        w.family("iotally_otlp_queue_length", MetricType::gauge, "",
                 "OTLP requests waiting to be sent.");
        w.sample(Labels(), c.queued);
        return 0;
    }

  private:
    std::shared_ptr<const OtlpPusher> pusher_;
};

}  // namespace

std::unique_ptr<Collector> make_otlp_collector(std::shared_ptr<const OtlpPusher> pusher) {
    return std::make_unique<OtlpCollector>(std::move(pusher));
}

}  // namespace iotally
