/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper I/O statistics: the region index (dm-stats-index.c), an
 * RCU-published interval tree of a device's regions, and its iterator,
 * inline because it runs on the I/O path.
 */
#ifndef DM_STATS_INDEX_H
#define DM_STATS_INDEX_H

#include <linux/types.h>
#include <linux/bug.h>
#include <linux/rcupdate.h>

#include "dm-stats.h"

struct dm_stats_region;

/**
 * struct dm_stats_index_node - one region in the index's AVL tree
 * @start: the region's first sector (the key, with @region as tie-break)
 * @end: the region's end sector
 * @max_end: largest @end in the subtree rooted here
 * @region: the region
 * @left: subtree of smaller keys
 * @right: subtree of larger keys
 * @ver: generation of the update that made the node; only that update
 *	may change it, before it is published
 * @next: link in a pool or retired list; lookups never read it
 * @height: height of the subtree rooted here (a leaf is 1)
 */
struct dm_stats_index_node {
	sector_t start;
	sector_t end;
	sector_t max_end;
	struct dm_stats_region *region;
	struct dm_stats_index_node *left;
	struct dm_stats_index_node *right;
	u64 ver;
	struct dm_stats_index_node *next;
	int height;
};

/**
 * struct dm_stats_index - immutable snapshot of a device's regions
 * @rcu: for freeing after readers are gone
 * @gen: generation of this snapshot
 * @root: the tree; nodes are shared with older and newer snapshots
 * @retired: nodes of this snapshot that the next one replaced, freed or
 *	recycled with this header
 * @retired_tail: last node on @retired
 * @link: next header on a pool's spare or waiting list
 * @gp: RCU grace-period cookie taken when the snapshot was replaced
 * @nr: number of regions
 * @nr_precise: number of regions with precise timestamps
 * @nr_retired: number of nodes on @retired
 * @precise: @nr_precise is not zero
 */
struct dm_stats_index {
	struct rcu_head rcu;
	u64 gen;
	struct dm_stats_index_node *root;
	struct dm_stats_index_node *retired;
	struct dm_stats_index_node *retired_tail;
	struct dm_stats_index *link;
	unsigned long gp;
	unsigned int nr;
	unsigned int nr_precise;
	unsigned int nr_retired;
	bool precise;
};

/*
 * What a pool keeps for recycling: at most this many spare nodes and
 * headers, and replaced snapshots waiting for a grace period (beyond that,
 * the oldest is freed by an RCU callback). A grace period in the test
 * guest spans up to a few hundred updates, each taking a header: keeping
 * as many spare headers as can wait lets a burst of updates run without
 * allocating one. These bound what an idle device holds to a few hundred
 * KiB (4096 nodes of 72 bytes, 512 headers of 88), all of it charged to
 * the statistics memory.
 */
#define DM_STATS_POOL_KEEP		4096U
#define DM_STATS_WAITING_MAX		512U
#define DM_STATS_SPARE_HEADERS		DM_STATS_WAITING_MAX

/* More than the height of any tree a device can build (see the index). */
#define DM_STATS_ITER_DEPTH	48

/* Ancestors a walk keeps (a power of two); deeper ones are found again. */
#define DM_STATS_ITER_STACK	8

/**
 * struct dm_stats_index_iter - a walk of the regions overlapping a range
 * @lo: first sector of the range
 * @hi: sector after the last one
 * @root: the tree walked
 * @next: subtree to descend into next, or NULL
 * @pos: the node visited last: every node up to it is done
 * @top: ring index of the top of @stack
 * @sp: number of nodes on @stack, at most DM_STATS_ITER_STACK
 * @lost: nodes were pushed out of @stack by deeper ones
 * @stack: nodes whose left subtree is being walked, to visit afterwards
 *
 * The walk runs on the completion path of every counted I/O, once per
 * stacked mapped device, possibly in hard interrupt context: it keeps the
 * last DM_STATS_ITER_STACK ancestors only (enough for trees of some
 * hundred regions), not one per level of the deepest tree a device can
 * build, and descends from the root again for those it lost.
 */
struct dm_stats_index_iter {
	sector_t lo;
	sector_t hi;
	const struct dm_stats_index_node *root;
	const struct dm_stats_index_node *next;
	const struct dm_stats_index_node *pos;
	unsigned short top;
	unsigned char sp;
	bool lost;
	const struct dm_stats_index_node *stack[DM_STATS_ITER_STACK];
};

int dm_stats_index_init(void);
void dm_stats_index_exit(void);
int dm_stats_index_reserve(struct dm_stats_index_pool *pool,
			   const struct dm_stats_index *idx);
void dm_stats_index_reserve_nofail(struct dm_stats_index_pool *pool,
				   const struct dm_stats_index *idx);
void dm_stats_index_pool_drain(struct dm_stats_index_pool *pool);
struct dm_stats_index *dm_stats_index_insert(struct dm_stats_index_pool *pool,
					     struct dm_stats_index *old,
					     struct dm_stats_region *r, u64 gen);
struct dm_stats_index *dm_stats_index_remove(struct dm_stats_index_pool *pool,
					     struct dm_stats_index *old,
					     struct dm_stats_region *r, u64 gen);
void dm_stats_index_retire(struct dm_stats_index_pool *pool,
			   struct dm_stats_index *old);
void dm_stats_index_free(struct dm_stats_index *idx);
void dm_stats_index_free_rcu(struct dm_stats_index *idx);
void dm_stats_index_destroy(struct dm_stats_index *idx);

/*
 * The iterator runs twice per I/O (start and end): inline, so that the I/O
 * path makes no call to walk the index.
 */

/**
 * dm_stats_index_iter_init - start looking for regions overlapping a range
 * @it: iterator
 * @idx: index to search
 * @lo: first sector
 * @hi: sector after the last one
 */
static inline void dm_stats_index_iter_init(struct dm_stats_index_iter *it,
					    const struct dm_stats_index *idx,
					    sector_t lo, sector_t hi)
{
	it->lo = lo;
	it->hi = hi;
	it->root = idx->root;
	it->next = idx->root;
	it->pos = NULL;
	it->top = 0;
	it->sp = 0;
	it->lost = false;
}

/* Does @a come before @b in the index (by start sector, then region)? */
static inline bool dm_stats_index_before(const struct dm_stats_index_node *a,
					 const struct dm_stats_index_node *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return (unsigned long)a->region < (unsigned long)b->region;
}

/**
 * dm_stats_index_iter_next - next region overlapping the iterator's range
 * @it: iterator
 *
 * In order of start sector: down the left spine of a subtree, skipping
 * subtrees in which nothing ends after the range starts, then each node
 * before its right subtree. The first node that starts at or after the
 * range's end ends the walk, as every later one starts after it. When the
 * kept ancestors run out and some were lost, the walk descends from the
 * root again, passing over every node up to the last one it visited.
 *
 * Return: a region, or NULL when there is none left.
 */
static inline struct dm_stats_region *
dm_stats_index_iter_next(struct dm_stats_index_iter *it)
{
	const unsigned int mask = DM_STATS_ITER_STACK - 1;
	const struct dm_stats_index_node *n = it->next, *bound = NULL;

	BUILD_BUG_ON(DM_STATS_ITER_STACK & mask);
	for (;;) {
		while (n && n->max_end > it->lo) {
			/* Done already (a descent again): it and its left. */
			if (bound && !dm_stats_index_before(bound, n)) {
				n = n->right;
				continue;
			}
			it->stack[it->top++ & mask] = n;
			if (it->sp < DM_STATS_ITER_STACK)
				it->sp++;
			else
				it->lost = true;
			n = n->left;
		}
		if (!it->sp) {
			if (!it->lost)
				goto done;
			it->lost = false;
			bound = it->pos;
			n = it->root;
			continue;
		}
		n = it->stack[--it->top & mask];
		it->sp--;
		bound = NULL;
		it->pos = n;
		if (n->start >= it->hi)
			goto done;
		if (n->end > it->lo) {
			it->next = n->right;
			return n->region;
		}
		n = n->right;
	}
done:
	it->next = NULL;
	it->sp = 0;
	it->lost = false;
	return NULL;
}

#endif
