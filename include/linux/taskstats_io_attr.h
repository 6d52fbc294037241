/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-task block I/O statistics in taskstats messages: the
 * TASKSTATS_TYPE_IO attribute kernel/taskstats.c adds to its replies and
 * exit messages.  The counters are in <linux/task_io_stats.h>.
 */
#ifndef _LINUX_TASKSTATS_IO_ATTR_H
#define _LINUX_TASKSTATS_IO_ATTR_H

#include <linux/types.h>

struct sk_buff;
struct task_io_stats;
struct task_struct;
struct taskstats_io;

#ifdef CONFIG_TASK_IO_STATS

void task_io_stats_export(struct taskstats_io *out,
			  const struct task_io_stats *s);
u64 taskstats_io_cgroup_id(struct task_struct *tsk);
size_t taskstats_io_size(void);
int taskstats_io_reserve(struct sk_buff *skb, struct taskstats_io **io);
void taskstats_io_fill_task(struct taskstats_io *io, struct task_struct *tsk);
void taskstats_io_fill_tgid_locked(struct taskstats_io *io,
				   struct task_struct *first);
void taskstats_io_fill_tgid(struct taskstats_io *io, struct task_struct *tsk);

#else /* !CONFIG_TASK_IO_STATS */

static inline size_t taskstats_io_size(void) { return 0; }

static inline int taskstats_io_reserve(struct sk_buff *skb,
				       struct taskstats_io **io)
{
	*io = NULL;
	return 0;
}

static inline void taskstats_io_fill_task(struct taskstats_io *io,
					  struct task_struct *tsk) { }
static inline void taskstats_io_fill_tgid_locked(struct taskstats_io *io,
						 struct task_struct *first) { }
static inline void taskstats_io_fill_tgid(struct taskstats_io *io,
					  struct task_struct *tsk) { }

#endif /* CONFIG_TASK_IO_STATS */

#endif /* _LINUX_TASKSTATS_IO_ATTR_H */
