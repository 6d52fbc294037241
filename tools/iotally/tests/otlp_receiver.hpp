// SPDX-License-Identifier: GPL-2.0-or-later
// A fake OTLP/HTTP receiver on loopback for the tests of the OTLP sender:
// it records every POST (when, path, content type, body) and answers with
// the status `status(n)` gives the n-th request (0-based).
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace iotally::test {

class OtlpReceiver {
  public:
    struct Post {
        std::chrono::steady_clock::time_point at;
        std::string path, content_type, content_encoding, body;
    };
    // port 0: any free port.
    explicit OtlpReceiver(int port = 0, std::function<int(std::size_t)> status = {})
        : status_(std::move(status)) {
        server_.Post(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
            std::lock_guard lock(mutex_);
            const std::size_t n = posts_.size();
            posts_.push_back({std::chrono::steady_clock::now(), req.path,
                              req.get_header_value("Content-Type"),
                              req.get_header_value("Content-Encoding"), req.body});
            res.status = status_ ? status_(n) : 200;
            if (!retry_after.empty() && res.status != 200)
                res.set_header("Retry-After", retry_after);
            res.set_content(answer, "application/x-protobuf");
        });
        port_ = port ? (server_.bind_to_port("127.0.0.1", port) ? port : -1)
                     : server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running())
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ~OtlpReceiver() {
        server_.stop();
        thread_.join();
    }
    OtlpReceiver(const OtlpReceiver&) = delete;
    OtlpReceiver& operator=(const OtlpReceiver&) = delete;
    int port() const { return port_; }
    // Set before the first request: a Retry-After header on every answer
    // that is not 200, and the body of every answer.
    std::string retry_after, answer;
    std::vector<Post> posts() const {
        std::lock_guard lock(mutex_);
        return posts_;
    }
    // The bodies of the requests taken so far, in order.
    std::vector<std::string> bodies() const {
        std::vector<std::string> out;
        for (const Post& p : posts())
            out.push_back(p.body);
        return out;
    }

  private:
    httplib::Server server_;
    std::function<int(std::size_t)> status_;
    mutable std::mutex mutex_;
    std::vector<Post> posts_;
    int port_ = -1;
    std::thread thread_;
};

// Waits up to `seconds` for `done`.
inline bool eventually(const std::function<bool()>& done, double seconds = 20) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace iotally::test
