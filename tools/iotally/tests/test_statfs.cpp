// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "iotally/error.hpp"
#include "iotally/statfs.hpp"
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

}  // namespace
}  // namespace iotally
