// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm-stats-index of the device-mapper statistics engine: the
 * region index against a brute-force model, and histogram cells.
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
	dm_stats_free_barrier();
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
	dm_stats_free_barrier();
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

kunit_test_suite(dm_stats_index_suite);
