// SPDX-License-Identifier: GPL-2.0-or-later
// Data-driven parser tests over tests/fixtures/: every valid or recorded file
// must parse and format back byte for byte; every line of an invalid file
// must be rejected with Error(parse).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fixtures.hpp"
#include "iotally/dm-stats/message.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/util/error.hpp"

namespace iotally::test {
namespace {

std::string name_of(const testing::TestParamInfo<std::filesystem::path>& info) {
    std::string n = info.param.filename().string();
    std::replace_if(
        n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
        '_');
    return n;
}

std::string roundtrip(const std::filesystem::path& p) {
    const std::string text = read_text(p);
    std::string out;
    if (p.extension() == ".list") {
        for (const auto& e : parse_list_reply(text))
            out += format_list_line(e) + "\n";
    } else {
        for (const auto& l : parse_print_reply(text))
            out += format_print_line(l) + "\n";
    }
    return out;
}

class ValidFixture : public testing::TestWithParam<std::filesystem::path> {};
class RecordedFixture : public testing::TestWithParam<std::filesystem::path> {};
class InvalidFixture : public testing::TestWithParam<std::filesystem::path> {};

TEST_P(ValidFixture, ParsesAndRoundTrips) {
    EXPECT_EQ(roundtrip(GetParam()), read_text(GetParam()));
}

TEST_P(RecordedFixture, ParsesAndRoundTrips) {
    // An empty file is a real recording too: @stats_list without regions.
    EXPECT_EQ(roundtrip(GetParam()), read_text(GetParam()));
}

TEST_P(InvalidFixture, EveryLineIsRejected) {
    const std::string text = read_text(GetParam());
    std::size_t lines = 0, pos = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl - pos);
        pos = nl == std::string::npos ? text.size() : nl + 1;
        ++lines;
        try {
            if (GetParam().extension() == ".list")
                parse_list_line(line);
            else
                parse_print_line(line);
            ADD_FAILURE() << "accepted: '" << line << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::parse) << line;
        }
    }
    EXPECT_GT(lines, 0u);
}

INSTANTIATE_TEST_SUITE_P(Files, ValidFixture,
                         testing::ValuesIn(fixture_files("valid", {".list", ".print"})), name_of);
INSTANTIATE_TEST_SUITE_P(Files, InvalidFixture,
                         testing::ValuesIn(fixture_files("invalid", {".list", ".print"})), name_of);
// Recordings arrive later; until then there is nothing to instantiate.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RecordedFixture);
INSTANTIATE_TEST_SUITE_P(Files, RecordedFixture,
                         testing::ValuesIn(fixture_files("recorded", {".list", ".print"})),
                         name_of);

TEST(FixtureSet, HasValidAndInvalidFiles) {
    EXPECT_GE(fixture_files("valid", {".list"}).size(), 2u);
    EXPECT_GE(fixture_files("valid", {".print"}).size(), 3u);
    EXPECT_GE(fixture_files("invalid", {".list", ".print"}).size(), 2u);
}

}  // namespace
}  // namespace iotally::test

namespace iotally::test {
namespace {

// The recordings of one kernel describe the same regions: every @stats_print
// recording must fit a region its @stats_list recordings announce, and a
// complete one must make a snapshot region.
TEST(RecordedPairs, PrintsFitTheirRegions) {
    std::map<std::string, std::vector<ListEntry>> regions;  // by kernel
    auto kernel_of = [](const std::filesystem::path& p) {
        std::string n = p.filename().string();
        return n.substr(0, n.find('-'));
    };
    for (const auto& list : fixture_files("recorded", {".list"}))
        for (const auto& e : parse_list_reply(read_text(list)))
            regions[kernel_of(list)].push_back(e);
    for (const auto& print : fixture_files("recorded", {".print"})) {
        auto lines = parse_print_reply(read_text(print));
        ASSERT_FALSE(lines.empty()) << print;
        bool fits = false;
        for (const auto& e : regions[kernel_of(print)]) {
            const std::size_t buckets = e.histogram.empty() ? 0 : e.histogram.size() + 1;
            if (e.step != lines[0].step || lines[0].start < e.start ||
                (lines[0].start - e.start) % e.step != 0 || lines[0].histogram.size() != buckets)
                continue;
            fits = true;
            if (lines[0].start == e.start && lines.size() == (e.length + e.step - 1) / e.step) {
                Region r = make_region(e, lines);
                EXPECT_EQ(r.areas.back().start + r.areas.back().length, e.start + e.length)
                    << print;
            }
        }
        EXPECT_TRUE(fits) << print << " fits no recorded region";
    }
}

}  // namespace
}  // namespace iotally::test
