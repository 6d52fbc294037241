// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/http_server.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <zlib.h>

#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "iotally/util/error.hpp"

namespace iotally {

bool accepts_gzip(std::string_view header) {
    while (!header.empty()) {
        std::size_t comma = header.find(',');
        std::string_view part = header.substr(0, comma);
        header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
        std::size_t semi = part.find(';');
        std::string_view coding = part.substr(0, semi);
        while (!coding.empty() && coding.front() == ' ')
            coding.remove_prefix(1);
        while (!coding.empty() && coding.back() == ' ')
            coding.remove_suffix(1);
        std::string lower(coding);
        for (auto& c : lower)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower != "gzip" && lower != "x-gzip")
            continue;
        // "gzip;q=0" refuses it.
        if (semi != std::string_view::npos) {
            std::string_view params = part.substr(semi + 1);
            std::size_t q = params.find("q=");
            if (q != std::string_view::npos) {
                std::string v(params.substr(q + 2));
                if (std::strtod(v.c_str(), nullptr) <= 0)
                    return false;
            }
        }
        return true;
    }
    return false;
}

std::string gzip_compress(std::string_view data) {
    z_stream z{};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw Error(ErrorKind::failed, "gzip: deflateInit2 failed");
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw Error(ErrorKind::failed, "gzip: deflate failed");
    return out;
}

namespace {

// What httplib::TaskQueue::enqueue returns: nothing in cpp-httplib 0.11
// (Debian 12), whether the task was taken in 0.18 (Debian 13).
using EnqueueResult =
    decltype(std::declval<httplib::TaskQueue&>().enqueue(std::function<void()>()));

template <typename Result>
Result taken() {
    if constexpr (std::is_void_v<Result>)
        return;
    else
        return true;
}

// A fixed number of workers and a bounded queue: when the queue is full the
// accepting thread waits, so further connections wait in the kernel's
// listen backlog instead of costing a thread or memory each.
class BoundedPool final : public httplib::TaskQueue {
  public:
    BoundedPool(std::size_t threads, std::size_t queue) : limit_(queue ? queue : 1) {
        for (std::size_t i = 0; i < (threads ? threads : 1); ++i)
            workers_.emplace_back([this] { work(); });
    }
    ~BoundedPool() override { shutdown(); }

    EnqueueResult enqueue(std::function<void()> fn) override {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return jobs_.size() < limit_ || stopping_; });
        jobs_.push_back(std::move(fn));
        ready_.notify_one();
        return taken<EnqueueResult>();
    }

    void shutdown() override {
        {
            std::lock_guard lock(mutex_);
            if (stopping_ && workers_.empty())
                return;
            stopping_ = true;
        }
        ready_.notify_all();
        room_.notify_all();
        for (auto& t : workers_)
            if (t.joinable())
                t.join();
        workers_.clear();
    }

  private:
    void work() {
        for (;;) {
            std::function<void()> fn;
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return !jobs_.empty() || stopping_; });
                if (jobs_.empty())
                    return;  // stopping, and every accepted connection served
                fn = std::move(jobs_.front());
                jobs_.pop_front();
                room_.notify_one();
            }
            fn();
        }
    }
    std::size_t limit_;
    std::vector<std::thread> workers_;
    std::deque<std::function<void()>> jobs_;
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    bool stopping_ = false;
};

constexpr const char* index_page =
    "<!DOCTYPE html>\n<html><head><title>iotally exporter</title></head><body>\n"
    "<h1>iotally exporter</h1>\n"
    "<p>dm-stats regions, latency histograms and I/O counters for Prometheus.</p>\n"
    "<p><a href=\"/metrics\">/metrics</a></p>\n</body></html>\n";

}  // namespace

struct MetricsServer::Impl {
    httplib::Server server;
};

MetricsServer::MetricsServer(ServerOptions options, ScrapeFn scrape)
    : impl_(std::make_unique<Impl>()), options_(std::move(options)) {
    auto& s = impl_->server;
    const std::size_t threads = options_.threads, queue = options_.queue;
    // httplib takes ownership of the queue it gets and deletes it.
    s.new_task_queue = [threads, queue]() -> httplib::TaskQueue* {
        return std::make_unique<BoundedPool>(threads, queue).release();
    };
    // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a
    // second exporter would bind the same port and share the scrapes
    // silently instead of failing.
    s.set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    s.set_payload_max_length(options_.max_body);
    s.set_read_timeout(options_.read_timeout_s, 0);
    s.set_write_timeout(options_.read_timeout_s, 0);
    s.set_keep_alive_max_count(16);

    s.Get("/metrics", [scrape = std::move(scrape)](const httplib::Request& req,
                                                   httplib::Response& res) {
        const ExpositionFormat f = negotiate_format(req.get_header_value("Accept"));
        std::string body = scrape(f);
        const std::string type(content_type(f));
        // httplib compresses text/* bodies itself (gzip, or brotli when the
        // client offers "br"); other types are compressed here.
        if (!type.starts_with("text/") && accepts_gzip(req.get_header_value("Accept-Encoding"))) {
            res.set_header("Content-Encoding", "gzip");
            body = gzip_compress(body);
        }
        res.set_header("Vary", "Accept, Accept-Encoding");
        res.set_content(std::move(body), type.c_str());
    });
    s.Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(index_page, "text/html; charset=utf-8");
    });
    s.Get("/-/healthy", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("OK\n", "text/plain; charset=utf-8");
    });
    s.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "internal error";
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            res.status = 500;
            res.set_content(what + "\n", "text/plain; charset=utf-8");
        });
}

MetricsServer::~MetricsServer() {
    stop();
}

void MetricsServer::bind() {
    errno = 0;
    int port = options_.port;
    bool ok = false;
    if (port == 0) {
        port = impl_->server.bind_to_any_port(options_.address);
        ok = port > 0;
    } else {
        ok = impl_->server.bind_to_port(options_.address, port);
    }
    if (!ok) {
        int err = errno;
        throw Error(err == EACCES ? ErrorKind::permission : ErrorKind::failed,
                    fmt::format("cannot listen on {}:{}: {}", options_.address, options_.port,
                                err ? std::strerror(err) : "address not usable"));
    }
    port_ = port;
}

bool MetricsServer::run() {
    return impl_->server.listen_after_bind();
}

void MetricsServer::stop() {
    if (impl_ && impl_->server.is_running())
        impl_->server.stop();
}

}  // namespace iotally
