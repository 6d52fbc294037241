/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper I/O statistics: a region, its per-CPU counters, and the
 * functions of the files that own them: dm-stats-io.c (accounting and
 * folding) and dm-stats.c (region lifetime and messages).
 */
#ifndef DM_STATS_REGION_H
#define DM_STATS_REGION_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <asm/local64.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

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
 * @free_work: frees a deleted region in process context after a grace period
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
	struct rcu_work free_work;
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

/* Counters: accounting and folding (dm-stats-io.c) */
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
struct dm_stats_last_position __percpu *dm_stats_last_alloc(void);

/* Region lifetime and the @stats_* messages (dm-stats.c) */
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
void dm_stats_free_barrier(void);
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
