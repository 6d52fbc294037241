// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: the lifetime of a device's statistics and
 * of its regions, and what the @stats_* messages do with them (create,
 * delete, list, print, clear); dm-stats-message.c parses the messages.
 *
 * Messages of one device are serialised by its mutex. Creating or deleting
 * a region publishes a new region index with RCU and never waits for I/O:
 * the generation in the index tells an I/O which regions existed when it
 * started. See Documentation/admin-guide/device-mapper/statistics-engine.rst.
 */
#include <linux/device-mapper.h>
#include <linux/export.h>
#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "dm-core.h"
#include "dm-stats-index.h"
#include "dm-stats-mem.h"
#include "dm-stats-region.h"
#include "dm-statistic.h"

#define DM_MSG_PREFIX "stats"

/* Shortest line @stats_print can emit: "0+1" and 13 " 0", plus "\n". */
#define DM_STATS_MIN_PRINT_LINE		30

/*
 * Deleted regions are freed from here, in process context after a grace
 * period: a region's per-CPU blocks may add up to a large part of memory,
 * which an RCU callback would free in softirq without a chance to yield.
 * WQ_MEM_RECLAIM: freeing must progress when memory is short.
 */
static struct workqueue_struct *dm_stats_free_wq;

/* Process context: yields between the per-CPU blocks. */
static void region_free(struct dm_stats_region *r)
{
	int cpu;

	if (!r->inline_areas) {
		for_each_possible_cpu(cpu) {
			kvfree(r->percpu[cpu]);
			cond_resched();
		}
	}
	if (r->aux_data != r->inline_aux)
		kfree(r->aux_data);
	dm_stats_mem_release(r->alloc_bytes);
	kvfree(r);
}

static void region_free_work(struct work_struct *work)
{
	region_free(container_of(to_rcu_work(work), struct dm_stats_region,
				 free_work));
}

/**
 * dm_stats_free_barrier - wait until every deleted region is freed
 *
 * Context: process context, may sleep.
 */
void dm_stats_free_barrier(void)
{
	/* each region's RCU callback queues its work: then run them all */
	rcu_barrier();
	flush_workqueue(dm_stats_free_wq);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_free_barrier);

#define DM_STATS_GFP	(GFP_KERNEL | __GFP_NOMEMALLOC | __GFP_NOWARN)

/*
 * Up to this many bytes of counters per CPU, a region's areas share its own
 * allocation, one cache-line aligned block per CPU: creating and deleting
 * one of thousands of small regions then costs one allocation, not one per
 * CPU. Larger regions take a block per CPU on the CPU's own node.
 */
#define DM_STATS_INLINE_AREAS_BYTES	512

/* Where the parts of a region go: one block, and maybe a block per CPU. */
struct region_layout {
	size_t area_bytes;	/* one area's counters */
	size_t one_cpu;		/* the counters of all areas of one CPU */
	size_t stride;		/* from one CPU's areas to the next, inline */
	size_t program_len;
	size_t aux_len;
	size_t off_bounds;
	size_t off_strings;
	size_t off_shared;
	size_t off_areas;
	size_t size;		/* the block */
	size_t total;		/* charged: the block and the per-CPU blocks */
	bool inline_areas;	/* the areas of every CPU are in the block */
};

/*
 * Header, bounds, strings, stamps and maybe the areas: one block. The
 * stamps start on a cache line of their own (below @off_shared +
 * SMP_CACHE_BYTES - 1), away from what the I/O path only reads. Sizes
 * saturate (size_add()), so that an impossible region fails its charge.
 */
static void region_layout(const struct dm_stats_create_args *a,
			  size_t n_areas, struct region_layout *l)
{
	size_t cells = a->n_bounds ? (size_t)a->n_bounds + 1 : 0;

	l->area_bytes = sizeof(struct dm_stats_counters) + cells * sizeof(u64);
	l->one_cpu = array_size(n_areas, l->area_bytes);
	l->inline_areas = l->one_cpu <= DM_STATS_INLINE_AREAS_BYTES;
	l->stride = ALIGN(l->one_cpu, SMP_CACHE_BYTES);
	l->program_len = strlen(a->program_id) + 1;
	l->aux_len = strlen(a->aux_data) + 1;

	l->off_bounds = struct_size_t(struct dm_stats_region, percpu, nr_cpu_ids);
	l->off_strings = size_add(l->off_bounds,
				  array_size(a->n_bounds, sizeof(u64)));
	l->off_shared = size_add(l->off_strings, l->program_len + l->aux_len);
	l->off_areas = size_add(l->off_shared, SMP_CACHE_BYTES - 1);
	l->off_areas = size_add(l->off_areas,
				array_size(n_areas,
					   sizeof(struct dm_stats_area_shared)));
	l->size = l->off_areas;
	if (l->inline_areas)
		l->size = size_add(l->size, SMP_CACHE_BYTES - 1 +
				   l->stride * num_possible_cpus());
	l->total = l->size;
	if (!l->inline_areas)
		l->total = size_add(l->total,
				    size_mul(l->one_cpu, num_possible_cpus()));
}

/* Fill a new region's zeroed block from its definition. */
static void region_init(struct dm_stats_region *r,
			const struct dm_stats_create_args *a, size_t n_areas,
			const struct region_layout *l)
{
	u64 now;
	size_t i;

	r->inline_areas = l->inline_areas;
	r->flags = a->flags;
	r->start = a->start;
	r->end = a->end;
	r->step = a->step;
	r->n_areas = n_areas;
	r->n_bounds = a->n_bounds;
	r->area_bytes = l->area_bytes;
	r->bounds = (void *)r + l->off_bounds;
	if (a->n_bounds)
		memcpy(r->bounds, a->bounds, a->n_bounds * sizeof(u64));
	r->shared = PTR_ALIGN((void *)r + l->off_shared, SMP_CACHE_BYTES);
	r->program_id = (char *)r + l->off_strings;
	memcpy(r->program_id, a->program_id, l->program_len);
	r->inline_aux = r->program_id + l->program_len;
	memcpy(r->inline_aux, a->aux_data, l->aux_len);
	r->aux_data = r->inline_aux;

	now = dm_stats_now(r);
	for (i = 0; i < n_areas; i++) {
		atomic64_set(&r->shared[i].stamp, now);
		if (!(i & 4095))
			cond_resched();
	}
}

/* Give every possible CPU its areas: in the block, or on the CPU's node. */
static int region_areas_alloc(struct dm_stats_region *r,
			      const struct region_layout *l)
{
	void *areas;
	int cpu;

	if (l->inline_areas) {
		areas = PTR_ALIGN((void *)r + l->off_areas, SMP_CACHE_BYTES);
		for_each_possible_cpu(cpu) {
			r->percpu[cpu] = areas;
			areas += l->stride;
		}
		return 0;
	}
	for_each_possible_cpu(cpu) {
		r->percpu[cpu] = kvzalloc_node(l->one_cpu, DM_STATS_GFP,
					       cpu_to_node(cpu));
		if (!r->percpu[cpu])
			return -ENOMEM;
		cond_resched();
	}
	return 0;
}

/* Allocate a region with zeroed counters, or return an ERR_PTR. */
static struct dm_stats_region *region_alloc(const struct dm_stats_create_args *a,
					    size_t n_areas)
{
	struct region_layout l;
	struct dm_stats_region *r;

	region_layout(a, n_areas, &l);
	if (!dm_stats_mem_claim(l.total, true))
		return ERR_PTR(-ENOMEM);
	r = kvzalloc(l.size, DM_STATS_GFP);
	if (!r) {
		dm_stats_mem_release(l.total);
		return ERR_PTR(-ENOMEM);
	}
	/* From here region_free() releases the whole charge. */
	r->alloc_bytes = l.total;
	region_init(r, a, n_areas, &l);
	if (region_areas_alloc(r, &l)) {
		region_free(r);
		return ERR_PTR(-ENOMEM);
	}
	return r;
}

/* Whether DM core takes arrival times in ns (dm_stats_record_start()). */
static void set_precise(struct dm_stats *st, const struct dm_stats_index *idx)
{
	WRITE_ONCE(st->precise, idx && idx->precise);
}

/**
 * dm_stats_region_create - create a region and start counting I/O in it
 * @st: the device's statistics
 * @a: parsed arguments
 *
 * I/O already in flight is not counted in the new region; no I/O waits.
 *
 * Return: the new region id, or -EOVERFLOW (too many areas or histogram
 * cells), -ENOMEM (over the memory limit or out of memory), -ENFILE (no
 * free id). On error nothing has changed.
 */
int dm_stats_region_create(struct dm_stats *st,
			   const struct dm_stats_create_args *a)
{
	struct dm_stats_index *old, *idx;
	struct dm_stats_region *r;
	u64 n_areas, rem;
	u32 id;
	int ret;

	if (a->end < a->start || !a->step)
		return -EINVAL;
	n_areas = div64_u64_rem(a->end - a->start, a->step, &rem);
	if (rem)
		n_areas++;
	if (n_areas > DM_STATS_MAX_AREAS)
		return -EOVERFLOW;
	if (((u64)a->n_bounds + 1) * n_areas > DM_STATS_MAX_HISTOGRAM_CELLS)
		return -EOVERFLOW;

	r = region_alloc(a, n_areas);
	if (IS_ERR(r))
		return PTR_ERR(r);

	mutex_lock(&st->mutex);
	old = rcu_dereference_protected(st->index, lockdep_is_held(&st->mutex));
	/* After this, the index update cannot fail. */
	ret = dm_stats_index_reserve(&st->pool, old);
	if (ret) {
		if (!old)
			dm_stats_index_pool_drain(&st->pool);
		mutex_unlock(&st->mutex);
		region_free(r);
		return ret;
	}
	ret = xa_alloc(&st->regions, &id, r, XA_LIMIT(0, INT_MAX), GFP_KERNEL);
	if (ret) {
		if (!old)
			dm_stats_index_pool_drain(&st->pool);
		mutex_unlock(&st->mutex);
		region_free(r);
		return ret == -EBUSY ? -ENFILE : ret;
	}
	r->id = id;
	r->gen = dm_stats_next_gen();
	idx = dm_stats_index_insert(&st->pool, old, r, r->gen);
	if (WARN_ON_ONCE(!idx)) {
		xa_erase(&st->regions, id);
		mutex_unlock(&st->mutex);
		region_free(r);
		return -ENOMEM;
	}
	set_precise(st, idx);
	rcu_assign_pointer(st->index, idx);
	dm_stats_index_retire(&st->pool, old);
	if (!static_key_enabled(&stats_enabled.key))
		static_branch_enable(&stats_enabled);
	mutex_unlock(&st->mutex);
	return id;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_region_create);

/**
 * dm_stats_region_delete - delete a region
 * @st: the device's statistics
 * @id: region id
 *
 * Return: 0 or -ENOENT (no such region).
 */
int dm_stats_region_delete(struct dm_stats *st, int id)
{
	struct dm_stats_index *old, *idx;
	struct dm_stats_region *r;

	mutex_lock(&st->mutex);
	r = xa_load(&st->regions, id);
	if (!r) {
		mutex_unlock(&st->mutex);
		return -ENOENT;
	}
	old = rcu_dereference_protected(st->index, lockdep_is_held(&st->mutex));
	/* As upstream's, a delete does not fail for want of memory. */
	dm_stats_index_reserve_nofail(&st->pool, old);
	/* NULL: @r was the last region. */
	idx = dm_stats_index_remove(&st->pool, old, r, dm_stats_next_gen());
	if (WARN_ON_ONCE(!idx && old->nr > 1)) {
		mutex_unlock(&st->mutex);
		return -ENOMEM;
	}
	xa_erase(&st->regions, id);
	set_precise(st, idx);
	rcu_assign_pointer(st->index, idx);
	dm_stats_index_retire(&st->pool, old);
	/* No region left: no statistics memory either. */
	if (!idx)
		dm_stats_index_pool_drain(&st->pool);
	mutex_unlock(&st->mutex);

	/* No allocation, and the I/O path may still see @r: free it later. */
	INIT_RCU_WORK(&r->free_work, region_free_work);
	queue_rcu_work(dm_stats_free_wq, &r->free_work);
	return 0;
}

/**
 * dm_stats_init - set up a device's statistics
 * @st: the device's statistics
 *
 * Return: 0 or -ENOMEM.
 */
int dm_stats_init(struct dm_stats *st)
{
	mutex_init(&st->mutex);
	xa_init_flags(&st->regions, XA_FLAGS_ALLOC);
	RCU_INIT_POINTER(st->index, NULL);
	memset(&st->pool, 0, sizeof(st->pool));
	st->precise = false;
	st->last = dm_stats_last_alloc();
	return st->last ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_init);

/**
 * dm_stats_cleanup - free a device's statistics
 * @st: the device's statistics; no I/O may be in flight
 *
 * Reads one shared word pair per area, and yields every few thousand
 * areas and after each block it frees: removing a device with gigabytes
 * of counters does not hog a CPU.
 */
void dm_stats_cleanup(struct dm_stats *st)
{
	struct dm_stats_region *r;
	unsigned long id;

	dm_stats_index_destroy(rcu_dereference_protected(st->index, true));
	RCU_INIT_POINTER(st->index, NULL);
	dm_stats_index_pool_drain(&st->pool);
	xa_for_each(&st->regions, id, r) {
		size_t area;

		for (area = 0; area < r->n_areas; area++) {
			const struct dm_stats_area_shared *sh = &r->shared[area];
			int n = atomic_read(&sh->in_flight[READ]) +
				atomic_read(&sh->in_flight[WRITE]);

			if (n)
				DMCRIT("region %d area %zu: %d I/Os still in flight",
				       r->id, area, n);
			if (!(area & 4095))
				cond_resched();
		}
		region_free(r);
		cond_resched();
	}
	xa_destroy(&st->regions);
	free_percpu(st->last);
	mutex_destroy(&st->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_cleanup);

/*
 * The shortest line @stats_print can emit for an area of @r: its counters,
 * and a histogram's cells, each at least one digit and its separator.
 */
static size_t min_print_line(const struct dm_stats_region *r)
{
	return DM_STATS_MIN_PRINT_LINE +
	       (r->n_bounds ? 2 * ((size_t)r->n_bounds + 1) : 0);
}

/**
 * dm_stats_print_clear_lines - lines @stats_print_clear keeps a snapshot of
 * @r: region
 * @count: areas to print
 * @maxlen: size of the reply buffer
 *
 * As many as lines of @r, histogram cells included, can fit in @maxlen if
 * each is as short as a line can be, and one more (the line that does not
 * fit): each snapshot is charged, so a histogram's width counts.
 *
 * Return: at most @count, at least 1.
 */
size_t dm_stats_print_clear_lines(const struct dm_stats_region *r,
				  size_t count, unsigned int maxlen)
{
	return min_t(size_t, count, maxlen / min_print_line(r) + 1) ?: 1;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_print_clear_lines);

/*
 * Room for @n folded areas of @r, charged to the statistics memory like
 * the regions (upstream keeps such room in every area, charged at
 * creation; we only while @stats_print_clear needs it). Not refused at the
 * limit, as upstream's room is already there: no more than the lines the
 * reply buffer can hold. NULL when out of memory.
 */
static struct dm_stats_totals *totals_alloc(const struct dm_stats_region *r,
					    size_t n)
{
	size_t bytes = array_size(n, dm_stats_totals_size(r));
	void *t;

	if (!dm_stats_mem_claim(bytes, false))
		return NULL;
	t = kvmalloc(bytes, DM_STATS_GFP);
	if (!t)
		dm_stats_mem_release(bytes);
	return t;
}

static void totals_free(const struct dm_stats_region *r,
			struct dm_stats_totals *t, size_t n)
{
	kvfree(t);
	dm_stats_mem_release(array_size(n, dm_stats_totals_size(r)));
}

/**
 * dm_stats_region_clear - zero a region's counters, keeping in-flight I/O
 * @st: the device's statistics
 * @id: region id
 *
 * Return: 1 (empty output) or -ENOENT.
 */
int dm_stats_region_clear(struct dm_stats *st, int id)
{
	struct dm_stats_region *r;
	size_t area;

	mutex_lock(&st->mutex);
	r = xa_load(&st->regions, id);
	if (!r) {
		mutex_unlock(&st->mutex);
		return -ENOENT;
	}
	for (area = 0; area < r->n_areas; area++) {
		struct dm_stats_totals t;
		unsigned int i;

		dm_stats_fold_at(r, area, dm_stats_now(r), &t, false);
		dm_stats_subtract(r, area, &t, false);
		for (i = 0; i < r->n_bounds + !!r->n_bounds; i++)
			dm_stats_subtract_cell(r, area, i,
					       dm_stats_fold_cell(r, area, i));
		cond_resched();
	}
	mutex_unlock(&st->mutex);
	return 1;
}

/**
 * dm_stats_region_list - describe regions, one line each
 * @st: the device's statistics
 * @program: only regions with this program id, or NULL for all
 * @result: output buffer
 * @maxlen: its size
 *
 * Return: 1 (output in @result).
 */
int dm_stats_region_list(struct dm_stats *st, const char *program,
			 char *result, unsigned int maxlen)
{
	struct dm_stats_region *r;
	unsigned int sz = 0;
	unsigned long id;
	unsigned int i;

	mutex_lock(&st->mutex);
	xa_for_each(&st->regions, id, r) {
		if (program && strcmp(program, r->program_id))
			continue;
		DMEMIT("%d: %llu+%llu %llu %s %s", r->id,
		       (unsigned long long)r->start,
		       (unsigned long long)(r->end - r->start),
		       (unsigned long long)r->step, r->program_id, r->aux_data);
		if (dm_stats_region_precise(r))
			DMEMIT(" precise_timestamps");
		if (r->n_bounds) {
			DMEMIT(" histogram:");
			for (i = 0; i < r->n_bounds; i++)
				DMEMIT("%s%llu", i ? "," : "", r->bounds[i]);
		}
		DMEMIT("\n");
		cond_resched();
	}
	mutex_unlock(&st->mutex);
	return 1;
}

/*
 * One line of @stats_print. The histogram cells come from @t if it holds
 * them (@cells), else they are folded one by one as they are printed.
 */
static unsigned int emit_area(struct dm_stats_region *r, size_t area,
			      const struct dm_stats_totals *t, bool cells,
			      char *result, unsigned int sz, unsigned int maxlen)
{
	sector_t start = r->start + area * r->step;
	unsigned int i;

	DMEMIT("%llu+%llu %llu %llu %llu %llu %llu %llu %llu %llu %d %llu %llu %llu %llu",
	       (unsigned long long)start, (unsigned long long)r->step,
	       t->ios[READ], t->merges[READ], t->sectors[READ],
	       dm_stats_to_user_time(r, t->ticks[READ]),
	       t->ios[WRITE], t->merges[WRITE], t->sectors[WRITE],
	       dm_stats_to_user_time(r, t->ticks[WRITE]),
	       t->in_flight,
	       dm_stats_to_user_time(r, t->io_ticks_total),
	       dm_stats_to_user_time(r, t->time_in_queue),
	       dm_stats_to_user_time(r, t->io_ticks[READ]),
	       dm_stats_to_user_time(r, t->io_ticks[WRITE]));
	if (r->n_bounds)
		for (i = 0; i <= r->n_bounds; i++)
			DMEMIT("%c%llu", i ? ':' : ' ',
			       cells ? t->histogram[i] :
			       dm_stats_fold_cell(r, area, i));
	DMEMIT("\n");
	return sz;
}

/**
 * dm_stats_region_print - print areas' counters, optionally clearing them
 * @st: the device's statistics
 * @id: region id
 * @first: first area
 * @count: number of areas (clamped to the region)
 * @clear: subtract what was printed, if all of it fitted in @result
 * @result: output buffer
 * @maxlen: its size
 *
 * I/O counted between printing and clearing stays counted.
 *
 * Return: 1 (output in @result), -ENOENT or -ENOMEM.
 */
int dm_stats_region_print(struct dm_stats *st, int id, unsigned long first,
			  unsigned long count, bool clear,
			  char *result, unsigned int maxlen)
{
	struct dm_stats_region *r;
	size_t tsize, cap = 0, n, x, last;
	unsigned int sz = 0;
	bool full = false;
	struct dm_stats_totals *snap = NULL, one;

	mutex_lock(&st->mutex);
	r = xa_load(&st->regions, id);
	if (!r) {
		mutex_unlock(&st->mutex);
		return -ENOENT;
	}
	last = first + count;
	if (last < first || last > r->n_areas)
		last = r->n_areas;
	if (first > last)
		first = last;

	/*
	 * Printing folds one area at a time, on the stack, histogram cells
	 * as they are printed: it allocates nothing. Clearing subtracts what
	 * was printed once all of it has fitted, so it keeps a snapshot of
	 * each line: no more of them than lines can fit in @result, charged
	 * to the statistics memory.
	 */
	tsize = dm_stats_totals_size(r);
	if (clear) {
		cap = dm_stats_print_clear_lines(r, last - first, maxlen);
		snap = totals_alloc(r, cap);
		if (!snap) {
			mutex_unlock(&st->mutex);
			return -ENOMEM;
		}
	}
	for (x = first, n = 0; x < last; x++, n++) {
		struct dm_stats_totals *t = &one;

		if (clear) {
			if (n == cap) {
				full = true;
				break;
			}
			t = (void *)snap + n * tsize;
		}
		dm_stats_fold_at(r, x, dm_stats_now(r), t, clear);
		sz = emit_area(r, x, t, clear, result, sz, maxlen);
		if (sz + 1 >= maxlen) {
			full = true;
			break;
		}
		cond_resched();
	}
	if (clear && !full)
		for (x = first, n = 0; x < last; x++, n++)
			dm_stats_subtract(r, x, (void *)snap + n * tsize, true);
	mutex_unlock(&st->mutex);
	if (clear)
		totals_free(r, snap, cap);
	return 1;
}

/**
 * dm_stats_region_set_aux - replace a region's aux data
 * @st: the device's statistics
 * @id: region id
 * @aux: new aux data
 *
 * Return: 0, -ENOENT or -ENOMEM.
 */
int dm_stats_region_set_aux(struct dm_stats *st, int id, const char *aux)
{
	struct dm_stats_region *r;
	size_t len = strlen(aux) + 1;
	char *copy;

	mutex_lock(&st->mutex);
	r = xa_load(&st->regions, id);
	if (!r) {
		mutex_unlock(&st->mutex);
		return -ENOENT;
	}
	/*
	 * Charged, but not refused at the statistics limit: upstream fails
	 * only when the copy cannot be allocated.
	 */
	copy = kstrdup(aux, GFP_KERNEL);
	if (!copy || !dm_stats_mem_claim(len, false)) {
		mutex_unlock(&st->mutex);
		kfree(copy);
		return -ENOMEM;
	}
	r->alloc_bytes += len;
	/* The first aux_data lives in the region's block: it stays there. */
	if (r->aux_data != r->inline_aux) {
		dm_stats_mem_release(strlen(r->aux_data) + 1);
		r->alloc_bytes -= strlen(r->aux_data) + 1;
		kfree(r->aux_data);
	}
	r->aux_data = copy;
	mutex_unlock(&st->mutex);
	return 0;
}

/**
 * dm_statistics_init - set up the statistics engine when dm-mod loads
 *
 * The memory counter and the generation are statically initialised; the
 * index nodes get their slab cache, deleted regions their workqueue.
 *
 * Return: 0 or -ENOMEM.
 */
int __init dm_statistics_init(void)
{
	int r;

	dm_stats_free_wq = alloc_workqueue("dm_stats_free",
					   WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!dm_stats_free_wq)
		return -ENOMEM;
	r = dm_stats_index_init();
	if (r)
		destroy_workqueue(dm_stats_free_wq);
	return r;
}

/**
 * dm_statistics_exit - tear down the statistics engine when dm-mod unloads
 *
 * Waits for regions and indexes still queued for freeing after an RCU grace
 * period, reports memory that was never given back and destroys the node
 * cache and the workqueue.
 */
void dm_statistics_exit(void)
{
	/* what the generic statistics layer still owes dm-stats' counter */
	dm_statistic_barrier();
	/*
	 * Indexes queued for freeing by call_rcu(), regions by queue_rcu_work():
	 * after the barrier every region's work is queued, and destroying the
	 * workqueue runs them all.
	 */
	rcu_barrier();
	destroy_workqueue(dm_stats_free_wq);
	if (WARN_ON(dm_stats_mem_used()))
		DMCRIT("%lu bytes of statistics memory leaked", dm_stats_mem_used());
	dm_stats_index_exit();
}
