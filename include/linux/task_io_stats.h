/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-task block I/O statistics for taskstats: what a task submitted to
 * the block layer and how long it slept waiting for I/O.
 *
 * The taskstats side is in <linux/taskstats_io_attr.h>.  See
 * Documentation/accounting/taskstats-io.rst.
 */
#ifndef _LINUX_TASK_IO_STATS_H
#define _LINUX_TASK_IO_STATS_H

#include <linux/task_io_stats_types.h>

struct bio;
struct signal_struct;
struct task_struct;

#ifdef CONFIG_TASK_IO_STATS
#include <linux/jump_label.h>
#include <linux/sched.h>

/* The hooks count; fork gives new tasks counters (on while switching on, too). */
DECLARE_STATIC_KEY_FALSE(task_io_stats_key);
DECLARE_STATIC_KEY_FALSE(task_io_stats_fork_key);

unsigned int task_io_stats_bucket(u64 ns);
void task_io_stats_account(struct task_io_stats *s, const struct bio *bio);
void task_io_stats_record_wait(struct task_io_stats *s, u64 ns);
void task_io_stats_zero(struct task_io_stats *s);
void task_io_stats_read(struct task_io_stats *snap,
			const struct task_io_stats *src);
void task_io_stats_fold(struct task_io_stats *dst,
			const struct task_io_stats *src);

void __task_io_stats_fork(struct task_struct *tsk);
void __task_io_stats_submit(struct bio *bio);
void __task_io_wait_start(struct task_io_wait *w);
void __task_io_wait_done(struct task_io_wait *w);

/* Charge @bio to the task submitting it; called by submit_bio(). */
static inline void task_io_stats_submit(struct bio *bio)
{
	if (static_branch_unlikely(&task_io_stats_key))
		__task_io_stats_submit(bio);
}

/* Around the schedule() of io_schedule() and io_schedule_timeout(). */
static inline void task_io_wait_start(struct task_io_wait *w)
{
	w->start_ns = 0;
	if (static_branch_unlikely(&task_io_stats_key))
		__task_io_wait_start(w);
}

static inline void task_io_wait_done(struct task_io_wait *w)
{
	if (w->start_ns)
		__task_io_wait_done(w);
}

/* A new task: dup_task_struct() copied the parent's pointer. */
static inline void task_io_stats_init(struct task_struct *tsk)
{
	tsk->io_stats = NULL;
}

/*
 * A new task, now on the task list: counters of its own if the accounting
 * is on or being switched on. Called after copy_process() unlocks the task
 * list, where the switch's passes over the list meet it.
 */
static inline void task_io_stats_fork(struct task_struct *tsk)
{
	if (static_branch_unlikely(&task_io_stats_fork_key))
		__task_io_stats_fork(tsk);
}

bool task_io_stats_enabled(void);
int task_io_stats_set_enabled(bool on);
void task_io_stats_exit_signal(struct task_struct *tsk);
void task_io_stats_free(struct task_struct *tsk);
void task_io_stats_free_signal(struct signal_struct *sig);

#else /* !CONFIG_TASK_IO_STATS */

static inline void task_io_stats_submit(struct bio *bio) { }
static inline void task_io_wait_start(struct task_io_wait *w) { }

static inline void task_io_wait_done(struct task_io_wait *w) { }
static inline void task_io_stats_init(struct task_struct *tsk) { }
static inline void task_io_stats_fork(struct task_struct *tsk) { }
static inline void task_io_stats_exit_signal(struct task_struct *tsk) { }
static inline void task_io_stats_free(struct task_struct *tsk) { }
static inline void task_io_stats_free_signal(struct signal_struct *sig) { }

#endif /* CONFIG_TASK_IO_STATS */

#endif /* _LINUX_TASK_IO_STATS_H */
