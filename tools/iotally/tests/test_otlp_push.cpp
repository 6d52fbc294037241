// SPDX-License-Identifier: GPL-2.0-or-later
// The OTLP sender: back-off, the bounded queue, refusals, stop, and
// `iotally serve --otlp` against a fake receiver on loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "cli_fixture.hpp"
#include "fake_dm.hpp"
#include "iotally/dm-stats/stats_client.hpp"
#include "iotally/exporter/exporter.hpp"
#include "iotally/exporter/otlp_push.hpp"
#include "iotally/util/error.hpp"
#include "otlp_receiver.hpp"
#include "protobuf_decoder.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

using namespace std::chrono_literals;
using test::eventually;
using test::OtlpReceiver;

std::string url(int port) {
    return "http://127.0.0.1:" + std::to_string(port) + "/v1/metrics";
}

// A port nobody listens on now (taken from the kernel, then let go).
int free_port() {
    OtlpReceiver r;
    return r.port();
}

OtlpPushOptions quick(int port) {
    OtlpPushOptions o;
    o.url = url(port);
    o.backoff_initial = 50ms;
    o.backoff_max = 200ms;
    o.timeout = 2s;
    o.drain = 1s;
    return o;
}

TEST(OtlpPush, UrlsAreChecked) {
    EXPECT_EQ(parse_otlp_url("http://127.0.0.1:4318").path, "/v1/metrics");
    EXPECT_EQ(parse_otlp_url("http://127.0.0.1:4318").scheme_host_port, "http://127.0.0.1:4318");
    EXPECT_EQ(parse_otlp_url("https://collector/api/v1/otlp/v1/metrics").path,
              "/api/v1/otlp/v1/metrics");
    EXPECT_EQ(parse_otlp_url("http://[::1]:4318/x").scheme_host_port, "http://[::1]:4318");
    for (const char* bad : {"127.0.0.1:4318", "ftp://h/x", "http://", "http://:80/x",
                            "http://h:0/x", "http://h:99999/x", "http://h:port/x"})
        EXPECT_THROW(parse_otlp_url(bad), Error) << bad;
}

TEST(OtlpPush, RetriesWithExponentialBackOffUntilAccepted) {
    // 503 (the receiver is unavailable: retry) four times, then 200.
    OtlpReceiver r(0, [](std::size_t n) { return n < 4 ? 503 : 200; });
    std::vector<std::string> notes;
    std::mutex m;
    OtlpPushOptions o = quick(r.port());
    o.on_state = [&](const std::string& s) {
        std::lock_guard lock(m);
        notes.push_back(s);
    };
    OtlpPusher p(o);
    p.submit("request-1");
    ASSERT_TRUE(eventually([&] { return p.counters().sent == 1; }));
    OtlpCounters c = p.counters();
    EXPECT_EQ(c.failed, 4u);
    EXPECT_EQ(c.dropped, 0u);
    EXPECT_EQ(c.queued, 0u);
    auto posts = r.posts();
    ASSERT_EQ(posts.size(), 5u);
    for (const auto& post : posts) {
        EXPECT_EQ(post.body, "request-1");
        EXPECT_EQ(post.path, "/v1/metrics");
        EXPECT_EQ(post.content_type, "application/x-protobuf");
    }
    // The waits double from 50 ms and stop at 200 ms (at least that long:
    // the machine may make them longer, never shorter).
    const std::chrono::milliseconds want[] = {50ms, 100ms, 200ms, 200ms};
    for (std::size_t i = 1; i < posts.size(); ++i)
        EXPECT_GE(posts[i].at - posts[i - 1].at, want[i - 1] - 2ms) << "retry " << i;
    p.stop();
    ASSERT_EQ(notes.size(), 2u);  // one line when it fails, one when it works again
    EXPECT_EQ(notes[0], "OTLP push to " + o.url +
                            " failed: HTTP 503; retrying with back-off, queueing meanwhile");
    EXPECT_EQ(notes[1], "OTLP push to " + o.url + ": delivered again after 4 failed attempts");
}

TEST(OtlpPush, BoundedQueueDropsTheOldestWhileRefusedThenSendsTheRest) {
    const int port = free_port();
    OtlpPushOptions o = quick(port);
    o.queue_max = 3;
    OtlpPusher p(o);
    for (int i = 1; i <= 5; ++i)
        p.submit("r" + std::to_string(i));
    // Nobody listens: r1 and r2 made room for r4 and r5, whatever the
    // sender did meanwhile; the queue never holds more than 3.
    OtlpCounters c = p.counters();
    EXPECT_EQ(c.dropped, 2u);
    EXPECT_EQ(c.queued, 3u);
    EXPECT_EQ(c.sent, 0u);
    ASSERT_TRUE(eventually([&] { return p.counters().failed >= 2; }));
    // The receiver comes up on that port: the three are sent, in order.
    OtlpReceiver r(port);
    ASSERT_EQ(r.port(), port);
    ASSERT_TRUE(eventually([&] { return p.counters().sent == 3; }));
    c = p.counters();
    EXPECT_EQ(c.queued, 0u);
    EXPECT_EQ(c.dropped, 2u);
    EXPECT_EQ(r.bodies(), (std::vector<std::string>{"r3", "r4", "r5"}));
}

TEST(OtlpPush, RetryAfterIsHonouredWhenLongerThanTheBackOff) {
    OtlpReceiver r(0, [](std::size_t n) { return n == 0 ? 429 : 200; });
    r.retry_after = "1";
    OtlpPusher p(quick(r.port()));  // back-off from 50 ms, at most 200 ms
    p.submit("x");
    ASSERT_TRUE(eventually([&] { return p.counters().sent == 1; }));
    auto posts = r.posts();
    ASSERT_EQ(posts.size(), 2u);
    // 1 s asked, capped by the back-off's own limit of 200 ms: at least that,
    // four times the 50 ms the back-off alone would wait.
    EXPECT_GE(posts[1].at - posts[0].at, 198ms);
}

TEST(OtlpPush, FailuresAreSaidInWordsOnce) {
    const int port = free_port();
    std::vector<std::string> notes;
    std::mutex m;
    OtlpPushOptions o = quick(port);
    o.on_state = [&](const std::string& s) {
        std::lock_guard lock(m);
        notes.push_back(s);
    };
    {
        OtlpPusher p(o);
        p.submit("x");
        ASSERT_TRUE(eventually([&] { return p.counters().failed >= 3; }));
    }
    ASSERT_GE(notes.size(), 2u);
    EXPECT_EQ(notes[0], "OTLP push to " + o.url +
                            " failed: cannot connect; retrying with back-off, queueing meanwhile");
    EXPECT_EQ(notes.size(), 2u);  // then only the line at stop
    EXPECT_EQ(notes.back(), "OTLP push to " + o.url + ": 1 request not sent at stop");
}

TEST(OtlpPush, ABinaryAnswerIsSaidPrintably) {
    OtlpReceiver r(0, [](std::size_t) { return 400; });
    r.answer = std::string(
        "\x0a\x05"
        "bad\x00x\n",
        8);
    std::vector<std::string> notes;
    OtlpPushOptions o = quick(r.port());
    o.on_state = [&](const std::string& s) { notes.push_back(s); };
    OtlpPusher p(o);
    p.submit("x");
    ASSERT_TRUE(eventually([&] { return p.counters().dropped == 1; }));
    p.stop();
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "OTLP push to " + o.url + " failed: HTTP 400:   bad x; request dropped");
}

TEST(OtlpPush, GzipIsSaidAndUndoneByTheReceiver) {
    OtlpReceiver r;  // cpp-httplib's server inflates a gzip body itself
    OtlpPushOptions o = quick(r.port());
    o.gzip = true;
    OtlpPusher p(o);
    const std::string body(100000, 'x');
    p.submit(body);
    ASSERT_TRUE(eventually([&] { return p.counters().sent == 1; }));
    auto posts = r.posts();
    ASSERT_EQ(posts.size(), 1u);
    EXPECT_EQ(posts[0].content_encoding, "gzip");
    EXPECT_EQ(posts[0].body, body);
}

TEST(OtlpPush, AReceiverThatResetsMidRequestIsAFailureNotSigpipe) {
    // Accepts and resets every connection while a 32 MiB body is on its
    // way: the sender's writes fail with EPIPE or ECONNRESET, which must
    // be a failed attempt, not a SIGPIPE that ends the process.
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(listen(fd, 8), 0);
    ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
    std::atomic<int> resets{0};
    std::atomic<bool> done{false};
    std::thread resetter([&] {
        while (!done) {
            pollfd p{fd, POLLIN, 0};
            if (poll(&p, 1, 50) != 1)
                continue;
            const int c = accept(fd, nullptr, nullptr);
            if (c < 0)
                continue;
            char buf[4096];
            (void)!read(c, buf, sizeof buf);  // the request has begun
            linger l{1, 0};
            setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof l);
            close(c);
            ++resets;
        }
    });
    {
        OtlpPusher p(quick(ntohs(a.sin_port)));
        p.submit(std::string(32 << 20, 'x'));
        EXPECT_TRUE(eventually([&] { return p.counters().failed >= 2; }));
        EXPECT_EQ(p.counters().sent, 0u);
    }
    done = true;
    resetter.join();
    close(fd);
    EXPECT_GE(resets.load(), 2);
}

TEST(OtlpPush, RefusedForGoodIsDroppedNotRetried) {
    OtlpReceiver r(0, [](std::size_t n) { return n == 0 ? 400 : 200; });
    OtlpPusher p(quick(r.port()));
    p.submit("bad");
    p.submit("good");
    ASSERT_TRUE(eventually([&] { return p.counters().sent == 1; }));
    OtlpCounters c = p.counters();
    EXPECT_EQ(c.failed, 1u);
    EXPECT_EQ(c.dropped, 1u);
    EXPECT_EQ(r.bodies(), (std::vector<std::string>{"bad", "good"}));
}

TEST(OtlpPush, StopGivesUpWithinTheDrainTime) {
    OtlpPushOptions o = quick(free_port());
    o.drain = 300ms;
    std::vector<std::string> notes;
    o.on_state = [&](const std::string& s) { notes.push_back(s); };
    OtlpPusher p(o);
    p.submit("a");
    p.submit("b");
    const auto t0 = std::chrono::steady_clock::now();
    p.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    OtlpCounters c = p.counters();
    EXPECT_EQ(c.sent, 0u);
    EXPECT_EQ(c.dropped, 2u);
    EXPECT_EQ(c.queued, 0u);
    ASSERT_FALSE(notes.empty());
    EXPECT_EQ(notes.back(), "OTLP push to " + o.url + ": 2 requests not sent at stop");
    p.submit("late");  // after stop: counted, not queued
    EXPECT_EQ(p.counters().dropped, 3u);
    EXPECT_EQ(p.counters().queued, 0u);
}

TEST(OtlpPush, CollectorExportsTheCounters) {
    OtlpReceiver r;
    auto p = std::make_shared<OtlpPusher>(quick(r.port()));
    p->submit("x");
    ASSERT_TRUE(eventually([&] { return p->counters().sent == 1; }));
    auto c = make_otlp_collector(p);
    ExpositionWriter w(ExpositionFormat::prometheus);
    EXPECT_EQ(c->collect(w), 0u);
    const std::string text = w.finish();
    EXPECT_NE(text.find("\niotally_otlp_requests_sent_total 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\niotally_otlp_requests_failed_total 0\n"), std::string::npos);
    EXPECT_NE(text.find("\niotally_otlp_requests_dropped_total 0\n"), std::string::npos);
    EXPECT_NE(text.find("\niotally_otlp_queue_length 0\n"), std::string::npos);
}

TEST(OtlpPush, ServeTextfilePushesEachWriteAndCountsIt) {
    test::FakeDm dm;
    dm.add_device("a", 1024, {"linear"}, "", 1);
    StatsClient(dm, "a").create(CreateRequest{});
    OtlpReceiver r;
    test::TempDir dir;
    cli::Context ctx;
    ctx.make_layer = [&]() -> std::unique_ptr<DeviceLayer> {
        return std::make_unique<Borrowed>(dm);
    };
    ctx.sysfs = std::string(IOTALLY_FIXTURE_DIR) + "/sysfs/t0";
    std::ostringstream out, err;
    ctx.out = &out;
    ctx.err = &err;
    int rc = cli::run({"serve", "--textfile", dir.path(), "--interval", "0.1", "--count", "2",
                       "--otlp", url(r.port())},
                      ctx);
    ASSERT_EQ(rc, 0) << err.str();
    EXPECT_EQ(err.str(), "");
    auto posts = r.posts();
    ASSERT_EQ(posts.size(), 2u);
    // Each an ExportMetricsServiceRequest with one ResourceMetrics; the
    // second scrape's textfile says the first push was sent by then or not
    // yet (the sender's thread is its own), never more.
    for (const auto& p : posts) {
        test::Message req = test::decode(p.body);
        EXPECT_EQ(req.count(1), 1u);
        EXPECT_NE(p.body.find("system.disk.io"), std::string::npos);
        EXPECT_NE(p.body.find("iotally.region.read"), std::string::npos);
    }
    std::ifstream in(dir.path() + "/iotally.prom");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("# TYPE iotally_otlp_requests_sent_total counter"), std::string::npos);
    EXPECT_NE(text.find("\niotally_otlp_requests_dropped_total 0\n"), std::string::npos) << text;
}

TEST(OtlpPush, ServeRefusesBadOtlpArguments) {
    for (std::vector<std::string> args :
         {std::vector<std::string>{"serve", "--otlp", "localhost:4318"},
          {"serve", "--otlp", "http://h:0/"},
          {"serve", "--otlp", "http://h/", "--otlp-queue", "0"},
          {"serve", "--otlp", "http://h/", "--otlp-compression", "zstd"}}) {
        test::FakeDm dm;
        cli::Context ctx;
        ctx.make_layer = [&]() -> std::unique_ptr<DeviceLayer> {
            return std::make_unique<Borrowed>(dm);
        };
        std::ostringstream out, err;
        ctx.out = &out;
        ctx.err = &err;
        EXPECT_EQ(cli::run(args, ctx), 2) << args[2] << ": " << err.str();
        const std::string e = err.str();
        EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
    }
}

}  // namespace
}  // namespace iotally
