// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the device-mapper statistics engine: message parsing and
 * output, the region index against a brute-force model, splitting I/O
 * across areas and regions, histogram cells and memory accounting.
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

#include "dm-stats-index.h"
#include "dm-stats-mem.h"
#include "dm-stats-region.h"

#define DEV_SECTORS	1000
#define RESULT_LEN	4096

/* A device's statistics, without a device. */
struct stats_fixture {
	struct dm_stats st;
	char result[RESULT_LEN];
};

static int stats_fixture_init(struct kunit *test)
{
	struct stats_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, dm_stats_init(&f->st), 0);
	test->priv = f;
	return 0;
}

static void stats_fixture_exit(struct kunit *test)
{
	struct stats_fixture *f = test->priv;

	dm_stats_cleanup(&f->st);
	rcu_barrier();
}

/* Split a message at spaces into a kunit-managed argv. */
static unsigned int split(struct kunit *test, const char *line, char ***argvp)
{
	char *copy = kunit_kzalloc(test, strlen(line) + 1, GFP_KERNEL);
	char **argv = kunit_kcalloc(test, 32, sizeof(char *), GFP_KERNEL);
	unsigned int argc = 0;
	char *tok;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_ASSERT_NOT_NULL(test, argv);
	memcpy(copy, line, strlen(line) + 1);
	while ((tok = strsep(&copy, " ")) && argc < 32)
		if (*tok)
			argv[argc++] = tok;
	*argvp = argv;
	return argc;
}

/* Send a message; the output is in f->result. */
/* Send a message with a reply buffer of @maxlen bytes (at most RESULT_LEN). */
static int send_len(struct kunit *test, const char *line, unsigned int maxlen)
{
	struct stats_fixture *f = test->priv;
	char **argv;
	unsigned int argc = split(test, line, &argv);

	f->result[0] = 0;
	return dm_stats_dispatch(&f->st, DEV_SECTORS, argc, argv, f->result,
				 min_t(unsigned int, maxlen, RESULT_LEN));
}

static int send(struct kunit *test, const char *line)
{
	return send_len(test, line, RESULT_LEN);
}

static const char *list(struct kunit *test)
{
	struct stats_fixture *f = test->priv;

	KUNIT_EXPECT_EQ(test, send(test, "@stats_list"), 1);
	return f->result;
}

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

/* ------------------------------------------------------------ histogram */

static unsigned int bucket_model(const u64 *b, unsigned int n, u64 v)
{
	unsigned int i = 0;

	while (i < n && b[i] <= v)
		i++;
	return i;
}

static void hist_bucket_boundaries(struct kunit *test)
{
	static const u64 b[] = { 1, 10, 11, 100, U64_MAX - 1 };
	unsigned int n = ARRAY_SIZE(b), i;

	KUNIT_EXPECT_EQ(test, dm_stats_hist_bucket(b, n, 0), 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, dm_stats_hist_bucket(b, n, b[i] - 1),
				    i == 0 || b[i - 1] < b[i] - 1 ? i : i,
				    "just below bound %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dm_stats_hist_bucket(b, n, b[i]), i + 1,
				    "at bound %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dm_stats_hist_bucket(b, n, b[i] + 1),
				    bucket_model(b, n, b[i] + 1), "above bound %u", i);
	}
	KUNIT_EXPECT_EQ(test, dm_stats_hist_bucket(b, n, U64_MAX), n);
	KUNIT_EXPECT_EQ(test, dm_stats_hist_bucket(b, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, dm_stats_hist_bucket(b, 1, 1), 1);
}

static void hist_bucket_random(struct kunit *test)
{
	struct rnd_state rnd;
	u64 b[64];
	unsigned int i, n, round;

	prandom_seed_state(&rnd, 42);
	for (round = 0; round < 200; round++) {
		u64 v = 0;

		n = 1 + prandom_u32_state(&rnd) % ARRAY_SIZE(b);
		for (i = 0; i < n; i++) {
			v += 1 + prandom_u32_state(&rnd) % 50;
			b[i] = v;
		}
		for (i = 0; i < 100; i++) {
			/* v < 64 * 50: a 32-bit modulus (no 64-bit division on 32-bit) */
			u64 x = prandom_u32_state(&rnd) % (u32)(v + 10);

			KUNIT_ASSERT_EQ_MSG(test, dm_stats_hist_bucket(b, n, x),
					    bucket_model(b, n, x),
					    "n %u value %llu", n, x);
		}
	}
}

/* ---------------------------------------------------------- region index */

#define MODEL_MAX	300

struct index_model {
	struct dm_stats_region *r[MODEL_MAX];
	bool live[MODEL_MAX];
	struct dm_stats_index *idx;
	struct dm_stats_index_pool pool;
};

static void alloc_model(struct kunit *test, struct index_model *m)
{
	unsigned int i;

	for (i = 0; i < MODEL_MAX; i++) {
		m->r[i] = kunit_kzalloc(test, sizeof(*m->r[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, m->r[i]);
	}
}

/* Regions of @idx overlapping [lo, hi) are exactly the @live ones. */
static void index_query_check(struct kunit *test, struct index_model *m,
			      const struct dm_stats_index *idx, const bool *live,
			      sector_t lo, sector_t hi)
{
	DECLARE_BITMAP(seen, MODEL_MAX);
	struct dm_stats_index_iter it;
	struct dm_stats_region *r;
	unsigned int i;

	bitmap_zero(seen, MODEL_MAX);
	if (idx) {
		dm_stats_index_iter_init(&it, idx, lo, hi);
		while ((r = dm_stats_index_iter_next(&it))) {
			for (i = 0; i < MODEL_MAX && m->r[i] != r; i++)
				;
			KUNIT_ASSERT_LT(test, i, MODEL_MAX);
			KUNIT_ASSERT_FALSE_MSG(test, test_bit(i, seen),
					       "region %u found twice", i);
			__set_bit(i, seen);
		}
	}
	for (i = 0; i < MODEL_MAX; i++) {
		bool want = live[i] && m->r[i]->start < hi && m->r[i]->end > lo;

		KUNIT_ASSERT_EQ_MSG(test, test_bit(i, seen), want,
				    "region %u [%llu,%llu) query [%llu,%llu)", i,
				    (u64)m->r[i]->start, (u64)m->r[i]->end,
				    (u64)lo, (u64)hi);
	}
}

struct tree_facts {
	unsigned int nodes;
	unsigned int precise;
	const struct dm_stats_index_node *prev;	/* in-order predecessor */
	bool ok;
};

/*
 * Check the AVL tree under @n by its definition: keys in order (start,
 * then region address), heights, balance and max_end all as recomputed
 * here. Return the subtree's height.
 */
static int tree_check(struct kunit *test, const struct dm_stats_index_node *n,
		      struct tree_facts *f, unsigned int depth)
{
	int hl, hr;
	sector_t m;

	if (!n)
		return 0;
	if (depth >= DM_STATS_ITER_DEPTH) {
		KUNIT_FAIL(test, "tree deeper than %d", DM_STATS_ITER_DEPTH);
		f->ok = false;
		return 0;
	}
	hl = tree_check(test, n->left, f, depth + 1);
	if (f->prev && (f->prev->start > n->start ||
			(f->prev->start == n->start &&
			 (unsigned long)f->prev->region >= (unsigned long)n->region))) {
		KUNIT_FAIL(test, "keys out of order at start %llu", (u64)n->start);
		f->ok = false;
	}
	f->prev = n;
	f->nodes++;
	if (dm_stats_region_precise(n->region))
		f->precise++;
	if (n->start != n->region->start || n->end != n->region->end) {
		KUNIT_FAIL(test, "node [%llu,%llu) for region [%llu,%llu)",
			   (u64)n->start, (u64)n->end, (u64)n->region->start,
			   (u64)n->region->end);
		f->ok = false;
	}
	hr = tree_check(test, n->right, f, depth + 1);
	m = n->end;
	if (n->left)
		m = max(m, n->left->max_end);
	if (n->right)
		m = max(m, n->right->max_end);
	if (n->height != 1 + max(hl, hr) || abs(hl - hr) > 1 || n->max_end != m) {
		KUNIT_FAIL(test, "node at %llu: height %d (%d, %d) max_end %llu (%llu)",
			   (u64)n->start, n->height, hl, hr, (u64)n->max_end, (u64)m);
		f->ok = false;
	}
	return 1 + max(hl, hr);
}

static void index_check(struct kunit *test, const struct dm_stats_index *idx)
{
	struct tree_facts f = { .ok = true };

	tree_check(test, idx->root, &f, 0);
	KUNIT_ASSERT_TRUE(test, f.ok);
	KUNIT_ASSERT_EQ(test, f.nodes, idx->nr);
	KUNIT_ASSERT_EQ(test, f.precise, idx->nr_precise);
	KUNIT_ASSERT_EQ(test, idx->precise, f.precise > 0);
}

/* A checksum of every field lookups read, over the whole tree. */
static u64 tree_sum(const struct dm_stats_index_node *n)
{
	u64 s;

	if (!n)
		return 0x9e37;
	s = n->start * 3 + n->end * 5 + n->max_end * 7 + n->height * 11 +
	    (unsigned long)n->region + (unsigned long)n->left * 13 +
	    (unsigned long)n->right * 17;
	return s * 31 + tree_sum(n->left) * 37 + tree_sum(n->right) * 41;
}

/* Insert or remove m->r[i] as the model says, publishing a new index. */
static void model_update(struct kunit *test, struct index_model *m,
			 unsigned int i, u64 gen, bool *prev_live)
{
	struct dm_stats_index *old = m->idx, *next;
	u64 old_sum = old ? tree_sum(old->root) : 0;
	unsigned int live = 0, j;

	memcpy(prev_live, m->live, sizeof(m->live));
	KUNIT_ASSERT_EQ(test, dm_stats_index_reserve(&m->pool, old), 0);
	if (!m->live[i]) {
		next = dm_stats_index_insert(&m->pool, old, m->r[i], gen);
		KUNIT_ASSERT_NOT_NULL(test, next);
		m->live[i] = true;
	} else {
		next = dm_stats_index_remove(&m->pool, old, m->r[i], gen);
		m->live[i] = false;
	}
	for (j = 0; j < MODEL_MAX; j++)
		live += m->live[j];
	KUNIT_ASSERT_EQ(test, !next, !live);
	if (next) {
		KUNIT_ASSERT_EQ(test, next->nr, live);
		KUNIT_ASSERT_EQ(test, next->gen, gen);
	}
	/* The old snapshot is untouched: a reader still on it sees it all. */
	if (old) {
		KUNIT_ASSERT_EQ(test, tree_sum(old->root), old_sum);
		index_check(test, old);
	}
	m->idx = next;
}

static void index_random_vs_model(struct kunit *test)
{
	struct index_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	bool *prev_live = kunit_kzalloc(test, sizeof(m->live), GFP_KERNEL);
	unsigned long base = dm_stats_mem_used();
	struct rnd_state rnd;
	unsigned int step;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, prev_live);
	alloc_model(test, m);
	prandom_seed_state(&rnd, 7);
	for (step = 0; step < 3000; step++) {
		unsigned int i = prandom_u32_state(&rnd) % MODEL_MAX;
		struct dm_stats_index *old = m->idx;

		if (!m->live[i]) {
			/* Mix tiny, tiled, nested and whole-space regions. */
			u32 kind = prandom_u32_state(&rnd) % 4;
			sector_t s = prandom_u32_state(&rnd) % 10000;
			static const u32 max_len[] = { 1, 50, 3000, 1 };
			sector_t len = kind == 3 ? 20000 :
				       1 + prandom_u32_state(&rnd) % max_len[kind];

			m->r[i]->start = kind == 3 ? 0 : s;
			m->r[i]->end = m->r[i]->start + len;
			m->r[i]->flags = prandom_u32_state(&rnd) % 8 ? 0 :
					 DM_STATS_PRECISE_TIMESTAMPS;
		}
		model_update(test, m, i, step + 1, prev_live);
		if (m->idx)
			index_check(test, m->idx);
		if (step % 10 == 0) {
			sector_t lo = prandom_u32_state(&rnd) % 10500;
			sector_t hi = lo + 1 + prandom_u32_state(&rnd) % 300;

			index_query_check(test, m, m->idx, m->live, lo, hi);
			index_query_check(test, m, m->idx, m->live, lo, lo + 1);
			/* And the snapshot before this update, still intact. */
			if (old)
				index_query_check(test, m, old, prev_live, lo, hi);
		}
		dm_stats_index_free(old);
	}
	dm_stats_index_destroy(m->idx);
	dm_stats_index_pool_drain(&m->pool);
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

/*
 * Region @i of a tiling in 8-sector steps: set @r to it and insert it, as
 * version @ver, into a copy of @idx made from @pool. Returns the copy.
 */
static struct dm_stats_index *index_add_tile(struct kunit *test,
					     struct dm_stats_index_pool *pool,
					     struct dm_stats_index *idx,
					     struct dm_stats_region *r,
					     unsigned int i, u64 ver)
{
	struct dm_stats_index *next;

	r->start = (sector_t)i * 8;
	r->end = r->start + 8;
	KUNIT_ASSERT_EQ(test, dm_stats_index_reserve(pool, idx), 0);
	next = dm_stats_index_insert(pool, idx, r, ver);
	KUNIT_ASSERT_NOT_NULL(test, next);
	return next;
}

/*
 * Tiles created in order and deleted in order (what a tool creating
 * thousands of regions does) keep the tree balanced, and every update
 * copies O(log R) nodes, not O(R).
 */
static void index_sequential_balanced(struct kunit *test)
{
	const unsigned int n = 4096;
	struct dm_stats_region *r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	struct dm_stats_index_pool pool = {};
	unsigned long base = dm_stats_mem_used();
	struct dm_stats_index *idx = NULL, *next;
	unsigned int i, retired, most = 0;
	struct dm_stats_index_node *x;
	u64 gen = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < 2 * n; i++) {
		if (i < n) {
			next = index_add_tile(test, &pool, idx, &r[i], i, ++gen);
		} else {
			KUNIT_ASSERT_EQ(test, dm_stats_index_reserve(&pool, idx), 0);
			next = dm_stats_index_remove(&pool, idx, &r[i - n], ++gen);
		}
		if (idx) {
			retired = 0;
			for (x = idx->retired; x; x = x->next)
				retired++;
			most = max(most, retired);
			dm_stats_index_free(idx);
		}
		idx = next;
		if (i == n - 1) {
			index_check(test, idx);
			/* AVL: height <= 1.44 log2(n + 2), 17 for 4096. */
			KUNIT_EXPECT_LE(test, idx->root->height, 17);
		}
		if (idx && i % 512 == 0)
			index_check(test, idx);
	}
	KUNIT_EXPECT_NULL(test, idx);
	/* At most the path and the nodes rotations move: 3 per level. */
	KUNIT_EXPECT_LE(test, most, 3U * 17);
	KUNIT_EXPECT_GT(test, most, 0U);
	dm_stats_index_pool_drain(&pool);
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

/*
 * Nodes are allocated and freed in batches: a reservation for a tall tree
 * from an empty pool, and destroying a tree of 2,000 nodes, both span many
 * batches. Every node made is charged and every node freed is released.
 */
static void index_pool_batches_charged(struct kunit *test)
{
	const unsigned int n = 2000;
	struct dm_stats_region *r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	struct dm_stats_index_pool pool = {};
	unsigned long base = dm_stats_mem_used(), before;
	struct dm_stats_index *idx = NULL, *next;
	struct dm_stats_index_node *x;
	unsigned int i, listed = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	/* Frees an earlier case left to RCU must not land in our sums. */
	rcu_barrier();
	base = dm_stats_mem_used();
	for (i = 0; i < n; i++) {
		next = index_add_tile(test, &pool, idx, &r[i], i, i + 1);
		dm_stats_index_free(idx);
		idx = next;
	}
	KUNIT_EXPECT_EQ(test, idx->nr, n);

	/* From an empty pool: the nodes and the spare header, all charged. */
	dm_stats_index_pool_drain(&pool);
	KUNIT_EXPECT_EQ(test, pool.nr, 0U);
	before = dm_stats_mem_used();
	KUNIT_ASSERT_EQ(test, dm_stats_index_reserve(&pool, idx), 0);
	for (x = pool.free; x; x = x->next)
		listed++;
	KUNIT_EXPECT_EQ(test, listed, pool.nr);
	/* A full path of a 2,000-node AVL tree is more than a few nodes. */
	KUNIT_EXPECT_GE(test, pool.nr, (unsigned int)idx->root->height);
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used() - before,
			pool.nr * sizeof(struct dm_stats_index_node) +
			sizeof(struct dm_stats_index));
	/* ... and enough for the update. */
	next = dm_stats_index_remove(&pool, idx, &r[n / 2], n + 1);
	KUNIT_ASSERT_NOT_NULL(test, next);
	KUNIT_EXPECT_EQ(test, next->nr, n - 1);
	dm_stats_index_free(idx);
	index_check(test, next);

	dm_stats_index_destroy(next);
	dm_stats_index_pool_drain(&pool);
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

/*
 * A replaced snapshot waits for a grace period; then its nodes and header
 * serve later updates without new memory, the trees built from recycled
 * nodes are sound, and what the pool holds stays within its bounds.
 */
static void index_retired_nodes_recycled(struct kunit *test)
{
	const unsigned int n = 2 * DM_STATS_WAITING_MAX;
	struct dm_stats_region *r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	struct dm_stats_index_pool pool = {};
	unsigned long base, before;
	struct dm_stats_index *idx = NULL, *next, *h;
	unsigned int i, waiting = 0, retired = 0, listed, nr_before, spare_before;
	struct dm_stats_index_node *x;

	KUNIT_ASSERT_NOT_NULL(test, r);
	/* Frees an earlier case left to RCU must not land in our sums. */
	rcu_barrier();
	base = dm_stats_mem_used();
	for (i = 0; i < n; i++) {
		next = index_add_tile(test, &pool, idx, &r[i], i, i + 1);
		dm_stats_index_retire(&pool, idx);
		idx = next;
		KUNIT_ASSERT_LE(test, pool.nr_waiting, DM_STATS_WAITING_MAX);
		KUNIT_ASSERT_LE(test, pool.nr, DM_STATS_POOL_KEEP);
		KUNIT_ASSERT_LE(test, pool.nr_spare, DM_STATS_SPARE_HEADERS);
	}
	/* Each waiting snapshot holds a whole list of the nodes it retired. */
	for (h = pool.waiting; h; h = h->link) {
		listed = 0;
		for (x = h->retired; x; x = x->next) {
			listed++;
			if (!x->next)
				KUNIT_EXPECT_PTR_EQ(test, x, h->retired_tail);
		}
		KUNIT_EXPECT_EQ(test, listed, h->nr_retired);
		retired += h->nr_retired;
		waiting++;
	}
	KUNIT_EXPECT_EQ(test, waiting, pool.nr_waiting);

	/*
	 * After a grace period they all come back and nothing new is made:
	 * what the pool does not keep is freed, and only that is released.
	 */
	/*
	 * At boot synchronize_rcu() is expedited, and an expedited period that
	 * overlaps a normal one can end the polled sequence one period short
	 * of a cookie taken meanwhile: wait until the newest cookie is done.
	 * rcu_barrier() then settles the snapshots the overflow freed.
	 */
	for (i = 0; i < 8 && !poll_state_synchronize_rcu(pool.waiting_tail->gp); i++)
		synchronize_rcu();
	KUNIT_ASSERT_TRUE(test, poll_state_synchronize_rcu(pool.waiting_tail->gp));
	rcu_barrier();
	before = dm_stats_mem_used();
	nr_before = pool.nr;
	spare_before = pool.nr_spare;
	KUNIT_ASSERT_EQ(test, dm_stats_index_reserve(&pool, idx), 0);
	KUNIT_EXPECT_EQ(test, pool.nr_waiting, 0U);
	KUNIT_EXPECT_NULL(test, pool.waiting);
	KUNIT_EXPECT_EQ(test, pool.nr, min(nr_before + retired, DM_STATS_POOL_KEEP));
	KUNIT_EXPECT_EQ(test, pool.nr_spare,
			min(spare_before + waiting, DM_STATS_SPARE_HEADERS));
	KUNIT_EXPECT_EQ(test, before - dm_stats_mem_used(),
			(nr_before + retired - pool.nr) *
			sizeof(struct dm_stats_index_node) +
			(spare_before + waiting - pool.nr_spare) *
			sizeof(struct dm_stats_index));

	/* Delete them all on recycled nodes; every tree checks out. */
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, dm_stats_index_reserve(&pool, idx), 0);
		next = dm_stats_index_remove(&pool, idx, &r[i], n + i + 1);
		dm_stats_index_retire(&pool, idx);
		idx = next;
		if (idx && i % 64 == 0)
			index_check(test, idx);
	}
	KUNIT_EXPECT_NULL(test, idx);
	dm_stats_index_pool_drain(&pool);
	KUNIT_EXPECT_EQ(test, pool.nr + pool.nr_spare + pool.nr_waiting, 0U);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, dm_stats_mem_used(), base);
}

static void index_sorted_and_augmented(struct kunit *test)
{
	struct index_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	bool *prev_live = kunit_kzalloc(test, sizeof(m->live), GFP_KERNEL);
	struct dm_stats_index *old;
	sector_t max_end = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, prev_live);
	alloc_model(test, m);
	for (i = 0; i < 100; i++) {
		/* Many equal starts: the region breaks ties. */
		m->r[i]->start = (i * 37) % 50;
		m->r[i]->end = m->r[i]->start + 1 + i % 7;
		max_end = max(max_end, m->r[i]->end);
		old = m->idx;
		model_update(test, m, i, i + 1, prev_live);
		dm_stats_index_free(old);
	}
	KUNIT_EXPECT_EQ(test, m->idx->gen, 100);
	KUNIT_EXPECT_EQ(test, m->idx->nr, 100);
	index_check(test, m->idx);
	KUNIT_EXPECT_EQ(test, m->idx->root->max_end, max_end);
	dm_stats_index_destroy(m->idx);
	dm_stats_index_pool_drain(&m->pool);
}

/* ------------------------------------------------ splitting I/O, counters */

struct split_region {
	int id;
	sector_t start, end, step;
	u64 *ios;	/* per area, [READ, WRITE] interleaved */
	u64 *sectors;
};

static void read_area(struct kunit *test, struct dm_stats *st, int id,
		      size_t area, struct dm_stats_totals *t)
{
	struct dm_stats_region *r = xa_load(&st->regions, id);

	KUNIT_ASSERT_NOT_NULL(test, r);
	dm_stats_fold(r, area, t);
}

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
	rcu_barrier();
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
	rcu_barrier();
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
	rcu_barrier();
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

static struct kunit_case dm_stats_index_cases[] = {
	KUNIT_CASE(index_random_vs_model),
	KUNIT_CASE(index_sorted_and_augmented),
	KUNIT_CASE(index_sequential_balanced),
	KUNIT_CASE(index_pool_batches_charged),
	KUNIT_CASE(index_retired_nodes_recycled),
	KUNIT_CASE(hist_bucket_boundaries),
	KUNIT_CASE(hist_bucket_random),
	{}
};

static struct kunit_suite dm_stats_index_suite = {
	.name = "dm-stats-index",
	.test_cases = dm_stats_index_cases,
};

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
	KUNIT_CASE(latency_runs_from_arrival),
	KUNIT_CASE(torn_fold_adds_no_timestamp),
	KUNIT_CASE(busy_time_across_2_32_jiffies),
	KUNIT_CASE(hist_value_is_64_bit),
	KUNIT_CASE(hist_value_is_jiffies_to_msecs),
	KUNIT_CASE(user_time_is_upstreams),
	KUNIT_CASE(time_conversions_by_hand),
	KUNIT_CASE(one_jiffy_io_printed),
	KUNIT_CASE(parse_histogram_huge),
	KUNIT_CASE(print_buffers_are_charged),
	KUNIT_CASE(print_clear_snapshot_lines),
	KUNIT_CASE(delete_needs_no_fallible_memory),
	KUNIT_CASE(mem_create_delete_balance),
	KUNIT_CASE(mem_small_region_one_block),
	KUNIT_CASE(mem_limit_enforced),
	{}
};

static struct kunit_suite dm_stats_io_suite = {
	.name = "dm-stats-io",
	.init = stats_fixture_init,
	.exit = stats_fixture_exit,
	.test_cases = dm_stats_io_cases,
};

kunit_test_suites(&dm_stats_message_suite, &dm_stats_index_suite,
		  &dm_stats_io_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests of the device-mapper statistics engine");
MODULE_LICENSE("GPL");
