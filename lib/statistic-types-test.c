// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite statistic-types of the generic statistics layer: each type's
 * arithmetic and output, against hand-computed values and brute-force
 * models.
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

/* value */

static void value_increments(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "v");

	KUNIT_EXPECT_FALSE(test, statistic_start(stat));
	statistic_add(stat, 5, 3);
	statistic_add(stat, -5, 2);
	statistic_inc(stat, 100);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v 6\n");
}

static void value_products(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "v");

	ret = statistic_define_value(stat, S64_MIN, S64_MAX,
				     STATISTIC_MODE_PRODUCTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	statistic_add(stat, -5, 3);
	statistic_add(stat, 2, 2);
	statistic_add(stat, 7, 0);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v -11\n");
	statistic_add(stat, 4, 5);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v 9\n");
}

static void value_out_of_range(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "v");

	ret = statistic_define_value(stat, 0, 10, STATISTIC_MODE_INCREMENTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	statistic_add(stat, -1, 1);
	statistic_add(stat, 11, 1);
	statistic_add(stat, 0, 1);
	statistic_add(stat, 10, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v 2\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "v", "hits_out_of_range"), "2");
}

static void value_on_off(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "v");

	statistic_inc(stat, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v 0\n");
	KUNIT_EXPECT_FALSE(test, statistic_start(stat));
	KUNIT_EXPECT_TRUE(test, statistic_start(stat));
	statistic_inc(stat, 1);
	KUNIT_EXPECT_TRUE(test, statistic_stop(stat));
	KUNIT_EXPECT_FALSE(test, statistic_stop(stat));
	statistic_inc(stat, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v 1\n");
	KUNIT_EXPECT_EQ(test, 0, statistic_reset(stat));
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "v 0\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "v", "on"), "0");
}

/* range */

struct range_case {
	const char *name;
	s64 x[4];
	u64 y[4];
	const char *want;
};

static const struct range_case range_cases[] = {
	{ "empty", {}, {}, "r 0 0 0.000 0\n" },
	{ "half", { 1, 2 }, { 1, 1 }, "r 2 1 1.500 2\n" },
	{ "weighted", { 10, 20 }, { 3, 1 }, "r 4 10 12.500 20\n" },
	{ "negative", { -1, -2 }, { 1, 1 }, "r 2 -2 -1.500 -1\n" },
	{ "third", { 0, 1 }, { 2, 1 }, "r 3 0 0.333 1\n" },
	{ "two thirds", { 2, 0 }, { 1, 2 }, "r 3 0 0.667 2\n" },
	{ "minus a third", { -1, 0 }, { 1, 2 }, "r 3 -1 -0.333 0\n" },
	{ "half a thousandth", { -1, 0 }, { 1, 1999 }, "r 2000 -1 -0.001 0\n" },
	{ "below half", { -1, 0 }, { 1, 2001 }, "r 2002 -1 0.000 0\n" },
	{ "round up to one", { 0, 1 }, { 1, 9999 }, "r 10000 0 1.000 1\n" },
	{ "zero y ignored", { 5, 100 }, { 1, 0 }, "r 1 5 5.000 5\n" },
	{ "extremes", { S64_MAX, S64_MIN }, { 1, 0 },
	  "r 1 9223372036854775807 9223372036854775807.000 9223372036854775807\n" },
};

static void range_case_desc(const struct range_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(range, range_cases, range_case_desc);

static void range_arithmetic(struct kunit *test)
{
	int ret;
	const struct range_case *c = test->param_value;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "r");
	int i;

	ret = statistic_define_range(stat, S64_MIN, S64_MAX);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	for (i = 0; i < ARRAY_SIZE(c->x); i++)
		if (c->x[i] || c->y[i])
			statistic_add(stat, c->x[i], c->y[i]);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), c->want);
}

/* array: the layer against a table of bounds built here */

#define ARRAY_MODEL_MAX	1100

static unsigned int model_bounds(s64 min, s64 max, u64 base, bool log2,
				 s64 *bounds, unsigned int size)
{
	unsigned int n = 0;
	s64 b = min;
	u64 step = base;

	while (b <= max && n < size) {
		bounds[n++] = b;
		if (log2) {
			/* min + step > max, without overflowing */
			if (!step || step > (u64)max - (u64)min)
				break;
			b = min + step;
			step *= 2;
		} else {
			b += base;
		}
	}
	return n;
}

static void array_check(struct kunit *test, s64 min, s64 max, u64 base,
			bool log2, s64 from, s64 to)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "a");
	s64 *bounds;
	u64 *want, out = 0;
	unsigned int n, i;
	char *expect, *p, num[24];
	s64 x;

	bounds = kunit_kcalloc(test, ARRAY_MODEL_MAX, sizeof(*bounds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bounds);
	n = model_bounds(min, max, base, log2, bounds, ARRAY_MODEL_MAX);
	want = kunit_kcalloc(test, n + 1, sizeof(*want), GFP_KERNEL);
	expect = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, expect);
	ret = statistic_define_array(stat, min, max, base,
				     log2 ? STATISTIC_SCALE_LOG2 : STATISTIC_SCALE_LIN);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	for (x = from; x <= to; x++) {
		u64 y = (u64)(x - from) % 7 + 1;

		statistic_add(stat, x, y);
		/* the spec: X below range_min or above range_max is a hit out of range */
		if (x < min || x > max) {
			out++;
			continue;
		}
		for (i = 0; i < n && x > bounds[i]; i++)
			;
		want[i] += y;
	}
	p = expect;
	for (i = 0; i < n; i++)
		p += sprintf(p, "a <=%lld %llu\n", bounds[i], want[i]);
	sprintf(p, "a >%lld %llu\n", bounds[n - 1], want[n]);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), expect);
	snprintf(num, sizeof(num), "%llu", out);
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "a", "hits_out_of_range"), num);
}

static void array_log2_spec(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "lat");

	/* the spec's latencies: bounds 0, 1, 2, 4, ... 1024 and ">1024" */
	ret = statistic_define_array(stat, 0, 2047, 1, STATISTIC_SCALE_LOG2);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	statistic_add(stat, -7, 1);	/* below range_min: out of range */
	statistic_add(stat, 0, 1);	/* <=0 */
	statistic_add(stat, 1, 2);	/* <=1 */
	statistic_add(stat, 3, 3);	/* <=4 */
	statistic_add(stat, 4, 3);	/* <=4 */
	statistic_add(stat, 5, 4);	/* <=8 */
	statistic_add(stat, 512, 5);	/* <=512 */
	statistic_add(stat, 513, 6);	/* <=1024 */
	statistic_add(stat, 1024, 6);	/* <=1024 */
	statistic_add(stat, 1025, 7);	/* >1024 */
	statistic_add(stat, 2047, 7);	/* >1024 */
	statistic_add(stat, 2048, 8);	/* above range_max: out of range */
	statistic_add(stat, S64_MAX, 9);	/* out of range */
	statistic_add(stat, S64_MIN, 9);	/* out of range */
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "lat <=0 1\nlat <=1 2\nlat <=2 0\nlat <=4 6\n"
			   "lat <=8 4\nlat <=16 0\nlat <=32 0\nlat <=64 0\n"
			   "lat <=128 0\nlat <=256 0\nlat <=512 5\n"
			   "lat <=1024 12\nlat >1024 14\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "lat", "hits_out_of_range"), "4");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "lat", "base_interval"), "1");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "lat", "scale"), "log2");

	/* range_max on the last bound: the ">" interval stays empty */
	ret = statistic_define_array(stat, 0, 1024, 1, STATISTIC_SCALE_LOG2);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_add(stat, 1024, 2);
	statistic_add(stat, 1025, 3);
	KUNIT_EXPECT_NOT_NULL(test, strstr(data_text(test, iface),
					   "lat <=1024 2\nlat >1024 0\n"));
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "lat", "hits_out_of_range"), "1");
}

static void array_log2_models(struct kunit *test)
{
	array_check(test, 0, 1024, 1, true, -3, 1100);
	array_check(test, 10, 100, 3, true, 0, 120);	/* 10 13 16 22 34 58 */
	array_check(test, -50, 50, 4, true, -60, 60);
	array_check(test, 5, 5, 1, true, 0, 10);
	/* a span of 2^63 or more: out of line, in per-CPU blocks */
	array_check(test, -(1LL << 62), (1LL << 62) + (1LL << 61), 1, true,
		    -(1LL << 62) - 3, -(1LL << 62) + 300);
}

static void array_lin_models(struct kunit *test)
{
	array_check(test, -7, 23, 5, false, -12, 30);
	array_check(test, 0, 10, 3, false, -2, 14);	/* 0 3 6 9 >9 */
	array_check(test, 0, 64, 8, false, -1, 70);
	array_check(test, 100, 100, 7, false, 90, 110);
	/* 512 intervals inline in the hot block; 513 and more in blocks */
	array_check(test, 0, 510, 1, false, -2, 515);
	array_check(test, 0, 511, 1, false, -2, 515);
	array_check(test, 0, 1023, 1, false, -2, 1030);
}

static void array_limits(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "a");

	/* 65536 bounds and the ">" interval: too many */
	ret = statistic_define_array(stat, 0, 65535, 1, STATISTIC_SCALE_LIN);
	KUNIT_EXPECT_EQ(test, -EINVAL, ret);
	ret = statistic_define_array(stat, 0, 65534, 1, STATISTIC_SCALE_LIN);
	KUNIT_EXPECT_EQ(test, 0, ret);
	ret = statistic_define_array(stat, 0, 10, 0, STATISTIC_SCALE_LIN);
	KUNIT_EXPECT_EQ(test, -EINVAL, ret);
	ret = statistic_define_array(stat, 10, 0, 1, STATISTIC_SCALE_LIN);
	KUNIT_EXPECT_EQ(test, -EINVAL, ret);
	ret = statistic_define_array(stat, 0, 10, 1, 7);
	KUNIT_EXPECT_EQ(test, -EINVAL, ret);
	/* the whole s64 range in log2: S64_MIN, then S64_MIN + 2^k up to 0 */
	ret = statistic_define_array(stat, S64_MIN, S64_MAX, 1,
				     STATISTIC_SCALE_LOG2);
	KUNIT_EXPECT_EQ(test, 0, ret);
	statistic_start(stat);
	statistic_add(stat, S64_MAX, 1);
	statistic_add(stat, S64_MIN, 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(data_text(test, iface),
					   "a <=-9223372036854775808 1\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(data_text(test, iface),
					   "a <=-4611686018427387904 0\na <=0 0\na >0 1\n"));
}

/* list */

static void list_order_overflow(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "l");
	static const s64 xs[] = { 5, -1, 5, 7, 9, 9, -1, 100, 0x1000 };

	ret = statistic_define_list(stat, -10, 10, 3);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	for (int i = 0; i < ARRAY_SIZE(xs); i++)
		statistic_add(stat, xs[i], i + 1);
	/* first come, first served; 9 misses twice; 100, 0x1000 out of range */
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "l 0x5 4\nl -0x1 9\nl 0x7 4\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "l", "hits_missed"), "2");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "l", "hits_out_of_range"), "2");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "l", "entries_max"), "3");
	KUNIT_EXPECT_EQ(test, 0, statistic_reset(stat));
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "l", "hits_missed"), "0");
}

static void list_model(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "l");
	enum { ENTRIES = 50, RANGE = 100, PAIRS = 5000 };
	s64 seen[ENTRIES];
	u64 total[ENTRIES] = {}, missed = 0, rnd = 1;
	unsigned int used = 0, i, j;
	char *expect, *p;

	expect = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, expect);
	ret = statistic_define_list(stat, S64_MIN, S64_MAX, ENTRIES);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	for (i = 0; i < PAIRS; i++) {
		s64 x;
		u64 y;

		rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
		x = (s64)((rnd >> 33) % RANGE) - RANGE / 2;
		y = (rnd >> 20) % 5;
		statistic_add(stat, x, y);
		for (j = 0; j < used && seen[j] != x; j++)
			;
		if (j == used) {
			if (used == ENTRIES) {
				missed++;
				continue;
			}
			seen[used++] = x;
		}
		total[j] += y;
	}
	p = expect;
	for (j = 0; j < used; j++)
		p += sprintf(p, "l %s0x%llx %llu\n", seen[j] < 0 ? "-" : "",
			     seen[j] < 0 ? -(u64)seen[j] : (u64)seen[j], total[j]);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), expect);
	snprintf(expect, 32, "%llu", missed);
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "l", "hits_missed"), expect);
}

/* history, on the test clock */

static void history_increments(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat;

	test_now = 1000 * MS;
	stat = new_stat(test, iface, "h");
	ret = statistic_define_history(stat, 0, 100, 4, 1000,
				       STATISTIC_MODE_INCREMENTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "h [1.001000] 0\n");
	statistic_add(stat, 1, 2);		/* period 0 */
	test_now = 1000 * MS + 999999;
	statistic_add(stat, 1, 3);		/* period 0, last ns */
	test_now = 1001 * MS;
	statistic_add(stat, 1, 4);		/* period 1, first ns */
	test_now = 1003 * MS + 5;
	statistic_add(stat, 1, 5);		/* period 3 */
	statistic_add(stat, 101, 5);		/* out of range */
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "h [1.001000] 5\nh [1.002000] 4\nh [1.003000] 0\n"
			   "h [1.004000] 5\n");
	/* roll over: periods 0 and 1 leave the ring, 4 and 5 are empty */
	test_now = 1005 * MS;
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "h [1.003000] 0\nh [1.004000] 5\nh [1.005000] 0\n"
			   "h [1.006000] 0\n");
	/* a slot reused for a later period starts from zero */
	statistic_add(stat, 1, 7);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "h [1.003000] 0\nh [1.004000] 5\nh [1.005000] 0\n"
			   "h [1.006000] 7\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "h", "hits_out_of_range"), "1");
	/* long after: only empty periods */
	test_now = 2000 * MS;
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "h [1.998000] 0\nh [1.999000] 0\nh [2.000000] 0\n"
			   "h [2.001000] 0\n");
}

static void history_products_range(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *p, *r;

	test_now = 5000 * MS;
	p = new_stat(test, iface, "p");
	r = new_stat(test, iface, "r");
	ret = statistic_define_history(p, S64_MIN, S64_MAX, 2, 500000,
				       STATISTIC_MODE_PRODUCTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = statistic_define_history(r, S64_MIN, S64_MAX, 2, 500000,
				       STATISTIC_MODE_RANGE);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(p);
	statistic_start(r);
	statistic_add(p, -3, 2);
	statistic_add(r, -3, 2);
	test_now += 600 * MS;
	statistic_add(p, 4, 1);
	statistic_add(r, 4, 1);
	statistic_add(r, 10, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "p [5.500000] -6\np [6.000000] 4\n"
			   "r [5.500000] 2 -3 -3.000 -3\nr [6.000000] 2 4 7.000 10\n");
	/* stopped: the periods up to the stop, however late we look */
	statistic_stop(r);
	test_now += 10000 * MS;
	statistic_add(r, 1, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "p [15.500000] 0\np [16.000000] 0\n"
			   "r [5.500000] 2 -3 -3.000 -3\nr [6.000000] 2 4 7.000 10\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "r", "mode"), "range");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "r", "period"), "500000");
}

/* raw */

static void raw_wrap(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat;
	int i;

	test_now = 7 * MS;
	stat = new_stat(test, iface, "w");
	ret = statistic_define_raw(stat, -100, 100, 3);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_start(stat);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "");
	for (i = 0; i < 5; i++) {
		test_now += MS;
		statistic_add(stat, i - 2, i * 10);
	}
	statistic_add(stat, 101, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface),
			   "w [0.010000] 2 0 20\nw [0.011000] 3 1 30\n"
			   "w [0.012000] 4 2 40\n");
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "w", "hits_out_of_range"), "1");
	KUNIT_EXPECT_EQ(test, 0, statistic_reset(stat));
	statistic_add(stat, 9, 9);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "w [0.012000] 0 9 9\n");
}

static struct kunit_case statistic_types_cases[] = {
	KUNIT_CASE(value_increments),
	KUNIT_CASE(value_products),
	KUNIT_CASE(value_out_of_range),
	KUNIT_CASE(value_on_off),
	KUNIT_CASE_PARAM(range_arithmetic, range_gen_params),
	KUNIT_CASE(array_log2_spec),
	KUNIT_CASE(array_log2_models),
	KUNIT_CASE(array_lin_models),
	KUNIT_CASE(array_limits),
	KUNIT_CASE(list_order_overflow),
	KUNIT_CASE(list_model),
	KUNIT_CASE(history_increments),
	KUNIT_CASE(history_products_range),
	KUNIT_CASE(raw_wrap),
	{}
};

static struct kunit_suite statistic_types_suite = {
	.name = "statistic-types",
	.suite_init = statistic_suite_init,
	.suite_exit = statistic_suite_exit,
	.test_cases = statistic_types_cases,
};

kunit_test_suite(statistic_types_suite);

/* The module of all statistic-*-test.c suites: statistic-test.ko */
MODULE_DESCRIPTION("KUnit tests of the generic statistics layer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
