// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm-stats-io of the device-mapper statistics engine:
 * splitting I/O across areas and regions, the counters and what an I/O
 * pays.
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

/* ------------------------------------------------ splitting I/O, counters */

struct split_region {
	int id;
	sector_t start, end, step;
	u64 *ios;	/* per area, [READ, WRITE] interleaved */
	u64 *sectors;
};

static void split_random_vs_model(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct split_region sr[6];
	struct dm_stats_totals *t;
	struct rnd_state rnd;
	unsigned int i, n;

	prandom_seed_state(&rnd, 1234);
	t = kunit_kzalloc(test, sizeof(*t) + 8 * sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < ARRAY_SIZE(sr); i++) {
		struct dm_stats_create_args a = { .program_id = "-", .aux_data = "-" };
		size_t areas;

		a.start = prandom_u32_state(&rnd) % 500;
		a.end = a.start + 1 + prandom_u32_state(&rnd) % 500;
		a.step = 1 + prandom_u32_state(&rnd) % 64;
		sr[i].id = dm_stats_region_create(&f->st, &a);
		KUNIT_ASSERT_GE(test, sr[i].id, 0);
		sr[i].start = a.start;
		sr[i].end = a.end;
		sr[i].step = a.step;
		areas = DIV_ROUND_UP_ULL(a.end - a.start, a.step);
		sr[i].ios = kunit_kcalloc(test, areas * 2, sizeof(u64), GFP_KERNEL);
		sr[i].sectors = kunit_kcalloc(test, areas * 2, sizeof(u64), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sr[i].ios);
		KUNIT_ASSERT_NOT_NULL(test, sr[i].sectors);
	}

	for (n = 0; n < 500; n++) {
		sector_t lo = prandom_u32_state(&rnd) % 1100;
		unsigned int len = 1 + prandom_u32_state(&rnd) % 200;
		int dir = prandom_u32_state(&rnd) & 1;
		struct dm_stats_aux aux = {};
		sector_t s;

		dm_stats_account_io(&f->st, dir, lo, len, false, 0, &aux);
		dm_stats_account_io(&f->st, dir, lo, len, true, 0, &aux);
		/* Model: sector by sector, one I/O per area touched. */
		for (i = 0; i < ARRAY_SIZE(sr); i++) {
			size_t prev = SIZE_MAX;

			for (s = lo; s < lo + len; s++) {
				size_t a;

				if (s < sr[i].start || s >= sr[i].end)
					continue;
				a = div64_u64(s - sr[i].start, sr[i].step);
				sr[i].sectors[a * 2 + dir]++;
				if (a != prev)
					sr[i].ios[a * 2 + dir]++;
				prev = a;
			}
		}
	}

	for (i = 0; i < ARRAY_SIZE(sr); i++) {
		size_t a, areas = DIV_ROUND_UP_ULL(sr[i].end - sr[i].start,
						   sr[i].step);

		for (a = 0; a < areas; a++) {
			read_area(test, &f->st, sr[i].id, a, t);
			KUNIT_ASSERT_EQ_MSG(test, t->ios[READ], sr[i].ios[a * 2],
					    "region %u area %zu", i, a);
			KUNIT_ASSERT_EQ_MSG(test, t->ios[WRITE], sr[i].ios[a * 2 + 1],
					    "region %u area %zu", i, a);
			KUNIT_ASSERT_EQ_MSG(test, t->sectors[READ], sr[i].sectors[a * 2],
					    "region %u area %zu", i, a);
			KUNIT_ASSERT_EQ_MSG(test, t->sectors[WRITE],
					    sr[i].sectors[a * 2 + 1],
					    "region %u area %zu", i, a);
			KUNIT_ASSERT_EQ(test, t->in_flight, 0);
		}
	}
}

static void split_straddling_io(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_totals t;
	struct dm_stats_aux aux = {};

	/* Areas [100,110) [110,120) [120,125). */
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 100+25 10"), 1);
	dm_stats_account_io(&f->st, WRITE, 95, 30, false, 0, &aux);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.in_flight, 1);
	read_area(test, &f->st, 0, 2, &t);
	KUNIT_EXPECT_EQ(test, t.in_flight, 1);
	dm_stats_account_io(&f->st, WRITE, 95, 30, true, 0, &aux);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[WRITE], 1);
	KUNIT_EXPECT_EQ(test, t.sectors[WRITE], 10);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
	read_area(test, &f->st, 0, 1, &t);
	KUNIT_EXPECT_EQ(test, t.sectors[WRITE], 10);
	read_area(test, &f->st, 0, 2, &t);
	KUNIT_EXPECT_EQ(test, t.ios[WRITE], 1);
	KUNIT_EXPECT_EQ(test, t.sectors[WRITE], 5);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 0);
}

/* Start and end one I/O. */
static void one_io(struct dm_stats *st, int dir, sector_t sector,
		   unsigned int len)
{
	struct dm_stats_aux aux = {};

	dm_stats_account_io(st, dir, sector, len, false, 0, &aux);
	dm_stats_account_io(st, dir, sector, len, true, 0, &aux);
}

/*
 * A device with a single region takes a path without the index walk: the
 * same bounds, areas and generations apply there.
 */
static void single_region_path(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_aux early = {}, x = {}, y = {};
	struct dm_stats_totals t;

	/* Started while the device had no region. */
	dm_stats_account_io(&f->st, READ, 150, 8, false, 0, &early);
	/* One one-area region, [100, 200). */
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 100+100 100"), 1);
	dm_stats_account_io(&f->st, READ, 150, 8, true, 0, &early);
	one_io(&f->st, READ, 0, 100);
	one_io(&f->st, READ, 200, 8);
	one_io(&f->st, WRITE, 96, 8);
	one_io(&f->st, WRITE, 196, 8);
	one_io(&f->st, WRITE, 120, 16);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 0);
	KUNIT_EXPECT_EQ(test, t.ios[WRITE], 3);
	KUNIT_EXPECT_EQ(test, t.sectors[WRITE], 4 + 4 + 16);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);

	/* In flight while the only region is replaced by a new one. */
	dm_stats_account_io(&f->st, READ, 150, 8, false, 0, &x);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_delete 0"), 0);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 100+100 10"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "0");
	dm_stats_account_io(&f->st, READ, 150, 8, false, 0, &y);
	dm_stats_account_io(&f->st, READ, 150, 8, true, 0, &x);
	dm_stats_account_io(&f->st, READ, 150, 8, true, 0, &y);
	read_area(test, &f->st, 0, 5, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 1);
	KUNIT_EXPECT_EQ(test, t.sectors[READ], 8);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
	read_area(test, &f->st, 0, 4, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 0);
}

static void generation_excludes_older_io(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_aux before = {}, during = {};
	struct dm_stats_totals t;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	dm_stats_account_io(&f->st, READ, 0, 8, false, 0, &before);
	/* Region 1 appears while "before" is in flight. */
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	dm_stats_account_io(&f->st, READ, 50, 8, false, 0, &during);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &before);
	dm_stats_account_io(&f->st, READ, 50, 8, true, 0, &during);

	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 2);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
	read_area(test, &f->st, 1, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 1);
	KUNIT_EXPECT_EQ(test, t.sectors[READ], 8);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
}

static void clear_keeps_in_flight(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_aux a = {}, b = {};
	struct dm_stats_totals t;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	dm_stats_account_io(&f->st, WRITE, 0, 8, false, 0, &a);
	dm_stats_account_io(&f->st, WRITE, 0, 8, true, 0, &a);
	dm_stats_account_io(&f->st, READ, 8, 8, false, 0, &b);
	KUNIT_EXPECT_EQ(test, send(test, "@stats_clear 0"), 1);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[WRITE], 0);
	KUNIT_EXPECT_EQ(test, t.sectors[WRITE], 0);
	KUNIT_EXPECT_EQ(test, t.in_flight, 1);
	dm_stats_account_io(&f->st, READ, 8, 8, true, 0, &b);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 1);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
	/* print_clear: printed, then cleared. */
	KUNIT_ASSERT_EQ(test, send(test, "@stats_print_clear 0"), 1);
	KUNIT_EXPECT_EQ(test, f->result[0] != 0, true);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 0);
}

static void merge_detection(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_aux a[4] = {};
	struct dm_stats_totals t;
	int i;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	/* On one CPU: 0-8, 8-16 (merged), 16-24 as a read (not), 24-32 (merged). */
	migrate_disable();
	dm_stats_account_io(&f->st, WRITE, 0, 8, false, 0, &a[0]);
	dm_stats_account_io(&f->st, WRITE, 8, 8, false, 0, &a[1]);
	dm_stats_account_io(&f->st, READ, 16, 8, false, 0, &a[2]);
	dm_stats_account_io(&f->st, READ, 24, 8, false, 0, &a[3]);
	migrate_enable();
	for (i = 0; i < 4; i++)
		dm_stats_account_io(&f->st, i < 2 ? WRITE : READ, i * 8, 8,
				    true, 0, &a[i]);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.merges[WRITE], 1);
	KUNIT_EXPECT_EQ(test, t.merges[READ], 1);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 2);
}

/*
 * The end of an I/O counts only if the engine wrote its start: not after
 * dm_stats_record_start() or dm_stats_aux_init() alone, not in a zeroed
 * request payload, not twice for a payload used again.
 */
static void end_counts_only_after_start(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_aux zero = {}, rec, init, once = {};
	struct dm_stats_totals t;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	dm_stats_record_start(&f->st, &rec);
	dm_stats_aux_init(&init);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &zero);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &rec);
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &init);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 0);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);

	dm_stats_account_io(&f->st, WRITE, 0, 8, false, 0, &once);
	dm_stats_account_io(&f->st, WRITE, 0, 8, true, 0, &once);
	dm_stats_account_io(&f->st, WRITE, 0, 8, true, 0, &once);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[WRITE], 1);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
}

/*
 * A start while the device has no index counts nowhere, also once regions
 * exist at the end: the stale state of the payload's previous I/O (a
 * request's payload is used again) is overwritten by the start.
 */
static void start_without_index_clears_state(struct kunit *test)
{
	struct stats_fixture *f = test->priv;
	struct dm_stats_aux a = {};
	struct dm_stats_totals t;

	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	/* Started, and its end never seen: the region went away. */
	dm_stats_account_io(&f->st, READ, 0, 8, false, 0, &a);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_delete 0"), 0);
	/* The payload's next I/O starts with no region... */
	dm_stats_account_io(&f->st, READ, 0, 8, false, 0, &a);
	KUNIT_ASSERT_EQ(test, send(test, "@stats_create 0+100 100"), 1);
	/* ...and ends in a region created meanwhile. */
	dm_stats_account_io(&f->st, READ, 0, 8, true, 0, &a);
	read_area(test, &f->st, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ios[READ], 0);
	KUNIT_EXPECT_EQ(test, t.in_flight, 0);
}

/* Do [a, a + alen) and [b, b + blen) touch a common cache line? */
static bool share_a_line(const void *a, size_t alen, const void *b, size_t blen)
{
	unsigned long a0 = (unsigned long)a / SMP_CACHE_BYTES;
	unsigned long a1 = ((unsigned long)a + alen - 1) / SMP_CACHE_BYTES;
	unsigned long b0 = (unsigned long)b / SMP_CACHE_BYTES;
	unsigned long b1 = ((unsigned long)b + blen - 1) / SMP_CACHE_BYTES;

	return a0 <= b1 && b0 <= a1;
}

/*
 * What every I/O of an area writes from any CPU (in-flight counts, busy
 * stamp) has a cache line per area, shared neither with another area nor
 * with what the I/O path only reads (header, per-CPU pointers, histogram
 * boundaries) nor with any CPU's counters.
 */
static void shared_block_own_cache_lines(struct kunit *test)
{
	static const char * const create[] = {
		"@stats_create 0+100 100",
		"@stats_create 0+100 25",
		"@stats_create 0+100 50 1 histogram:1,2,3",
		"@stats_create 0+1000 1",
	};
	struct stats_fixture *f = test->priv;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(create); k++) {
		struct dm_stats_region *r;
		size_t i, head;
		int cpu;

		KUNIT_ASSERT_EQ(test, send(test, create[k]), 1);
		r = xa_load(&f->st.regions, k);
		KUNIT_ASSERT_NOT_NULL(test, r);
		head = struct_size(r, percpu, nr_cpu_ids);
		for (i = 0; i < r->n_areas; i++) {
			const struct dm_stats_area_shared *sh = &r->shared[i];
			/* the words written, not the padding */
			size_t used = sizeof(sh->stamp) + sizeof(sh->in_flight);

			KUNIT_EXPECT_EQ_MSG(test, (unsigned long)sh % SMP_CACHE_BYTES, 0,
					    "%s: area %zu", create[k], i);
			KUNIT_EXPECT_FALSE_MSG(test, share_a_line(sh, used, r, head),
					       "%s: area %zu on the header's line",
					       create[k], i);
			if (r->n_bounds)
				KUNIT_EXPECT_FALSE(test, share_a_line(sh, used, r->bounds,
								      r->n_bounds * sizeof(u64)));
			if (i + 1 < r->n_areas)
				KUNIT_EXPECT_FALSE_MSG(test, share_a_line(sh, used, sh + 1, used),
						       "%s: areas %zu and %zu",
						       create[k], i, i + 1);
			for_each_possible_cpu(cpu)
				KUNIT_EXPECT_FALSE(test, share_a_line(sh, used, r->percpu[cpu],
								      r->n_areas * r->area_bytes));
		}
	}
}

/*
 * struct dm_stats_aux sits in struct dm_io, the front pad of every bio of
 * a mapped device: upstream's 16 bytes (scripts/dm-io-size.sh checks
 * struct dm_io itself against upstream's).
 */
static void aux_is_16_bytes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct dm_stats_aux), 16);
}

static struct kunit_case dm_stats_io_cases[] = {
	KUNIT_CASE(split_random_vs_model),
	KUNIT_CASE(split_straddling_io),
	KUNIT_CASE(generation_excludes_older_io),
	KUNIT_CASE(single_region_path),
	KUNIT_CASE(clear_keeps_in_flight),
	KUNIT_CASE(merge_detection),
	KUNIT_CASE(end_counts_only_after_start),
	KUNIT_CASE(start_without_index_clears_state),
	KUNIT_CASE(aux_is_16_bytes),
	KUNIT_CASE(shared_block_own_cache_lines),
	{}
};

static struct kunit_suite dm_stats_io_suite = {
	.name = "dm-stats-io",
	.init = stats_fixture_init,
	.exit = stats_fixture_exit,
	.test_cases = dm_stats_io_cases,
};

kunit_test_suite(dm_stats_io_suite);
