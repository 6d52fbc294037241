// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm-stats-time of the device-mapper statistics engine:
 * clocks: latencies and busy time as upstream counts and prints them at
 * any HZ, and folds that read while I/O runs.
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

/* ------------------------------------------------ torn reads, time, limits */

/*
 * Add @sign times the change from @before to @after to every counter word
 * of one area's block of this CPU: with -1, the block looks as a fold that
 * read it before those events would see it.
 */
static void area_block_shift(struct dm_stats_region *r, int cpu,
			     const u64 *before, const u64 *after, int sign)
{
	local64_t *w = (local64_t *)dm_stats_area_counters(r, cpu, 0);
	size_t i;

	for (i = 0; i < r->area_bytes / sizeof(u64); i++)
		local64_add(sign * (s64)(after[i] - before[i]), &w[i]);
}

static void area_block_copy(struct dm_stats_region *r, int cpu, u64 *to)
{
	local64_t *w = (local64_t *)dm_stats_area_counters(r, cpu, 0);
	size_t i;

	for (i = 0; i < r->area_bytes / sizeof(u64); i++)
		to[i] = local64_read(&w[i]);
}

/*
 * A fold preempted between CPUs can read the CPU that started an I/O
 * before the start and the CPU that ended it after the end. Built here on
 * one CPU by taking the start's writes out of its block: what is folded
 * then must add no more than the I/O's own time to time_in_queue, and a
 * @stats_print_clear of it must leave later I/O counted.
 */
static void torn_fold_adds_no_timestamp(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_region *r;
	struct dm_stats_totals t;
	struct dm_stats_aux a = {};
	u64 *before, *after;
	u64 t0, elapsed;
	int cpu;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100 1 precise_timestamps"), 1);
	r = xa_load(&f->st.regions, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	before = kunit_kzalloc(test, r->area_bytes, GFP_KERNEL);
	after = kunit_kzalloc(test, r->area_bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);

	migrate_disable();
	cpu = smp_processor_id();
	t0 = ktime_get_ns();
	area_block_copy(r, cpu, before);
	dm_stats_account_io(&f->st, READ, 0, 8, false, 0, &a);
	area_block_copy(r, cpu, after);
	usleep_range(100, 200);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	/* The torn view: the end without its start. */
	area_block_shift(r, cpu, before, after, -1);
	dm_stats_fold(r, 0, &t);
	elapsed = ktime_get_ns() - t0;
	KUNIT_EXPECT_LE(test, t.time_in_queue, elapsed);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_print_clear 0"), 1);
	/* What the CPUs really hold again. */
	area_block_shift(r, cpu, before, after, 1);
	migrate_enable();

	dm_stats_account_io(&f->st, READ, 0, 8, false, 0, &a);
	/*
	 * msleep() counts jiffies, which on a loaded TCG host lag the clock
	 * and catch up at once: the lower bound is the sleep as ktime saw it.
	 */
	t0 = ktime_get_ns();
	msleep(20);
	elapsed = ktime_get_ns() - t0;
	dm_stats_fold(r, 0, &t);
	KUNIT_EXPECT_GE(test, t.time_in_queue, elapsed);
	KUNIT_EXPECT_LT(test, t.time_in_queue, 60ULL * NSEC_PER_SEC);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
}

/*
 * A bio's latency runs from its arrival, which DM core records in
 * alloc_io() (dm_stats_record_start(), io->start_time), even when the
 * target starts its accounting later. A bio that arrived before the
 * device's first region (dm_stats_aux_init()), or in ns before
 * precise_timestamps was switched on, is timed from its start.
 */
static void latency_runs_from_arrival(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_totals t;
	struct dm_stats_aux a = {};
	u64 before, slept;

	/* Arrived before the first region: not recorded. */
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	dm_stats_aux_init(&a);
	dm_stats_account_io(&f->st, READ, 0, 8, false, jiffies - 100, &a);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 1);
	KUNIT_EXPECT_LT(test, t.ticks[READ], 50);
	before = t.ticks[READ];

	/* Recorded with the region in place: 100 jiffies before its start. */
	dm_stats_record_start(&f->st, &a);
	dm_stats_account_io(&f->st, READ, 0, 8, false, jiffies - 100, &a);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_GE(test, t.ticks[READ] - before, 100);
	KUNIT_EXPECT_LT(test, t.ticks[READ] - before, 150);
	/* The record is used once: a second start is timed from itself. */
	before = t.ticks[READ];
	dm_stats_account_io(&f->st, READ, 0, 8, false, jiffies - 100, &a);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_LT(test, t.ticks[READ] - before, 50);

	/* precise_timestamps: switched on after the record, not trusted... */
	dm_stats_record_start(&f->st, &a);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100 1 precise_timestamps"), 1);
	msleep(20);
	dm_stats_account_io(&f->st, READ, 0, 8, false, jiffies, &a);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	read_area(test, &f->st, 1, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 1);
	KUNIT_EXPECT_LT(test, t.ticks[READ], 20 * NSEC_PER_MSEC);
	/* ...recorded once it is on: the sleep before the start counts. */
	dm_stats_record_start(&f->st, &a);
	slept = ktime_get_ns();
	msleep(20);
	slept = ktime_get_ns() - slept;
	dm_stats_account_io(&f->st, READ, 0, 8, false, jiffies, &a);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	before = t.ticks[READ];
	read_area(test, &f->st, 1, 0, &t);
	KUNIT_EXPECT_GE(test, t.ticks[READ] - before, slept);
}

/*
 * Busy time across 2^32 jiffies (where a 32-bit jiffies wraps): the stamp
 * and the clock are 64 bits, so 20 jiffies are 20 jiffies.
 */
static void busy_time_across_2_32_jiffies(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	const u64 wrap = 1ULL << 32;
	struct dm_stats_region *r;
	struct dm_stats_totals t;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	r = xa_load(&f->st.regions, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	atomic64_set(&r->shared[0].stamp, wrap - 10);
	dm_stats_area_event(r, 0, raw_smp_processor_id(), WRITE, false,
			    wrap - 5, 0);
	dm_stats_fold_at(r, 0, wrap + 15, &t, true);
	KUNIT_EXPECT_EQ(test, t.in_flight, 1);
	KUNIT_EXPECT_EQ(test, t.io_ticks_total, 20);
	KUNIT_EXPECT_EQ(test, t.io_ticks[WRITE], 20);
	KUNIT_EXPECT_EQ(test, t.time_in_queue, 20);
	dm_stats_area_event(r, 0, raw_smp_processor_id(), WRITE, true,
			    wrap + 25, 30);
	dm_stats_fold_at(r, 0, wrap + 25, &t, true);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
	KUNIT_EXPECT_EQ(test, t.io_ticks_total, 30);
	KUNIT_EXPECT_EQ(test, t.ticks[WRITE], 30);
}

/*
 * A jiffies region compares a latency in ms with its histogram boundaries:
 * in 64 bits, so that a latency of more than 2^32 ms (49.7 days) is not
 * taken for a short one. The latency is a whole number of seconds, so its
 * value in ms is exact at any HZ.
 */
static void hist_value_is_64_bit(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	u64 s = ((1ULL << 32) + 1000) / 1000;
	u64 dur = (u64)msecs_to_jiffies(1000) * s;
	struct dm_stats_region *r;

	KUNIT_ASSERT_EQ(test, msecs_to_jiffies(1000), (unsigned long)HZ);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100 1 histogram:2000,5000000000"), 1);
	r = xa_load(&f->st.regions, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, dm_stats_hist_value(r, dur), s * 1000);
	KUNIT_EXPECT_GT(test, dm_stats_hist_value(r, dur), (u64)U32_MAX);
	KUNIT_EXPECT_EQ(test, dm_stats_hist_bucket(r->bounds, r->n_bounds,
						   dm_stats_hist_value(r, dur)), 1);
}

/* A jiffies region, for the time conversions. */
static struct dm_stats_region *jiffies_region(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_region *r;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	r = xa_load(&f->st.regions, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_FALSE(test, dm_stats_region_precise(r));
	return r;
}

/*
 * The jiffy counts the conversions are checked at: every count up to 3 s
 * and within 2 s of 2^22, the others spread up to @max by a random walk of
 * steps up to 1/64 of the count. Return: the next count, or 0 past @max.
 */
static u64 next_jiffies(u64 j, u64 max, struct rnd_state *rnd)
{
	const u64 lo = BIT(22) - 2 * HZ, hi = BIT(22) + 2 * HZ;
	u64 step;

	if (j < 3 * HZ || (j >= lo && j < hi))
		step = 1;
	else
		step = 1 + mul_u64_u32_shr(j / 64, prandom_u32_state(rnd), 32);
	if (j < lo)
		step = min(step, lo - j);
	return j + step <= max ? j + step : 0;
}

/*
 * A latency compared with histogram boundaries, at any HZ, is what
 * upstream compares: jiffies_to_msecs() of it, rounded up (at HZ=300 one
 * jiffy is 4 ms, not 3). Checked against jiffies_to_msecs() itself for
 * every count it converts without truncation on this kernel.
 */
static void hist_value_is_jiffies_to_msecs(struct kunit *test)
{
	struct dm_stats_region *r = jiffies_region(test);
	u64 max = min_t(u64, ULONG_MAX, div_u64((u64)U32_MAX * HZ, MSEC_PER_SEC));
	struct rnd_state rnd;
	unsigned int n = 0;
	u64 j = 0;

	if (IS_ENABLED(CONFIG_32BIT) && MSEC_PER_SEC % HZ)
		kunit_skip(test, "32-bit jiffies_to_msecs() approximates at HZ=%d", HZ);
	prandom_seed_state(&rnd, 23);
	do {
		u64 want = jiffies_to_msecs(j), got = dm_stats_hist_value(r, j);

		n++;
		if (got != want) {
			KUNIT_FAIL(test, "%llu jiffies at HZ=%d: %llu ms, not %llu",
				   j, HZ, got, want);
			return;
		}
	} while ((j = next_jiffies(j, max, &rnd)));
	kunit_info(test, "%u counts up to %llu jiffies at HZ=%d", n, max, HZ);
	KUNIT_EXPECT_GT(test, n, 3 * HZ + 4 * HZ);
}

/*
 * Upstream prints a time counter of J jiffies in two parts:
 * jiffies_to_msecs() of J mod 2^22, plus jiffies_to_msecs(2^22) for each
 * 2^22 in J (its dm_jiffies_to_msec64()). The printed value equals that for
 * any 64-bit count, at any HZ.
 */
static void user_time_is_upstreams(struct kunit *test)
{
	struct dm_stats_region *r = jiffies_region(test);
	u64 chunk_ms = jiffies_to_msecs(BIT(22));
	struct rnd_state rnd;
	unsigned int n = 0;
	u64 j = 0;

	if (IS_ENABLED(CONFIG_32BIT) && MSEC_PER_SEC % HZ)
		kunit_skip(test, "32-bit jiffies_to_msecs() approximates at HZ=%d", HZ);
	prandom_seed_state(&rnd, 22);
	do {
		u64 want = jiffies_to_msecs(j & (BIT(22) - 1)) + chunk_ms * (j >> 22);
		u64 got = dm_stats_to_user_time(r, j);

		n++;
		if (got != want) {
			KUNIT_FAIL(test, "%llu jiffies at HZ=%d print %llu ms, upstream %llu",
				   j, HZ, got, want);
			return;
		}
	} while ((j = next_jiffies(j, 1ULL << 60, &rnd)));
	KUNIT_EXPECT_GT(test, n, 3 * HZ + 4 * HZ);
}

/*
 * Both conversions by hand at x86's four HZ choices: ms of a latency
 * (rounded up) and ms as printed (rounded up per 2^22 jiffies, 13981014 ms
 * each at HZ=300). The rows of other HZ values are not checked.
 */
static void time_conversions_by_hand(struct kunit *test)
{
	static const struct {
		unsigned int hz;
		u64 jiffies, hist_ms, print_ms;
	} rows[] = {
		{ 100, 1, 10, 10 },
		{ 100, 101, 1010, 1010 },
		{ 100, BIT(22) + 1, 41943050, 41943050 },
		{ 100, 1ULL << 32, 42949672960ULL, 42949672960ULL },
		{ 250, 1, 4, 4 },
		{ 250, 3, 12, 12 },
		{ 250, 251, 1004, 1004 },
		{ 250, BIT(22) + 1, 16777220, 16777220 },
		{ 250, 1ULL << 32, 17179869184ULL, 17179869184ULL },
		{ 300, 1, 4, 4 },
		{ 300, 2, 7, 7 },
		{ 300, 3, 10, 10 },
		{ 300, 301, 1004, 1004 },
		{ 300, BIT(22), 13981014, 13981014 },
		{ 300, BIT(22) + 1, 13981017, 13981018 },
		{ 300, 1ULL << 32, 14316557654ULL, 14316558336ULL },
		{ 300, (1ULL << 44) + 5, 58640620148070ULL, 58640622944273ULL },
		{ 1000, 1, 1, 1 },
		{ 1000, BIT(22) + 1, 4194305, 4194305 },
		{ 1000, 1ULL << 32, 4294967296ULL, 4294967296ULL },
	};
	struct dm_stats_region *r = jiffies_region(test);
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (rows[i].hz != HZ)
			continue;
		n++;
		KUNIT_EXPECT_EQ_MSG(test, dm_stats_hist_value(r, rows[i].jiffies),
				    rows[i].hist_ms, "latency of %llu jiffies", rows[i].jiffies);
		KUNIT_EXPECT_EQ_MSG(test, dm_stats_to_user_time(r, rows[i].jiffies),
				    rows[i].print_ms, "time of %llu jiffies", rows[i].jiffies);
	}
	if (!n)
		kunit_skip(test, "no rows for HZ=%d", HZ);
}

/*
 * One I/O of one jiffy, as @stats_print shows it: its read time and its
 * histogram cell (boundary 4 ms) are upstream's at x86's HZ choices.
 */
static void one_jiffy_io_printed(struct kunit *test)
{
	static const struct {
		unsigned int hz;
		const char *line, *cells;
	} rows[] = {
		{ 100, "0+100 1 0 1 10 0 0 0 0 0 ", " 0:1\n" },
		{ 250, "0+100 1 0 1 4 0 0 0 0 0 ", " 0:1\n" },
		{ 300, "0+100 1 0 1 4 0 0 0 0 0 ", " 0:1\n" },
		{ 1000, "0+100 1 0 1 1 0 0 0 0 0 ", " 1:0\n" },
	};
	struct stats_fixture *f = test->priv;
	struct dm_stats_region *r;
	u64 now = get_jiffies_64();
	unsigned int i;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100 1 histogram:4"), 1);
	r = xa_load(&f->st.regions, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	dm_stats_area_event(r, 0, raw_smp_processor_id(), READ, false, now, 0);
	dm_stats_area_event(r, 0, raw_smp_processor_id(), READ, true, now + 1, 1);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print 0"), 1);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (rows[i].hz != HZ)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(f->result, rows[i].line),
				      "HZ=%d: %s", HZ, f->result);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(f->result, rows[i].cells),
					  "HZ=%d: %s", HZ, f->result);
		return;
	}
	kunit_skip(test, "no row for HZ=%d", HZ);
}

static struct kunit_case dm_stats_time_cases[] = {
	KUNIT_CASE(latency_runs_from_arrival),
	KUNIT_CASE(torn_fold_adds_no_timestamp),
	KUNIT_CASE(busy_time_across_2_32_jiffies),
	KUNIT_CASE(hist_value_is_64_bit),
	KUNIT_CASE(hist_value_is_jiffies_to_msecs),
	KUNIT_CASE(user_time_is_upstreams),
	KUNIT_CASE(time_conversions_by_hand),
	KUNIT_CASE(one_jiffy_io_printed),
	{}
};

static struct kunit_suite dm_stats_time_suite = {
	.name = "dm-stats-time",
	.init = stats_fixture_init,
	.exit = stats_fixture_exit,
	.test_cases = dm_stats_time_cases,
};

kunit_test_suite(dm_stats_time_suite);
