// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm-stats-limits of the device-mapper statistics engine:
 * limits and memory: huge histograms, charged print buffers, deletes that
 * cannot fail, the shared memory limit.
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

/*
 * Boundaries past what upstream's one kmalloc'ed array holds: -ENOMEM as
 * upstream, without its allocation warning; at the limit, they parse.
 */
static void parse_histogram_huge(struct kunit *test)
{
	const size_t max = DM_STATS_MAX_HISTOGRAM_BOUNDS;
	size_t len = 0, i, cap = (max + 2) * 8;
	char *text = kvmalloc(cap, GFP_KERNEL);
	unsigned int n;
	u64 *b;

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 1; i <= max; i++)
		len += scnprintf(text + len, cap - len, "%s%zu", i > 1 ? "," : "", i);
	KUNIT_ASSERT_EQ(test, dm_stats_parse_histogram(text, &n, &b), 0);
	KUNIT_EXPECT_EQ(test, n, max);
	KUNIT_EXPECT_EQ(test, b[max - 1], max);
	kvfree(b);
	scnprintf(text + len, cap - len, ",%zu", max + 1);
	KUNIT_EXPECT_EQ(test, dm_stats_parse_histogram(text, &n, &b), -ENOMEM);
	kvfree(text);
}

/*
 * @stats_print allocates nothing (histogram cells included): it works with
 * the statistics memory at its limit. @stats_print_clear needs a snapshot of
 * each line it prints, charged but not refused at the limit (upstream keeps
 * that room in every area): it prints and clears there too, as
 * @stats_set_aux replaces aux data and @stats_delete deletes.
 */
static void print_buffers_are_charged(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_totals *t = kunit_kzalloc(test, struct_size(t, histogram, 2),
						  GFP_KERNEL);
	struct dm_stats_aux a = {};
	unsigned long room;

	KUNIT_ASSERT_NOT_NULL(test, t);

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 10 1 histogram:1000"), 1);
	dm_stats_account_io(&f->st, WRITE, 0, 8, false, 0, &a);
	dm_stats_account_io(&f->st, WRITE, 0, 8, true, 0, &a);
	room = dm_stats_memory_limit() - dm_stats_mem_used();
	KUNIT_ASSERT_TRUE(test, dm_stats_mem_claim(room, true));
	KUNIT_EXPECT_EQ(test, send(test, "@stats_print 0"), 1);
	KUNIT_EXPECT_EQ(test, strncmp(f->result, "0+10 0 0 0 0 1 0 8 ", 19), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(f->result, " 1:0\n10+10 "));
	KUNIT_EXPECT_EQ(test, send(test, "@stats_print_clear 0"), 1);
	KUNIT_EXPECT_EQ(test, strncmp(f->result, "0+10 0 0 0 0 1 0 8 ", 19), 0);
	read_area(test, &f->st, 0, 0, t);
	KUNIT_EXPECT_EQ(test, t->ios[WRITE], 0);
	KUNIT_EXPECT_EQ(test, t->histogram[0], 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_set_aux 0 a_longer_aux_than_before"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_list"), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(f->result, " a_longer_aux_than_before"));
	dm_stats_mem_release(room);
	/* @stats_clear: histogram cells go too, with nothing allocated. */
	dm_stats_account_io(&f->st, WRITE, 0, 8, false, 0, &a);
	dm_stats_account_io(&f->st, WRITE, 0, 8, true, 0, &a);
	/* The new aux data is charged: less room than before. */
	room = dm_stats_memory_limit() - dm_stats_mem_used();
	KUNIT_ASSERT_TRUE(test, dm_stats_mem_claim(room, true));
	KUNIT_EXPECT_EQ(test, send(test, "@stats_clear 0"), 1);
	dm_stats_mem_release(room);
	read_area(test, &f->st, 0, 0, t);
	KUNIT_EXPECT_EQ(test, t->ios[WRITE], 0);
	KUNIT_EXPECT_EQ(test, t->histogram[0], 0);
}

/*
 * @stats_print_clear keeps a snapshot of each line it may print, charged
 * to the statistics memory: at least as many as the region's lines that
 * fit in the reply (or a reply that fitted could not be cleared), and not
 * many more, however wide the histogram. The lines that fit are counted in
 * what @stats_print of the region, all counters zero, really emits.
 */
static void print_clear_snapshot_lines(struct kunit *test)
{
	static const unsigned int widths[] = { 0, 1, 10, 100, 300 };
	static const unsigned int maxlens[] = { 256, 1024, RESULT_LEN };
	struct stats_fixture *f = test->priv;
	char *line = kunit_kzalloc(test, 32 + 4 * 300, GFP_KERNEL);
	unsigned int w, m, k;

	KUNIT_ASSERT_NOT_NULL(test, line);
	for (w = 0; w < ARRAY_SIZE(widths); w++) {
		struct dm_stats_region *r;
		char print[32];
		int len;

		/* 200 areas: more lines than any of the replies holds. */
		len = scnprintf(line, 32, "@stats_create 0+1000 5");
		if (widths[w])
			len += scnprintf(line + len, 32, " 1 histogram:");
		for (k = 1; k <= widths[w]; k++)
			len += scnprintf(line + len, 8, "%s%u", k > 1 ? "," : "", k);
		KUNIT_ASSERT_EQ(test, send(test, line), 1);
		r = xa_load(&f->st.regions, w);
		KUNIT_ASSERT_NOT_NULL(test, r);
		KUNIT_ASSERT_EQ(test, r->n_bounds, widths[w]);
		scnprintf(print, sizeof(print), "@stats_print %u", w);
		for (m = 0; m < ARRAY_SIZE(maxlens); m++) {
			size_t fit = 0, lines;
			const char *p;

			KUNIT_ASSERT_EQ(test, send_len(test, print, maxlens[m]), 1);
			for (p = f->result; (p = strchr(p, '\n')); p++)
				fit++;
			KUNIT_ASSERT_LT(test, fit, r->n_areas);
			lines = dm_stats_print_clear_lines(r, r->n_areas, maxlens[m]);
			KUNIT_EXPECT_GE_MSG(test, lines, fit, "%u cells, %u bytes",
					    widths[w] + 1, maxlens[m]);
			KUNIT_EXPECT_LE_MSG(test, lines, 2 * fit + 2, "%u cells, %u bytes",
					    widths[w] + 1, maxlens[m]);
		}
	}
}

/* The machine out of memory: a reservation that may fail does. */
static int reserve_out_of_memory(struct dm_stats_index_pool *pool,
				 const struct dm_stats_index *idx)
{
	return -ENOMEM;
}

/*
 * Out of memory, a region cannot be created, but @stats_delete deletes as
 * upstream's does (its delete allocates nothing): what the index update
 * of a delete takes comes from allocations that cannot fail. Everything
 * is given back once the last region is gone.
 */
static void delete_needs_no_fallible_memory(struct kunit *test)
{
	unsigned long base = dm_stats_mem_used();

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 10"), 1);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 100+100 10"), 1);
	kunit_activate_static_stub(test, dm_stats_index_reserve, reserve_out_of_memory);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_create 200+100 10"), -ENOMEM);
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+100 10 - -\n1: 100+100 10 - -\n");
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 1"), 0);
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+100 10 - -\n");
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 0"), 0);
	KUNIT_EXPECT_STREQ(test, list(test), "");
	kunit_deactivate_static_stub(test, dm_stats_index_reserve);
	dm_stats_free_barrier();
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

/* ----------------------------------------------------- memory accounting */

static void mem_create_delete_balance(struct kunit *test)
{
	unsigned long base = dm_stats_mem_used(), one, two;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	one = dm_stats_mem_used();
	KUNIT_EXPECT_GT(test, one, base);
	/* Per region: far below the 64 KiB an NR_CPUS pointer array costs. */
	KUNIT_EXPECT_LT(test, one - base, 1024UL + nr_cpu_ids * 256UL);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /100"), 1);
	two = dm_stats_mem_used();
	/* 100 areas cost at least 100 area counters on every possible CPU. */
	KUNIT_EXPECT_GE(test, two - one,
			100UL * num_possible_cpus() * sizeof(struct dm_stats_counters));
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 1"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 0"), 0);
	dm_stats_free_barrier();
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

/*
 * A small region is one allocation: its areas sit in it, one cache-line
 * aligned block per CPU, and its strings too; @stats_set_aux replaces the
 * aux data without losing memory. A larger region has a block per CPU.
 */
static void mem_small_region_one_block(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	unsigned long base = dm_stats_mem_used(), one;
	struct dm_stats_region *r;
	void *end, *prev = NULL;
	int cpu;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1 prog aux"), 1);
	KUNIT_ASSERT_STREQ(test, f->result, "0");
	one = dm_stats_mem_used();
	r = xa_load(&f->st.regions, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, r->inline_areas);
	end = (void *)r + r->alloc_bytes;
	for_each_possible_cpu(cpu) {
		void *a = r->percpu[cpu];

		KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)a, SMP_CACHE_BYTES));
		KUNIT_EXPECT_TRUE(test, a > (void *)r->inline_aux);
		KUNIT_EXPECT_TRUE(test, a + r->area_bytes <= end);
		if (prev)
			KUNIT_EXPECT_TRUE(test, a >= prev + r->area_bytes);
		prev = a;
	}
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+1000 1000 prog aux\n");
	KUNIT_EXPECT_EQ(test, send(test, "@stats_set_aux 0 longer_aux"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_set_aux 0 x"), 0);
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+1000 1000 prog x\n");
	/* The block keeps the first aux data; the copy in use is charged. */
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), one + 2);

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /100"), 1);
	KUNIT_ASSERT_STREQ(test, f->result, "1");
	r = xa_load(&f->st.regions, 1);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_FALSE(test, r->inline_areas);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 0"), 0);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_delete 1"), 0);
	dm_stats_free_barrier();
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

static void mem_limit_enforced(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	unsigned long base, limit = dm_stats_memory_limit();
	/* Enough one-sector areas that their counters alone pass the limit. */
	u64 areas = limit / (num_possible_cpus() * sizeof(struct dm_stats_counters)) + 1;
	char line[96];

	if (areas > DM_STATS_MAX_AREAS)
		kunit_skip(test, "limit %lu above what one region can use", limit);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	base = dm_stats_mem_used();
	snprintf(line, sizeof(line), "@stats_create 0+%llu 1", areas);
	KUNIT_EXPECT_EQ(test, send(test, line), -ENOMEM);
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
	KUNIT_EXPECT_STREQ(test, list(test), "0: 0+1000 1000 - -\n");
	KUNIT_EXPECT_FALSE(test, dm_stats_mem_claim(limit, true));
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create - /1"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "1");
}

static struct kunit_case dm_stats_limits_cases[] = {
	KUNIT_CASE(parse_histogram_huge),
	KUNIT_CASE(print_buffers_are_charged),
	KUNIT_CASE(print_clear_snapshot_lines),
	KUNIT_CASE(delete_needs_no_fallible_memory),
	KUNIT_CASE(mem_create_delete_balance),
	KUNIT_CASE(mem_small_region_one_block),
	KUNIT_CASE(mem_limit_enforced),
	{}
};

static struct kunit_suite dm_stats_limits_suite = {
	.name = "dm-stats-limits",
	.init = stats_fixture_init,
	.exit = stats_fixture_exit,
	.test_cases = dm_stats_limits_cases,
};

kunit_test_suite(dm_stats_limits_suite);
