// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the generic statistics layer: each type's arithmetic and
 * output (against hand-computed values and brute-force models), the
 * definition file's parser (every attribute, every error, and arbitrary
 * bytes from a seeded generator), memory only while statistics run and
 * within the limit, on a clock the tests control.
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

#include "statistic-internal.h"

#define TEXT_SIZE	(64 * 1024)

static u64 test_now;

static u64 test_clock(void)
{
	return test_now;
}

static void iface_remove_action(void *iface)
{
	statistic_interface_remove(iface);
}

/* A fresh interface on the test clock, removed when the test ends. */
static struct statistic_interface *new_iface(struct kunit *test)
{
	static atomic_t serial = ATOMIC_INIT(0);
	struct statistic_interface *iface;
	char name[32];

	snprintf(name, sizeof(name), "kunit-statistic-%d",
		 atomic_inc_return(&serial));
	iface = statistic_create_interface(name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(iface));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   iface_remove_action,
							   iface));
	statistic_interface_set_clock(iface, test_clock);
	return iface;
}

static struct statistic *new_stat(struct kunit *test,
				  struct statistic_interface *iface,
				  const char *name)
{
	struct statistic *stat = statistic_create(iface, name, "x/y");

	KUNIT_ASSERT_FALSE(test, IS_ERR(stat));
	return stat;
}

static struct statistic *iface_stat(struct statistic_interface *iface,
				    const char *name)
{
	struct statistic *stat, *found = NULL;

	mutex_lock(&iface->lock);
	list_for_each_entry(stat, &iface->statistics, node)
		if (!strcmp(stat->name, name))
			found = stat;
	mutex_unlock(&iface->lock);
	return found;
}

static const char *text(struct kunit *test, struct statistic_interface *iface,
			bool definition)
{
	char *buf = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_GE(test, statistic_format(iface, definition, buf,
					       TEXT_SIZE), 0);
	return buf;
}

static const char *data_text(struct kunit *test,
			     struct statistic_interface *iface)
{
	return text(test, iface, false);
}

static const char *def_text(struct kunit *test,
			    struct statistic_interface *iface)
{
	return text(test, iface, true);
}

static int def_write(struct kunit *test, struct statistic_interface *iface,
		     const char *s)
{
	char *buf = kunit_kstrdup(test, s, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return statistic_definition_write(iface, buf);
}

/* The value of one attribute in a statistic's definition line. */
static const char *attr(struct kunit *test, struct statistic_interface *iface,
			const char *name, const char *key)
{
	char *def = kunit_kstrdup(test, def_text(test, iface), GFP_KERNEL);
	char *line, *word;
	size_t klen = strlen(key);

	while ((line = strsep(&def, "\n")) != NULL) {
		if (strncmp(line, "name=", 5) || strncmp(line + 5, name,
							 strlen(name)) ||
		    line[5 + strlen(name)] != ' ')
			continue;
		while ((word = strsep(&line, " ")) != NULL)
			if (!strncmp(word, key, klen) && word[klen] == '=')
				return word + klen + 1;
	}
	return "(none)";
}

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

#define MS	1000000ULL

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

static void create_errors(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);

	new_stat(test, iface, "s");
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "s", "u")), -EEXIST);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "a b", "u")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "a=b", "u")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "", "u")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "a", "u v")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create_interface("a/b")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create_interface("")), -EINVAL);
	ret = statistic_define_list(NULL, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, -EINVAL, ret);
}

/*
 * A closed layer (booted without debugfs or locked down) refuses every
 * interface with its reason, before it allocates anything.
 */
static void closed_layer_refuses(struct kunit *test)
{
	static const int reasons[] = { -ENODEV, -EPERM };
	unsigned long before;
	unsigned int i;
	int was;

	statistic_data_retire_barrier();	/* earlier cases' frees landed */
	before = statistic_allocated_bytes();
	for (i = 0; i < ARRAY_SIZE(reasons); i++) {
		was = statistic_set_closed(reasons[i]);
		KUNIT_EXPECT_EQ(test, 0, was);
		KUNIT_EXPECT_EQ(test, reasons[i],
				PTR_ERR(statistic_create_interface("kunit-closed")));
		KUNIT_EXPECT_EQ(test, reasons[i],
				PTR_ERR(statistic_create_interface("a/b")));
		statistic_set_closed(was);
	}
	KUNIT_EXPECT_EQ(test, before, statistic_allocated_bytes());
}

static void remove_statistic(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	struct statistic *a = new_stat(test, iface, "a");

	new_stat(test, iface, "b");
	statistic_start(a);
	statistic_remove(a);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "b 0\n");
	KUNIT_EXPECT_EQ(test, -EINVAL, def_write(test, iface, "name=a on=1"));
}

/* Reconfiguration while every CPU adds: RCU keeps each generation alive. */

struct adder {
	struct statistic *stat;
	struct task_struct *task;
	unsigned long rounds;
};

static int adder_fn(void *arg)
{
	struct adder *a = arg;

	while (!kthread_should_stop()) {
		statistic_add(a->stat, (s64)(a->rounds * 7 % 200) - 50, 1);
		WRITE_ONCE(a->rounds, a->rounds + 1);
		cond_resched();
	}
	return 0;
}

static void reconfigure_under_adds(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "c");
	struct adder adders[2] = {};
	unsigned int nr = 0, i;
	const char *text;
	int cpu, ret;

	statistic_interface_set_clock(iface, NULL);	/* real time */
	statistic_start(stat);
	/*
	 * The adders use @adders and @stat: from here on a failure stops them
	 * before the test returns (no KUNIT_ASSERT until they are stopped).
	 */
	for_each_online_cpu(cpu) {
		struct adder *a = &adders[nr];
		struct task_struct *task;

		if (nr == ARRAY_SIZE(adders))
			break;
		a->stat = stat;
		task = kthread_create(adder_fn, a, "statistic-adder/%d", cpu);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_create: %pe", task);
			goto stop;
		}
		a->task = task;
		kthread_bind(task, cpu);
		wake_up_process(task);
		nr++;
	}
	/* reconfiguring does not wait for anything: start once they add */
	for (i = 0; i < nr; i++) {
		unsigned long deadline = jiffies + 10 * HZ;

		/*
		 * A tick's sleep, not usleep_range(): a short hrtimer sleep
		 * that expires before schedule() does not switch (seen under
		 * QEMU -icount), and with PREEMPT_NONE the adder bound to
		 * this CPU would never run.
		 */
		while (!READ_ONCE(adders[i].rounds) &&
		       time_before(jiffies, deadline))
			schedule_timeout_uninterruptible(1);
		if (!READ_ONCE(adders[i].rounds)) {
			KUNIT_FAIL(test, "the adder on CPU %u did not run in 10 s",
				   task_cpu(adders[i].task));
			goto stop;
		}
	}
	for (i = 0; i < 60; i++) {
		switch (i % 6) {
		case 0:
			ret = statistic_define_list(stat, -20, 100, 8);
			break;
		case 1:
			ret = statistic_define_array(stat, 0, 64, 2,
						     STATISTIC_SCALE_LOG2);
			break;
		case 2:
			ret = statistic_define_history(stat, S64_MIN, S64_MAX,
						       4, 1000,
						       STATISTIC_MODE_RANGE);
			break;
		case 3:
			ret = statistic_define_raw(stat, S64_MIN, S64_MAX, 16);
			break;
		case 4:
			ret = statistic_define_range(stat, -10, 10);
			break;
		default:
			ret = statistic_reset(stat);
			break;
		}
		KUNIT_EXPECT_EQ(test, 0, ret);
		if (ret)
			goto stop;
		KUNIT_EXPECT_EQ(test, 0, def_write(test, iface,
						   i & 1 ? "on=1" : "data=reset"));
		/* every read sees whole lines of the current generation */
		text = data_text(test, iface);
		KUNIT_EXPECT_TRUE(test, !*text || (!strncmp(text, "c ", 2) &&
						   text[strlen(text) - 1] == '\n'));
		usleep_range(100, 200);
		cond_resched();
	}
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_GT(test, READ_ONCE(adders[i].rounds), 0UL);
stop:
	for (i = 0; i < nr; i++)
		kthread_stop(adders[i].task);
	/* quiet again: exact arithmetic on the last generation */
	ret = statistic_define_value(stat, S64_MIN, S64_MAX,
				     STATISTIC_MODE_INCREMENTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_add(stat, 1, 41);
	statistic_inc(stat, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "c 42\n");
}

/*
 * A cell is a u64 that its CPU adds to while other CPUs read it: on 32-bit
 * that is two stores, unless the add is one atomic operation. Adds of
 * 2^32 + 1 keep both halves of the sum equal (n << 32 | n), so a reader
 * that sees half of an add shows.
 */
#define TORN_Y	((1ULL << 32) + 1)

struct torn_adder {
	struct statistic *stat;
	unsigned long rounds;
};

static int torn_adder_fn(void *arg)
{
	struct torn_adder *a = arg;

	while (!kthread_should_stop()) {
		statistic_add(a->stat, 1, TORN_Y);
		WRITE_ONCE(a->rounds, a->rounds + 1);
		if (!(a->rounds & 255))
			cond_resched();
	}
	return 0;
}

static void cells_never_torn(struct kunit *test)
{
	unsigned long deadline, reads = 0, torn = 0, changes = 0;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "c");
	struct torn_adder a = { .stat = stat };
	struct task_struct *task;
	u64 v, last = 0;
	char *buf;

	buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, 0, statistic_define_value(stat, S64_MIN, S64_MAX,
							STATISTIC_MODE_INCREMENTS));
	KUNIT_ASSERT_EQ(test, 0, statistic_start(stat));
	task = kthread_run(torn_adder_fn, &a, "statistic-torn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));

	deadline = jiffies + msecs_to_jiffies(300);
	while (time_before(jiffies, deadline) || changes < 100) {
		if (statistic_format(iface, false, buf, 128) < 0 ||
		    sscanf(buf, "c %llu", &v) != 1) {
			KUNIT_FAIL(test, "data: %s", buf);
			break;
		}
		reads++;
		if (upper_32_bits(v) != lower_32_bits(v))
			torn++;
		if (v != last) {
			last = v;
			changes++;
		}
		if (time_after(jiffies, deadline + 5 * HZ))
			break;
		if (!(reads & 63))
			cond_resched();
	}
	kthread_stop(task);

	kunit_info(test, "%lu reads, %lu while the adder moved on, %lu adds: %lu torn\n",
		   reads, changes, READ_ONCE(a.rounds), torn);
	/* the adder ran beside the reader, else nothing was tested */
	KUNIT_EXPECT_GE(test, changes, 100UL);
	KUNIT_EXPECT_EQ(test, torn, 0UL);
}

/* Let retired generations and per-CPU blocks be freed (and uncharged). */
static void settle(void)
{
	statistic_data_retire_barrier();
}

/* dm's statistics, as drivers/md/dm-statistic.c defines them. */
static void define_dm_like(struct kunit *test, struct statistic_interface *iface)
{
	KUNIT_ASSERT_EQ(test, 0, statistic_define_list(new_stat(test, iface, "sizes"),
						       0, S64_MAX, 256));
	KUNIT_ASSERT_EQ(test, 0, statistic_define_array(new_stat(test, iface, "lat"),
							0, (1 << 21) - 1, 1,
							STATISTIC_SCALE_LOG2));
	KUNIT_ASSERT_EQ(test, 0, statistic_define_range(new_stat(test, iface, "pending"),
							0, S64_MAX));
	KUNIT_ASSERT_EQ(test, 0,
			statistic_define_history(new_stat(test, iface, "tput"),
						 0, S64_MAX, 60, 1000000,
						 STATISTIC_MODE_PRODUCTS));
	KUNIT_ASSERT_EQ(test, 0, statistic_define_raw(new_stat(test, iface, "raw"),
						      S64_MIN, S64_MAX, 64));
}

/*
 * Memory only while in use: statistics that never ran take no per-CPU
 * memory nor anything their definition sizes; running ones take per-CPU
 * blocks, which stopping folds and frees.
 */
static void memory_while_stopped(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	unsigned long before, running, stopped;

	settle();
	before = statistic_allocated_bytes();
	define_dm_like(test, iface);
	def_write(test, iface, "data=reset");
	settle();
	KUNIT_EXPECT_EQ(test, statistic_allocated_bytes() - before, 0UL);

	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=1"));
	running = statistic_allocated_bytes() - before;
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=0"));
	settle();
	stopped = statistic_allocated_bytes() - before;
	kunit_info(test, "stopped, never run: 0 bytes; running: %lu bytes on %u possible CPUs; stopped: %lu bytes\n",
		   running, num_possible_cpus(), stopped);
	/* every per-CPU block is given back; the folded data stays */
	KUNIT_EXPECT_GT(test, running, stopped);
	KUNIT_EXPECT_GT(test, stopped, 0UL);

	/* a new generation of a stopped statistic has nothing again */
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "data=reset"));
	settle();
	KUNIT_EXPECT_EQ(test, statistic_allocated_bytes() - before, 0UL);
}

/* Stopping folds every CPU's data; starting again adds to it. */
static void stop_start_keeps_data(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	const char *first, *second;
	int i;

	define_dm_like(test, iface);
	test_now = 5ULL * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "data=reset\non=1"));
	for (i = 0; i < 3; i++) {
		struct statistic *stat;

		mutex_lock(&iface->lock);
		list_for_each_entry(stat, &iface->statistics, node) {
			statistic_add(stat, 4096, 1);
			statistic_add(stat, 512, 2);
			statistic_add(stat, -1, 1);
		}
		mutex_unlock(&iface->lock);
		if (i == 0) {
			KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=0"));
			first = data_text(test, iface);
			KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=1"));
			KUNIT_EXPECT_STREQ(test, data_text(test, iface), first);
		}
	}
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=0"));
	second = data_text(test, iface);
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "pending", "hits_out_of_range"), "3");
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "sizes 0x1000 3\nsizes 0x200 6\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "pending 9 512 1706.667 4096\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "lat <=512 6\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "lat <=4096 3\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "tput [6.000000] 15360\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "raw [5.000000] 7 512 2\n"
					   "raw [5.000000] 8 -1 1\n"));
}

/* A definition past the limit fails with ENOMEM and changes nothing. */
static void limit_refuses_and_changes_nothing(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	const char *def, *data;
	unsigned long old;
	int ret;

	define_dm_like(test, iface);
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "name=pending on=1"));
	statistic_add(iface_stat(iface, "pending"), 7, 1);
	def = def_text(test, iface);
	data = data_text(test, iface);
	old = statistic_set_max_allocated_bytes(statistic_allocated_bytes() +
						64 * 1024);
	/* the first line fits, the second does not: neither is applied */
	ret = def_write(test, iface,
			"name=sizes on=1\n"
			"name=tput type=history mode=range period=1 entries_max=65536 on=1");
	statistic_set_max_allocated_bytes(old);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_STREQ(test, def_text(test, iface), def);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), data);
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=sizes on=1"));
}

/*
 * An exploiter's own memory accounting (statistic_interface_set_memory())
 * takes every charge of its interface, and its limit is the one that
 * applies; the layer's counter does not move.
 */
static atomic_long_t own_bytes;
static long own_limit;

static bool own_claim(size_t bytes)
{
	if (atomic_long_add_return(bytes, &own_bytes) > own_limit) {
		atomic_long_sub(bytes, &own_bytes);
		return false;
	}
	return true;
}

static void own_release(size_t bytes)
{
	atomic_long_sub(bytes, &own_bytes);
}

static const struct statistic_memory own_memory = {
	.claim = own_claim,
	.release = own_release,
};

static void own_memory_accounting(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	unsigned long layer;
	struct statistic *a;
	long running;

	statistic_data_retire_barrier();	/* earlier cases settled */
	layer = statistic_allocated_bytes();
	atomic_long_set(&own_bytes, 0);
	own_limit = LONG_MAX;
	statistic_interface_set_memory(iface, &own_memory);
	a = new_stat(test, iface, "a");
	KUNIT_ASSERT_EQ(test, 0, statistic_define_list(a, 0, 100, 1000));
	KUNIT_ASSERT_EQ(test, 0, statistic_start(a));
	running = atomic_long_read(&own_bytes);
	KUNIT_EXPECT_GT(test, running, 0L);
	KUNIT_EXPECT_EQ(test, layer, statistic_allocated_bytes());

	/* its limit, not the layer's, refuses what does not fit */
	own_limit = running;
	KUNIT_EXPECT_EQ(test, -ENOMEM, statistic_reset(a));
	own_limit = LONG_MAX;
	KUNIT_EXPECT_EQ(test, 0, statistic_reset(a));

	/* everything comes back once the retired generations are freed */
	statistic_remove(a);
	statistic_data_retire_barrier();
	KUNIT_EXPECT_EQ(test, 0L, atomic_long_read(&own_bytes));
	KUNIT_EXPECT_EQ(test, layer, statistic_allocated_bytes());
}

/* However many lines a write has, it makes one generation per statistic. */
static void many_lines_one_generation(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	unsigned long before, peak;
	char *buf, *p;
	int i;

	define_dm_like(test, iface);
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=1"));
	settle();
	before = statistic_allocated_bytes();
	buf = kunit_kzalloc(test, 20000 * 11 + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0, p = buf; i < 20000; i++)
		p += sprintf(p, "data=reset\n");
	p[-1] = '\0';
	KUNIT_ASSERT_EQ(test, 0, statistic_definition_write(iface, buf));
	peak = statistic_allocated_bytes();
	kunit_info(test, "20000 data=reset lines: %lu bytes before, %lu after\n",
		   before, peak);
	/* the new generations, the old ones waiting for a grace period */
	KUNIT_EXPECT_LE(test, peak - before, before + PAGE_SIZE);
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

static struct kunit_case statistic_test_cases[] = {
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
	KUNIT_CASE(def_line_format),
	KUNIT_CASE(def_attributes),
	KUNIT_CASE(def_reset_and_readback),
	KUNIT_CASE_PARAM(def_invalid, def_error_gen_params),
	KUNIT_CASE(def_interface_wide),
	KUNIT_CASE(create_errors),
	KUNIT_CASE(closed_layer_refuses),
	KUNIT_CASE(remove_statistic),
	KUNIT_CASE(reconfigure_under_adds),
	KUNIT_CASE(cells_never_torn),
	KUNIT_CASE(memory_while_stopped),
	KUNIT_CASE(stop_start_keeps_data),
	KUNIT_CASE(limit_refuses_and_changes_nothing),
	KUNIT_CASE(own_memory_accounting),
	KUNIT_CASE(many_lines_one_generation),
	KUNIT_CASE(fuzz_parser),
	{}
};

/*
 * The cases test the layer itself, also on kernels where it is closed to
 * exploiters (debugfs=off, lockdown): their interfaces then have no
 * directory.
 */
static int closed_before_suite;

static int statistic_suite_init(struct kunit_suite *suite)
{
	closed_before_suite = statistic_set_closed(0);
	return 0;
}

static void statistic_suite_exit(struct kunit_suite *suite)
{
	statistic_set_closed(closed_before_suite);
}

static struct kunit_suite statistic_test_suite = {
	.name = "statistic",
	.suite_init = statistic_suite_init,
	.suite_exit = statistic_suite_exit,
	.test_cases = statistic_test_cases,
};

kunit_test_suite(statistic_test_suite);

MODULE_DESCRIPTION("KUnit tests of the generic statistics layer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
