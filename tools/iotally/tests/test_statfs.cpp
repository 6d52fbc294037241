// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "iotally/statistic/statfs.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

// The example of statistics-infrastructure.txt, wrapped as in the document.
const char* const definition =
    "name=util_qdio_outb on=0 type=history range_min=0 range_max=127\n"
    "entries_max=128 mode=range period=1000000 hits_out_of_range=0\n"
    "data=[2417020.832398] started=[2417044.149675] stopped=[2417020.832398]\n"
    "units=slots-occupied/incidents\n"
    "name=occurrence_erp on=1 type=value mode=increments units=incidents\n";

TEST(StatFs, ParseDefinitions) {
    auto defs = parse_definitions(definition);
    ASSERT_EQ(defs.size(), 2u);
    EXPECT_EQ(defs[0].name, "util_qdio_outb");
    EXPECT_EQ(defs[0].attributes.size(), 12u);
    EXPECT_EQ(defs[0].get("type"), "history");
    EXPECT_EQ(defs[0].get("units"), "slots-occupied/incidents");
    EXPECT_EQ(defs[0].get("data"), "[2417020.832398]");
    EXPECT_EQ(defs[1].get("on"), "1");
    EXPECT_FALSE(defs[1].get("period"));
    EXPECT_THROW(parse_definitions("on=1 name=x"), Error);
    EXPECT_THROW(parse_definitions("name=x junk"), Error);
    EXPECT_THROW(parse_definitions("name= on=1"), Error);
}

TEST(StatFs, ParseData) {
    auto lines = parse_data("foo 0x1000 4\nlatencies <=8 872\n\nbar 961 1 42.000 128\n");
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].name, "foo");
    EXPECT_EQ(lines[0].fields, (std::vector<std::string>{"0x1000", "4"}));
    EXPECT_EQ(lines[1].fields, (std::vector<std::string>{"<=8", "872"}));
    EXPECT_EQ(lines[2].fields.size(), 4u);
}

TEST(StatFs, DataColumns) {
    using C = std::vector<std::string_view>;
    EXPECT_EQ(stat_data_columns("value", "products"), C({"total"}));
    EXPECT_EQ(stat_data_columns("range", ""), C({"count", "min", "avg", "max"}));
    EXPECT_EQ(stat_data_columns("array", ""), C({"bucket", "count"}));
    EXPECT_EQ(stat_data_columns("list", ""), C({"x", "count"}));
    EXPECT_EQ(stat_data_columns("history", "increments"), C({"time", "total"}));
    EXPECT_EQ(stat_data_columns("history", "range"), C({"time", "count", "min", "avg", "max"}));
    EXPECT_EQ(stat_data_columns("raw", ""), C({"time", "serial", "x", "y"}));
    EXPECT_THROW(stat_data_columns("pie", ""), Error);
}

// The sample output of statistics-infrastructure.txt, decoded by type.
TEST(StatFs, DecodeData) {
    auto def = [](const char* text) { return parse_definitions(text).at(0); };
    auto line = [](const char* text) { return parse_data(text).at(0); };
    using K = StatValue::Kind;

    auto v = decode_stat_line(line("occurrence_erp 57"), def("name=occurrence_erp type=value"));
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].kind, K::integer);
    EXPECT_EQ(v[0].integer, 57);

    v = decode_stat_line(line("util_qdio_inb 118706 1 1.017 31"),
                         def("name=util_qdio_inb type=range"));
    ASSERT_EQ(v.size(), 4u);
    EXPECT_EQ(v[0].integer, 118706);
    EXPECT_EQ(v[1].integer, 1);
    EXPECT_EQ(v[2].kind, K::decimal);
    EXPECT_DOUBLE_EQ(v[2].decimal, 1.017);
    EXPECT_EQ(v[3].integer, 31);
    // A range of negative X values: min, avg and max are signed.
    v = decode_stat_line(line("t 2 -5 -2.500 0"), def("name=t type=range"));
    EXPECT_EQ(v[1].integer, -5);
    EXPECT_DOUBLE_EQ(v[2].decimal, -2.5);

    v = decode_stat_line(line("util_qdio_outb [3097394.211992] 865 1 1.052 5"),
                         def("name=util_qdio_outb type=history mode=range"));
    ASSERT_EQ(v.size(), 5u);
    EXPECT_EQ(v[0].kind, K::decimal);
    EXPECT_DOUBLE_EQ(v[0].decimal, 3097394.211992);
    EXPECT_EQ(v[1].integer, 865);
    v = decode_stat_line(line("bytes [12.000001] 4096"),
                         def("name=bytes type=history mode=products"));
    EXPECT_DOUBLE_EQ(v[0].decimal, 12.000001);
    EXPECT_EQ(v[1].integer, 4096);

    v = decode_stat_line(line("request_sizes_scsi_read 0x1000 44163"),
                         def("name=request_sizes_scsi_read type=list"));
    EXPECT_EQ(v[0].integer, 4096);
    EXPECT_EQ(v[1].integer, 44163);
    v = decode_stat_line(line("l -0x10 2"), def("name=l type=list"));
    EXPECT_EQ(v[0].integer, -16);

    v = decode_stat_line(line("latencies_scsi_write <=16 2555"),
                         def("name=latencies_scsi_write type=array"));
    EXPECT_EQ(v[0].kind, K::text);
    EXPECT_EQ(v[0].text, "<=16");
    EXPECT_EQ(v[1].integer, 2555);
    v = decode_stat_line(line("a >1024 1637"), def("name=a type=array"));
    EXPECT_EQ(v[0].text, ">1024");
    v = decode_stat_line(line("a <=-4 1"), def("name=a type=array"));
    EXPECT_EQ(v[0].text, "<=-4");

    v = decode_stat_line(line("r [5.000100] 7 -3 9"), def("name=r type=raw"));
    ASSERT_EQ(v.size(), 4u);
    EXPECT_DOUBLE_EQ(v[0].decimal, 5.0001);
    EXPECT_EQ(v[1].integer, 7);
    EXPECT_EQ(v[2].integer, -3);
    EXPECT_EQ(v[3].integer, 9);

    auto parse_error = [](auto f) {
        try {
            f();
        } catch (const Error& e) {
            return e.kind() == ErrorKind::parse;
        }
        return false;
    };
    // Wrong field counts, and fields that are not what the type prints.
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("v 1 2"), def("name=v type=value")); }));
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("v -1"), def("name=v type=value")); }));
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("v 1x"), def("name=v type=value")); }));
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("a =<4 1"), def("name=a type=array")); }));
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("a <=x 1"), def("name=a type=array")); }));
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("l 0x 1"), def("name=l type=list")); }));
    EXPECT_TRUE(
        parse_error([&] { decode_stat_line(line("h 12.5 1"), def("name=h type=history")); }));
    EXPECT_TRUE(
        parse_error([&] { decode_stat_line(line("h [12.] 1"), def("name=h type=history")); }));
    EXPECT_TRUE(
        parse_error([&] { decode_stat_line(line("r 1 2 1.x 3"), def("name=r type=range")); }));
    EXPECT_TRUE(parse_error(
        [&] { decode_stat_line(line("v 9223372036854775808"), def("name=v type=value")); }));
    EXPECT_TRUE(parse_error([&] { decode_stat_line(line("v 1"), def("name=v type=pie")); }));
}

TEST(StatFs, BuildWrites) {
    EXPECT_EQ(build_definition_write("foo", {{"on", "1"}}), "name=foo on=1\n");
    EXPECT_EQ(build_definition_write(std::nullopt, {{"data", "reset"}}), "data=reset\n");
    EXPECT_EQ(build_definition_write("foobar", {{"type", "history"},
                                                {"mode", "range"},
                                                {"period", "1000000"},
                                                {"entries_max", "1024"}}),
              "name=foobar type=history mode=range period=1000000 entries_max=1024\n");
    EXPECT_EQ(build_definition_write("x", {{"range_min", "-3"}}), "name=x range_min=-3\n");
    auto usage = [](auto f) {
        try {
            f();
        } catch (const Error& e) {
            return e.kind() == ErrorKind::usage;
        }
        return false;
    };
    EXPECT_TRUE(usage([] { build_definition_write("x", {{"units", "a"}}); }));     // read-only
    EXPECT_TRUE(usage([] { build_definition_write("x", {{"colour", "red"}}); }));  // unknown
    EXPECT_TRUE(usage([] { build_definition_write("x", {{"on", "2"}}); }));
    EXPECT_TRUE(usage([] { build_definition_write("x", {{"type", "pie"}}); }));
    EXPECT_TRUE(usage([] { build_definition_write("x", {{"entries_max", "-1"}}); }));
    EXPECT_TRUE(usage([] { build_definition_write("x", {}); }));
    EXPECT_TRUE(usage([] { build_definition_write("a b", {{"on", "1"}}); }));
    EXPECT_TRUE(usage([] { parse_assignment("novalue"); }));
}

TEST(StatFs, Files) {
    test::TempDir dir;
    dir.write("zfcp-0.0.50d4/definition", definition);
    dir.write("zfcp-0.0.50d4/data", "occurrence_erp 0\n");
    dir.write("dm-0/definition", "");
    dir.write("dm-0/data", "");
    StatFs fs(dir.path());
    EXPECT_EQ(fs.interfaces(), (std::vector<std::string>{"dm-0", "zfcp-0.0.50d4"}));
    EXPECT_EQ(fs.read_data("zfcp-0.0.50d4"), "occurrence_erp 0\n");
    fs.write_definition("dm-0", "name=x on=1\n");
    EXPECT_EQ(test::read_text(dir.path() + "/dm-0/definition"), "name=x on=1\n");
    EXPECT_THROW(fs.read_data("../etc"), Error);
    try {
        fs.read_data("missing");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::no_device);
    }
    try {
        StatFs(dir.path() + "/nope").interfaces();
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    }
}

TEST(StatFs, ParseLockdown) {
    EXPECT_EQ(parse_lockdown("[none] integrity confidentiality\n"), "");
    EXPECT_EQ(parse_lockdown("none [integrity] confidentiality\n"), "integrity");
    EXPECT_EQ(parse_lockdown("none integrity [confidentiality]\n"), "confidentiality");
    EXPECT_EQ(parse_lockdown(""), "");
}

// A locked-down kernel keeps the layer closed: every error says so.
TEST(StatFs, LockedDown) {
    test::TempDir dir;
    dir.write("lockdown", "none [integrity] confidentiality\n");
    dir.write("stats/dm-0/data", "");
    auto expect_lockdown = [](auto&& f) {
        try {
            f();
            FAIL();
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::unsupported);
            EXPECT_NE(std::string(e.what()).find("locked down (integrity)"), std::string::npos)
                << e.what();
        }
    };
    expect_lockdown([&] { StatFs(dir.path() + "/nope", dir.path() + "/lockdown").interfaces(); });
    StatFs fs(dir.path() + "/stats", dir.path() + "/lockdown");
    expect_lockdown([&] { fs.read_definition("dm-0"); });
    // not locked down: the usual errors
    dir.write("open", "[none] integrity confidentiality\n");
    try {
        StatFs(dir.path() + "/stats", dir.path() + "/open").read_definition("dm-0");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::no_device);
    }
}

}  // namespace
}  // namespace iotally
