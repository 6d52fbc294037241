/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counters of per-task block I/O statistics, kept in task_struct and
 * signal_struct.  The functions are in <linux/taskstats_io.h>.
 */
#ifndef _LINUX_TASKSTATS_IO_TYPES_H
#define _LINUX_TASKSTATS_IO_TYPES_H

#include <linux/types.h>
#include <uapi/linux/taskstats_io.h>

/*
 * The counters of one task (in task_struct) or of the exited threads of a
 * thread group (in signal_struct).  Only the owning task writes its own
 * counters, from task context, so they need no lock; readers may see a
 * wait counted in wait_count before its duration reaches wait_total_ns.
 */
struct task_io_stats {
	u64	ops[TASKSTATS_IO_NR_OPS];
	u64	sectors[TASKSTATS_IO_NR_OPS];
	u64	wait_count;
	u64	wait_total_ns;
	u64	wait_max_ns;
	u64	wait_hist[TASKSTATS_IO_HIST_BUCKETS];
};

/* One wait in io_schedule(), from task_io_wait_start() to _done() */
struct task_io_wait {
	u64		start_ns;
	unsigned long	nvcsw;
};

#endif /* _LINUX_TASKSTATS_IO_TYPES_H */
