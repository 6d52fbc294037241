// SPDX-License-Identifier: GPL-2.0-only
/*
 * taskstats_io_attr.c - per-task block I/O statistics in taskstats messages
 *
 * The counters kernel/task_io_stats.c keeps travel as a TASKSTATS_TYPE_IO
 * attribute (struct taskstats_io) inside the AGGR_PID and AGGR_TGID nests
 * of command replies and exit messages, next to TASKSTATS_TYPE_STATS.  A
 * per-pid record is a snapshot of one task; a per-tgid record is the sum
 * of the group's released threads and of every thread still listed, read
 * under siglock so that no thread is counted twice or missed.
 */

#include <linux/cgroup.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/taskstats.h>
#include <linux/task_io_stats.h>
#include <linux/taskstats_io_attr.h>
#include <net/netlink.h>

#include <kunit/visibility.h>

/**
 * task_io_stats_export() - fill the netlink payload from counters
 * @out: the struct taskstats_io to fill, header included
 * @s: counters owned by the caller (a snapshot or a sum)
 */
void task_io_stats_export(struct taskstats_io *out,
			  const struct task_io_stats *s)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->version = TASKSTATS_IO_VERSION;
	out->nr_ops = TASKSTATS_IO_NR_OPS;
	out->nr_buckets = TASKSTATS_IO_HIST_BUCKETS;
	out->hist_shift = TASKSTATS_IO_HIST_SHIFT;
	for (i = 0; i < TASKSTATS_IO_NR_OPS; i++) {
		out->ops[i] = s->ops[i];
		out->sectors[i] = s->sectors[i];
	}
	out->wait_count = s->wait_count;
	out->wait_total_ns = s->wait_total_ns;
	out->wait_max_ns = s->wait_max_ns;
	for (i = 0; i < TASKSTATS_IO_HIST_BUCKETS; i++)
		out->wait_hist[i] = s->wait_hist[i];
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_export);

/**
 * taskstats_io_cgroup_id() - a task's cgroup on the default hierarchy
 * @tsk: the task, pinned by the caller (it may be exiting)
 *
 * Return: cgroup_id() of @tsk's cgroup v2 cgroup, which is the inode
 * number of its directory under the cgroup2 mount, or 0 in a kernel
 * without cgroups.
 */
u64 taskstats_io_cgroup_id(struct task_struct *tsk)
{
#ifdef CONFIG_CGROUPS
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(tsk));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}
EXPORT_SYMBOL_IF_KUNIT(taskstats_io_cgroup_id);

/**
 * taskstats_io_size() - room a TASKSTATS_TYPE_IO attribute takes
 *
 * Return: the attribute's size with its alignment padding.
 */
size_t taskstats_io_size(void)
{
	return nla_total_size_64bit(sizeof(struct taskstats_io));
}

/**
 * taskstats_io_reserve() - add a zeroed TASKSTATS_TYPE_IO attribute
 * @skb: the message being built, inside an AGGR_PID or AGGR_TGID nest
 * @io: where to return the attribute's payload
 *
 * Return: 0, or -EMSGSIZE when @skb has no room left.
 */
int taskstats_io_reserve(struct sk_buff *skb, struct taskstats_io **io)
{
	struct nlattr *na;

	na = nla_reserve_64bit(skb, TASKSTATS_TYPE_IO,
			       sizeof(struct taskstats_io), TASKSTATS_TYPE_NULL);
	if (!na)
		return -EMSGSIZE;
	*io = nla_data(na);
	memset(*io, 0, sizeof(**io));
	return 0;
}

/*
 * Add a task's counters, if it has any yet.  Its block is published once,
 * zeroed, at fork or when the accounting is switched on, and stays until
 * the task is freed or released (then the block belongs to its
 * signal_struct, which outlives it).
 */
static void task_io_stats_fold_task(struct task_io_stats *sum,
				    struct task_struct *tsk)
{
	struct task_io_stats *s;

	/* pairs with cmpxchg() in task_io_stats_publish() */
	s = smp_load_acquire(&tsk->io_stats);
	if (s)
		task_io_stats_fold(sum, s);
}

/**
 * taskstats_io_fill_task() - per-pid record
 * @io: the payload to fill
 * @tsk: the task, pinned by the caller
 *
 * Its counters and its cgroup v2 id.
 */
void taskstats_io_fill_task(struct taskstats_io *io, struct task_struct *tsk)
{
	struct task_io_stats snap = {};

	task_io_stats_fold_task(&snap, tsk);
	task_io_stats_export(io, &snap);
	io->cgroup_id = taskstats_io_cgroup_id(tsk);
}
EXPORT_SYMBOL_IF_KUNIT(taskstats_io_fill_task);

/**
 * taskstats_io_fill_tgid_locked() - per-tgid record
 * @io: the payload to fill
 * @first: any thread of the group; its siglock is held
 *
 * The sum of the released threads and of every thread on the list,
 * zombies included, in the cgroup of @first.
 */
void taskstats_io_fill_tgid_locked(struct taskstats_io *io,
				   struct task_struct *first)
{
	struct task_io_stats sum = {};
	struct task_struct *t;

	lockdep_assert_held(&rcu_dereference_raw(first->sighand)->siglock);
	if (first->signal->io_stats)
		task_io_stats_fold(&sum, first->signal->io_stats);
	for_each_thread(first, t)
		task_io_stats_fold_task(&sum, t);
	task_io_stats_export(io, &sum);
	io->cgroup_id = taskstats_io_cgroup_id(first);
}

/**
 * taskstats_io_fill_tgid() - per-tgid record, taking siglock
 * @io: the payload to fill
 * @tsk: a live thread of the group (the exiting task, in taskstats_exit())
 */
void taskstats_io_fill_tgid(struct taskstats_io *io, struct task_struct *tsk)
{
	struct sighand_struct *sighand;
	unsigned long flags;

	/* Only a task already released has no sighand: it has no group left. */
	sighand = lock_task_sighand(tsk, &flags);
	if (!sighand)
		return;
	taskstats_io_fill_tgid_locked(io, tsk);
	spin_unlock_irqrestore(&sighand->siglock, flags);
}
