// SPDX-License-Identifier: GPL-2.0-only
/*
 * task_io_stats.c - per-task block I/O statistics for taskstats
 *
 * Every bio that goes through submit_bio() is charged to the task that
 * submits it: one operation and its sectors, by kind (read, write, discard,
 * flush).  Every sleep in io_schedule() or io_schedule_timeout() is timed
 * directly and charged to the sleeping task: count, total, maximum and a
 * log2 histogram.  A task only ever writes its own counters, from task
 * context, so the hot paths take no lock and touch no shared cache line.
 * The counters are a slab object that task_struct points to, allocated at
 * fork while the accounting is on (else on the task's first submitted
 * bio), as delay accounting keeps its own; nothing is allocated in
 * io_schedule().
 *
 * The accounting is off by default; kernel.task_io_stats switches it at
 * run time, task_io_stats at boot. The netlink side is in
 * kernel/taskstats_io_attr.c.
 *
 * When a thread is released its counters are folded into its signal_struct
 * under siglock, in the same critical section that unlinks it from the
 * thread list; a per-tgid answer is that sum plus every thread still on the
 * list, so each thread is counted exactly once.
 */

#include <linux/bio.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/task_io_stats.h>

#include <kunit/visibility.h>

DEFINE_STATIC_KEY_FALSE(task_io_stats_key);

/*
 * The switch, off by default as delay accounting is: the sysctl
 * kernel.task_io_stats (0 or 1) at run time, the kernel parameter
 * task_io_stats (alone or =1, =y ...) at boot. Off, the hooks cost one
 * patched jump and fork allocates nothing. The static key itself is the
 * state; it can be switched once jump labels can be patched
 * (early_initcall), so the boot parameter is only recorded until then.
 */
static bool task_io_stats_boot;
core_param(task_io_stats, task_io_stats_boot, bool, 0);

/**
 * task_io_stats_enabled() - is per-task I/O accounting on?
 *
 * Return: the state of the static key the hooks test.
 */
bool task_io_stats_enabled(void)
{
	return static_key_enabled(&task_io_stats_key);
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_enabled);

/**
 * task_io_stats_set_enabled() - switch per-task I/O accounting
 * @on: the new state
 *
 * Context: process context, may sleep (patches the hooks).
 * Return: the old state.
 */
bool task_io_stats_set_enabled(bool on)
{
	bool was = task_io_stats_enabled();

	if (on)
		static_branch_enable(&task_io_stats_key);
	else
		static_branch_disable(&task_io_stats_key);
	return was;
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_set_enabled);

#ifdef CONFIG_PROC_SYSCTL
static int task_io_stats_sysctl(const struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	int state = task_io_stats_enabled();
	struct ctl_table t = *table;
	int err;

	t.data = &state;
	err = proc_dointvec_minmax(&t, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	if (task_io_stats_set_enabled(state) != !!state)
		pr_info("taskstats_io: accounting %s\n", state ? "on" : "off");
	return 0;
}

static struct ctl_table task_io_stats_sysctls[] = {
	{
		.procname	= "task_io_stats",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= task_io_stats_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init task_io_stats_sysctl_init(void)
{
	register_sysctl_init("kernel", task_io_stats_sysctls);
	return 0;
}
late_initcall(task_io_stats_sysctl_init);
#endif

static int __init task_io_stats_setup(void)
{
	if (task_io_stats_boot) {
		task_io_stats_set_enabled(true);
		pr_info("taskstats_io: accounting enabled by the command line\n");
	}
	return 0;
}
early_initcall(task_io_stats_setup);

/**
 * task_io_stats_bucket() - histogram bucket of a wait duration
 * @ns: the wait, in nanoseconds
 *
 * Return: 0 for waits shorter than 2^TASKSTATS_IO_HIST_SHIFT ns, b for
 * waits in [2^(b + SHIFT - 1), 2^(b + SHIFT)) ns, and the last bucket for
 * everything longer.
 */
unsigned int task_io_stats_bucket(u64 ns)
{
	unsigned int b;

	if (ns < (1ULL << TASKSTATS_IO_HIST_SHIFT))
		return 0;
	b = ilog2(ns) - TASKSTATS_IO_HIST_SHIFT + 1;
	return min_t(unsigned int, b, TASKSTATS_IO_HIST_BUCKETS - 1);
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_bucket);

static void task_io_stats_add_op(struct task_io_stats *s, unsigned int op,
				 unsigned int sectors)
{
	WRITE_ONCE(s->ops[op], s->ops[op] + 1);
	WRITE_ONCE(s->sectors[op], s->sectors[op] + sectors);
}

/**
 * task_io_stats_zero() - counters at zero, ready for their owner
 * @s: the counters
 */
void task_io_stats_zero(struct task_io_stats *s)
{
	memset(s, 0, sizeof(*s));
	u64_stats_init(&s->syncp);
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_zero);

/*
 * Every update of a task's counters is one write section of their syncp,
 * so that a reader on another CPU retries rather than see a torn 64-bit
 * value on 32-bit (on 64-bit both calls are empty). Interrupts stay off
 * for the few stores on 32-bit: no reader on this CPU can spin on an open
 * section, and the section is not preempted by another of the same task.
 */
static unsigned long task_io_stats_write_begin(struct task_io_stats *s)
{
	return u64_stats_update_begin_irqsave(&s->syncp);
}

static void task_io_stats_write_end(struct task_io_stats *s,
				    unsigned long flags)
{
	u64_stats_update_end_irqrestore(&s->syncp, flags);
}

static void task_io_stats_count_bio(struct task_io_stats *s,
				    const struct bio *bio)
{
	unsigned int sectors = bio_sectors(bio);

	if (bio->bi_opf & REQ_PREFLUSH)
		task_io_stats_add_op(s, TASKSTATS_IO_FLUSH, 0);

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		task_io_stats_add_op(s, TASKSTATS_IO_READ, sectors);
		break;
	case REQ_OP_WRITE:
		/* An empty write is a flush request, counted above. */
		if (sectors)
			task_io_stats_add_op(s, TASKSTATS_IO_WRITE, sectors);
		break;
	case REQ_OP_WRITE_ZEROES:
	case REQ_OP_ZONE_APPEND:
		task_io_stats_add_op(s, TASKSTATS_IO_WRITE, sectors);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		task_io_stats_add_op(s, TASKSTATS_IO_DISCARD, sectors);
		break;
	case REQ_OP_FLUSH:
		if (!(bio->bi_opf & REQ_PREFLUSH))
			task_io_stats_add_op(s, TASKSTATS_IO_FLUSH, 0);
		break;
	default:
		break;
	}
}

/**
 * task_io_stats_account() - count one submitted bio
 * @s: the counters to charge, written only by their owner
 * @bio: the bio
 *
 * A bio with REQ_PREFLUSH counts one flush; if it also carries data it
 * counts as a write too.  Write-zeroes and zone-append count as writes,
 * secure erase as a discard.  Zone management and driver-private
 * operations are not counted.
 */
void task_io_stats_account(struct task_io_stats *s, const struct bio *bio)
{
	unsigned long flags = task_io_stats_write_begin(s);

	task_io_stats_count_bio(s, bio);
	task_io_stats_write_end(s, flags);
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_account);

/**
 * task_io_stats_record_wait() - count one I/O wait
 * @s: the counters to charge, written only by their owner
 * @ns: how long the wait lasted
 */
void task_io_stats_record_wait(struct task_io_stats *s, u64 ns)
{
	unsigned int b = task_io_stats_bucket(ns);
	unsigned long flags = task_io_stats_write_begin(s);

	WRITE_ONCE(s->wait_count, s->wait_count + 1);
	WRITE_ONCE(s->wait_total_ns, s->wait_total_ns + ns);
	if (ns > s->wait_max_ns)
		WRITE_ONCE(s->wait_max_ns, ns);
	WRITE_ONCE(s->wait_hist[b], s->wait_hist[b] + 1);
	task_io_stats_write_end(s, flags);
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_record_wait);

/**
 * task_io_stats_read() - copy counters that their owner may be updating
 * @snap: the copy, owned by the caller
 * @src: the counters
 *
 * On 32-bit the copy is retried until no update of @src overlapped it, so
 * no counter in it is torn and all of them are of one moment.  @snap's
 * syncp is left as it was.
 */
void task_io_stats_read(struct task_io_stats *snap,
			const struct task_io_stats *src)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&src->syncp);
		for (i = 0; i < TASKSTATS_IO_NR_OPS; i++) {
			snap->ops[i] = READ_ONCE(src->ops[i]);
			snap->sectors[i] = READ_ONCE(src->sectors[i]);
		}
		snap->wait_count = READ_ONCE(src->wait_count);
		snap->wait_total_ns = READ_ONCE(src->wait_total_ns);
		snap->wait_max_ns = READ_ONCE(src->wait_max_ns);
		for (i = 0; i < TASKSTATS_IO_HIST_BUCKETS; i++)
			snap->wait_hist[i] = READ_ONCE(src->wait_hist[i]);
	} while (u64_stats_fetch_retry(&src->syncp, start));
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_read);

/**
 * task_io_stats_fold() - add one set of counters into another
 * @dst: the sum, owned by the caller or a thread group's under siglock
 * @src: counters that their owner may be updating concurrently
 *
 * Counts and totals add up; the maximum is the larger of the two.  @dst is
 * written without a write section: its readers hold what its writer
 * holds (siglock), or it is the caller's own.
 */
void task_io_stats_fold(struct task_io_stats *dst,
			const struct task_io_stats *src)
{
	struct task_io_stats snap;
	unsigned int i;

	task_io_stats_read(&snap, src);
	for (i = 0; i < TASKSTATS_IO_NR_OPS; i++) {
		dst->ops[i] += snap.ops[i];
		dst->sectors[i] += snap.sectors[i];
	}
	dst->wait_count += snap.wait_count;
	dst->wait_total_ns += snap.wait_total_ns;
	dst->wait_max_ns = max(dst->wait_max_ns, snap.wait_max_ns);
	for (i = 0; i < TASKSTATS_IO_HIST_BUCKETS; i++)
		dst->wait_hist[i] += snap.wait_hist[i];
}
EXPORT_SYMBOL_IF_KUNIT(task_io_stats_fold);

static struct kmem_cache *task_io_stats_cache __ro_after_init;

/**
 * __task_io_stats_init() - give a new task its counters
 * @tsk: the task, not running yet (copy_process()), or current
 *
 * Called while the accounting is on. If the allocation fails, the task
 * gets its counters on its first submitted bio instead.
 *
 * Context: process context, may sleep.
 */
void __task_io_stats_init(struct task_struct *tsk)
{
	struct task_io_stats *s;

	if (!task_io_stats_cache || tsk->io_stats)
		return;
	s = kmem_cache_alloc(task_io_stats_cache, GFP_KERNEL | __GFP_NOWARN);
	if (s) {
		task_io_stats_zero(s);
		/* zeroed before published: pairs with READ_ONCE() in the readers */
		smp_store_release(&tsk->io_stats, s);
	}
}
EXPORT_SYMBOL_IF_KUNIT(__task_io_stats_init);

/*
 * The current task's counters. A task forked while the accounting was off
 * (or whose allocation at fork failed) gets them on its first submitted
 * bio. Submission may run in memory reclaim, under spinlocks or for the
 * writeback that reclaim waits for, so that allocation neither sleeps,
 * reclaims nor dips into the reserves (__GFP_NOMEMALLOC); if it fails,
 * this bio goes uncounted and the next one tries again. A wait in
 * io_schedule() never allocates: a task without counters there is not
 * timed. Only the task itself sets the pointer after fork; readers on
 * other CPUs load it with READ_ONCE().
 */
static struct task_io_stats *task_io_stats_current(void)
{
	struct task_io_stats *s = current->io_stats;

	if (likely(s))
		return s;
	if (!task_io_stats_cache)
		return NULL;	/* before the cache exists: early boot */
	s = kmem_cache_alloc(task_io_stats_cache,
			     GFP_NOWAIT | __GFP_NOWARN | __GFP_NOMEMALLOC);
	if (s) {
		task_io_stats_zero(s);
		/* zeroed before published: pairs with task_io_stats_fold_task() */
		smp_store_release(&current->io_stats, s);
	}
	return s;
}

void __task_io_stats_submit(struct bio *bio)
{
	struct task_io_stats *s;

	/* A bio submitted from interrupt context belongs to no task. */
	if (!in_task())
		return;
	s = task_io_stats_current();
	if (s)
		task_io_stats_account(s, bio);
}

/*
 * Waits are timed with local_clock(), as delay accounting times them: it
 * costs a TSC read where ktime_get_ns() may have to read the clocksource
 * device (an HPET read is a bus access).  It is monotonic on each CPU,
 * with a bounded drift between CPUs: a wait that ends on another CPU may
 * come out a little short, and is clamped at zero rather than wrapping.
 *
 * Only a schedule() that puts the task to sleep is an I/O wait.  A task
 * already woken (TASK_RUNNING) or with a signal that keeps it awake is not
 * dequeued: if schedule() switches it out, it was preempted while
 * runnable, and the scheduler still counts that as a voluntary switch when
 * a signal was pending.  Such a call is not timed at all.
 */
void __task_io_wait_start(struct task_io_wait *w)
{
	unsigned int state = READ_ONCE(current->__state);

	if (state == TASK_RUNNING || signal_pending_state(state, current))
		return;
	w->nvcsw = current->nvcsw;
	w->start_ns = local_clock();
}
EXPORT_SYMBOL_IF_KUNIT(__task_io_wait_start);

void __task_io_wait_done(struct task_io_wait *w)
{
	u64 now = local_clock();
	struct task_io_stats *s;

	/* Woken before it went to sleep: no wait to count. */
	if (READ_ONCE(current->nvcsw) == w->nvcsw)
		return;
	s = current->io_stats;
	if (s)
		task_io_stats_record_wait(s, now > w->start_ns ?
					  now - w->start_ns : 0);
}
EXPORT_SYMBOL_IF_KUNIT(__task_io_wait_done);

/**
 * task_io_stats_exit_signal() - keep a released thread's counters
 * @tsk: the thread, being unlinked from its group under siglock
 *
 * The first released thread with counters hands its block over to the
 * group (no allocation under siglock); later ones are added to it.
 */
void task_io_stats_exit_signal(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct task_io_stats *s = tsk->io_stats;

	lockdep_assert_held(&rcu_dereference_raw(tsk->sighand)->siglock);
	if (!s)
		return;
	if (sig->io_stats) {
		task_io_stats_fold(sig->io_stats, s);
		return;
	}
	/*
	 * A released thread is off the thread list and out of the pid hash:
	 * per-tgid readers (under siglock) now find its counters here.
	 */
	WRITE_ONCE(sig->io_stats, s);
	WRITE_ONCE(tsk->io_stats, NULL);
}

/**
 * task_io_stats_free() - free a task's counters
 * @tsk: the task, no longer referenced (__put_task_struct())
 */
void task_io_stats_free(struct task_struct *tsk)
{
	if (tsk->io_stats)
		kmem_cache_free(task_io_stats_cache, tsk->io_stats);
	tsk->io_stats = NULL;
}

/**
 * task_io_stats_free_signal() - free a thread group's counters
 * @sig: the signal_struct, being freed
 */
void task_io_stats_free_signal(struct signal_struct *sig)
{
	if (sig->io_stats)
		kmem_cache_free(task_io_stats_cache, sig->io_stats);
	sig->io_stats = NULL;
}

static int __init task_io_stats_cache_init(void)
{
	task_io_stats_cache = KMEM_CACHE(task_io_stats, SLAB_PANIC);
	return 0;
}
core_initcall(task_io_stats_cache_init);
