// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: accounting on the I/O path, and folding
 * the per-CPU counters when they are read.
 *
 * Every counter lives in per-CPU memory of its region and is only added to
 * by its own CPU. The one shared word per area is the io_ticks stamp, moved
 * with a compare-and-exchange only when time has advanced since the last
 * update (once per jiffy per busy area without precise_timestamps).
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/device-mapper.h>
#include <kunit/visibility.h>

#include "dm-stats-internal.h"

struct dm_stats_last_position {
	sector_t sector;
	unsigned int rw;
};

/*
 * What one I/O event contributes, the same for every region it touches.
 * Filled once per event, before any region is looked at; the region loop
 * only picks the time unit each region wants.
 */
struct dm_stats_event {
	sector_t lo;
	sector_t hi;
	int dir;
	bool end;
	bool merged;
	u64 gen;
	unsigned long now_jiffies;
	unsigned long dur_jiffies;
	u64 now_ns;
	u64 dur_ns;
};

static inline unsigned long dm_stats_seal(const struct dm_stats *st, u64 gen)
{
	return (unsigned long)gen ^ (unsigned long)st ^ 0x5a7c3e1d9b4f6a28UL;
}

/**
 * dm_stats_hist_bucket - histogram cell for a duration
 * @bounds: strictly increasing boundaries
 * @n: number of boundaries
 * @value: the duration
 *
 * Return: the number of boundaries not above @value, so cell 0 holds values
 * below @bounds[0] and cell @n values at or above @bounds[@n - 1].
 */
unsigned int dm_stats_hist_bucket(const u64 *bounds, unsigned int n, u64 value)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (bounds[mid] <= value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_hist_bucket);

/*
 * Reads and writes in flight in an area, summed over CPUs in one pass (both
 * live in the same cache line of each CPU's counters). Slots of CPUs that
 * are not possible are NULL; possible CPUs are all below nr_cpu_ids.
 */
static void area_in_flight(const struct dm_stats_region *r, size_t area,
			   s64 *reads, s64 *writes)
{
	unsigned int cpu;
	s64 rd = 0, wr = 0;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const struct dm_stats_counters *c;

		if (!r->percpu[cpu])
			continue;
		c = dm_stats_area_counters(r, cpu, area);
		rd += local64_read(&c->in_flight[READ]);
		wr += local64_read(&c->in_flight[WRITE]);
	}
	*reads = rd;
	*writes = wr;
}

/* The interval @diff ends now: charge it where I/O was in flight. */
static noinline void area_charge(const struct dm_stats_region *r, size_t area,
				 u64 diff, struct dm_stats_counters *c)
{
	s64 reads, writes;

	area_in_flight(r, area, &reads, &writes);
	if (reads > 0)
		local64_add(diff, &c->io_ticks[READ]);
	if (writes > 0)
		local64_add(diff, &c->io_ticks[WRITE]);
	if (reads + writes > 0)
		local64_add(diff, &c->io_ticks_total);
}

/*
 * Charge the time since the area's stamp to io_ticks if I/O was in flight.
 * Called before the caller changes in_flight, like a disk's round-robin of
 * its busy time; whoever moves the stamp charges the interval, once. Most
 * calls find the stamp current (without precise_timestamps, all but the
 * first per jiffy): only that test is inline.
 */
static __always_inline void area_round(struct dm_stats_region *r, size_t area,
				       u64 now, struct dm_stats_counters *c)
{
	atomic64_t *stamp = &r->stamps[area];
	s64 old = atomic64_read(stamp);

	if ((s64)(now - old) <= 0)
		return;
	if (!atomic64_try_cmpxchg(stamp, &old, now))
		return;
	area_charge(r, area, now - old, c);
}

/* Count one event in one area's counters of this CPU. */
static __always_inline void area_account(struct dm_stats_region *r, size_t area,
					 struct dm_stats_counters *c,
					 int dir, bool end, bool merged,
					 sector_t len, u64 now, u64 dur,
					 unsigned int bucket)
{
	area_round(r, area, now, c);
	if (!end) {
		local64_inc(&c->in_flight[dir]);
		local64_sub(now, &c->queue_acc);
		return;
	}
	local64_dec(&c->in_flight[dir]);
	local64_add(now, &c->queue_acc);
	local64_add(len, &c->sectors[dir]);
	local64_inc(&c->ios[dir]);
	if (merged)
		local64_inc(&c->merges[dir]);
	local64_add(dur, &c->ticks[dir]);
	if (r->n_bounds)
		local64_inc(&c->histogram[bucket]);
}

/* Count an event in the areas of [@lo, @hi), a part of @r. */
static noinline void region_account_areas(struct dm_stats_region *r, int cpu,
					  int dir, bool end, bool merged,
					  sector_t lo, sector_t hi,
					  u64 now, u64 dur, unsigned int bucket)
{
	sector_t offset;
	size_t area;

	area = div64_u64_rem(lo - r->start, r->step, &offset);
	while (lo < hi) {
		sector_t len = min_t(sector_t, hi - lo, r->step - offset);

		if (WARN_ON_ONCE(area >= r->n_areas))
			return;
		area_account(r, area, dm_stats_area_counters(r, cpu, area),
			     dir, end, merged, len, now, dur, bucket);
		lo += len;
		offset = 0;
		area++;
	}
}

/*
 * Count an event in a region it overlaps. Inlined into both callers (the
 * one-region path and the walk), so that @ev stays in registers and no
 * region pays a call.
 */
static __always_inline void region_account(struct dm_stats_region *r,
					   const struct dm_stats_event *ev,
					   int cpu)
{
	bool precise = dm_stats_region_precise(r);
	sector_t lo = max(ev->lo, r->start);
	sector_t hi = min(ev->hi, r->end);
	u64 now = precise ? ev->now_ns : ev->now_jiffies;
	unsigned int bucket = 0;
	u64 dur = 0;

	/* The start of an I/O has no duration. */
	if (ev->end) {
		dur = precise ? ev->dur_ns : ev->dur_jiffies;
		if (r->n_bounds)
			bucket = dm_stats_hist_bucket(r->bounds, r->n_bounds,
						      precise ? dur :
						      jiffies_to_msecs(dur));
	}

	/*
	 * One area (tiles, dmstats' default region): the step covers the
	 * region, so the overlap is the area's share; no division, no loop.
	 * Several areas take a call, which keeps this path's registers free.
	 */
	if (likely(r->n_areas == 1)) {
		area_account(r, 0, r->percpu[cpu], ev->dir, ev->end,
			     ev->merged, hi - lo, now, dur, bucket);
		return;
	}
	region_account_areas(r, cpu, ev->dir, ev->end, ev->merged, lo, hi,
			     now, dur, bucket);
}

/*
 * Several regions: walk the index. The start and the end of an I/O each
 * get their own copy of the walk, with @end a constant, so that the loop
 * carries no test of it per region.
 */
static __always_inline void walk(const struct dm_stats_index *idx,
				 const struct dm_stats_event *event, int cpu,
				 const bool end)
{
	/* Written before it is read: no zeroing (see dm_stats_account_io()). */
	struct dm_stats_index_iter it __uninitialized;
	/* A private copy: counter updates cannot alias it, so no reloads. */
	struct dm_stats_event ev = *event;
	struct dm_stats_region *r;

	ev.end = end;
	dm_stats_index_iter_init(&it, idx, ev.lo, ev.hi);
	while ((r = dm_stats_index_iter_next(&it))) {
		if (end && r->gen > ev.gen)
			continue;
		region_account(r, &ev, cpu);
	}
}

/* Out of line: the one-region path does not carry the iterator's stack. */
static noinline void account_walk_start(const struct dm_stats_index *idx,
					const struct dm_stats_event *ev, int cpu)
{
	walk(idx, ev, cpu, false);
}

static noinline void account_walk_end(const struct dm_stats_index *idx,
				      const struct dm_stats_event *ev, int cpu)
{
	walk(idx, ev, cpu, true);
}

/**
 * dm_stats_account_io - account the start or the end of an I/O
 * @stats: the device's statistics
 * @bi_rw: READ or WRITE
 * @bi_sector: first sector
 * @bi_sectors: length in sectors
 * @end: false at submission, true at completion
 * @start_time: not used: the engine keeps the start time in @aux (dm-rq
 *	passes a duration here, not a start time)
 * @aux: per-I/O state, written at start and read at end
 *
 * The start is counted in the regions present now and @aux remembers their
 * generation; the end is counted only in regions of that generation or
 * older, so an I/O that was in flight when a region was created never
 * reaches that region. Runs under RCU, allocates nothing.
 */
void dm_stats_account_io(struct dm_stats *stats, unsigned long bi_rw,
			 sector_t bi_sector, unsigned int bi_sectors, bool end,
			 unsigned long start_time,
			 struct dm_stats_aux *aux)
{
	const struct dm_stats_index_node *root;
	const struct dm_stats_index *idx;
	/*
	 * Every field is written before it is read: spare the I/O path the
	 * zeroing that CONFIG_INIT_STACK_ALL_ZERO would add (a distribution
	 * default).
	 */
	struct dm_stats_event ev __uninitialized;
	struct dm_stats_region *r;
	int cpu;

	if (unlikely(!bi_sectors))
		return;

	ev.lo = bi_sector;
	ev.hi = bi_sector + bi_sectors;
	ev.dir = bi_rw == WRITE ? WRITE : READ;
	ev.end = end;
	ev.now_jiffies = jiffies;
	ev.now_ns = 0;
	ev.dur_jiffies = 0;
	ev.dur_ns = 0;

	if (!end) {
		struct dm_stats_last_position *last = raw_cpu_ptr(stats->last);

		/* A race here can only misreport "merged"; no lock needed. */
		aux->merged = bi_sector == READ_ONCE(last->sector) &&
			(bi_rw == WRITE) == (READ_ONCE(last->rw) == WRITE);
		WRITE_ONCE(last->sector, ev.hi);
		WRITE_ONCE(last->rw, bi_rw);
	}

	rcu_read_lock();
	idx = rcu_dereference(stats->index);
	if (unlikely(!idx)) {
		if (!end) {
			/* Generation 0 is older than every region. */
			aux->gen = 0;
			aux->tag = dm_stats_seal(stats, 0);
		}
		goto out;
	}

	if (!end) {
		aux->gen = idx->gen;
		aux->tag = dm_stats_seal(stats, idx->gen);
		aux->start_jiffies = ev.now_jiffies;
		if (idx->precise) {
			aux->start_ns = ktime_get_ns();
			ev.now_ns = aux->start_ns;
		}
	} else {
		if (unlikely(aux->tag != dm_stats_seal(stats, aux->gen)))
			goto out;
		ev.dur_jiffies = ev.now_jiffies - aux->start_jiffies;
		if (idx->precise) {
			ev.now_ns = ktime_get_ns();
			ev.dur_ns = ev.now_ns - aux->start_ns;
		}
	}
	ev.merged = aux->merged;
	ev.gen = aux->gen;

	cpu = get_cpu();
	root = idx->root;
	if (root && !root->left && !root->right) {
		/* A single region (what dmstats creates by default): no walk. */
		r = root->region;
		if (root->start < ev.hi && root->end > ev.lo &&
		    !(end && r->gen > ev.gen))
			region_account(r, &ev, cpu);
	} else if (root) {
		if (end)
			account_walk_end(idx, &ev, cpu);
		else
			account_walk_start(idx, &ev, cpu);
	}
	put_cpu();
out:
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_account_io);

/**
 * dm_stats_to_user_time - a time counter as printed
 * @r: region
 * @t: value in the region's unit (jiffies, or ns with precise_timestamps)
 *
 * Return: ms, or ns with precise_timestamps.
 */
u64 dm_stats_to_user_time(const struct dm_stats_region *r, u64 t)
{
	return dm_stats_region_precise(r) ? t : jiffies64_to_msecs(t);
}

/**
 * dm_stats_totals_size - bytes of a struct dm_stats_totals for a region
 * @r: region
 *
 * Return: size including the histogram cells.
 */
size_t dm_stats_totals_size(const struct dm_stats_region *r)
{
	return sizeof(struct dm_stats_totals) +
	       (r->n_bounds ? (r->n_bounds + 1) * sizeof(u64) : 0);
}

/**
 * dm_stats_fold - read one area's counters, summed over all CPUs
 * @r: region
 * @area: area index
 * @t: result, dm_stats_totals_size() bytes
 *
 * Charges pending io_ticks first, so busy time runs up to now.
 */
void dm_stats_fold(struct dm_stats_region *r, size_t area,
		   struct dm_stats_totals *t)
{
	u64 now = dm_stats_region_precise(r) ? ktime_get_ns() : jiffies;
	unsigned int cells = r->n_bounds ? r->n_bounds + 1 : 0;
	s64 in_flight = 0;
	u64 queue = 0;
	unsigned int i;
	int cpu, dir;

	cpu = get_cpu();
	area_round(r, area, now, dm_stats_area_counters(r, cpu, area));
	put_cpu();

	memset(t, 0, dm_stats_totals_size(r));
	for_each_possible_cpu(cpu) {
		struct dm_stats_counters *c = dm_stats_area_counters(r, cpu, area);

		for (dir = 0; dir < 2; dir++) {
			t->ios[dir] += local64_read(&c->ios[dir]);
			t->merges[dir] += local64_read(&c->merges[dir]);
			t->sectors[dir] += local64_read(&c->sectors[dir]);
			t->ticks[dir] += local64_read(&c->ticks[dir]);
			t->io_ticks[dir] += local64_read(&c->io_ticks[dir]);
			in_flight += local64_read(&c->in_flight[dir]);
		}
		t->io_ticks_total += local64_read(&c->io_ticks_total);
		queue += local64_read(&c->queue_acc);
		for (i = 0; i < cells; i++)
			t->histogram[i] += local64_read(&c->histogram[i]);
	}
	/*
	 * An I/O that starts and ends on two CPUs while they are being read
	 * can leave a transiently negative sum: never print that.
	 */
	if (in_flight < 0)
		in_flight = 0;
	queue += (u64)in_flight * now;
	t->time_in_queue = (s64)queue < 0 ? 0 : queue;
	t->in_flight = in_flight > INT_MAX ? INT_MAX : (int)in_flight;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_fold);

/**
 * dm_stats_subtract - take a snapshot out of one area's counters
 * @r: region
 * @area: area index
 * @t: snapshot from dm_stats_fold()
 *
 * I/O counted after the snapshot stays counted; in-flight I/O is kept.
 */
void dm_stats_subtract(struct dm_stats_region *r, size_t area,
		       const struct dm_stats_totals *t)
{
	unsigned int cells = r->n_bounds ? r->n_bounds + 1 : 0;
	struct dm_stats_counters *c;
	unsigned int i;
	int dir;

	c = dm_stats_area_counters(r, get_cpu(), area);
	for (dir = 0; dir < 2; dir++) {
		local64_sub(t->ios[dir], &c->ios[dir]);
		local64_sub(t->merges[dir], &c->merges[dir]);
		local64_sub(t->sectors[dir], &c->sectors[dir]);
		local64_sub(t->ticks[dir], &c->ticks[dir]);
		local64_sub(t->io_ticks[dir], &c->io_ticks[dir]);
	}
	local64_sub(t->io_ticks_total, &c->io_ticks_total);
	local64_sub(t->time_in_queue, &c->queue_acc);
	for (i = 0; i < cells; i++)
		local64_sub(t->histogram[i], &c->histogram[i]);
	put_cpu();
}

/**
 * dm_stats_init - set up a device's statistics
 * @st: the device's statistics
 *
 * Return: 0 or -ENOMEM.
 */
int dm_stats_init(struct dm_stats *st)
{
	int cpu;

	mutex_init(&st->mutex);
	xa_init_flags(&st->regions, XA_FLAGS_ALLOC);
	RCU_INIT_POINTER(st->index, NULL);
	memset(&st->pool, 0, sizeof(st->pool));
	st->last = alloc_percpu(struct dm_stats_last_position);
	if (!st->last)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct dm_stats_last_position *last = per_cpu_ptr(st->last, cpu);

		last->sector = (sector_t)ULLONG_MAX;
		last->rw = UINT_MAX;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_init);
