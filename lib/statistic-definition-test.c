// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite statistic-definition of the generic statistics layer: the
 * definition file's parser: every attribute, every error, and arbitrary
 * bytes from a seeded generator.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/statistic.h>
#include <linux/string.h>

#include "statistic-test.h"

/* the definition file */

static void def_line_format(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat;

	test_now = 2417020832398000ULL;
	stat = new_stat(test, iface, "util");
	KUNIT_EXPECT_STREQ(test, def_text(test, iface),
			   "name=util on=0 type=value range_min=-9223372036854775808 range_max=9223372036854775807 mode=increments hits_out_of_range=0 data=[2417020.832398] started=[2417020.832398] stopped=[2417020.832398] units=x/y\n");
	ret = def_write(test, iface,
			"name=util type=history range_min=0 range_max=127 entries_max=128 mode=range period=1000000");
	KUNIT_ASSERT_EQ(test, 0, ret);
	test_now = 2417044149675000ULL;
	statistic_start(stat);
	KUNIT_EXPECT_STREQ(test, def_text(test, iface),
			   "name=util on=1 type=history range_min=0 range_max=127 entries_max=128 mode=range period=1000000 hits_out_of_range=0 data=[2417020.832398] started=[2417044.149675] stopped=[2417020.832398] units=x/y\n");
	ret = statistic_define_list(stat, 1, 2, 3);
	KUNIT_ASSERT_EQ(test, 0, ret);
	KUNIT_EXPECT_STREQ(test, def_text(test, iface),
			   "name=util on=1 type=list range_min=1 range_max=2 entries_max=3 hits_missed=0 hits_out_of_range=0 data=[2417044.149675] started=[2417044.149675] stopped=[2417020.832398] units=x/y\n");
	ret = statistic_define_array(stat, 1, 2, 3, STATISTIC_SCALE_LIN);
	KUNIT_ASSERT_EQ(test, 0, ret);
	KUNIT_EXPECT_NOT_NULL(test, strstr(def_text(test, iface),
					   " base_interval=3 scale=lin hits_out_of_range=0 "));
	ret = statistic_define_raw(stat, 1, 2, 3);
	KUNIT_ASSERT_EQ(test, 0, ret);
	KUNIT_EXPECT_NOT_NULL(test, strstr(def_text(test, iface),
					   " range_max=2 entries_max=3 hits_out_of_range=0 "));
	ret = statistic_define_range(stat, 1, 2);
	KUNIT_ASSERT_EQ(test, 0, ret);
	KUNIT_EXPECT_NOT_NULL(test, strstr(def_text(test, iface),
					   " range_max=2 hits_out_of_range=0 "));
}

/* Every attribute a user can set, each by itself. */
static void def_attributes(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);

	new_stat(test, iface, "s");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s on=1"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "on"), "1");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s mode=products"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "mode"), "products");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s range_min=-0x10"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "range_min"), "-16");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s range_max=17"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "range_max"), "17");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s type=range"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "type"), "range");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "range_max"), "17");
	ret = def_write(test, iface,
			"name=s type=array base_interval=2 scale=lin");
	KUNIT_EXPECT_EQ(test, 0, ret);
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s scale=log2"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "scale"), "log2");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s base_interval=3"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "base_interval"), "3");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s type=list entries_max=9"));
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s entries_max=10"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "entries_max"), "10");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s type=raw entries_max=11"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "type"), "raw");
	ret = def_write(test, iface,
			"name=s type=history entries_max=4 mode=increments period=7");
	KUNIT_EXPECT_EQ(test, 0, ret);
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s period=8"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "period"), "8");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s mode=range"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "mode"), "range");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s type=value mode=increments"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "type"), "value");
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s on=0"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "on"), "0");
}

static void def_reset_and_readback(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat;
	char *line;

	test_now = 3 * MS;
	stat = new_stat(test, iface, "s");
	ret = statistic_define_list(stat, 0, 100, 5);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	statistic_add(stat, 4, 4);
	statistic_add(stat, 200, 4);
	/* a line read, written back: nothing changes */
	line = kunit_kstrdup(test, def_text(test, iface), GFP_KERNEL);
	test_now = 4 * MS;
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, line));
	KUNIT_EXPECT_STREQ(test, def_text(test, iface), line);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "s 0x4 4\n");
	/* the same attributes again: no reset either */
	ret = def_write(test, iface,
			"name=s type=list entries_max=5 range_max=100");
	KUNIT_EXPECT_EQ(test, 0, ret);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "s 0x4 4\n");
	/* data=reset: data and counters go, the definition stays */
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s data=reset"));
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "hits_out_of_range"), "0");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "data"), "[0.004000]");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "on"), "1");
	/* a changed type-specific attribute discards the data */
	statistic_add(stat, 4, 4);
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=s entries_max=6"));
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "s", "on"), "1");
}

static const char * const def_errors[] = {
	"name=s on=2", "name=s on=", "name=s on=yes",
	"name=s type=bogus", "name=s type=",
	"name=s range_min=abc", "name=s range_min=", "name=s range_min=1x",
	"name=s range_max=99999999999999999999", "name=s range_min=5 range_max=4",
	"name=s range_min=11",
	"name=nosuch on=1", "name= on=1", "name=s name=t on=1",
	"name=s type=list", "name=s type=raw",
	"name=s type=array scale=log2", "name=s type=array base_interval=1",
	"name=s type=history mode=range entries_max=8",
	"name=s type=history mode=range period=1000",
	"name=s type=history period=1000 entries_max=8",
	"name=s scale=log2", "name=s entries_max=5", "name=s period=5",
	"name=s base_interval=5", "name=s mode=range", "name=s mode=sum",
	"name=s data=junk", "name=s data=",
	"name=s type=list entries_max=0", "name=s type=list entries_max=65537",
	"name=s type=list entries_max=-1",
	"name=s type=array base_interval=0 scale=lin",
	"name=s type=array base_interval=1 scale=lin range_min=0 range_max=65535",
	"name=s type=array base_interval=1 scale=ln",
	"name=s type=history mode=range period=0 entries_max=8",
	"name=s type=history mode=range period=1000000000001 entries_max=8",
	"mode=products", "on=1 type=list", "range_min=0", "on=2", "data=x",
	"name=s on=0\nname=t on=2", "name=s on=0\nname=s mode=sum",
};

static void def_error_desc(const char * const *e, char *desc)
{
	strscpy(desc, *e, KUNIT_PARAM_DESC_SIZE);
	strreplace(desc, '\n', '|');
}

KUNIT_ARRAY_PARAM(def_error, def_errors, def_error_desc);

/* Every error: -EINVAL, and nothing changes. */
static void def_invalid(struct kunit *test)
{
	int ret;
	const char * const *bad = test->param_value;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *s, *t;
	const char *def, *data;

	test_now = 9 * MS;
	s = new_stat(test, iface, "s");
	t = new_stat(test, iface, "t");
	ret = statistic_define_value(s, 0, 10, STATISTIC_MODE_INCREMENTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(s);
	statistic_add(s, 3, 3);
	statistic_add(t, 3, 3);
	def = def_text(test, iface);
	data = data_text(test, iface);
	test_now = 10 * MS;
	KUNIT_EXPECT_EQ(test, -EINVAL, def_write(test, iface, *bad));
	KUNIT_EXPECT_STREQ(test, def_text(test, iface), def);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), data);
}

static void def_interface_wide(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *a, *b;

	test_now = 20 * MS;
	a = new_stat(test, iface, "a");
	b = new_stat(test, iface, "b");
	ret = statistic_define_range(b, 0, 10);
	KUNIT_ASSERT_EQ(test, 0, ret);
	test_now = 21 * MS;
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "on=1"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "a", "started"), "[0.021000]");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "b", "started"), "[0.021000]");
	statistic_add(a, 1, 1);
	statistic_add(b, 1, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "a 1\nb 1 1 1.000 1\n");
	test_now = 22 * MS;
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "on=0"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "a", "stopped"), "[0.022000]");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "b", "stopped"), "[0.022000]");
	statistic_add(a, 1, 1);
	statistic_add(b, 1, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "a 1\nb 1 1 1.000 1\n");
	test_now = 23 * MS;
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "data=reset"));
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "a 0\nb 0 0 0.000 0\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "a", "data"), "[0.023000]");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "b", "data"), "[0.023000]");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "b", "type"), "range");
	/* several lines, applied in order, at once */
	ret = def_write(test, iface,
			"name=a on=1\n\nname=b on=1 type=list entries_max=2\nname=a on=0\n");
	KUNIT_EXPECT_EQ(test, 0, ret);
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "a", "on"), "0");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "b", "on"), "1");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "b", "type"), "list");
	/* junk and read-only attributes */
	ret = def_write(test, iface,
			"hello name=a junk=1 units=u started=1 stopped=2 hits_missed=3 hits_out_of_range=4 data=[1.0]");
	KUNIT_EXPECT_EQ(test, 0, ret);
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "a", "units"), "x/y");
}

/*
 * The parser against arbitrary bytes and against soups of its own words,
 * from a fixed seed: every write succeeds, or fails with EINVAL and
 * changes nothing, and what reading shows can be written back.
 */
static const char * const fuzz_words[] = {
	"name=", "on=", "type=", "mode=", "scale=", "range_min=", "range_max=",
	"entries_max=", "base_interval=", "period=", "data=", "units=",
	"value", "range", "list", "array", "history", "raw", "increments",
	"products", "lin", "log2", "reset", "[1.0]", "0", "1", "-1", "65536",
	"65537", "0x10", "9223372036854775807", "-9223372036854775808",
	"18446744073709551615", "a", "b", "=", " ", "\t", "\n", "\r",
};

static void fuzz_parser(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	char *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	char *def = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);
	char *data = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);
	char *now = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);
	unsigned int i, j, len;
	struct rnd_state rnd;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, def);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, now);
	new_stat(test, iface, "a");
	new_stat(test, iface, "b");
	prandom_seed_state(&rnd, 20261125);
	for (i = 0; i < 3000; i++) {
		KUNIT_ASSERT_GE(test, statistic_format(iface, true, def, TEXT_SIZE), 0);
		KUNIT_ASSERT_GE(test, statistic_format(iface, false, data, TEXT_SIZE), 0);
		len = 0;
		if (i & 1) {
			/* arbitrary bytes, no NUL */
			len = prandom_u32_state(&rnd) % 200;
			for (j = 0; j < len; j++)
				buf[j] = 1 + prandom_u32_state(&rnd) % 255;
		} else {
			while (len < 400) {
				const char *w = fuzz_words[prandom_u32_state(&rnd) %
							   ARRAY_SIZE(fuzz_words)];

				if (len + strlen(w) >= 400)
					break;
				memcpy(buf + len, w, strlen(w));
				len += strlen(w);
				if (prandom_u32_state(&rnd) % 8 == 0)
					break;
			}
		}
		buf[len] = '\0';
		ret = statistic_definition_write(iface, buf);
		KUNIT_ASSERT_TRUE_MSG(test, !ret || ret == -EINVAL || ret == -ENOMEM,
				      "write %u returned %d", i, ret);
		if (!ret)
			continue;
		KUNIT_ASSERT_GE(test, statistic_format(iface, true, now, TEXT_SIZE), 0);
		KUNIT_ASSERT_STREQ_MSG(test, now, def, "write %u changed the definition", i);
		KUNIT_ASSERT_GE(test, statistic_format(iface, false, now, TEXT_SIZE), 0);
		KUNIT_ASSERT_STREQ_MSG(test, now, data, "write %u changed the data", i);
	}
	/* what reading shows, written back, is accepted and changes nothing */
	KUNIT_ASSERT_GE(test, statistic_format(iface, true, def, TEXT_SIZE), 0);
	KUNIT_ASSERT_GT(test, strscpy(buf, def, 1024), 0);
	KUNIT_EXPECT_EQ(test, 0, statistic_definition_write(iface, buf));
	KUNIT_EXPECT_STREQ(test, def_text(test, iface), def);
}

static struct kunit_case statistic_definition_cases[] = {
	KUNIT_CASE(def_line_format),
	KUNIT_CASE(def_attributes),
	KUNIT_CASE(def_reset_and_readback),
	KUNIT_CASE_PARAM(def_invalid, def_error_gen_params),
	KUNIT_CASE(def_interface_wide),
	KUNIT_CASE(fuzz_parser),
	{}
};

static struct kunit_suite statistic_definition_suite = {
	.name = "statistic-definition",
	.suite_init = statistic_suite_init,
	.suite_exit = statistic_suite_exit,
	.test_cases = statistic_definition_cases,
};

kunit_test_suite(statistic_definition_suite);
