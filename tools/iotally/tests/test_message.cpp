// SPDX-License-Identifier: GPL-2.0-or-later
// Builders against the exact strings the kernel expects, parsers against
// fixture lines whose fields are spelled out here.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "iotally/dm-stats/message.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

TEST(Escape, MakesOneKernelWord) {
    EXPECT_EQ(escape_word(""), "-");
    EXPECT_EQ(escape_word("foo bar baz"), "foo\\ bar\\ baz");
    EXPECT_EQ(escape_word("a\\b"), "a\\\\b");
    EXPECT_EQ(escape_word("tab\there"), "tab\\\there");
    for (std::string s : {"foo bar", "x\\ y", "  lead", "trail\\", "a\tb\vc\fd\re"}) {
        auto words = split_message("@stats_set_aux 0 " + escape_word(s));
        ASSERT_EQ(words.size(), 3u) << s;
        EXPECT_EQ(words[2], s);
    }
}

TEST(Split, FollowsDmSplitArgs) {
    EXPECT_EQ(split_message("  a  b\\ c d\\\\ "), (std::vector<std::string>{"a", "b c", "d\\"}));
    EXPECT_EQ(split_message("x\\"), (std::vector<std::string>{"x\\"}));  // a lone trailing '\'
    EXPECT_TRUE(split_message(" \t\n").empty());
}

TEST(Build, Create) {
    CreateRequest r;
    EXPECT_EQ(build_create(r), "@stats_create - /1");
    r.step = AreaCount{100};
    EXPECT_EQ(build_create(r), "@stats_create - /100");
    r.range = SectorRange{1024, 8192};
    r.step = AreaSize{1024};
    EXPECT_EQ(build_create(r), "@stats_create 1024+8192 1024");
    r.program_id = "iotally";
    EXPECT_EQ(build_create(r), "@stats_create 1024+8192 1024 iotally");
    r.aux_data = "foo bar";
    EXPECT_EQ(build_create(r), "@stats_create 1024+8192 1024 iotally foo\\ bar");
    r.precise_timestamps = true;
    r.histogram = {1000, 5000};
    EXPECT_EQ(build_create(r),
              "@stats_create 1024+8192 1024 2 precise_timestamps histogram:1000,5000 iotally "
              "foo\\ bar");
    CreateRequest aux_only;
    aux_only.aux_data = "x";
    EXPECT_EQ(build_create(aux_only), "@stats_create - /1 - x");
    // A numeric program_id would be taken for the option count.
    CreateRequest numeric;
    numeric.program_id = "42";
    EXPECT_EQ(build_create(numeric), "@stats_create - /1 0 42");
}

TEST(Build, CreateRejectsWhatTheKernelWould) {
    auto rejected = [](CreateRequest r) {
        try {
            build_create(r);
        } catch (const Error& e) {
            return e.kind() == ErrorKind::usage;
        }
        return false;
    };
    CreateRequest r;
    r.range = SectorRange{0, 0};
    EXPECT_TRUE(rejected(r));
    r.range = SectorRange{UINT64_MAX, 2};
    EXPECT_TRUE(rejected(r));
    CreateRequest s;
    s.step = AreaSize{0};
    EXPECT_TRUE(rejected(s));
    s.step = AreaCount{0};
    EXPECT_TRUE(rejected(s));
    CreateRequest h;
    h.histogram = {5, 5};
    EXPECT_TRUE(rejected(h));
    CreateRequest nl;
    nl.aux_data = "two\nlines";
    EXPECT_TRUE(rejected(nl));
    CreateRequest sp;
    sp.program_id = "two words";
    EXPECT_TRUE(rejected(sp));
    CreateRequest amb;
    amb.aux_data = "looks histogram:1,2";
    EXPECT_TRUE(rejected(amb));
    amb.aux_data = "ends precise_timestamps";
    EXPECT_TRUE(rejected(amb));
}

TEST(Build, OtherMessages) {
    EXPECT_EQ(build_delete(3), "@stats_delete 3");
    EXPECT_EQ(build_clear(4), "@stats_clear 4");
    EXPECT_EQ(build_list(), "@stats_list");
    EXPECT_EQ(build_list("dmstats"), "@stats_list dmstats");
    EXPECT_EQ(build_print(5), "@stats_print 5");
    EXPECT_EQ(build_print(5, LineRange{2, 10}), "@stats_print 5 2 10");
    EXPECT_EQ(build_print(5, std::nullopt, true), "@stats_print_clear 5");
    EXPECT_EQ(build_set_aux(1, "foo bar baz"), "@stats_set_aux 1 foo\\ bar\\ baz");
    EXPECT_EQ(build_set_aux(1, ""), "@stats_set_aux 1 -");
}

TEST(Parse, CreateReply) {
    EXPECT_EQ(parse_create_reply("0"), 0u);
    EXPECT_EQ(parse_create_reply("17\n"), 17u);
    EXPECT_THROW(parse_create_reply(""), Error);
    EXPECT_THROW(parse_create_reply("-1"), Error);
    EXPECT_THROW(parse_create_reply("3 4"), Error);
    EXPECT_THROW(parse_create_reply("2147483648"), Error);
}

TEST(Parse, ListFixtureFields) {
    auto entries = parse_list_reply(test::read_text(test::fixture_dir() + "/valid/basic.list"));
    ASSERT_EQ(entries.size(), 10u);
    EXPECT_EQ(entries[0], (ListEntry{0, 0, 204800, 204800, "-", "-", false, {}}));
    EXPECT_EQ(entries[1], (ListEntry{1, 0, 204800, 2048, "dmstats", "-", false, {}}));
    EXPECT_EQ(entries[2], (ListEntry{2, 1024, 8192, 1024, "iotally", "foo bar baz", false, {}}));
    EXPECT_EQ(entries[3], (ListEntry{3, 0, 2097152, 262144, "iotally", "-", true, {}}));
    EXPECT_EQ(entries[4],
              (ListEntry{
                  4, 0, 2097152, 2097152, "dmstats", "DMS_GROUP=data:4-6,9#-", false, {1, 5, 20}}));
    EXPECT_EQ(entries[5], (ListEntry{5, 8, 16, 16, "dmstats", "-", false, {1}}));
    EXPECT_EQ(
        entries[6],
        (ListEntry{6, 100, 1, 1, "dmstats", "-", true, {1000, 100000, 10000000, 1000000000}}));
    // Not flags: what precedes them would not be "<program_id> <aux_data>",
    // or the list is not one the kernel accepts.
    EXPECT_EQ(entries[7].aux_data, "aux with histogram:x in it");
    EXPECT_EQ(entries[8].aux_data, "precise_timestamps");
    EXPECT_FALSE(entries[8].precise_timestamps);
    EXPECT_EQ(entries[9].aux_data, "histogram:5,3");
    EXPECT_TRUE(entries[9].histogram.empty());
}

TEST(Parse, PrintFixtureFields) {
    auto lines = parse_print_reply(test::read_text(test::fixture_dir() + "/valid/histogram.print"));
    ASSERT_EQ(lines.size(), 3u);
    const auto& a = lines[0];
    EXPECT_EQ(a.start, 0u);
    EXPECT_EQ(a.step, 1024u);
    EXPECT_EQ(a.counters, (RawCounters{40, 0, 320, 48, 10, 2, 80, 31, 1, 70, 79, 48, 31}));
    EXPECT_EQ(a.histogram, (std::vector<std::uint64_t>{12, 20, 14, 4}));
    EXPECT_EQ(lines[2].start, 2048u);
    EXPECT_EQ(lines[2].histogram, (std::vector<std::uint64_t>{3, 0, 0, 0}));

    auto big = parse_print_reply(test::read_text(test::fixture_dir() + "/valid/basic.print"));
    ASSERT_EQ(big.size(), 3u);
    EXPECT_EQ(big[2].counters.reads, UINT64_MAX);
    EXPECT_EQ(big[2].counters.in_flight, 2);
}

TEST(Parse, PrintRejectsMixedHistogramWidths) {
    EXPECT_THROW(parse_print_reply("0+8 0 0 0 0 0 0 0 0 0 0 0 0 0 1:2\n"
                                   "8+8 0 0 0 0 0 0 0 0 0 0 0 0 0 1:2:3\n"),
                 Error);
}

TEST(Parse, NegativeInFlightIsKept) {
    // The kernel prints in-flight with %d.
    auto p = parse_print_line("0+8 0 0 0 0 0 0 0 0 -2 0 0 0 0");
    EXPECT_EQ(p.counters.in_flight, -2);
    EXPECT_EQ(format_print_line(p), "0+8 0 0 0 0 0 0 0 0 -2 0 0 0 0");
}

TEST(Parse, EmptyRepliesAreEmpty) {
    EXPECT_TRUE(parse_list_reply("").empty());
    EXPECT_TRUE(parse_print_reply("").empty());
}

}  // namespace
}  // namespace iotally
