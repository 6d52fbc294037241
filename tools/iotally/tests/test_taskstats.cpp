// SPDX-License-Identifier: GPL-2.0-or-later
// Parsing of taskstats netlink messages, built in-process with libnl.
#include <gtest/gtest.h>
#include <linux/taskstats.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app.hpp"
#include "cli_fixture.hpp"
#include "iotally/taskstats/taskstats.hpp"
#include "iotally/util/error.hpp"
#include "task_records.hpp"

namespace {

using iotally::Error;
using iotally::ErrorKind;
using iotally::TaskIo;

struct MsgFree {
    void operator()(nl_msg* m) const { nlmsg_free(m); }
};
using Msg = std::unique_ptr<nl_msg, MsgFree>;

constexpr int io_attr = 7;  // TASKSTATS_TYPE_NULL + 1, written out

// struct taskstats_io v1, laid out by hand: 8-byte header, then u64 fields.
std::vector<unsigned char> io_payload(std::size_t size = 288, std::uint16_t version = 1,
                                      std::uint16_t nr_ops = 4) {
    std::vector<unsigned char> b(size, 0);
    auto put16 = [&](std::size_t off, std::uint16_t v) { std::memcpy(&b[off], &v, 2); };
    auto put64 = [&](std::size_t off, std::uint64_t v) {
        if (off + 8 <= b.size())
            std::memcpy(&b[off], &v, 8);
    };
    put16(0, version);
    put16(2, nr_ops);
    put16(4, 24);
    put16(6, 10);
    put64(8, 10);            // read ops
    put64(16, 20);           // write ops
    put64(24, 3);            // discard ops
    put64(32, 1);            // flush ops
    put64(40, 80);           // read sectors
    put64(48, 2560);         // write sectors
    put64(56, 2048);         // discard sectors
    put64(64, 0);            // flush sectors
    put64(72, 31);           // wait count
    put64(80, 155000000);    // wait total ns
    put64(88, 9000000);      // wait max ns
    put64(96 + 13 * 8, 30);  // bucket 13
    put64(96 + 14 * 8, 1);   // bucket 14
    return b;
}

struct taskstats classic(std::uint32_t pid) {
    struct taskstats ts {};
    ts.version = 14;
    ts.ac_pid = pid;
    ts.ac_ppid = 1;
    ts.ac_uid = 1000;
    std::strcpy(ts.ac_comm, "dd");
    ts.read_bytes = 40960;
    ts.write_bytes = 1310720;
    ts.blkio_count = 31;
    ts.blkio_delay_total = 123456789;
    ts.nvcsw = 40;
    return ts;
}

Msg new_message() {
    Msg m(nlmsg_alloc());
    EXPECT_NE(genlmsg_put(m.get(), 0, 5, 0x1c, 0, 0, TASKSTATS_CMD_NEW, 1), nullptr);
    return m;
}

void put_record(nl_msg* m, bool tgid, std::uint32_t id, const void* stats, std::size_t stats_len,
                const std::vector<unsigned char>* io, bool extra = false) {
    nlattr* nest = nla_nest_start(m, tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID);
    ASSERT_NE(nest, nullptr);
    ASSERT_EQ(nla_put_u32(m, tgid ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID, id), 0);
    ASSERT_EQ(nla_put(m, TASKSTATS_TYPE_NULL, 0, nullptr), 0);
    if (stats) {
        ASSERT_EQ(nla_put(m, TASKSTATS_TYPE_STATS, static_cast<int>(stats_len), stats), 0);
    }
    if (extra) {
        ASSERT_EQ(nla_put_u32(m, 42, 0xdeadbeef), 0);
    }
    if (io) {
        ASSERT_EQ(nla_put(m, io_attr, static_cast<int>(io->size()), io->data()), 0);
    }
    nla_nest_end(m, nest);
}

TEST(Taskstats, ExitMessageWithPidAndTgidRecords) {
    Msg m = new_message();
    auto ts = classic(4242);
    auto io = io_payload();
    put_record(m.get(), false, 4242, &ts, sizeof(ts), &io);
    auto tgid_io = io_payload();
    std::uint64_t reads = 99;
    std::memcpy(&tgid_io[8], &reads, 8);
    put_record(m.get(), true, 4240, &ts, sizeof(ts), &tgid_io);

    auto recs = iotally::parse_taskstats_message(nlmsg_hdr(m.get()));
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_FALSE(recs[0].tgid);
    EXPECT_EQ(recs[0].id, 4242u);
    ASSERT_TRUE(recs[0].stats);
    EXPECT_EQ(recs[0].stats->comm, "dd");
    EXPECT_EQ(recs[0].stats->pid, 4242u);
    EXPECT_EQ(recs[0].stats->uid, 1000u);
    EXPECT_EQ(recs[0].stats->read_bytes, 40960u);
    EXPECT_EQ(recs[0].stats->write_bytes, 1310720u);
    EXPECT_EQ(recs[0].stats->blkio_delay_total_ns, 123456789u);
    EXPECT_EQ(recs[0].stats->nvcsw, 40u);
    ASSERT_TRUE(recs[0].io);
    const TaskIo& p = *recs[0].io;
    EXPECT_EQ(p.version, 1);
    EXPECT_EQ(p.ops[TaskIo::read], 10u);
    EXPECT_EQ(p.ops[TaskIo::write], 20u);
    EXPECT_EQ(p.ops[TaskIo::discard], 3u);
    EXPECT_EQ(p.ops[TaskIo::flush], 1u);
    EXPECT_EQ(p.sectors[TaskIo::read], 80u);
    EXPECT_EQ(p.sectors[TaskIo::write], 2560u);
    EXPECT_EQ(p.sectors[TaskIo::discard], 2048u);
    EXPECT_EQ(p.wait_count, 31u);
    EXPECT_EQ(p.wait_total_ns, 155000000u);
    EXPECT_EQ(p.wait_max_ns, 9000000u);
    EXPECT_EQ(p.wait_hist[13], 30u);
    EXPECT_EQ(p.wait_hist[14], 1u);
    EXPECT_EQ(p.wait_hist[12], 0u);
    EXPECT_TRUE(recs[1].tgid);
    EXPECT_EQ(recs[1].id, 4240u);
    ASSERT_TRUE(recs[1].io);
    EXPECT_EQ(recs[1].io->ops[TaskIo::read], 99u);
}

TEST(Taskstats, StockKernelReplyHasNoIoAttribute) {
    Msg m = new_message();
    auto ts = classic(7);
    put_record(m.get(), false, 7, &ts, sizeof(ts), nullptr);
    auto recs = iotally::parse_taskstats_message(nlmsg_hdr(m.get()));
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_TRUE(recs[0].stats);
    EXPECT_FALSE(recs[0].io);
}

TEST(Taskstats, UnknownAttributesAreSkipped) {
    Msg m = new_message();
    auto ts = classic(8);
    auto io = io_payload();
    put_record(m.get(), false, 8, &ts, sizeof(ts), &io, true);
    ASSERT_EQ(nla_put_u32(m.get(), 99, 1), 0);  // unknown top-level attribute
    auto recs = iotally::parse_taskstats_message(nlmsg_hdr(m.get()));
    ASSERT_EQ(recs.size(), 1u);
    ASSERT_TRUE(recs[0].io);
    EXPECT_EQ(recs[0].io->ops[TaskIo::write], 20u);
}

TEST(Taskstats, NewerIoVersionWithMoreFieldsIsRead) {
    Msg m = new_message();
    auto io = io_payload(320, 2);
    put_record(m.get(), false, 9, nullptr, 0, &io);
    auto recs = iotally::parse_taskstats_message(nlmsg_hdr(m.get()));
    ASSERT_EQ(recs.size(), 1u);
    ASSERT_TRUE(recs[0].io);
    EXPECT_EQ(recs[0].io->version, 2);
    EXPECT_EQ(recs[0].io->wait_count, 31u);
}

void expect_parse_error(nl_msg* m) {
    try {
        iotally::parse_taskstats_message(nlmsg_hdr(m));
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::parse);
    }
}

TEST(Taskstats, TruncatedIoPayloadIsAnError) {
    Msg m = new_message();
    auto io = io_payload(287);
    put_record(m.get(), false, 10, nullptr, 0, &io);
    expect_parse_error(m.get());
}

TEST(Taskstats, UnexpectedIoLayoutIsAnError) {
    Msg m = new_message();
    auto io = io_payload(288, 1, 5);
    put_record(m.get(), false, 11, nullptr, 0, &io);
    expect_parse_error(m.get());
}

TEST(Taskstats, TruncatedClassicStatsIsAnError) {
    Msg m = new_message();
    auto ts = classic(12);
    put_record(m.get(), false, 12, &ts, 100, nullptr);
    expect_parse_error(m.get());
}

TEST(Taskstats, OlderClassicVersionKeepsWhatItHas) {
    Msg m = new_message();
    auto ts = classic(13);
    // Up to and including ac_stime: version 1 of struct taskstats.
    std::size_t v1 = offsetof(struct taskstats, ac_minflt);
    put_record(m.get(), false, 13, &ts, v1, nullptr);
    auto recs = iotally::parse_taskstats_message(nlmsg_hdr(m.get()));
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].stats->pid, 13u);
    EXPECT_EQ(recs[0].stats->read_bytes, 0u);  // not in version 1
}

TEST(Taskstats, RecordWithoutPidIsAnError) {
    Msg m = new_message();
    nlattr* nest = nla_nest_start(m.get(), TASKSTATS_TYPE_AGGR_PID);
    auto io = io_payload();
    ASSERT_EQ(nla_put(m.get(), io_attr, static_cast<int>(io.size()), io.data()), 0);
    nla_nest_end(m.get(), nest);
    expect_parse_error(m.get());
}

TEST(Taskstats, WrongCommandIsAnError) {
    Msg m(nlmsg_alloc());
    ASSERT_NE(genlmsg_put(m.get(), 0, 5, 0x1c, 0, 0, TASKSTATS_CMD_GET, 1), nullptr);
    expect_parse_error(m.get());
}

TEST(Taskstats, BucketLowerBounds) {
    TaskIo io;
    EXPECT_EQ(io.bucket_low_ns(0), 0u);
    EXPECT_EQ(io.bucket_low_ns(1), 1024u);
    EXPECT_EQ(io.bucket_low_ns(13), 4194304u);
    EXPECT_EQ(io.bucket_low_ns(23), 4294967296u);
}

TEST(Taskstats, Cpulist) {
    EXPECT_EQ(iotally::parse_cpulist("0-3,7"), (std::vector<unsigned>{0, 1, 2, 3, 7}));
    EXPECT_EQ(iotally::parse_cpulist("1"), (std::vector<unsigned>{1}));
    for (const char* bad : {"", "3-1", "1,", "a", "1-", ",1", "0-99999"})
        EXPECT_THROW(iotally::parse_cpulist(bad), Error) << bad;
}

// cli_fixture.hpp's run_cli(), as these checks read it: the exit status,
// stderr in `err`.
int run_cli(const std::vector<std::string>& args, std::string& err) {
    auto r = iotally::run_cli(args);
    err = r.err;
    return r.rc;
}

TEST(TasksCli, UsageErrorsExitTwo) {
    std::string err;
    EXPECT_EQ(run_cli({"tasks"}, err), 2);
    EXPECT_NE(err.find("-p PID"), std::string::npos) << err;
    EXPECT_EQ(run_cli({"tasks", "-p", "abc"}, err), 2);
    EXPECT_NE(err.find("pid 'abc'"), std::string::npos) << err;
    EXPECT_EQ(run_cli({"tasks", "-t", "0"}, err), 2);
    EXPECT_EQ(run_cli({"tasks", "-p", "1", "-t", "1"}, err), 2);
    EXPECT_EQ(run_cli({"tasks", "-m", "0", "-r", "-5"}, err), 2);
}

// The exit listener's lines (tasks -m) are JSON documents like every other
// one: schema, command and timestamp on each record and on the summary, on
// standard output and in the -w file alike.
TEST(TasksCli, ListenerJsonLinesAreDocuments) {
    Msg m = new_message();
    auto ts = classic(4242);
    auto io = io_payload();
    put_record(m.get(), false, 4242, &ts, sizeof(ts), &io);
    put_record(m.get(), true, 4240, &ts, sizeof(ts), &io);
    auto recs = iotally::parse_taskstats_message(nlmsg_hdr(m.get()));
    ASSERT_EQ(recs.size(), 2u);

    const std::int64_t now_ns = 1'795'000'000'123'456'789;
    for (bool json : {true, false}) {
        std::ostringstream out, file;
        iotally::cli::ExitRecordWriter w(out, &file, json, [&] { return now_ns; });
        for (const auto& r : recs)
            w.record(r);
        iotally::cli::ListenSummary summary;
        summary.lost_messages = 2;
        summary.lost_exact = false;
        w.summary(summary);
        EXPECT_EQ(w.records(), 2);
        EXPECT_EQ(w.pid_records(), 1);

        std::vector<nlohmann::json> docs;
        std::istringstream file_in(file.str());
        for (std::string line; std::getline(file_in, line);)
            docs.push_back(nlohmann::json::parse(line));
        if (json) {
            std::istringstream out_in(out.str());
            std::vector<std::string> lines;
            for (std::string line; std::getline(out_in, line);)
                lines.push_back(line);
            ASSERT_EQ(lines.size(), 3u) << out.str();
            // The two records are on standard output as in the file.
            EXPECT_EQ(lines[0], file.str().substr(0, file.str().find('\n')));
            auto sum = nlohmann::json::parse(lines[2]);
            EXPECT_EQ(sum["schema"], 2);
            EXPECT_EQ(sum["command"], "tasks");
            EXPECT_EQ(sum["timestamp_ns"], now_ns);
            EXPECT_EQ(sum["summary"]["records"], 2);
            EXPECT_EQ(sum["summary"]["pid_records"], 1);
            EXPECT_EQ(sum["summary"]["lost_messages"], 2);
            EXPECT_EQ(sum["summary"]["lost_exact"], false);
        } else {
            EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
                      "pid 4242 dd read 10 80 write 20 2560 discard 3 2048 flush 1 "
                      "wait 31 155000000 9000000 hist 13:30,14:1");
            EXPECT_NE(out.str().find("\nsummary records 2 pid_records 1 lost 2 overflows 0 "
                                     "exact no\n"),
                      std::string::npos)
                << out.str();
        }
        ASSERT_EQ(docs.size(), 2u) << file.str();
        for (const auto& d : docs) {
            EXPECT_EQ(d["schema"], 2) << d.dump();
            EXPECT_EQ(d["command"], "tasks") << d.dump();
            EXPECT_EQ(d["timestamp"], "2026-11-18T11:06:40.123456789Z") << d.dump();
            EXPECT_EQ(d["timestamp_ns"], now_ns) << d.dump();
        }
        EXPECT_EQ(docs[0]["pid"], 4242);
        EXPECT_EQ(docs[0]["taskstats"]["comm"], "dd");
        EXPECT_EQ(docs[0]["io"]["ops"]["write"]["sectors"], 2560);
        EXPECT_EQ(docs[1]["tgid"], 4240);
        EXPECT_FALSE(docs[1].contains("pid"));
    }
}

}  // namespace
