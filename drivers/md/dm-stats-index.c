// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: the region index.
 *
 * A device's regions live in an immutable array sorted by start sector and
 * read as an implicit balanced tree: the root of the slice [lo, hi) is
 * entry (lo + hi) / 2, and every entry records the largest end sector of
 * its subtree. Finding the regions that overlap a bio visits O(log R) nodes
 * plus the regions found. Creating or deleting a region builds a new array
 * (O(R), on the message path only) and publishes it with RCU, so I/O never
 * waits for it.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/overflow.h>

#include "dm-stats-internal.h"

static sector_t index_fix_max_end(struct dm_stats_index_entry *e,
				  unsigned int lo, unsigned int hi)
{
	unsigned int mid;
	sector_t m;

	if (lo >= hi)
		return 0;
	mid = lo + (hi - lo) / 2;
	m = e[mid].end;
	m = max(m, index_fix_max_end(e, lo, mid));
	m = max(m, index_fix_max_end(e, mid + 1, hi));
	e[mid].max_end = m;
	return m;
}

static struct dm_stats_index *index_alloc(unsigned int nr, u64 gen)
{
	struct dm_stats_index *idx;
	size_t bytes = struct_size(idx, e, nr);

	if (!dm_stats_mem_claim(bytes, false))
		return NULL;
	idx = kvmalloc(bytes, GFP_KERNEL | __GFP_NOWARN);
	if (!idx) {
		dm_stats_mem_release(bytes);
		return NULL;
	}
	idx->alloc_bytes = bytes;
	idx->gen = gen;
	idx->nr = nr;
	idx->precise = false;
	return idx;
}

static void index_finish(struct dm_stats_index *idx)
{
	unsigned int i;

	for (i = 0; i < idx->nr; i++)
		if (dm_stats_region_precise(idx->e[i].region))
			idx->precise = true;
	index_fix_max_end(idx->e, 0, idx->nr);
}

/**
 * dm_stats_index_insert - a new index with one more region
 * @old: current index, or NULL for none
 * @r: region to add
 * @gen: generation of the new index
 *
 * Return: the new index, or NULL when out of memory. @old is unchanged.
 */
struct dm_stats_index *dm_stats_index_insert(const struct dm_stats_index *old,
					     struct dm_stats_region *r, u64 gen)
{
	unsigned int n = old ? old->nr : 0;
	struct dm_stats_index *idx;
	unsigned int lo = 0, hi = n;

	idx = index_alloc(n + 1, gen);
	if (!idx)
		return NULL;
	/* After every entry with the same start: ties keep creation order. */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (old->e[mid].start <= r->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		memcpy(idx->e, old->e, lo * sizeof(idx->e[0]));
	idx->e[lo].start = r->start;
	idx->e[lo].end = r->end;
	idx->e[lo].region = r;
	if (n > lo)
		memcpy(idx->e + lo + 1, old->e + lo, (n - lo) * sizeof(idx->e[0]));
	index_finish(idx);
	return idx;
}

/**
 * dm_stats_index_remove - a new index without one region
 * @old: current index, which holds @r
 * @r: region to drop
 * @gen: generation of the new index
 *
 * Return: the new index; NULL when @r was the last region (check
 * @old->nr) or when out of memory. @old is unchanged.
 */
struct dm_stats_index *dm_stats_index_remove(const struct dm_stats_index *old,
					     struct dm_stats_region *r, u64 gen)
{
	struct dm_stats_index *idx;
	unsigned int i, j;

	if (old->nr == 1)
		return NULL;
	idx = index_alloc(old->nr - 1, gen);
	if (!idx)
		return NULL;
	for (i = 0, j = 0; i < old->nr; i++) {
		if (old->e[i].region == r)
			continue;
		if (WARN_ON_ONCE(j == idx->nr))
			break;
		idx->e[j++] = old->e[i];
	}
	index_finish(idx);
	return idx;
}

/**
 * dm_stats_index_free - free an index no reader can see
 * @idx: the index, or NULL
 */
void dm_stats_index_free(struct dm_stats_index *idx)
{
	if (!idx)
		return;
	dm_stats_mem_release(idx->alloc_bytes);
	kvfree(idx);
}

static void index_free_cb(struct rcu_head *head)
{
	dm_stats_index_free(container_of(head, struct dm_stats_index, rcu));
}

/**
 * dm_stats_index_free_rcu - free an unpublished index after a grace period
 * @idx: the index, or NULL
 */
void dm_stats_index_free_rcu(struct dm_stats_index *idx)
{
	if (idx)
		call_rcu(&idx->rcu, index_free_cb);
}

/**
 * dm_stats_index_iter_init - start looking for regions overlapping a range
 * @it: iterator
 * @idx: index to search
 * @lo: first sector
 * @hi: sector after the last one
 */
void dm_stats_index_iter_init(struct dm_stats_index_iter *it,
			      const struct dm_stats_index *idx,
			      sector_t lo, sector_t hi)
{
	it->idx = idx;
	it->lo = lo;
	it->hi = hi;
	it->sp = 1;
	it->stack[0].lo = 0;
	it->stack[0].hi = idx->nr;
}

/**
 * dm_stats_index_iter_next - next region overlapping the iterator's range
 * @it: iterator
 *
 * Depth-first: the stack holds at most one pending right slice per tree
 * level, so DM_STATS_ITER_DEPTH bounds it for any 32-bit count.
 *
 * Return: a region, or NULL when there is none left.
 */
struct dm_stats_region *dm_stats_index_iter_next(struct dm_stats_index_iter *it)
{
	const struct dm_stats_index_entry *e = it->idx->e;

	while (it->sp) {
		unsigned int lo, hi, mid;

		it->sp--;
		lo = it->stack[it->sp].lo;
		hi = it->stack[it->sp].hi;
		if (lo >= hi)
			continue;
		mid = lo + (hi - lo) / 2;
		/* Nothing in this subtree ends after the range starts. */
		if (e[mid].max_end <= it->lo)
			continue;
		/* Right subtree starts no earlier than mid: prune if past hi. */
		if (e[mid].start < it->hi) {
			it->stack[it->sp].lo = mid + 1;
			it->stack[it->sp].hi = hi;
			it->sp++;
		}
		it->stack[it->sp].lo = lo;
		it->stack[it->sp].hi = mid;
		it->sp++;
		if (e[mid].start < it->hi && e[mid].end > it->lo)
			return e[mid].region;
	}
	return NULL;
}
