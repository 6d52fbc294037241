// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper statistics in the generic statistics layer.
 *
 * Every bio-based mapped device created while dm_mod.statistic is on gets
 * the interface /sys/kernel/debug/statistics/dm-<major>:<minor> with these
 * statistics, all stopped until a user starts them (e.g. "echo on=1 >
 * definition"):
 *
 *   request_sizes_read   list: bytes per bio, at the start of accounting
 *   request_sizes_write
 *   latencies_read       array, log2 scale: microseconds from the arrival
 *   latencies_write      of a bio to the end of its accounting, as the
 *                        block layer's own accounting counts them (bios
 *                        that arrived while it was stopped are not timed)
 *   pending              range: bios in flight on the device when one
 *                        starts, itself included (bios whose accounting
 *                        started while it ran; one shared counter, so no
 *                        bio ever sums per-CPU counters)
 *   throughput           history, mode products: bytes completed per
 *                        second, the last 60 seconds
 *
 * Discards and flushes count as writes. Request-based devices (dm-rq, e.g.
 * multipath on blk-mq) have the interface but report nothing.
 *
 * Devices get them only while dm_mod.statistic is on (off by default).
 * While stopped, the statistics of a device hold no per-CPU memory (the
 * layer allocates it when one is switched on); what they take while they
 * run is charged to dm-stats' memory limit, shared with its regions.
 * Without debugfs, or on a locked-down kernel, devices get none and
 * nothing is logged.
 */
#define DM_MSG_PREFIX "statistic"

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/device-mapper.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/statistic.h>

#include "dm-core.h"
#include "dm-stats-mem.h"
#include "dm-statistic.h"

/* Default definitions; users change them in the definition file. */
#define DMS_SIZES_ENTRIES	256
/* log2 bounds up to 2^20 us; ">1048576" holds up to 2^21 - 1 us, longer is out of range */
#define DMS_LATENCY_MAX_US	(BIT(21) - 1)
#define DMS_HISTORY_ENTRIES	60
#define DMS_HISTORY_PERIOD_US	USEC_PER_SEC

/**
 * struct dm_statistic - the statistics of one mapped device
 * @iface: the device's interface
 * @sizes: request sizes, indexed by bio_data_dir()
 * @latencies: latencies, indexed by bio_data_dir()
 * @pending: bios in flight when one starts
 * @throughput: bytes completed per period
 * @in_flight: bios counted by @pending whose accounting has not ended;
 *	touched only while @pending runs (and by the bios it counted)
 */
struct dm_statistic {
	struct statistic_interface *iface;
	struct statistic *sizes[2];
	struct statistic *latencies[2];
	struct statistic *pending;
	struct statistic *throughput;
	atomic_long_t in_flight;
};

/*
 * dm_mod.statistic: whether devices created from now on get statistics.
 * Off by default: a device then costs nothing here but the test of a NULL
 * pointer per bio. Opt in at boot (dm_mod.statistic=1) or before creating
 * the devices (/sys/module/dm_mod/parameters/statistic).
 */
static bool dms_enabled;
module_param_named(statistic, dms_enabled, bool, 0644);
MODULE_PARM_DESC(statistic, "New mapped devices get an interface of the generic statistics layer (default: off)");

/*
 * What the statistics take is charged to dm-stats' own counter
 * (stats_current_allocated_bytes) and shares its limit, a quarter of RAM
 * for regions and statistics together.
 */
static bool dms_mem_claim(size_t bytes)
{
	return dm_stats_mem_claim(bytes, true);
}

static const struct statistic_memory dms_memory = {
	.claim = dms_mem_claim,
	.release = dm_stats_mem_release,
};

static const char * const dms_dir_names[2] = {
	[READ] = "read",
	[WRITE] = "write",
};

static int dms_add(struct dm_statistic *s, struct statistic **stat,
		   const char *name, const char *units)
{
	*stat = statistic_create(s->iface, name, units);
	return PTR_ERR_OR_ZERO(*stat);
}

static int dms_define(struct dm_statistic *s)
{
	char name[32];
	int dir, r;

	for (dir = READ; dir <= WRITE; dir++) {
		snprintf(name, sizeof(name), "request_sizes_%s",
			 dms_dir_names[dir]);
		r = dms_add(s, &s->sizes[dir], name, "bytes/incidents") ?:
		    statistic_define_list(s->sizes[dir], 0, STATISTIC_RANGE_MAX,
					  DMS_SIZES_ENTRIES);
		if (r)
			return r;
	}
	for (dir = READ; dir <= WRITE; dir++) {
		snprintf(name, sizeof(name), "latencies_%s", dms_dir_names[dir]);
		r = dms_add(s, &s->latencies[dir], name,
			    "microseconds/incidents") ?:
		    statistic_define_array(s->latencies[dir], 0,
					   DMS_LATENCY_MAX_US, 1,
					   STATISTIC_SCALE_LOG2);
		if (r)
			return r;
	}
	r = dms_add(s, &s->pending, "pending", "requests/incidents") ?:
	    statistic_define_range(s->pending, 0, STATISTIC_RANGE_MAX);
	if (r)
		return r;
	return dms_add(s, &s->throughput, "throughput", "bytes/incidents") ?:
	       statistic_define_history(s->throughput, 0, STATISTIC_RANGE_MAX,
					DMS_HISTORY_ENTRIES,
					DMS_HISTORY_PERIOD_US,
					STATISTIC_MODE_PRODUCTS);
}

/**
 * dm_statistic_create() - register a new mapped device's statistics
 * @md: the device, whose name ("<major>:<minor>") is set
 *
 * A device without statistics works as well: on failure (out of memory)
 * this warns and leaves @md without them. Where users could not start
 * them (no debugfs, a locked-down kernel: the layer has said so once) it
 * allocates nothing and stays silent.
 *
 * Context: process context, may sleep.
 */
void dm_statistic_create(struct mapped_device *md)
{
	struct statistic_interface *iface;
	struct dm_statistic *s;
	char name[sizeof(md->name) + 3];
	int r;

	md->statistic = NULL;
	if (!READ_ONCE(dms_enabled))
		return;
	snprintf(name, sizeof(name), "dm-%s", md->name);
	iface = statistic_create_interface(name);
	if (IS_ERR(iface)) {
		r = PTR_ERR(iface);
		if (r == -ENODEV || r == -EPERM)
			return;		/* the layer is closed */
		goto fail;
	}
	statistic_interface_set_memory(iface, &dms_memory);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		statistic_interface_remove(iface);
		r = -ENOMEM;
		goto fail;
	}
	s->iface = iface;
	r = dms_define(s);
	if (r) {
		statistic_interface_remove(s->iface);
		kfree(s);
		goto fail;
	}
	md->statistic = s;
	return;

fail:
	DMWARN("%s: no statistics in debugfs: error %d", md->name, r);
}

/**
 * dm_statistic_remove() - remove a mapped device's statistics
 * @md: the device, with no I/O left
 *
 * Context: process context, may sleep.
 */
void dm_statistic_remove(struct mapped_device *md)
{
	struct dm_statistic *s = md->statistic;

	if (!s)
		return;
	md->statistic = NULL;
	statistic_interface_remove(s->iface);
	kfree(s);
}

/**
 * dm_statistic_io_begin() - note the arrival of a bio
 * @io: its new dm_io
 *
 * Context: any.
 */
void dm_statistic_io_begin(struct dm_io *io)
{
	struct dm_statistic *s = io->md->statistic;

	io->statistic_start_ns = 0;
	if (s && statistic_running(s->latencies[bio_data_dir(io->orig_bio)]))
		io->statistic_start_ns = ktime_get_ns();
}

/**
 * dm_statistic_io() - report the start or the end of a bio's accounting
 * @io: the bio's dm_io
 * @sectors: the sectors it accounts for
 * @end: start or end
 *
 * Context: any; after dm_statistic_io_begin(), the start is always
 * reported before the end.
 */
void dm_statistic_io(struct dm_io *io, unsigned int sectors, bool end)
{
	struct dm_statistic *s = io->md->statistic;
	int dir = bio_data_dir(io->orig_bio);
	u64 bytes = (u64)sectors << SECTOR_SHIFT;
	u64 start;

	if (unlikely(!s))
		return;
	if (!end) {
		statistic_inc(s->sizes[dir], bytes);
		if (statistic_running(s->pending)) {
			dm_io_set_flag(io, DM_IO_STATISTIC);
			statistic_inc(s->pending,
				      atomic_long_inc_return(&s->in_flight));
		}
		return;
	}
	if (dm_io_flagged(io, DM_IO_STATISTIC))
		atomic_long_dec(&s->in_flight);
	start = io->statistic_start_ns;
	if (start)
		statistic_inc(s->latencies[dir],
			      div_u64(ktime_get_ns() - start, NSEC_PER_USEC));
	statistic_add(s->throughput, bytes, 1);
}

/**
 * dm_statistic_barrier() - wait for the statistics of removed devices
 *
 * The layer frees their data, and gives its memory back to dm-stats'
 * counter through dms_memory, after RCU and RCU Tasks grace periods:
 * dm-mod must not go away before.
 *
 * Context: process context, may sleep.
 */
void dm_statistic_barrier(void)
{
	statistic_barrier();
}
