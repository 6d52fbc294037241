/* SPDX-License-Identifier: LGPL-2.1 WITH Linux-syscall-note */
/*
 * taskstats_io.h - per-task block I/O statistics carried by taskstats
 *
 * struct taskstats_io travels as the payload of a TASKSTATS_TYPE_IO
 * attribute, next to TASKSTATS_TYPE_STATS, inside the
 * TASKSTATS_TYPE_AGGR_PID and TASKSTATS_TYPE_AGGR_TGID nests of command
 * replies and exit messages.  It is independent of struct taskstats and of
 * TASKSTATS_VERSION.
 *
 * The struct is versioned.  New fields are only ever added at the end,
 * with TASKSTATS_IO_VERSION bumped; a reader uses the fields that fit in
 * both the attribute length and the version it knows.  Version 1 ends
 * after wait_hist[]; version 2 adds cgroup_id.
 *
 * Command replies carry the attribute.  Exit messages carry it only to
 * listeners that register with TASKSTATS_CMD_ATTR_IO beside
 * TASKSTATS_CMD_ATTR_REGISTER_CPUMASK: the others get upstream's message,
 * with nothing they do not know.
 */

#ifndef _UAPI_LINUX_TASKSTATS_IO_H
#define _UAPI_LINUX_TASKSTATS_IO_H

#include <linux/types.h>

#define TASKSTATS_IO_VERSION	2

/* Indexes of taskstats_io.ops[] and taskstats_io.sectors[] */
enum {
	TASKSTATS_IO_READ = 0,
	TASKSTATS_IO_WRITE,
	TASKSTATS_IO_DISCARD,
	TASKSTATS_IO_FLUSH,
	TASKSTATS_IO_NR_OPS,
};

/*
 * Wait histogram: bucket 0 counts waits shorter than
 * 2^TASKSTATS_IO_HIST_SHIFT ns; bucket b, 1 <= b < BUCKETS - 1, counts
 * waits in [2^(b + SHIFT - 1), 2^(b + SHIFT)) ns; the last bucket counts
 * every longer wait (from 2^32 ns, about 4.3 s, on).
 */
#define TASKSTATS_IO_HIST_SHIFT		10
#define TASKSTATS_IO_HIST_BUCKETS	24

struct taskstats_io {
	/* v1 begin */
	__u16	version;		/* TASKSTATS_IO_VERSION */
	__u16	nr_ops;			/* TASKSTATS_IO_NR_OPS */
	__u16	nr_buckets;		/* TASKSTATS_IO_HIST_BUCKETS */
	__u16	hist_shift;		/* TASKSTATS_IO_HIST_SHIFT */
	/* Bios submitted by the task, per operation */
	__u64	ops[TASKSTATS_IO_NR_OPS];
	/* 512-byte sectors those bios carried, per operation */
	__u64	sectors[TASKSTATS_IO_NR_OPS];
	/* Sleeps in io_schedule() and io_schedule_timeout() */
	__u64	wait_count;
	__u64	wait_total_ns;
	__u64	wait_max_ns;
	__u64	wait_hist[TASKSTATS_IO_HIST_BUCKETS];
	/* v1 end */

	/* v2 begin */
	/*
	 * The task's cgroup in the cgroup v2 hierarchy: cgroup_id(), which
	 * is the inode number of its directory under the cgroup2 mount (and
	 * the handle name_to_handle_at() gives).  In a per-tgid record, the
	 * cgroup of the thread the record was read from (the last thread,
	 * in an exit message).  0 when the kernel has no cgroups.
	 */
	__u64	cgroup_id;
	/* v2 end */
};

#endif /* _UAPI_LINUX_TASKSTATS_IO_H */
