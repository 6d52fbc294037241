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
 * The counters are a slab object that task_struct points to, as delay
 * accounting keeps its own: switching the accounting on gives every
 * thread its counters, and fork gives them to new tasks while it is on.
 * The hooks only read the pointer: nothing is allocated in submit_bio()
 * or io_schedule().
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
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/task_io_stats.h>

#include <kunit/visibility.h>

DEFINE_STATIC_KEY_FALSE(task_io_stats_key);
DEFINE_STATIC_KEY_FALSE(task_io_stats_fork_key);

static struct kmem_cache *task_io_stats_cache __ro_after_init;

/*
 * The switch, off by default as delay accounting is: the sysctl
 * kernel.task_io_stats (0 or 1) at run time, the kernel parameter
 * task_io_stats (alone or =1, =y ...) at boot. Off, the hooks cost one
 * patched jump and fork allocates nothing. The static keys themselves are
 * the state; they can be switched once jump labels can be patched
 * (early_initcall), so the boot parameter is only recorded until then.
 */
static bool task_io_stats_boot;
core_param(task_io_stats, task_io_stats_boot, bool, 0);

/* Serialises switching, and so the passes of task_io_stats_give_all(). */
static DEFINE_MUTEX(task_io_stats_switch_lock);

/*
 * Give @tsk counters of its own unless it has some. Both the switch and
 * the parent in copy_process() may try for the same new task: the first
 * one wins, the other frees its copy. Zeroed before published: pairs with
 * READ_ONCE() in the hooks and smp_load_acquire() in the taskstats readers.
 */
static bool task_io_stats_publish(struct task_struct *tsk,
				  struct task_io_stats *s)
{
	return !cmpxchg(&tsk->io_stats, NULL, s);
}

/**
 * __task_io_stats_fork() - give a new task its counters
 * @tsk: the new task, on the task list but not running yet
 *
 * Called while the accounting is on or being switched on. If the
 * allocation fails the task is not counted, as delay accounting leaves it,
 * until the accounting is next switched on.
 *
 * Context: process context (copy_process()), may sleep.
 */
void __task_io_stats_fork(struct task_struct *tsk)
{
	struct task_io_stats *s;

	if (READ_ONCE(tsk->io_stats))
		return;
	s = kmem_cache_alloc(task_io_stats_cache, GFP_KERNEL | __GFP_NOWARN);
	if (!s)
		return;
	task_io_stats_zero(s);
	if (!task_io_stats_publish(tsk, s))
		kmem_cache_free(task_io_stats_cache, s);
}

/* How many threads on the task list have no counters. */
static unsigned int task_io_stats_nr_lacking(void)
{
	struct task_struct *g, *t;
	unsigned int nr = 0;

	read_lock(&tasklist_lock);
	for_each_process_thread(g, t)
		nr += !READ_ONCE(t->io_stats);
	read_unlock(&tasklist_lock);
	return nr;
}

/* Fill @spare with up to @nr zeroed counters. Return: how many. */
static unsigned int task_io_stats_alloc_spares(struct task_io_stats **spare,
					       unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		spare[i] = kmem_cache_alloc(task_io_stats_cache, GFP_KERNEL);
		if (!spare[i])
			break;
		task_io_stats_zero(spare[i]);
	}
	return i;
}

/*
 * Hand @spare[0..@nr) out to threads still without counters, under
 * tasklist_lock: no thread is released (__exit_signal()) or linked
 * meanwhile. Return: how many are left over.
 */
static unsigned int task_io_stats_hand_out(struct task_io_stats **spare,
					   unsigned int nr)
{
	struct task_struct *g, *t;

	read_lock(&tasklist_lock);
	for_each_process_thread(g, t) {
		if (nr && !READ_ONCE(t->io_stats) &&
		    task_io_stats_publish(t, spare[nr - 1]))
			nr--;
	}
	read_unlock(&tasklist_lock);
	return nr;
}

/*
 * Give every thread on the task list its counters, with fork already
 * giving them to new tasks: count the threads without, allocate that many
 * outside any lock (GFP_KERNEL, may sleep), hand them out under
 * tasklist_lock, and repeat until a pass finds none without. Any task
 * linked after that pass was forked with task_io_stats_fork_key on: its
 * parent gives it counters once it is linked (task_io_stats_fork() runs
 * after copy_process() unlocks the task list, so either that pass saw the
 * task or the parent sees the key).
 *
 * Return: 0, or -ENOMEM; counters already handed out then stay with their
 * threads, as if forked while the accounting was on.
 */
static int task_io_stats_give_all(void)
{
	struct task_io_stats **spare;
	unsigned int lacking, nr;
	int err = 0;

	while ((lacking = task_io_stats_nr_lacking())) {
		spare = kvmalloc_array(lacking, sizeof(*spare), GFP_KERNEL);
		if (!spare)
			return -ENOMEM;
		nr = task_io_stats_alloc_spares(spare, lacking);
		if (nr == lacking)
			nr = task_io_stats_hand_out(spare, nr);
		else
			err = -ENOMEM;
		while (nr)
			kmem_cache_free(task_io_stats_cache, spare[--nr]);
		kvfree(spare);
		if (err)
			return err;
	}
	return 0;
}

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
 * Switching on first has fork give new tasks their counters, then gives
 * every existing thread its own, and only then turns the hooks on: they
 * never allocate. If that runs out of memory the accounting stays off.
 *
 * Context: process context, may sleep.
 * Return: 1 if the state changed, 0 if it already was @on, -ENOMEM if the
 * counters could not all be allocated (nothing switched).
 */
int task_io_stats_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&task_io_stats_switch_lock);
	if (on == task_io_stats_enabled())
		goto unlock;
	if (on) {
		static_branch_enable(&task_io_stats_fork_key);
		ret = task_io_stats_give_all();
		if (ret) {
			static_branch_disable(&task_io_stats_fork_key);
			goto unlock;
		}
		static_branch_enable(&task_io_stats_key);
	} else {
		static_branch_disable(&task_io_stats_key);
		static_branch_disable(&task_io_stats_fork_key);
	}
	ret = 1;
unlock:
	mutex_unlock(&task_io_stats_switch_lock);
	return ret;
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
	err = task_io_stats_set_enabled(state);
	if (err < 0)
		return err;
	if (err)
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

/*
 * Before most tasks exist, but after init and the first kernel threads:
 * the switch gives those their counters as it would at run time.
 */
static int __init task_io_stats_setup(void)
{
	task_io_stats_cache = KMEM_CACHE(task_io_stats, SLAB_PANIC);
	if (!task_io_stats_boot)
		return 0;
	if (task_io_stats_set_enabled(true) < 0)
		pr_warn("taskstats_io: no memory for the counters, accounting stays off\n");
	else
		pr_info("taskstats_io: accounting enabled by the command line\n");
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

/*
 * Only reads the pointer: fork or the switch gave the task its counters,
 * or it has none (its allocation failed) and goes uncounted.
 */
void __task_io_stats_submit(struct bio *bio)
{
	struct task_io_stats *s;

	/* A bio submitted from interrupt context belongs to no task. */
	if (!in_task())
		return;
	s = READ_ONCE(current->io_stats);
	if (s)
		task_io_stats_account(s, bio);
}
EXPORT_SYMBOL_IF_KUNIT(__task_io_stats_submit);

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
	s = READ_ONCE(current->io_stats);
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
