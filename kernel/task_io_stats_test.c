// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for per-task block I/O statistics: the histogram buckets,
 * the classification of bios, wait recording, folding, the export of the
 * netlink payload, what task_struct and signal_struct pay for it,
 * which io_schedule() calls count as waits, and which tasks have
 * counters: the hooks never allocate, the switch gives them.
 */

#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/kernfs.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/task_io_stats.h>
#include <linux/taskstats_io_attr.h>

/* The counters of struct task_io_stats, without its syncp. */
#define COUNTERS_SIZE offsetof(struct task_io_stats, syncp)

/* Model: the first bucket whose upper bound exceeds @ns, else the last. */
static unsigned int model_bucket(u64 ns)
{
	unsigned int b;

	for (b = 0; b < TASKSTATS_IO_HIST_BUCKETS - 1; b++) {
		unsigned int shift = b + TASKSTATS_IO_HIST_SHIFT;

		if (ns < (1ULL << shift))
			return b;
	}
	return TASKSTATS_IO_HIST_BUCKETS - 1;
}

static void bucket_edges_test(struct kunit *test)
{
	unsigned int k;
	int d;

	for (k = 0; k < 64; k++) {
		for (d = -1; d <= 1; d++) {
			u64 ns = (1ULL << k) + d;

			KUNIT_EXPECT_EQ_MSG(test, task_io_stats_bucket(ns),
					    model_bucket(ns), "ns=%llu", ns);
		}
	}
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(U64_MAX),
			TASKSTATS_IO_HIST_BUCKETS - 1);
}

static void bucket_known_values_test(struct kunit *test)
{
	/* Written out by hand from the uapi comment, not from the code. */
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(1023), 0U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(1024), 1U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(2047), 1U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(2048), 2U);
	/* 5 ms lies in [2^22, 2^23) ns */
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(5000000), 13U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket((1ULL << 32) - 1), 22U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(1ULL << 32), 23U);
	KUNIT_EXPECT_EQ(test, task_io_stats_bucket(1ULL << 40), 23U);
}

static void submit(struct task_io_stats *s, blk_opf_t opf, unsigned int bytes)
{
	struct bio bio = {};

	bio.bi_opf = opf;
	bio.bi_iter.bi_size = bytes;
	task_io_stats_account(s, &bio);
}

static void account_ops_test(struct kunit *test)
{
	struct task_io_stats s;

	task_io_stats_zero(&s);
	submit(&s, REQ_OP_READ, 4096);
	submit(&s, REQ_OP_READ, 512);
	submit(&s, REQ_OP_WRITE | REQ_SYNC, 65536);
	submit(&s, REQ_OP_DISCARD, 1 << 20);
	submit(&s, REQ_OP_SECURE_ERASE, 4096);
	submit(&s, REQ_OP_WRITE_ZEROES, 8192);

	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_READ], 2ULL);
	KUNIT_EXPECT_EQ(test, s.sectors[TASKSTATS_IO_READ], 9ULL);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_WRITE], 2ULL);
	KUNIT_EXPECT_EQ(test, s.sectors[TASKSTATS_IO_WRITE], 128ULL + 16);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_DISCARD], 2ULL);
	KUNIT_EXPECT_EQ(test, s.sectors[TASKSTATS_IO_DISCARD], 2048ULL + 8);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_FLUSH], 0ULL);
	KUNIT_EXPECT_EQ(test, s.wait_count, 0ULL);
}

static void account_flush_test(struct kunit *test)
{
	struct task_io_stats s;

	task_io_stats_zero(&s);
	/* blkdev_issue_flush(): an empty preflush write is one flush */
	submit(&s, REQ_OP_WRITE | REQ_PREFLUSH, 0);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_FLUSH], 1ULL);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_WRITE], 0ULL);

	/* A data write with preflush is a flush and a write */
	submit(&s, REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA, 4096);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_FLUSH], 2ULL);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_WRITE], 1ULL);
	KUNIT_EXPECT_EQ(test, s.sectors[TASKSTATS_IO_WRITE], 8ULL);

	/* A request-level flush op counts once, with or without the flag */
	submit(&s, REQ_OP_FLUSH, 0);
	submit(&s, REQ_OP_FLUSH | REQ_PREFLUSH, 0);
	KUNIT_EXPECT_EQ(test, s.ops[TASKSTATS_IO_FLUSH], 4ULL);
	KUNIT_EXPECT_EQ(test, s.sectors[TASKSTATS_IO_FLUSH], 0ULL);
}

static void account_ignored_ops_test(struct kunit *test)
{
	struct task_io_stats zero = {}, s;

	task_io_stats_zero(&s);
	submit(&s, REQ_OP_ZONE_RESET, 0);
	submit(&s, REQ_OP_ZONE_OPEN, 0);
	submit(&s, REQ_OP_DRV_IN, 4096);
	submit(&s, REQ_OP_DRV_OUT, 4096);
	KUNIT_EXPECT_MEMEQ(test, &s, &zero, COUNTERS_SIZE);
}

static void record_wait_test(struct kunit *test)
{
	static const u64 waits[] = { 0, 999, 1024, 5000000, 3000000, 1ULL << 33 };
	u64 hist[TASKSTATS_IO_HIST_BUCKETS] = {};
	struct task_io_stats s;
	u64 total = 0, max = 0;
	unsigned int i;

	task_io_stats_zero(&s);
	for (i = 0; i < ARRAY_SIZE(waits); i++) {
		task_io_stats_record_wait(&s, waits[i]);
		total += waits[i];
		max = waits[i] > max ? waits[i] : max;
		hist[model_bucket(waits[i])]++;
	}
	KUNIT_EXPECT_EQ(test, s.wait_count, (u64)ARRAY_SIZE(waits));
	KUNIT_EXPECT_EQ(test, s.wait_total_ns, total);
	KUNIT_EXPECT_EQ(test, s.wait_max_ns, 1ULL << 33);
	KUNIT_EXPECT_EQ(test, s.wait_max_ns, max);
	KUNIT_EXPECT_MEMEQ(test, s.wait_hist, hist, sizeof(hist));
	/* 3 ms and 5 ms: both in [2^21, 2^22) and [2^22, 2^23) ns */
	KUNIT_EXPECT_EQ(test, s.wait_hist[12], 1ULL);
	KUNIT_EXPECT_EQ(test, s.wait_hist[13], 1ULL);
}

/* Per-tgid folding: three threads, one of them already released. */
static void fold_test(struct kunit *test)
{
	/* 5 x 288 bytes: off the stack, whose frames are 1 KiB on 32-bit */
	struct task_io_stats *t, *released, *sum;
	unsigned int i;
	u64 count = 0;

	t = kunit_kcalloc(test, 5, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	released = &t[3];
	sum = &t[4];
	for (i = 0; i < 4; i++)
		task_io_stats_zero(&t[i]);
	submit(&t[0], REQ_OP_READ, 4096);
	task_io_stats_record_wait(&t[0], 2000000);
	submit(&t[1], REQ_OP_WRITE, 8192);
	submit(&t[1], REQ_OP_WRITE | REQ_PREFLUSH, 0);
	task_io_stats_record_wait(&t[1], 7000000);
	task_io_stats_record_wait(&t[1], 100);
	submit(&t[2], REQ_OP_DISCARD, 4096);
	task_io_stats_record_wait(&t[2], 4000000);

	/* t[2] exits: folded into the signal_struct copy */
	task_io_stats_fold(released, &t[2]);
	KUNIT_EXPECT_MEMEQ(test, released, &t[2], COUNTERS_SIZE);

	task_io_stats_fold(sum, released);
	task_io_stats_fold(sum, &t[0]);
	task_io_stats_fold(sum, &t[1]);

	KUNIT_EXPECT_EQ(test, sum->ops[TASKSTATS_IO_READ], 1ULL);
	KUNIT_EXPECT_EQ(test, sum->sectors[TASKSTATS_IO_READ], 8ULL);
	KUNIT_EXPECT_EQ(test, sum->ops[TASKSTATS_IO_WRITE], 1ULL);
	KUNIT_EXPECT_EQ(test, sum->sectors[TASKSTATS_IO_WRITE], 16ULL);
	KUNIT_EXPECT_EQ(test, sum->ops[TASKSTATS_IO_FLUSH], 1ULL);
	KUNIT_EXPECT_EQ(test, sum->ops[TASKSTATS_IO_DISCARD], 1ULL);
	KUNIT_EXPECT_EQ(test, sum->wait_count, 4ULL);
	KUNIT_EXPECT_EQ(test, sum->wait_total_ns, 13000100ULL);
	KUNIT_EXPECT_EQ(test, sum->wait_max_ns, 7000000ULL);
	for (i = 0; i < TASKSTATS_IO_HIST_BUCKETS; i++)
		count += sum->wait_hist[i];
	KUNIT_EXPECT_EQ(test, count, sum->wait_count);
	KUNIT_EXPECT_EQ(test, sum->wait_hist[0], 1ULL);
}

static void export_test(struct kunit *test)
{
	struct taskstats_io out;
	struct task_io_stats s;

	task_io_stats_zero(&s);
	memset(&out, 0xa5, sizeof(out));
	submit(&s, REQ_OP_WRITE, 4096);
	task_io_stats_record_wait(&s, 5000000);
	task_io_stats_export(&out, &s);

	KUNIT_EXPECT_EQ(test, out.version, TASKSTATS_IO_VERSION);
	KUNIT_EXPECT_EQ(test, out.nr_ops, TASKSTATS_IO_NR_OPS);
	KUNIT_EXPECT_EQ(test, out.nr_buckets, TASKSTATS_IO_HIST_BUCKETS);
	KUNIT_EXPECT_EQ(test, out.hist_shift, TASKSTATS_IO_HIST_SHIFT);
	KUNIT_EXPECT_EQ(test, out.ops[TASKSTATS_IO_WRITE], 1ULL);
	KUNIT_EXPECT_EQ(test, out.ops[TASKSTATS_IO_READ], 0ULL);
	KUNIT_EXPECT_EQ(test, out.sectors[TASKSTATS_IO_WRITE], 8ULL);
	KUNIT_EXPECT_EQ(test, out.wait_count, 1ULL);
	KUNIT_EXPECT_EQ(test, out.wait_total_ns, 5000000ULL);
	KUNIT_EXPECT_EQ(test, out.wait_max_ns, 5000000ULL);
	KUNIT_EXPECT_EQ(test, out.wait_hist[13], 1ULL);
	KUNIT_EXPECT_EQ(test, out.wait_hist[12], 0ULL);
	/* Counters alone say nothing of a cgroup. */
	KUNIT_EXPECT_EQ(test, out.cgroup_id, 0ULL);
	/* The wire struct has no implicit padding: v1, then v2's cgroup id. */
	KUNIT_EXPECT_EQ(test, offsetof(struct taskstats_io, cgroup_id),
			8 + 8 * (2 * TASKSTATS_IO_NR_OPS + 3 +
				 TASKSTATS_IO_HIST_BUCKETS));
	KUNIT_EXPECT_EQ(test, sizeof(out),
			offsetof(struct taskstats_io, cgroup_id) + 8);
	KUNIT_EXPECT_EQ(test, TASKSTATS_IO_VERSION, 2);
}

/*
 * A per-pid record names the task's cgroup v2 cgroup by its kernfs node,
 * whose id is the inode number of the cgroup's directory.  The KUnit
 * thread is a kernel thread: it stays in the root cgroup, the first node
 * of its hierarchy (id 1).
 */
static void cgroup_id_test(struct kunit *test)
{
	struct taskstats_io io;
	u64 want = 0;

	memset(&io, 0xa5, sizeof(io));
	taskstats_io_fill_task(&io, current);
	KUNIT_EXPECT_EQ(test, io.version, TASKSTATS_IO_VERSION);
#ifdef CONFIG_CGROUPS
	rcu_read_lock();
	want = kernfs_ino(task_dfl_cgroup(current)->kn);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, want, 1ULL);
#endif
	KUNIT_EXPECT_EQ(test, io.cgroup_id, want);
}

/*
 * On 32-bit a u64 is two stores: every update of a task's counters is one
 * write section of their syncp (two steps of its sequence), which a reader
 * on another CPU retries on.  On 64-bit a counter is one store and the
 * syncp is empty: nothing to check.
 */
static void writer_section_test(struct kunit *test)
{
#if BITS_PER_LONG == 32
	struct task_io_stats s;
	unsigned int seq;

	task_io_stats_zero(&s);
	seq = raw_read_seqcount(&s.syncp.seq);
	submit(&s, REQ_OP_WRITE | REQ_PREFLUSH, 4096);
	KUNIT_EXPECT_EQ(test, raw_read_seqcount(&s.syncp.seq), seq + 2);
	task_io_stats_record_wait(&s, 1000);
	KUNIT_EXPECT_EQ(test, raw_read_seqcount(&s.syncp.seq), seq + 4);
#else
	kunit_skip(test, "64-bit: every counter is one store");
#endif
}

/*
 * A wait of 2^32 + 1 ns keeps both halves of wait_total_ns equal (n waits:
 * n << 32 | n), so a value read half before and half after a store shows.
 */
#define TORN_WAIT_NS	((1ULL << 32) + 1)

struct torn_writer {
	struct task_io_stats *s;
	unsigned long writes;
};

static int torn_writer_fn(void *arg)
{
	struct torn_writer *w = arg;

	while (!kthread_should_stop()) {
		task_io_stats_record_wait(w->s, TORN_WAIT_NS);
		WRITE_ONCE(w->writes, w->writes + 1);
		if (!(w->writes & 255))
			cond_resched();
	}
	return 0;
}

/*
 * A reader copying a task's counters while the task updates them, as a
 * taskstats reply does: never half of a store, and on 32-bit (where the
 * copy retries over whole updates) count and total of the same waits.
 */
static void reader_never_torn_test(struct kunit *test)
{
	unsigned long deadline, reads = 0, torn = 0, mixed = 0, changes = 0;
	struct torn_writer w = {};
	struct task_struct *writer;
	struct task_io_stats snap;
	u64 last = 0;

	w.s = kunit_kmalloc(test, sizeof(*w.s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w.s);
	task_io_stats_zero(w.s);
	writer = kthread_run(torn_writer_fn, &w, "torn_writer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(writer));

	deadline = jiffies + msecs_to_jiffies(300);
	while (time_before(jiffies, deadline) || changes < 100) {
		task_io_stats_read(&snap, w.s);
		reads++;
		if (upper_32_bits(snap.wait_total_ns) !=
		    lower_32_bits(snap.wait_total_ns))
			torn++;
		if (IS_ENABLED(CONFIG_32BIT) &&
		    snap.wait_total_ns != snap.wait_count * TORN_WAIT_NS)
			mixed++;
		if (snap.wait_count != last) {
			last = snap.wait_count;
			changes++;
		}
		if (time_after(jiffies, deadline + msecs_to_jiffies(5000)))
			break;
		if (!(reads & 63))
			cond_resched();
	}
	kthread_stop(writer);

	kunit_info(test, "%lu reads, %lu while the writer moved on, %lu writes: %lu torn, %lu mixed\n",
		   reads, changes, READ_ONCE(w.writes), torn, mixed);
	/* the writer ran beside the reader, else nothing was tested */
	KUNIT_EXPECT_GE(test, changes, 100UL);
	KUNIT_EXPECT_EQ(test, torn, 0UL);
	KUNIT_EXPECT_EQ(test, mixed, 0UL);
}

/* What per-task I/O adds to the structures every task has. */
static void struct_cost_test(struct kunit *test)
{
	size_t task = sizeof_field(struct task_struct, io_stats);
	size_t signal = sizeof_field(struct signal_struct, io_stats);

	kunit_info(test, "task_struct +%zu bytes, signal_struct +%zu bytes, counters %zu bytes once a task does I/O\n",
		   task, signal, sizeof(struct task_io_stats));
	KUNIT_EXPECT_LE(test, task, 16);
	KUNIT_EXPECT_LE(test, signal, 16);
}

static u64 current_waits(void)
{
	struct task_io_stats *s = READ_ONCE(current->io_stats);

	return s ? s->wait_count : 0;
}

/*
 * The cases below run with the accounting on (the suite switches it on)
 * and counters for the test thread, which fork gave it.
 */
static void has_counters(struct kunit *test)
{
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(current->io_stats));
}

/* A real sleep in io_schedule_timeout() is one wait. */
static void real_wait_counted_test(struct kunit *test)
{
	u64 before;

	has_counters(test);
	before = current_waits();
	set_current_state(TASK_UNINTERRUPTIBLE);
	io_schedule_timeout(2);
	KUNIT_EXPECT_EQ(test, current_waits(), before + 1);
}

/*
 * schedule() does not put a task to sleep that is already woken or has a
 * signal pending; if it switches the task out, the task was preempted
 * while runnable, and __schedule() still counts that as a voluntary switch
 * when the task was not TASK_RUNNING. Neither is an I/O wait. Whether the
 * scheduler switches is up to it, so the switch is also emulated: the
 * counter __schedule() would have moved is moved by hand.
 */
static void runnable_switch_not_counted_test(struct kunit *test)
{
	struct task_io_wait w;
	u64 before;

	has_counters(test);
	before = current_waits();

	/* woken before io_schedule(): a switch is involuntary */
	__set_current_state(TASK_RUNNING);
	w.start_ns = 0;
	__task_io_wait_start(&w);
	current->nivcsw++;
	if (w.start_ns)
		__task_io_wait_done(&w);
	current->nivcsw--;
	KUNIT_EXPECT_EQ(test, current_waits(), before);

	/* signal pending: __schedule() keeps it runnable, counts nvcsw */
	set_tsk_thread_flag(current, TIF_SIGPENDING);
	set_current_state(TASK_INTERRUPTIBLE);
	w.start_ns = 0;
	__task_io_wait_start(&w);
	__set_current_state(TASK_RUNNING);
	current->nvcsw++;
	if (w.start_ns)
		__task_io_wait_done(&w);
	current->nvcsw--;
	KUNIT_EXPECT_EQ(test, current_waits(), before);

	/* and the real thing, switched out or not */
	set_current_state(TASK_INTERRUPTIBLE);
	io_schedule();
	__set_current_state(TASK_RUNNING);
	clear_tsk_thread_flag(current, TIF_SIGPENDING);
	KUNIT_EXPECT_EQ(test, current_waits(), before);
}

/*
 * Nothing is allocated in io_schedule(): a task without counters (its
 * allocation at fork failed) is not timed there.
 */
static void wait_never_allocates_test(struct kunit *test)
{
	struct task_io_stats *saved = current->io_stats;

	current->io_stats = NULL;
	set_current_state(TASK_UNINTERRUPTIBLE);
	io_schedule_timeout(2);
	KUNIT_EXPECT_NULL(test, current->io_stats);
	current->io_stats = saved;
}

/* Nor in submit_bio(): a task without counters is not counted there. */
static void submit_never_allocates_test(struct kunit *test)
{
	struct task_io_stats *saved = current->io_stats;
	struct bio bio = {};

	bio.bi_opf = REQ_OP_READ;
	bio.bi_iter.bi_size = 4096;
	current->io_stats = NULL;
	__task_io_stats_submit(&bio);
	KUNIT_EXPECT_NULL(test, current->io_stats);
	current->io_stats = saved;
}

static int sleeper_fn(void *arg)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * A thread forked while the accounting was off has no counters, and has
 * them as soon as the accounting is switched on, before it submits
 * anything; a thread forked while it is on has them from fork.
 */
static void switch_on_gives_counters_test(struct kunit *test)
{
	struct task_struct *before, *after;

	KUNIT_ASSERT_EQ(test, task_io_stats_set_enabled(false), 1);
	before = kthread_run(sleeper_fn, NULL, "tio_before");
	if (IS_ERR(before)) {
		task_io_stats_set_enabled(true);
		KUNIT_FAIL_AND_ABORT(test, "kthread_run: %pe", before);
	}
	KUNIT_EXPECT_NULL(test, READ_ONCE(before->io_stats));

	KUNIT_EXPECT_EQ(test, task_io_stats_set_enabled(true), 1);
	KUNIT_EXPECT_TRUE(test, task_io_stats_enabled());
	KUNIT_EXPECT_NOT_NULL(test, READ_ONCE(before->io_stats));
	KUNIT_EXPECT_EQ(test, task_io_stats_set_enabled(true), 0);

	after = kthread_run(sleeper_fn, NULL, "tio_after");
	if (!IS_ERR(after)) {
		KUNIT_EXPECT_NOT_NULL(test, READ_ONCE(after->io_stats));
		kthread_stop(after);
	}
	kthread_stop(before);
}

/*
 * Every task that existed when the accounting was switched on has its
 * counters, whether it ever submitted a bio or not: here init and
 * kthreadd, forked before the switch (at early_initcall with the boot
 * parameter, else when this suite switched it on).
 */
static void early_tasks_have_counters_test(struct kunit *test)
{
	static const pid_t early[] = { 1, 2 };
	struct task_struct *tsk;
	unsigned int i;
	bool has;

	KUNIT_ASSERT_TRUE(test, task_io_stats_enabled());
	for (i = 0; i < ARRAY_SIZE(early); i++) {
		rcu_read_lock();
		tsk = pid_task(find_vpid(early[i]), PIDTYPE_PID);
		has = tsk && READ_ONCE(tsk->io_stats);
		rcu_read_unlock();
		KUNIT_EXPECT_TRUE_MSG(test, has, "pid %d", early[i]);
	}
}

static bool enabled_before_suite;

static struct kunit_case taskstats_io_cases[] = {
	KUNIT_CASE(bucket_edges_test),
	KUNIT_CASE(bucket_known_values_test),
	KUNIT_CASE(account_ops_test),
	KUNIT_CASE(account_flush_test),
	KUNIT_CASE(account_ignored_ops_test),
	KUNIT_CASE(record_wait_test),
	KUNIT_CASE(fold_test),
	KUNIT_CASE(export_test),
	KUNIT_CASE(writer_section_test),
	KUNIT_CASE(reader_never_torn_test),
	KUNIT_CASE(cgroup_id_test),
	KUNIT_CASE(struct_cost_test),
	KUNIT_CASE(real_wait_counted_test),
	KUNIT_CASE(runnable_switch_not_counted_test),
	KUNIT_CASE(wait_never_allocates_test),
	KUNIT_CASE(submit_never_allocates_test),
	KUNIT_CASE(switch_on_gives_counters_test),
	KUNIT_CASE(early_tasks_have_counters_test),
	{}
};

static int taskstats_io_suite_init(struct kunit_suite *suite)
{
	int err;

	enabled_before_suite = task_io_stats_enabled();
	err = task_io_stats_set_enabled(true);
	return err < 0 ? err : 0;
}

static void taskstats_io_suite_exit(struct kunit_suite *suite)
{
	task_io_stats_set_enabled(enabled_before_suite);
}

static struct kunit_suite taskstats_io_suite = {
	.name = "task_io_stats",
	.suite_init = taskstats_io_suite_init,
	.suite_exit = taskstats_io_suite_exit,
	.test_cases = taskstats_io_cases,
};

kunit_test_suite(taskstats_io_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for per-task block I/O statistics");
MODULE_LICENSE("GPL");
