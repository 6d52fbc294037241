/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper I/O statistics: the interface used by the DM core.
 *
 * The engine keeps user-defined regions of a mapped device, split into
 * areas, and counts I/O per area in per-CPU counters. See
 * Documentation/admin-guide/device-mapper/statistics-engine.rst.
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
 * @precise: a region wants precise timestamps: dm_stats_record_start()
 *	takes the bio's arrival in ns. Written under @mutex.
 */
struct dm_stats {
	struct mutex mutex;	/* serialises messages */
	struct xarray regions;
	struct dm_stats_index __rcu *index;
	struct dm_stats_last_position __percpu *last;
	struct dm_stats_index_pool pool;
	bool precise;
};

/* struct dm_stats_aux state bits; the rest of the word is a generation. */
#define DM_STATS_AUX_ARRIVED	0x1U	/* recorded by dm_stats_record_start() */
#define DM_STATS_AUX_NS		0x2U	/* @start_ns is set */
#define DM_STATS_AUX_STARTED	0x4U	/* the start was accounted */
#define DM_STATS_AUX_MERGED	0x8U	/* it began where the last I/O ended */
#define DM_STATS_AUX_GEN_SHIFT	4

/**
 * struct dm_stats_aux - per-I/O state, carried from start to end accounting
 * @start_ns: arrival or start time in ns, for precise timestamps
 * @start_jiffies: start time in jiffies, low 32 bits (as upstream's
 *	unsigned long on 32-bit: a latency below 2^32 jiffies)
 * @state: DM_STATS_AUX_* bits, and above DM_STATS_AUX_GEN_SHIFT the low
 *	bits of the generation of the region index the I/O started under:
 *	only regions at least that old count the I/O at its end
 *
 * As upstream's, 16 bytes in the front pad of every bio of a mapped device.
 * The engine reads it only after writing it: DM core flags a dm_io whose
 * aux dm_stats_record_start() or dm_stats_aux_init() wrote (DM_IO_STATS),
 * and passes the end of an I/O only with that flag. A request's aux lives
 * in its blk-mq payload, zeroed when allocated and written by
 * dm_stats_record_start() and every start and end accounted since: never
 * uninitialised.
 */
struct dm_stats_aux {
	u64 start_ns;
	u32 start_jiffies;
	u32 state;
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
 * target has seen it, and by dm-rq when it starts a request, if the device
 * has a region. An I/O's latency runs from here, as upstream's does, also
 * on targets that start accounting only when they remap the bio
 * (dm-crypt, dm-thin, dm-cache, dm-delay): in jiffies from the start time
 * passed to dm_stats_account_io() (io->start_time, or the request's), in
 * ns from the time taken here when a region wants precise timestamps.
 */
static inline void dm_stats_record_start(struct dm_stats *stats,
					 struct dm_stats_aux *aux)
{
	if (READ_ONCE(stats->precise)) {
		aux->start_ns = ktime_get_ns();
		aux->state = DM_STATS_AUX_ARRIVED | DM_STATS_AUX_NS;
	} else {
		aux->state = DM_STATS_AUX_ARRIVED;
	}
}

/**
 * dm_stats_aux_init - prepare the state of a bio whose arrival was not seen
 * @aux: the bio's per-I/O state
 *
 * Called by DM core before the start of a bio is accounted if
 * dm_stats_record_start() did not run (the device had no region when the
 * bio arrived): the bio is timed from the start of its accounting.
 */
static inline void dm_stats_aux_init(struct dm_stats_aux *aux)
{
	aux->state = 0;
}

#endif
