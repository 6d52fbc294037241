// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: accounting on the I/O path, and folding
 * the per-CPU counters when they are read.
 *
 * Every counter lives in per-CPU memory of its region and is only added to
 * by its own CPU. What CPUs share per area is struct dm_stats_area_shared:
 * the in-flight counts, and the stamp up to which busy time is charged,
 * moved with a compare-and-exchange only when time has advanced since the
 * last update (once per jiffy per busy area without precise_timestamps).
 *
 * Clocks, as upstream's: a bio's latency (ticks, histogram) runs from its
 * arrival at the mapped device (dm_stats_record_start()) to its end; busy
 * time (io_ticks, time_in_queue) and in_flight from the start of its
 * accounting, which targets that remap bios themselves (dm-crypt, dm-thin,
 * dm-cache, dm-delay) start only when they remap. Request-based devices
 * time a request from its start. All times are 64 bits.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/device-mapper.h>
#include <kunit/visibility.h>

#include "dm-stats-index.h"
#include "dm-stats-region.h"

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
	u64 now_jiffies;
	u64 dur_jiffies;
	u64 now_ns;
	u64 dur_ns;
};

/*
 * The generation an I/O started under, from the low bits of it that its
 * struct dm_stats_aux keeps: @now_gen, the generation of the index at its
 * end, is not older, and fewer than 2^28 index updates (of all devices)
 * happen while one I/O is in flight.
 */
static inline u64 aux_gen(u32 state, u64 now_gen)
{
	const u32 mask = U32_MAX >> DM_STATS_AUX_GEN_SHIFT;

	return now_gen - (((u32)now_gen - (state >> DM_STATS_AUX_GEN_SHIFT)) & mask);
}

/**
 * dm_stats_hist_bucket - histogram cell for a duration
 * @bounds: strictly increasing boundaries
 * @n: number of boundaries
 * @value: the duration
 *
 * A binary search that branches only on the remaining length: each step
 * halves the range with a conditional move (no jump on @value), so the
 * 16 boundaries of a typical histogram take 4 steps of a few instructions
 * on every completion.
 *
 * Return: the number of boundaries not above @value, so cell 0 holds values
 * below @bounds[0] and cell @n values at or above @bounds[@n - 1].
 */
unsigned int dm_stats_hist_bucket(const u64 *bounds, unsigned int n, u64 value)
{
	const u64 *base = bounds;
	unsigned long len = n;

	if (!len)
		return 0;
	/*
	 * The answer lies in [base, base + len]; every boundary before base
	 * is not above @value.
	 */
	while (len > 1) {
		unsigned long half = len / 2;

		if (base[half] <= value)
			base += half;
		len -= half;
	}
	return base - bounds + (*base <= value);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_hist_bucket);

/*
 * Charge the time since the area's stamp to io_ticks if I/O was in flight.
 * Called before the caller changes in_flight, like a disk's round-robin of
 * its busy time; whoever moves the stamp charges the interval, once.
 * Without precise_timestamps most calls find the stamp current (all but
 * the first per jiffy); with them, the stamp moves on nearly every event,
 * so the charge is inline too: a call would cost more than the charge.
 */
static __always_inline void area_round(struct dm_stats_area_shared *sh,
				       u64 now, struct dm_stats_counters *c)
{
	s64 old = atomic64_read(&sh->stamp);
	int reads, writes;
	u64 diff;

	if ((s64)(now - old) <= 0)
		return;
	if (!atomic64_try_cmpxchg(&sh->stamp, &old, now))
		return;
	diff = now - old;
	reads = atomic_read(&sh->in_flight[READ]);
	writes = atomic_read(&sh->in_flight[WRITE]);
	if (reads > 0)
		local64_add(diff, &c->io_ticks[READ]);
	if (writes > 0)
		local64_add(diff, &c->io_ticks[WRITE]);
	if (reads > 0 || writes > 0) {
		local64_add(diff, &c->io_ticks_total);
		local64_add((u64)(max(reads, 0) + max(writes, 0)) * diff,
			    &c->time_in_queue);
	}
}

/* Count one event in one area's counters of this CPU. */
static __always_inline void area_account(struct dm_stats_region *r, size_t area,
					 struct dm_stats_counters *c,
					 int dir, bool end, bool merged,
					 sector_t len, u64 now, u64 dur,
					 unsigned int bucket)
{
	struct dm_stats_area_shared *sh = &r->shared[area];

	area_round(sh, now, c);
	if (!end) {
		atomic_inc(&sh->in_flight[dir]);
		return;
	}
	atomic_dec(&sh->in_flight[dir]);
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
						      dm_stats_hist_value(r, dur));
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
 * carries no test of it per region. @ev is passed by value: a private
 * copy that counter updates cannot alias (no reloads in the loop), and the
 * caller's event never has its address taken, so on the one-region path
 * it stays in registers.
 */
static __always_inline void walk(const struct dm_stats_index *idx,
				 struct dm_stats_event ev, int cpu,
				 const bool end)
{
	/* Written before it is read: no zeroing (see dm_stats_account_io()). */
	struct dm_stats_index_iter it __uninitialized;
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
					struct dm_stats_event ev, int cpu)
{
	walk(idx, ev, cpu, false);
}

static noinline void account_walk_end(const struct dm_stats_index *idx,
				      struct dm_stats_event ev, int cpu)
{
	walk(idx, ev, cpu, true);
}

/*
 * Does a starting I/O continue the last one this CPU started on the device,
 * in the same direction? Remembers it for the next. A race here can only
 * misreport "merged"; no lock needed.
 */
static __always_inline bool follows_last_io(struct dm_stats *stats,
					    unsigned long bi_rw,
					    sector_t sector, sector_t end)
{
	struct dm_stats_last_position *last = raw_cpu_ptr(stats->last);
	bool merged = sector == READ_ONCE(last->sector) &&
		      (bi_rw == WRITE) == (READ_ONCE(last->rw) == WRITE);

	WRITE_ONCE(last->sector, end);
	WRITE_ONCE(last->rw, bi_rw);
	return merged;
}

/*
 * The start of an I/O: record in @aux when it started (its arrival, if DM
 * core recorded one) and the index generation it is counted in.
 * Return: false if it counts nowhere.
 */
static __always_inline bool aux_start(struct dm_stats_aux *aux,
				      const struct dm_stats_index *idx,
				      struct dm_stats_event *ev,
				      unsigned long start_time)
{
	u32 state = aux->state;
	/* Set by DM core for this bio: never by an earlier I/O. */
	bool arrived = state & DM_STATS_AUX_ARRIVED;
	u64 start = ev->now_jiffies;

	/* Without an index the I/O counts nowhere: not STARTED. */
	if (unlikely(!idx)) {
		aux->state = 0;
		return false;
	}
	if (arrived && time_after_eq((unsigned long)ev->now_jiffies, start_time))
		start -= (unsigned long)ev->now_jiffies - start_time;
	aux->start_jiffies = (u32)start;
	ev->gen = idx->gen;
	state = (arrived ? state & DM_STATS_AUX_NS : 0) |
		DM_STATS_AUX_STARTED |
		(ev->merged ? DM_STATS_AUX_MERGED : 0) |
		((u32)idx->gen << DM_STATS_AUX_GEN_SHIFT);
	if (idx->precise) {
		ev->now_ns = ktime_get_ns();
		if (!(state & DM_STATS_AUX_NS) ||
		    (s64)(ev->now_ns - aux->start_ns) < 0)
			aux->start_ns = ev->now_ns;
		state |= DM_STATS_AUX_NS;
	} else {
		state &= ~DM_STATS_AUX_NS;
	}
	aux->state = state;
	return true;
}

/*
 * The end of an I/O: its duration and generation from what aux_start()
 * recorded, which is then forgotten.
 * Return: false if it counts nowhere.
 */
static __always_inline bool aux_end(struct dm_stats_aux *aux,
				    const struct dm_stats_index *idx,
				    struct dm_stats_event *ev)
{
	u32 state = aux->state;

	if (!(state & DM_STATS_AUX_STARTED))
		return false;
	/* Counted once: a request's payload is used again. */
	aux->state = 0;
	if (unlikely(!idx))
		return false;
	ev->merged = state & DM_STATS_AUX_MERGED;
	ev->gen = aux_gen(state, idx->gen);
	ev->dur_jiffies = (u32)((u32)ev->now_jiffies - aux->start_jiffies);
	/*
	 * Without a start in ns, no precise region existed at the start:
	 * those there now are newer and do not count the I/O.
	 */
	if (idx->precise) {
		ev->now_ns = ktime_get_ns();
		if (state & DM_STATS_AUX_NS)
			ev->dur_ns = ev->now_ns - aux->start_ns;
	}
	return true;
}

/* Count @ev in every region of @idx it reaches. */
static __always_inline void account_regions(const struct dm_stats_index *idx,
					    const struct dm_stats_event *ev)
{
	const struct dm_stats_index_node *root = idx->root;
	int cpu = get_cpu();

	if (root && !root->left && !root->right) {
		/* A single region (what dmstats creates by default): no walk. */
		struct dm_stats_region *r = root->region;

		if (root->start < ev->hi && root->end > ev->lo &&
		    !(ev->end && r->gen > ev->gen))
			region_account(r, ev, cpu);
	} else if (root) {
		if (ev->end)
			account_walk_end(idx, *ev, cpu);
		else
			account_walk_start(idx, *ev, cpu);
	}
	put_cpu();
}

/**
 * dm_stats_account_io - account the start or the end of an I/O
 * @stats: the device's statistics
 * @bi_rw: READ or WRITE
 * @bi_sector: first sector
 * @bi_sectors: length in sectors
 * @end: false at submission, true at completion
 * @start_time: the jiffies of the I/O's arrival at the device: a bio's
 *	io->start_time, a request's start in dm_start_request(); DM core and
 *	dm-rq pass it to both calls. Used at the start of an I/O whose arrival
 *	dm_stats_record_start() recorded; the end is timed from the start
 *	kept in @aux: that time, or for an I/O whose arrival was not
 *	recorded, the start of its accounting
 * @aux: per-I/O state. Before the start: written by dm_stats_record_start()
 *	or dm_stats_aux_init(), or left by an earlier start or end of this
 *	function (a request's payload). Before the end: written by the start.
 *
 * The start is counted in the regions present now and @aux remembers their
 * generation; the end is counted only in regions of that generation or
 * older, so an I/O that was in flight when a region was created never
 * reaches that region, and an I/O whose start was not counted reaches
 * none. Runs under RCU, allocates nothing.
 */
void dm_stats_account_io(struct dm_stats *stats, unsigned long bi_rw,
			 sector_t bi_sector, unsigned int bi_sectors, bool end,
			 unsigned long start_time,
			 struct dm_stats_aux *aux)
{
	const struct dm_stats_index *idx;
	/*
	 * Every field is written before it is read: spare the I/O path the
	 * zeroing that CONFIG_INIT_STACK_ALL_ZERO would add (a distribution
	 * default).
	 */
	struct dm_stats_event ev __uninitialized;

	if (unlikely(!bi_sectors))
		return;

	ev.lo = bi_sector;
	ev.hi = bi_sector + bi_sectors;
	ev.dir = bi_rw == WRITE ? WRITE : READ;
	ev.end = end;
	ev.now_jiffies = get_jiffies_64();
	ev.now_ns = 0;
	ev.dur_jiffies = 0;
	ev.dur_ns = 0;
	if (!end)
		ev.merged = follows_last_io(stats, bi_rw, bi_sector, ev.hi);

	rcu_read_lock();
	idx = rcu_dereference(stats->index);
	if (end ? aux_end(aux, idx, &ev) : aux_start(aux, idx, &ev, start_time))
		account_regions(idx, &ev);
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_account_io);

/*
 * Jiffies to milliseconds as upstream's dm-stats converts them: rounded up,
 * as jiffies_to_msecs() rounds (jiffies64_to_msecs() rounds down: at HZ=300
 * one jiffy is 4 ms here and upstream, 3 ms there), in 64 bits: no count is
 * truncated to an unsigned long on the way in or to 32 bits on the way out.
 */
static u64 jiffies_to_msecs_up(u64 j)
{
	u32 rem;
	u64 q = div_u64_rem(j, HZ, &rem);

	return q * MSEC_PER_SEC + DIV_ROUND_UP(rem * MSEC_PER_SEC, HZ);
}

/*
 * Upstream prints a time counter in chunks of 2^22 jiffies: the rest,
 * rounded up, plus the rounded-up value of one chunk times their number.
 * Where HZ divides 1000 that is the exact value; at HZ=300 each chunk
 * (3.9 hours) adds 2/3 ms, which the output keeps.
 */
#define DM_STATS_MS_CHUNK_SHIFT 22

/**
 * dm_stats_to_user_time - a time counter as printed
 * @r: region
 * @t: value in the region's unit (jiffies, or ns with precise_timestamps)
 *
 * Return: ms, or ns with precise_timestamps; upstream's value at any HZ.
 */
u64 dm_stats_to_user_time(const struct dm_stats_region *r, u64 t)
{
	const u64 chunk = 1ULL << DM_STATS_MS_CHUNK_SHIFT;

	if (dm_stats_region_precise(r))
		return t;
	return jiffies_to_msecs_up(t & (chunk - 1)) +
	       jiffies_to_msecs_up(chunk) * (t >> DM_STATS_MS_CHUNK_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_to_user_time);

/**
 * dm_stats_hist_value - a duration as compared to histogram boundaries
 * @r: region
 * @dur: duration in the region's unit
 *
 * Return: ms, rounded up as jiffies_to_msecs() (64 bits: no duration
 * wraps), or ns with precise_timestamps.
 */
u64 dm_stats_hist_value(const struct dm_stats_region *r, u64 dur)
{
	return dm_stats_region_precise(r) ? dur : jiffies_to_msecs_up(dur);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_hist_value);

/**
 * dm_stats_now - the time in a region's unit
 * @r: region
 *
 * Return: jiffies (64 bits), or ns with precise_timestamps.
 */
u64 dm_stats_now(const struct dm_stats_region *r)
{
	return dm_stats_region_precise(r) ? ktime_get_ns() : get_jiffies_64();
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
 * dm_stats_fold_at - read one area's counters at a given time
 * @r: region
 * @area: area index
 * @now: the time, in the region's unit
 * @t: result: dm_stats_totals_size() bytes with @cells, else the struct
 * @cells: fold the histogram cells too
 *
 * Charges pending io_ticks and time_in_queue up to @now first. Reads one
 * word per CPU and counter and the area's shared in-flight counts: an I/O
 * that starts or ends meanwhile is either counted or not, it cannot add
 * anything but its share of busy time.
 */
void dm_stats_fold_at(struct dm_stats_region *r, size_t area, u64 now,
		      struct dm_stats_totals *t, bool cells)
{
	struct dm_stats_area_shared *sh = &r->shared[area];
	unsigned int n_cells = cells && r->n_bounds ? r->n_bounds + 1 : 0;
	s64 in_flight;
	unsigned int i;
	int cpu, dir;

	cpu = get_cpu();
	area_round(sh, now, dm_stats_area_counters(r, cpu, area));
	put_cpu();

	memset(t, 0, struct_size(t, histogram, n_cells));
	for_each_possible_cpu(cpu) {
		struct dm_stats_counters *c = dm_stats_area_counters(r, cpu, area);

		for (dir = 0; dir < 2; dir++) {
			t->ios[dir] += local64_read(&c->ios[dir]);
			t->merges[dir] += local64_read(&c->merges[dir]);
			t->sectors[dir] += local64_read(&c->sectors[dir]);
			t->ticks[dir] += local64_read(&c->ticks[dir]);
			t->io_ticks[dir] += local64_read(&c->io_ticks[dir]);
		}
		t->io_ticks_total += local64_read(&c->io_ticks_total);
		t->time_in_queue += local64_read(&c->time_in_queue);
		for (i = 0; i < n_cells; i++)
			t->histogram[i] += local64_read(&c->histogram[i]);
	}
	in_flight = (s64)atomic_read(&sh->in_flight[READ]) +
		    atomic_read(&sh->in_flight[WRITE]);
	t->in_flight = clamp_t(s64, in_flight, 0, INT_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_fold_at);

/**
 * dm_stats_fold - read one area's counters, summed over all CPUs
 * @r: region
 * @area: area index
 * @t: result, dm_stats_totals_size() bytes
 *
 * Busy time runs up to now.
 */
void dm_stats_fold(struct dm_stats_region *r, size_t area,
		   struct dm_stats_totals *t)
{
	dm_stats_fold_at(r, area, dm_stats_now(r), t, true);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_fold);

/**
 * dm_stats_fold_cell - one histogram cell of an area, summed over all CPUs
 * @r: region
 * @area: area index
 * @cell: cell index, at most @r->n_bounds
 *
 * For readers that fold the other counters without cells: a histogram
 * needs no room of its own to be printed or cleared.
 *
 * Return: the count.
 */
u64 dm_stats_fold_cell(const struct dm_stats_region *r, size_t area,
		       unsigned int cell)
{
	u64 v = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		v += local64_read(&dm_stats_area_counters(r, cpu, area)->histogram[cell]);
	return v;
}

/**
 * dm_stats_area_event - count the start or end of an I/O in one area
 * @r: region
 * @area: area index
 * @cpu: whose counters to add to
 * @dir: READ or WRITE
 * @end: false at the start, true at the end
 * @now: the time, in the region's unit
 * @dur: at the end, the I/O's latency in the region's unit
 *
 * What the I/O path does to one area, with the time given: for KUnit tests
 * that build states the I/O path reaches only by races.
 */
void dm_stats_area_event(struct dm_stats_region *r, size_t area, int cpu,
			 int dir, bool end, u64 now, u64 dur)
{
	unsigned int bucket = 0;

	if (end && r->n_bounds)
		bucket = dm_stats_hist_bucket(r->bounds, r->n_bounds,
					      dm_stats_hist_value(r, dur));
	preempt_disable();
	area_account(r, area, dm_stats_area_counters(r, cpu, area), dir, end,
		     false, 1, now, dur, bucket);
	preempt_enable();
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_area_event);

/**
 * dm_stats_subtract - take a snapshot out of one area's counters
 * @r: region
 * @area: area index
 * @t: snapshot from dm_stats_fold_at()
 * @cells: @t holds the histogram cells: take them out too
 *
 * I/O counted after the snapshot stays counted; in-flight I/O is kept.
 */
void dm_stats_subtract(struct dm_stats_region *r, size_t area,
		       const struct dm_stats_totals *t, bool cells)
{
	unsigned int n_cells = cells && r->n_bounds ? r->n_bounds + 1 : 0;
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
	local64_sub(t->time_in_queue, &c->time_in_queue);
	for (i = 0; i < n_cells; i++)
		local64_sub(t->histogram[i], &c->histogram[i]);
	put_cpu();
}

/**
 * dm_stats_subtract_cell - take a count out of one histogram cell
 * @r: region
 * @area: area index
 * @cell: cell index
 * @v: what dm_stats_fold_cell() read
 */
void dm_stats_subtract_cell(struct dm_stats_region *r, size_t area,
			    unsigned int cell, u64 v)
{
	local64_sub(v, &dm_stats_area_counters(r, get_cpu(), area)->histogram[cell]);
	put_cpu();
}

/**
 * dm_stats_last_alloc - the per-CPU last positions of a new device
 *
 * Each starts at no sector and no direction, so that no first I/O counts
 * as a merge.
 *
 * Return: the positions, or NULL.
 */
struct dm_stats_last_position __percpu *dm_stats_last_alloc(void)
{
	struct dm_stats_last_position __percpu *lp;
	int cpu;

	lp = alloc_percpu(struct dm_stats_last_position);
	if (!lp)
		return NULL;
	for_each_possible_cpu(cpu) {
		struct dm_stats_last_position *last = per_cpu_ptr(lp, cpu);

		last->sector = (sector_t)ULLONG_MAX;
		last->rw = UINT_MAX;
	}
	return lp;
}
