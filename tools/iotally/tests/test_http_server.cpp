// SPDX-License-Identifier: GPL-2.0-or-later
// The HTTP side of iotally serve, over a real loopback socket: paths,
// content negotiation, gzip, request size, port in use, stop.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <thread>

#include "iotally/exporter/exposition.hpp"
#include "iotally/exporter/http_server.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

std::string gunzip(const std::string& in) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    std::string out(in.size() * 20 + 1024, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    inflateEnd(&z);
    return out;
}

std::string body_for(ExpositionFormat f) {
    ExpositionWriter w(f);
    w.family("iotally_test", MetricType::gauge, "", "A test family.");
    for (int i = 0; i < 50; ++i)
        w.sample(Labels().add("i", std::uint64_t(i)), std::uint64_t(7));
    return w.finish();
}

class Server : public testing::Test {
  protected:
    void SetUp() override {
        ServerOptions o;
        o.port = 0;
        o.max_body = 64;
        server_ = std::make_unique<MetricsServer>(o, [this](ExpositionFormat f) {
            ++scrapes_;
            return body_for(f);
        });
        server_->bind();
        thread_ = std::thread([this] { server_->run(); });
        client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
        client_->set_decompress(false);
    }
    void TearDown() override {
        server_->stop();
        thread_.join();
    }
    std::unique_ptr<MetricsServer> server_;
    std::thread thread_;
    std::unique_ptr<httplib::Client> client_;
    std::atomic<int> scrapes_{0};
};

TEST_F(Server, MetricsNegotiatesTheFormatByAccept) {
    auto r = client_->Get("/metrics", {{"Accept",
                                        "application/openmetrics-text;version=1.0.0,"
                                        "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->get_header_value("Content-Type"),
              "application/openmetrics-text; version=1.0.0; charset=utf-8");
    EXPECT_EQ(r->body, body_for(ExpositionFormat::openmetrics));
    r = client_->Get("/metrics");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(r->body, body_for(ExpositionFormat::prometheus));
    EXPECT_EQ(scrapes_, 2);
}

TEST_F(Server, GzipWhenAskedForOnceOnly) {
    for (const char* accept : {"application/openmetrics-text", "text/plain"}) {
        auto r = client_->Get("/metrics", {{"Accept", accept}, {"Accept-Encoding", "gzip"}});
        ASSERT_TRUE(r);
        EXPECT_EQ(r->get_header_value("Content-Encoding"), "gzip") << accept;
        const ExpositionFormat f = negotiate_format(accept);
        EXPECT_EQ(gunzip(r->body), body_for(f)) << accept;  // compressed once, not twice
        EXPECT_LT(r->body.size(), body_for(f).size());
    }
    for (const char* accept : {"application/openmetrics-text", "text/plain"}) {
        auto r = client_->Get("/metrics", {{"Accept", accept}, {"Accept-Encoding", "identity"}});
        ASSERT_TRUE(r);
        EXPECT_EQ(r->get_header_value("Content-Encoding"), "");
        EXPECT_EQ(r->body, body_for(negotiate_format(accept)));
    }
    // q=0 refuses gzip (for text/plain httplib decides, and it does not
    // read q values: a documented limit).
    auto r = client_->Get("/metrics", {{"Accept", "application/openmetrics-text"},
                                       {"Accept-Encoding", "gzip;q=0, identity"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->get_header_value("Content-Encoding"), "");
}

TEST_F(Server, IndexLinksMetricsAndHealthAnswers) {
    auto r = client_->Get("/");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_NE(r->body.find("<a href=\"/metrics\">"), std::string::npos);
    r = client_->Get("/-/healthy");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "OK\n");
    EXPECT_EQ(scrapes_, 0);
}

TEST_F(Server, NothingElseIsServed) {
    for (const char* path : {"/etc/passwd", "/metrics/x", "/../metrics", "/index.html",
                             "/%2e%2e/etc/passwd", "/-/ready"}) {
        auto r = client_->Get(path);
        ASSERT_TRUE(r) << path;
        EXPECT_EQ(r->status, 404) << path;
    }
    auto r = client_->Post("/metrics", "x", "text/plain");
    ASSERT_TRUE(r);
    EXPECT_NE(r->status, 200);
    EXPECT_EQ(scrapes_, 0);
}

TEST_F(Server, OversizedRequestIsRefused) {
    auto r = client_->Post("/metrics", std::string(4096, 'x'), "text/plain");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
    // A header beyond the library's bound (8 KiB) ends the connection
    // without a scrape.
    auto big = client_->Get("/metrics", {{"X-Big", std::string(20000, 'y')}});
    EXPECT_TRUE(!big || big->status >= 400);
    EXPECT_EQ(scrapes_, 0);
}

TEST(ServerStart, PortInUseIsOneLineError) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ASSERT_EQ(listen(fd, 1), 0);
    socklen_t len = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);
    ServerOptions o;
    o.port = port;
    MetricsServer s(o, [](ExpositionFormat) { return std::string(); });
    try {
        s.bind();
        ADD_FAILURE() << "bind to a port in use succeeded";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  fmt::format("cannot listen on 127.0.0.1:{}: Address already in use", port));
    }
    close(fd);
}

TEST(ServerStart, SecondServerOnTheSamePortFails) {
    // Both with the socket options the exporter uses (no SO_REUSEPORT
    // sharing of one port between two exporters).
    ServerOptions o;
    o.port = 0;
    MetricsServer first(o, [](ExpositionFormat) { return std::string(); });
    first.bind();
    o.port = first.port();
    MetricsServer second(o, [](ExpositionFormat) { return std::string(); });
    try {
        second.bind();
        ADD_FAILURE() << "a second server bound port " << o.port;
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  fmt::format("cannot listen on 127.0.0.1:{}: Address already in use", o.port));
    }
}

TEST(ServerStart, UnusableAddressIsOneLineError) {
    ServerOptions o;
    o.address = "192.0.2.1";  // TEST-NET-1: not an address of this host
    o.port = 9;
    MetricsServer s(o, [](ExpositionFormat) { return std::string(); });
    EXPECT_THROW(s.bind(), Error);
}

TEST(AcceptEncoding, Gzip) {
    EXPECT_TRUE(accepts_gzip("gzip"));
    EXPECT_TRUE(accepts_gzip("br, GZIP;q=0.5"));
    EXPECT_FALSE(accepts_gzip(""));
    EXPECT_FALSE(accepts_gzip("identity"));
    EXPECT_FALSE(accepts_gzip("gzip;q=0"));
    EXPECT_FALSE(accepts_gzip("gzipx"));
}

}  // namespace
}  // namespace iotally
