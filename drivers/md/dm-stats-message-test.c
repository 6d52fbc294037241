// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm-stats-message of the device-mapper statistics engine:
 * message parsing and output.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-stats-test.h"

/* ---------------------------------------------------------------- parser */

struct parse_case {
	const char *args;	/* after "@stats_create" */
	int ret;
	u64 start, end, step;
	unsigned int flags;
	unsigned int n_bounds;
	u64 last_bound;
	const char *program_id, *aux_data;
};

static const struct parse_case parse_cases[] = {
	{ "- /1", 0, 0, DEV_SECTORS, DEV_SECTORS, 0, 0, 0, "-", "-" },
	{ "- /3", 0, 0, DEV_SECTORS, 334, 0, 0, 0, "-", "-" },
	{ "- /1000", 0, 0, DEV_SECTORS, 1, 0, 0, 0, "-", "-" },
	{ "- /4000", 0, 0, DEV_SECTORS, 1, 0, 0, 0, "-", "-" },
	{ "10+20 5", 0, 10, 30, 5, 0, 0, 0, "-", "-" },
	{ "0+1 1", 0, 0, 1, 1, 0, 0, 0, "-", "-" },
	{ "5+10 100", 0, 5, 15, 100, 0, 0, 0, "-", "-" },
	{ "18446744073709551614+1 1", 0, 18446744073709551614ULL,
	  18446744073709551615ULL, 1, 0, 0, 0, "-", "-" },
	{ "- 100 0", 0, 0, DEV_SECTORS, 100, 0, 0, 0, "-", "-" },
	{ "- 100 1 precise_timestamps", 0, 0, DEV_SECTORS, 100,
	  DM_STATS_PRECISE_TIMESTAMPS, 0, 0, "-", "-" },
	{ "- 100 1 PRECISE_Timestamps", 0, 0, DEV_SECTORS, 100,
	  DM_STATS_PRECISE_TIMESTAMPS, 0, 0, "-", "-" },
	{ "- 100 2 precise_timestamps precise_timestamps", 0, 0, DEV_SECTORS,
	  100, DM_STATS_PRECISE_TIMESTAMPS, 0, 0, "-", "-" },
	{ "- 100 1 histogram:7", 0, 0, DEV_SECTORS, 100, 0, 1, 7, "-", "-" },
	{ "- 100 1 HISTOGRAM:1,2,30", 0, 0, DEV_SECTORS, 100, 0, 3, 30, "-", "-" },
	{ "- 100 2 histogram:5,6 precise_timestamps p a", 0, 0, DEV_SECTORS, 100,
	  DM_STATS_PRECISE_TIMESTAMPS, 2, 6, "p", "a" },
	{ "- 100 prog", 0, 0, DEV_SECTORS, 100, 0, 0, 0, "prog", "-" },
	{ "- 100 prog aux", 0, 0, DEV_SECTORS, 100, 0, 0, 0, "prog", "aux" },
	{ "- 100 0 prog aux", 0, 0, DEV_SECTORS, 100, 0, 0, 0, "prog", "aux" },
	{ "- 100 1 precise_timestamps 12x", 0, 0, DEV_SECTORS, 100,
	  DM_STATS_PRECISE_TIMESTAMPS, 0, 0, "12x", "-" },
	/* Errors: every one is -EINVAL. */
	{ "", -EINVAL },
	{ "-", -EINVAL },
	{ "abc 1", -EINVAL },
	{ "10 1", -EINVAL },
	{ "10+ 1", -EINVAL },
	{ "+5 1", -EINVAL },
	{ "-1+5 1", -EINVAL },
	{ "10+20x 1", -EINVAL },
	{ "10+0 1", -EINVAL },
	{ "18446744073709551615+1 1", -EINVAL },
	{ "- 0", -EINVAL },
	{ "- /0", -EINVAL },
	{ "- abc", -EINVAL },
	{ "- 10x", -EINVAL },
	{ "- /x", -EINVAL },
	{ "- /5x", -EINVAL },
	{ "- 100 1", -EINVAL },
	{ "- 100 2 precise_timestamps", -EINVAL },
	{ "- 100 1 bogus", -EINVAL },
	{ "- 100 1 histogram", -EINVAL },
	{ "- 100 1 histogram:", -EINVAL },
	{ "- 100 1 histogram:0", -EINVAL },
	{ "- 100 1 histogram:2,1", -EINVAL },
	{ "- 100 1 histogram:1,1", -EINVAL },
	{ "- 100 1 histogram:1,,2", -EINVAL },
	{ "- 100 1 histogram:1,2,", -EINVAL },
	{ "- 100 1 histogram:,1", -EINVAL },
	{ "- 100 1 histogram:a", -EINVAL },
	{ "- 100 1 histogram:1x", -EINVAL },
	{ "- 100 1 histogram:1;2", -EINVAL },
	{ "- 100 2 histogram:1 histogram:2", -EINVAL },
	{ "- 100 prog aux extra", -EINVAL },
	{ "- 100 0 prog aux extra", -EINVAL },
	{ "- 100 123", -EINVAL },	/* an all-digit program id counts options */
};

static void parse_create_cases(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct dm_stats_create_args a;
		char line[128];
		char **argv;
		unsigned int argc;
		int ret;

		snprintf(line, sizeof(line), "@stats_create %s", c->args);
		argc = split(test, line, &argv);
		ret = dm_stats_parse_create(argc, argv, DEV_SECTORS, &a);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "args '%s'", c->args);
		if (ret) {
			KUNIT_EXPECT_NULL_MSG(test, a.bounds, "args '%s'", c->args);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, a.start, c->start, "args '%s'", c->args);
		KUNIT_EXPECT_EQ_MSG(test, a.end, c->end, "args '%s'", c->args);
		KUNIT_EXPECT_EQ_MSG(test, a.step, c->step, "args '%s'", c->args);
		KUNIT_EXPECT_EQ_MSG(test, a.flags, c->flags, "args '%s'", c->args);
		KUNIT_EXPECT_EQ_MSG(test, a.n_bounds, c->n_bounds, "args '%s'", c->args);
		if (a.n_bounds && c->n_bounds)
			KUNIT_EXPECT_EQ_MSG(test, a.bounds[a.n_bounds - 1],
					    c->last_bound, "args '%s'", c->args);
		KUNIT_EXPECT_STREQ_MSG(test, a.program_id, c->program_id,
				       "args '%s'", c->args);
		KUNIT_EXPECT_STREQ_MSG(test, a.aux_data, c->aux_data,
				       "args '%s'", c->args);
		kvfree(a.bounds);
	}
}

static void parse_create_empty_device(struct kunit *test)
{
	struct dm_stats_create_args a;
	char **argv;
	unsigned int argc = split(test, "@stats_create - /1", &argv);

	KUNIT_ASSERT_EQ(test, dm_stats_parse_create(argc, argv, 0, &a), 0);
	KUNIT_EXPECT_EQ(test, a.start, 0);
	KUNIT_EXPECT_EQ(test, a.end, 1);
	KUNIT_EXPECT_EQ(test, a.step, 1);
}

static void parse_histogram_values(struct kunit *test)
{
	unsigned int n;
	u64 *b;

	KUNIT_ASSERT_EQ(test, dm_stats_parse_histogram("1,10,100,18446744073709551615",
						       &n, &b), 0);
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, b[0], 1);
	KUNIT_EXPECT_EQ(test, b[1], 10);
	KUNIT_EXPECT_EQ(test, b[2], 100);
	KUNIT_EXPECT_EQ(test, b[3], U64_MAX);
	kvfree(b);
}

/* --------------------------------------------------------------- messages */

static void msg_unknown_is_not_ours(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, send(test, "@stats_bogus 0"), 2);
	KUNIT_EXPECT_EQ(test, send(test, "@cancel_deferred_remove"), 2);
}

static void msg_argument_errors(struct kunit *test)
{
	static const char * const bad[] = {
		"@stats_delete", "@stats_delete 0 1", "@stats_delete x",
		"@stats_delete -1", "@stats_delete 0x", "@stats_clear",
		"@stats_clear 0 0", "@stats_clear y", "@stats_list a b",
		"@stats_print", "@stats_print 0 1", "@stats_print 0 1 2 3",
		"@stats_print -2", "@stats_print 0 x -", "@stats_print 0 - y",
		"@stats_print 0 1x 1", "@stats_print_clear", "@stats_print_clear z",
		"@stats_set_aux 0", "@stats_set_aux 0 a b", "@stats_set_aux -5 a",
		"@stats_create - /0",
	};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - 100"), 1);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, send(test, bad[i]), -EINVAL, "'%s'", bad[i]);
	/* The region is still there and unchanged. */
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+1000 100 - -\n");
}

static void msg_unknown_id(struct kunit *test)
{
	static const char * const missing[] = {
		"@stats_delete 3", "@stats_clear 3", "@stats_print 3",
		"@stats_print_clear 3 0 1", "@stats_set_aux 3 x",
	};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - 100"), 1);
	for (i = 0; i < ARRAY_SIZE(missing); i++)
		KUNIT_EXPECT_EQ_MSG(test, send(test, missing[i]), -ENOENT,
				    "'%s'", missing[i]);
}

static void msg_ids_reuse_lowest_free(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	int i;

	for (i = 0; i < 4; i++) {
		char want[4];

		KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
		snprintf(want, sizeof(want), "%d", i);
		KUNIT_EXPECT_STREQ(test, f->result, want);
	}
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 1"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 2"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 2"), -ENOENT);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "1");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "2");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "4");
}

static void msg_list_text(struct kunit *test)
{
	const char *both = "@stats_create - 100 2 precise_timestamps histogram:1,20,300";

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 10+90 /4 prog aux"), 1);
	KUNIT_ASSERT_EQ(test, send(test, both), 1);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+1 1 other"), 1);
	KUNIT_EXPECT_STREQ(test, list(test),
			   "0: 10+90 23 prog aux\n"
			   "1: 0+1000 100 - - precise_timestamps histogram:1,20,300\n"
			   "2: 0+1 1 other -\n");
	KUNIT_EXPECT_EQ(test, send(test, "@stats_list prog"), 1);
	KUNIT_EXPECT_STREQ(test, ((struct stats_fixture *)test->priv)->result,
			   "0: 10+90 23 prog aux\n");
	KUNIT_EXPECT_EQ(test, send(test, "@stats_list nobody"), 1);
	KUNIT_EXPECT_STREQ(test, ((struct stats_fixture *)test->priv)->result, "");
	KUNIT_EXPECT_EQ(test, send(test, "@stats_set_aux 2 new"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@STATS_LIST other"), 1);
	KUNIT_EXPECT_STREQ(test, ((struct stats_fixture *)test->priv)->result,
			   "2: 0+1 1 other new\n");
}

/* dm-ioctl hands out a result buffer that overlaps the message itself. */
static void msg_list_filter_in_result_buffer(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	char *buf = kunit_kzalloc(test, RESULT_LEN, GFP_KERNEL);
	char *argv[2];

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1 myprog"), 1);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1 myprog aux"), 1);
	strscpy(buf + 8, "@stats_list", 12);
	strscpy(buf + 20, "myprog", 7);
	argv[0] = buf + 8;
	argv[1] = buf + 20;
	KUNIT_EXPECT_EQ(test, dm_stats_dispatch(&f->st, DEV_SECTORS, 2, argv,
						buf, RESULT_LEN), 1);
	KUNIT_EXPECT_STREQ(test, buf, "0: 0+1000 1000 myprog -\n"
			   "1: 0+1000 1000 myprog aux\n");
}

static void msg_print_text(struct kunit *test)
{
	struct stats_fixture *f = test->priv;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 100+250 100 1 histogram:5,9"), 1);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print 0"), 1);
	KUNIT_EXPECT_STREQ(test, f->result,
			   "100+100 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0\n"
			   "200+100 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0\n"
			   "300+100 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0\n");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print 0 1 1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result,
			   "200+100 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0\n");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print 0 2 -"), 1);
	KUNIT_EXPECT_STREQ(test, f->result,
			   "300+100 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0\n");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print 0 - 1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result,
			   "100+100 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0\n");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print 0 7 1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print_clear 0 1 0"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "");
}

static void msg_create_checks_buffer_first(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	char small[4];
	char **argv;
	unsigned int argc = split(test, "@stats_create - /1", &argv);

	/* An id that could not be returned must not be created. */
	KUNIT_EXPECT_EQ(test, dm_stats_dispatch(&f->st, DEV_SECTORS, argc, argv,
						small, sizeof(small)), 1);
	KUNIT_EXPECT_STREQ(test, list(test), "");
}

static const char *many_bounds_line(struct kunit *test)
{
	char *line = kunit_kzalloc(test, 1024, GFP_KERNEL);
	unsigned int i, len;

	KUNIT_ASSERT_NOT_NULL(test, line);
	len = scnprintf(line, 1024, "@stats_create 0+1048576 1 1 histogram:1");
	for (i = 2; i <= 128; i++)
		len += scnprintf(line + len, 1024 - len, ",%u", i);
	return line;
}

static void msg_failed_create_changes_nothing(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	unsigned long before;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /2"), 1);
	before = dm_stats_mem_used();
	KUNIT_EXPECT_EQ(test, send(test, "@stats_create - 100 1 histogram:3,2"), -EINVAL);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_create 0+16777216 1"), -EOVERFLOW);
	/* 128 boundaries on 2^20 areas: 129 * 2^20 cells is over the limit. */
	KUNIT_EXPECT_EQ(test, send(test, many_bounds_line(test)), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), before);
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+1000 500 - -\n");
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "1");
}

static struct kunit_case dm_stats_message_cases[] = {
	KUNIT_CASE(parse_create_cases),
	KUNIT_CASE(parse_create_empty_device),
	KUNIT_CASE(parse_histogram_values),
	KUNIT_CASE(msg_unknown_is_not_ours),
	KUNIT_CASE(msg_argument_errors),
	KUNIT_CASE(msg_unknown_id),
	KUNIT_CASE(msg_ids_reuse_lowest_free),
	KUNIT_CASE(msg_list_text),
	KUNIT_CASE(msg_list_filter_in_result_buffer),
	KUNIT_CASE(msg_print_text),
	KUNIT_CASE(msg_create_checks_buffer_first),
	KUNIT_CASE(msg_failed_create_changes_nothing),
	{}
};

static struct kunit_suite dm_stats_message_suite = {
	.name = "dm-stats-message",
	.init = stats_fixture_init,
	.exit = stats_fixture_exit,
	.test_cases = dm_stats_message_cases,
};

kunit_test_suite(dm_stats_message_suite);

/* The module of all dm-stats-*-test.c suites: dm-stats-test.ko */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests of the device-mapper statistics engine");
MODULE_LICENSE("GPL");
