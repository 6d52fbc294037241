/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper I/O statistics: the interface used by the DM core.
 *
 * The engine keeps user-defined regions of a mapped device, split into
 * areas, and counts I/O per area in per-CPU counters. See
 * Documentation/device-mapper-stats.rst.
 */
#ifndef DM_STATS_H
#define DM_STATS_H

#include <linux/types.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>

struct mapped_device;
struct dm_stats_index;
struct dm_stats_index_node;
struct dm_stats_last_position;

int dm_statistics_init(void);
void dm_statistics_exit(void);

/**
 * struct dm_stats_index_pool - memory set aside for updating the index
 * @free: spare tree nodes, linked by their next field
 * @spare: spare index headers, linked by their link field
 * @waiting: replaced snapshots, oldest first, whose nodes and header come
 *	back to the pool once an RCU grace period has elapsed
 * @waiting_tail: newest snapshot on @waiting
 * @nr: number of nodes in @free
 * @nr_spare: number of headers in @spare
 * @nr_waiting: number of snapshots on @waiting
 */
struct dm_stats_index_pool {
	struct dm_stats_index_node *free;
	struct dm_stats_index *spare;
	struct dm_stats_index *waiting;
	struct dm_stats_index *waiting_tail;
	unsigned int nr;
	unsigned int nr_spare;
	unsigned int nr_waiting;
};

/**
 * struct dm_stats - statistics state of one mapped device
 * @mutex: serialises the @stats_* messages of this device
 * @regions: region id -> region, for the messages
 * @index: regions sorted by sector, published with RCU for the I/O path;
 *	NULL while the device has no region
 * @last: per-CPU end of the previous I/O, for merge detection
 * @pool: nodes for the next index update, under @mutex
 * @epoch: changes whenever start times recorded by dm_stats_record_start()
 *	can no longer be trusted (the device gained its first region, or
 *	precise_timestamps was switched on or off); bit 0 is set while a
 *	region wants precise timestamps. Written under @mutex.
 */
struct dm_stats {
	struct mutex mutex;	/* serialises messages */
	struct xarray regions;
	struct dm_stats_index __rcu *index;
	struct dm_stats_last_position __percpu *last;
	struct dm_stats_index_pool pool;
	unsigned long epoch;
};

#define DM_STATS_EPOCH_PRECISE	1UL

/**
 * struct dm_stats_aux - per-I/O state, carried from start to end accounting
 * @gen: generation of the region index the I/O started under; only regions
 *	at least that old count the I/O at its end
 * @tag: @gen sealed with the device, so that stale or uninitialised
 *	memory is never taken for a started I/O
 * @recorded: @epoch of the device, sealed with it, when DM core recorded
 *	the bio's arrival (dm_stats_record_start()); consumed when the start
 *	is accounted
 * @start_ns: start time in ns, taken when a region wants precise timestamps
 * @start_jiffies: start time in jiffies, 64 bits
 * @merged: the I/O began where the previous one on this CPU ended
 */
struct dm_stats_aux {
	u64 gen;
	unsigned long tag;
	unsigned long recorded;
	u64 start_ns;
	u64 start_jiffies;
	bool merged;
};

int dm_stats_init(struct dm_stats *st);
void dm_stats_cleanup(struct dm_stats *st);

int dm_stats_message(struct mapped_device *md, unsigned int argc, char **argv,
		     char *result, unsigned int maxlen);

void dm_stats_account_io(struct dm_stats *stats, unsigned long bi_rw,
			 sector_t bi_sector, unsigned int bi_sectors, bool end,
			 unsigned long start_time,
			 struct dm_stats_aux *aux);

/**
 * dm_stats_used - does the device have any statistics region?
 * @st: the device's statistics
 *
 * Return: true if I/O must be passed to dm_stats_account_io().
 */
static inline bool dm_stats_used(struct dm_stats *st)
{
	return !!rcu_access_pointer(st->index);
}

/**
 * dm_stats_record_start - note that a bio has reached the mapped device
 * @stats: the device's statistics
 * @aux: the bio's per-I/O state
 *
 * Called by DM core when it allocates a bio's struct dm_io, before the
 * target has seen it. A bio's latency runs from here, as upstream's does,
 * also on targets that start accounting only when they remap the bio
 * (dm-crypt, dm-thin, dm-cache, dm-delay). The start of the I/O, when it
 * is accounted, takes this time only if @epoch has not changed since: a
 * stale record (memory reused from an I/O that was never accounted) or
 * request-based I/O (which never comes here) uses the time of its start.
 */
static inline void dm_stats_record_start(struct dm_stats *stats,
					 struct dm_stats_aux *aux)
{
	unsigned long epoch = READ_ONCE(stats->epoch);

	if (epoch & DM_STATS_EPOCH_PRECISE)
		aux->start_ns = ktime_get_ns();
	aux->recorded = epoch ^ (unsigned long)stats;
}

#endif
