/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counters of per-task block I/O statistics.  task_struct and
 * signal_struct only hold a pointer to them (allocated on a task's first
 * counted I/O), so <linux/sched.h> does not include this header.  The
 * functions are in <linux/task_io_stats.h>.
 */
#ifndef _LINUX_TASK_IO_STATS_TYPES_H
#define _LINUX_TASK_IO_STATS_TYPES_H

#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <uapi/linux/taskstats_io.h>

/*
 * The counters of one task, or of the released threads of a thread group.
 * Only the owning task writes its own counters, from task context, so they
 * need no lock; a thread group's are written under siglock, where its
 * readers also are.  A reader on another CPU copies a task's counters with
 * task_io_stats_read(): on 32-bit a u64 is two stores, and @syncp makes the
 * reader retry instead of seeing half of one (on 64-bit it is empty and
 * each counter is one store; a reader may then see a wait counted in
 * wait_count before its duration reaches wait_total_ns).
 */
struct task_io_stats {
	u64	ops[TASKSTATS_IO_NR_OPS];
	u64	sectors[TASKSTATS_IO_NR_OPS];
	u64	wait_count;
	u64	wait_total_ns;
	u64	wait_max_ns;
	u64	wait_hist[TASKSTATS_IO_HIST_BUCKETS];
	struct u64_stats_sync	syncp;
};

/*
 * One wait in io_schedule(), from task_io_wait_start() to _done().
 * @start_ns is 0 when the wait is not timed: accounting off, or a task
 * that schedule() will not put to sleep (already woken, signal pending).
 */
struct task_io_wait {
	u64		start_ns;
	unsigned long	nvcsw;
};

#endif /* _LINUX_TASK_IO_STATS_TYPES_H */
