// SPDX-License-Identifier: GPL-2.0-or-later
// The HTTP side of `iotally serve` (cpp-httplib): GET /metrics, / and
// /-/healthy, nothing else; bounded request size, worker threads and queue.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "iotally/exporter/exposition.hpp"

namespace iotally {

inline constexpr int default_serve_port = 9863;

struct ServerOptions {
    std::string address = "127.0.0.1";
    int port = default_serve_port;  // 0: any free port (tests)
    std::size_t threads = 2;        // requests served at once
    std::size_t queue = 8;          // accepted connections waiting for a thread
    std::size_t max_body = 1024;    // bytes; a request carrying more gets 413
    int read_timeout_s = 5;
};

// Whether an Accept-Encoding header asks for gzip (q > 0).
bool accepts_gzip(std::string_view accept_encoding);
// RFC 1952 gzip of `data` (zlib).
std::string gzip_compress(std::string_view data);

class MetricsServer {
  public:
    using ScrapeFn = std::function<std::string(ExpositionFormat)>;
    MetricsServer(ServerOptions options, ScrapeFn scrape);
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    // Binds the address; throws Error with one line ("cannot listen on
    // 127.0.0.1:9863: Address already in use") when it cannot.
    void bind();
    int port() const { return port_; }
    // Serves until stop(); returns false if the listening loop failed.
    bool run();
    // Safe from another thread (the signal thread of `iotally serve`).
    void stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    ServerOptions options_;
    int port_ = 0;
};

}  // namespace iotally
