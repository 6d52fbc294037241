/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper I/O statistics: structures shared by the engine's files
 * (messages, region index, I/O accounting) and its KUnit tests.
 */
#ifndef DM_STATS_INTERNAL_H
#define DM_STATS_INTERNAL_H

#include <linux/types.h>
#include <linux/bug.h>
#include <linux/atomic.h>
#include <asm/local64.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "dm-stats.h"

#define DM_STATS_PRECISE_TIMESTAMPS	1U

/* Upstream's limits, kept so that the same requests succeed or fail. */
#define DM_STATS_MAX_AREAS		8388608U
#define DM_STATS_MAX_HISTOGRAM_CELLS	134217728U
/* Upstream's boundaries array is one kmalloc: it holds no more than this. */
#define DM_STATS_MAX_HISTOGRAM_BOUNDS	(KMALLOC_MAX_SIZE / sizeof(u64))

/*
 * Counters of one area on one CPU. Only that CPU adds to them (local64_t:
 * safe against its own interrupts, no bus lock); readers fold all CPUs.
 * Each holds a sum of small increments (never an absolute time), so a
 * reader that folds the CPUs while I/O runs sees each one at some recent
 * value, never a mixture that adds up to a timestamp.
 */
struct dm_stats_counters {
	local64_t ios[2];
	local64_t merges[2];
	local64_t sectors[2];
	local64_t ticks[2];
	local64_t io_ticks[2];
	local64_t io_ticks_total;
	local64_t time_in_queue;
	local64_t histogram[];
};

/**
 * struct dm_stats_area_shared - what all CPUs share of one area
 * @stamp: time up to which io_ticks and time_in_queue have been charged
 * @in_flight: reads and writes started and not yet ended
 *
 * Whoever moves @stamp charges the interval before it, reading @in_flight:
 * one word per direction, whatever the number of possible CPUs. Written by
 * every I/O of the area from any CPU: each area's on a cache line of its
 * own, none shared with what the I/O path only reads (the region header,
 * its per-CPU pointers and histogram boundaries) or with another area.
 */
struct dm_stats_area_shared {
	atomic64_t stamp;
	atomic_t in_flight[2];
} ____cacheline_aligned_in_smp;

/* One area's counters folded over all CPUs, in the region's time unit. */
struct dm_stats_totals {
	u64 ios[2];
	u64 merges[2];
	u64 sectors[2];
	u64 ticks[2];
	u64 io_ticks[2];
	u64 io_ticks_total;
	u64 time_in_queue;
	int in_flight;
	u64 histogram[];
};

/**
 * struct dm_stats_region - one region created by @stats_create
 * @id: region id
 * @flags: DM_STATS_PRECISE_TIMESTAMPS
 * @gen: generation at creation (see struct dm_stats_aux)
 * @start: first sector
 * @end: sector after the last one
 * @step: area size in sectors
 * @n_areas: number of areas
 * @n_bounds: number of histogram boundaries (0: no histogram)
 * @bounds: histogram boundaries, strictly increasing
 * @program_id: program id string
 * @aux_data: aux data string: @inline_aux, or a copy set by @stats_set_aux
 * @inline_aux: the aux data given at creation, in the region's own block
 * @inline_areas: the areas of every CPU are in the region's own block
 * @area_bytes: size of one area's struct dm_stats_counters
 * @alloc_bytes: memory charged to the statistics limit for this region
 * @shared: per area, the in-flight counts and the io_ticks stamp
 * @rcu: for freeing after readers are gone
 * @percpu: per possible CPU, the counters of all areas (nr_cpu_ids slots)
 */
struct dm_stats_region {
	int id;
	unsigned int flags;
	u64 gen;
	sector_t start;
	sector_t end;
	sector_t step;
	size_t n_areas;
	unsigned int n_bounds;
	u64 *bounds;
	char *program_id;
	char *aux_data;
	char *inline_aux;
	bool inline_areas;
	size_t area_bytes;
	size_t alloc_bytes;
	struct dm_stats_area_shared *shared;
	struct rcu_head rcu;
	struct dm_stats_counters *percpu[];
};

static inline bool dm_stats_region_precise(const struct dm_stats_region *r)
{
	return r->flags & DM_STATS_PRECISE_TIMESTAMPS;
}

static inline struct dm_stats_counters *
dm_stats_area_counters(const struct dm_stats_region *r, int cpu, size_t area)
{
	return (void *)r->percpu[cpu] + area * r->area_bytes;
}

/* --- memory accounting (dm-stats.c) --- */
unsigned long dm_stats_memory_limit(void);
bool dm_stats_mem_claim(size_t bytes, bool enforce);
void dm_stats_mem_release(size_t bytes);
unsigned long dm_stats_mem_used(void);
u64 dm_stats_next_gen(void);

/* --- region index (dm-stats-index.c) --- */

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

/* --- counters (dm-stats-io.c) --- */
unsigned int dm_stats_hist_bucket(const u64 *bounds, unsigned int n, u64 value);
size_t dm_stats_totals_size(const struct dm_stats_region *r);
void dm_stats_fold(struct dm_stats_region *r, size_t area,
		   struct dm_stats_totals *t);
void dm_stats_fold_at(struct dm_stats_region *r, size_t area, u64 now,
		      struct dm_stats_totals *t, bool cells);
void dm_stats_area_event(struct dm_stats_region *r, size_t area, int cpu,
			 int dir, bool end, u64 now, u64 dur);
u64 dm_stats_hist_value(const struct dm_stats_region *r, u64 dur);
u64 dm_stats_now(const struct dm_stats_region *r);
void dm_stats_subtract(struct dm_stats_region *r, size_t area,
		       const struct dm_stats_totals *t, bool cells);
u64 dm_stats_fold_cell(const struct dm_stats_region *r, size_t area,
		       unsigned int cell);
void dm_stats_subtract_cell(struct dm_stats_region *r, size_t area,
			    unsigned int cell, u64 v);
u64 dm_stats_to_user_time(const struct dm_stats_region *r, u64 t);

/* --- regions and messages (dm-stats.c) --- */
struct dm_stats_create_args {
	sector_t start;
	sector_t end;
	sector_t step;
	unsigned int flags;
	unsigned int n_bounds;
	u64 *bounds;		/* kvmalloc'ed, owned by the caller */
	const char *program_id;
	const char *aux_data;
};

int dm_stats_parse_create(unsigned int argc, char **argv, sector_t dev_size,
			  struct dm_stats_create_args *a);
int dm_stats_parse_histogram(const char *s, unsigned int *n, u64 **bounds);
int dm_stats_region_create(struct dm_stats *st,
			   const struct dm_stats_create_args *a);
int dm_stats_region_delete(struct dm_stats *st, int id);
int dm_stats_region_clear(struct dm_stats *st, int id);
int dm_stats_region_list(struct dm_stats *st, const char *program,
			 char *result, unsigned int maxlen);
size_t dm_stats_print_clear_lines(const struct dm_stats_region *r,
				  size_t count, unsigned int maxlen);
int dm_stats_region_print(struct dm_stats *st, int id, unsigned long first,
			  unsigned long count, bool clear,
			  char *result, unsigned int maxlen);
int dm_stats_region_set_aux(struct dm_stats *st, int id, const char *aux);
int dm_stats_dispatch(struct dm_stats *st, sector_t dev_size,
		      unsigned int argc, char **argv,
		      char *result, unsigned int maxlen);

#endif
