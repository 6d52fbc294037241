// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark of statistic_add(): the cost of one call per statistic
 * type, running and stopped, against a bare this_cpu_add() measured in the
 * same run, on one CPU and on every online CPU at once.
 *
 *   echo 1 > /sys/kernel/debug/statistic_bench/run     (takes a while)
 *   cat /sys/kernel/debug/statistic_bench/run          (the table)
 *
 * Module parameters: ops (calls per timed batch, default 1024) and batches
 * (timed batches per case, default 101). Each batch times ops calls with
 * get_cycles() and preemption disabled; a case's cost is the median batch
 * divided by ops. Batches of all cases are interleaved, so that slow phases
 * of the machine hit every case alike. On several CPUs, one kthread pinned
 * per CPU runs the same case at the same time (they meet at a barrier
 * before every batch), and each CPU's median is reported.
 *
 * Two more rows per hot type (value, array) time a running statistic_add()
 * inside guard(rcu) and inside guard(preempt): what each call would pay if
 * the layer kept its adders in RCU read-side sections (or with preemption
 * off) instead of retiring memory after an RCU Tasks grace period.
 *
 * The statistics live in the interface "statistic_bench", whose data file
 * shows what the benchmark added (run_value counts every call).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cleanup.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/statistic.h>
#include <linux/timex.h>
#include <linux/uaccess.h>

static unsigned int ops = 1024;
module_param(ops, uint, 0644);
MODULE_PARM_DESC(ops, "calls per timed batch (10 to 1000000)");

static unsigned int batches = 101;
module_param(batches, uint, 0644);
MODULE_PARM_DESC(batches, "timed batches per case and CPU (3 to 10001)");

/* X values cycle through 0..BENCH_X_MASK: every list entry, many intervals */
#define BENCH_X_MASK	1023
/* listfull: a list of so many entries, full after the first X values */
#define BENCH_LIST_FULL	16
#define BENCH_TYPES	7
#define BENCH_REPORT_MAX	(8 * PAGE_SIZE)

static const char * const bench_type_names[BENCH_TYPES] = {
	"value", "range", "list", "array", "history", "raw", "listfull",
};

/* the running statistics the guarded cases add to: value and array */
static const unsigned int bench_guarded_types[] = { 0, 3 };
#define BENCH_GUARDS	2	/* guard(rcu), guard(preempt) */

/*
 * Cases: the empty loop, this_cpu_add(), this_cpu_add() in a function of
 * its own (what any call costs), then each type running, stopped, then
 * value and array running under each guard.
 */
enum {
	BENCH_EMPTY,
	BENCH_BASE,
	BENCH_CALL,
	BENCH_STATS,
	BENCH_GUARDED = BENCH_STATS + 2 * BENCH_TYPES,
	BENCH_CASES = BENCH_GUARDED +
		      ARRAY_SIZE(bench_guarded_types) * BENCH_GUARDS,
};

static DEFINE_PER_CPU(unsigned long, bench_counter);
static DEFINE_MUTEX(bench_lock);	/* one run at a time; the report */
static struct statistic_interface *bench_iface;
static struct statistic *bench_stats[2 * BENCH_TYPES];
static struct dentry *bench_dir;
static char *bench_report;
static size_t bench_report_len;

static noinline void bench_loop_empty(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned long x = i & BENCH_X_MASK;

		/* keep the loop and its X: what the other loops also pay */
		asm volatile("" : : "r" (x));
	}
}

static noinline void bench_loop_base(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		this_cpu_add(bench_counter, i & BENCH_X_MASK);
}

static noinline void bench_add_called(unsigned long x)
{
	this_cpu_add(bench_counter, x);
}

static noinline void bench_loop_call(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		bench_add_called(i & BENCH_X_MASK);
}

static noinline void bench_loop_stat(struct statistic *stat, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		statistic_add(stat, i & BENCH_X_MASK, 1);
}

/* Each report in an RCU read-side section of its own. */
static noinline void bench_loop_stat_rcu(struct statistic *stat, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		guard(rcu)();
		statistic_add(stat, i & BENCH_X_MASK, 1);
	}
}

/* Each report with preemption disabled around it. */
static noinline void bench_loop_stat_preempt(struct statistic *stat,
					     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		guard(preempt)();
		statistic_add(stat, i & BENCH_X_MASK, 1);
	}
}

/* Guarded case @g (0-based): its statistic; @rcu: under guard(rcu). */
static struct statistic *bench_guarded_stat(unsigned int g, bool *rcu)
{
	*rcu = g % BENCH_GUARDS == 0;
	return bench_stats[bench_guarded_types[g / BENCH_GUARDS]];
}

/* Ticks of one batch of case @c. */
static u64 bench_batch(unsigned int c, unsigned int n)
{
	struct statistic *stat = NULL;
	cycles_t t0, t1;
	bool rcu = false;

	if (c >= BENCH_GUARDED)
		stat = bench_guarded_stat(c - BENCH_GUARDED, &rcu);
	preempt_disable();
	t0 = get_cycles();
	if (c == BENCH_EMPTY)
		bench_loop_empty(n);
	else if (c == BENCH_BASE)
		bench_loop_base(n);
	else if (c == BENCH_CALL)
		bench_loop_call(n);
	else if (c < BENCH_GUARDED)
		bench_loop_stat(bench_stats[c - BENCH_STATS], n);
	else if (rcu)
		bench_loop_stat_rcu(stat, n);
	else
		bench_loop_stat_preempt(stat, n);
	t1 = get_cycles();
	preempt_enable();
	return t1 - t0;
}

struct bench_run {
	unsigned int nthreads;
	unsigned int ops;
	unsigned int batches;
	atomic_t arrived;
	atomic_t running;
	struct completion done;
	u64 *ticks;	/* [thread][case][batch] */
};

struct bench_thread {
	struct bench_run *run;
	unsigned int index;
};

/* Every thread arrives before any starts the next batch. */
static void bench_barrier(struct bench_run *run, unsigned int *round)
{
	int target = ++*round * run->nthreads;
	unsigned int spins = 0;

	atomic_inc(&run->arrived);
	while (atomic_read(&run->arrived) < target) {
		cpu_relax();
		if (!(++spins & 0xffff))
			cond_resched();
	}
}

static int bench_thread_fn(void *arg)
{
	struct bench_thread *t = arg;
	struct bench_run *run = t->run;
	u64 *ticks = run->ticks + (size_t)t->index * BENCH_CASES * run->batches;
	unsigned int round = 0, b, i, c;

	for (b = 0; b < run->batches; b++) {
		for (i = 0; i < BENCH_CASES; i++) {
			/* rotate the order so no case always follows another */
			c = (i + b) % BENCH_CASES;
			bench_barrier(run, &round);
			ticks[c * run->batches + b] = bench_batch(c, run->ops);
		}
		cond_resched();
	}
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	return 0;
}

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Median ticks per call of one thread and case, in hundredths. */
static u64 bench_median(struct bench_run *run, unsigned int thread,
			unsigned int c)
{
	u64 *v = run->ticks + ((size_t)thread * BENCH_CASES + c) * run->batches;

	sort(v, run->batches, sizeof(*v), bench_cmp_u64, NULL);
	return div_u64(v[run->batches / 2] * 100, run->ops);
}

/* Runs one kthread on each CPU of @cpus; fills run->ticks. */
static int bench_run_on(struct bench_run *run, const struct cpumask *cpus)
{
	struct task_struct *tasks[NR_CPUS > 64 ? 64 : NR_CPUS];
	struct bench_thread *threads;
	unsigned int n = 0, i;
	int cpu, err = 0;

	threads = kcalloc(run->nthreads, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	atomic_set(&run->arrived, 0);
	atomic_set(&run->running, run->nthreads);
	init_completion(&run->done);
	for_each_cpu(cpu, cpus) {
		threads[n].run = run;
		threads[n].index = n;
		tasks[n] = kthread_create_on_cpu(bench_thread_fn, &threads[n],
						 cpu, "statistic_bench/%u");
		if (IS_ERR(tasks[n])) {
			err = PTR_ERR(tasks[n]);
			break;
		}
		n++;
	}
	if (err) {
		/* never woken: they exit without running the function */
		for (i = 0; i < n; i++)
			kthread_stop(tasks[i]);
		kfree(threads);
		return err;
	}
	for (i = 0; i < n; i++)
		wake_up_process(tasks[i]);
	wait_for_completion(&run->done);
	kfree(threads);
	return 0;
}

static void bench_print_hundredths(struct seq_buf *s, u64 v, int width)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu.%02llu", div_u64(v, 100),
		 v - div_u64(v, 100) * 100);
	seq_buf_printf(s, " %*s", width, num);
}

/* ratio of a to b, in hundredths */
static u64 bench_ratio(u64 a, u64 b)
{
	return b ? div64_u64(a * 100 + b / 2, b) : 0;
}

static const char *bench_case_name(unsigned int c, const char **state)
{
	*state = "";
	if (c == BENCH_EMPTY)
		return "(empty loop)";
	if (c == BENCH_BASE)
		return "this_cpu_add";
	if (c == BENCH_CALL)
		return "(called)";
	if (c >= BENCH_GUARDED) {
		bool rcu;

		c -= BENCH_GUARDED;
		bench_guarded_stat(c, &rcu);
		*state = rcu ? "rcu" : "preempt";
		return bench_type_names[bench_guarded_types[c / BENCH_GUARDS]];
	}
	c -= BENCH_STATS;
	*state = c < BENCH_TYPES ? "running" : "stopped";
	return bench_type_names[c % BENCH_TYPES];
}

static int bench_report_make(struct bench_run *one, struct bench_run *all)
{
	u64 med1[BENCH_CASES], medn[BENCH_CASES], worst, m;
	unsigned int c, t;
	struct seq_buf s;
	char *buf;

	buf = kmalloc(BENCH_REPORT_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	seq_buf_init(&s, buf, BENCH_REPORT_MAX);
	for (c = 0; c < BENCH_CASES; c++)
		med1[c] = bench_median(one, 0, c);

	seq_buf_printf(&s,
		       "# get_cycles() ticks per call: median of %u batches of %u calls\n",
		       one->batches, one->ops);
	seq_buf_printf(&s,
		       "# ratio: over this_cpu_add(); 2cpu/1cpu: worst of %u CPUs at once over 1\n",
		       all->nthreads);
	seq_buf_printf(&s, "%-13s %-8s %8s %6s", "type", "state", "1cpu", "ratio");
	for (t = 0; t < all->nthreads; t++) {
		char col[16];

		snprintf(col, sizeof(col), "cpu%u/%u", t, all->nthreads);
		seq_buf_printf(&s, " %8s", col);
	}
	seq_buf_printf(&s, " %6s %9s\n", "ratio", "2cpu/1cpu");

	/* worst CPU of the run on all CPUs, per case */
	for (c = 0; c < BENCH_CASES; c++) {
		medn[c] = 0;
		for (t = 0; t < all->nthreads; t++)
			medn[c] = max(medn[c], bench_median(all, t, c));
	}
	for (c = 0; c < BENCH_CASES; c++) {
		const char *state, *name = bench_case_name(c, &state);

		seq_buf_printf(&s, "%-13s %-8s", name, state);
		bench_print_hundredths(&s, med1[c], 8);
		bench_print_hundredths(&s, bench_ratio(med1[c], med1[BENCH_BASE]), 6);
		worst = 0;
		for (t = 0; t < all->nthreads; t++) {
			m = bench_median(all, t, c);
			worst = max(worst, m);
			bench_print_hundredths(&s, m, 8);
		}
		bench_print_hundredths(&s, bench_ratio(worst, medn[BENCH_BASE]), 6);
		bench_print_hundredths(&s, bench_ratio(worst, med1[c]), 9);
		seq_buf_putc(&s, '\n');
	}
	if (seq_buf_has_overflowed(&s)) {
		kfree(buf);
		return -EOVERFLOW;
	}
	kfree(bench_report);
	bench_report = buf;
	bench_report_len = seq_buf_used(&s);
	return 0;
}

static int bench_run_all(void)
{
	struct bench_run one = { .nthreads = 1 }, all = {};
	unsigned int n = min_t(unsigned int, num_online_cpus(), 64);
	cpumask_var_t cpus;
	int cpu, err = -ENOMEM;

	if (ops < 10 || ops > 1000000 || batches < 3 || batches > 10001) {
		pr_warn("ops must be 10 to 1000000, batches 3 to 10001\n");
		return -EINVAL;
	}
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	one.ops = ops;
	one.batches = batches;
	all = one;
	all.nthreads = n;
	one.ticks = kvcalloc((size_t)BENCH_CASES * batches, sizeof(u64), GFP_KERNEL);
	all.ticks = kvcalloc((size_t)n * BENCH_CASES * batches, sizeof(u64), GFP_KERNEL);
	if (!one.ticks || !all.ticks)
		goto out;

	for_each_online_cpu(cpu) {
		if (cpumask_weight(cpus) == n)
			break;
		cpumask_set_cpu(cpu, cpus);
	}
	err = bench_run_on(&one, cpumask_of(cpumask_first(cpus)));
	if (!err)
		err = bench_run_on(&all, cpus);
	if (!err)
		err = bench_report_make(&one, &all);
out:
	kvfree(one.ticks);
	kvfree(all.ticks);
	free_cpumask_var(cpus);
	return err;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	int err;

	mutex_lock(&bench_lock);
	err = bench_run_all();
	mutex_unlock(&bench_lock);
	return err ?: len;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_lock);
	if (!bench_report)
		ret = -ENODATA;
	else
		ret = simple_read_from_buffer(ubuf, len, ppos, bench_report,
					      bench_report_len);
	mutex_unlock(&bench_lock);
	return ret;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.read = bench_read,
	.write = bench_write,
	.llseek = default_llseek,
};

static int bench_define(struct statistic *stat, unsigned int type)
{
	switch (type) {
	case 0:
		return statistic_define_value(stat, STATISTIC_RANGE_MIN,
					      STATISTIC_RANGE_MAX,
					      STATISTIC_MODE_INCREMENTS);
	case 1:
		return statistic_define_range(stat, STATISTIC_RANGE_MIN,
					      STATISTIC_RANGE_MAX);
	case 2:
		return statistic_define_list(stat, STATISTIC_RANGE_MIN,
					     STATISTIC_RANGE_MAX,
					     BENCH_X_MASK + 1);
	case 3:
		/* as the dm latencies: log2 intervals from 0 */
		return statistic_define_array(stat, 0, BENCH_X_MASK, 1,
					      STATISTIC_SCALE_LOG2);
	case 4:
		return statistic_define_history(stat, STATISTIC_RANGE_MIN,
						STATISTIC_RANGE_MAX, 1024,
						USEC_PER_SEC,
						STATISTIC_MODE_INCREMENTS);
	case 5:
		return statistic_define_raw(stat, STATISTIC_RANGE_MIN,
					    STATISTIC_RANGE_MAX, 4096);
	default:
		/* 1008 of every 1024 adds an X the full list misses */
		return statistic_define_list(stat, STATISTIC_RANGE_MIN,
					     STATISTIC_RANGE_MAX,
					     BENCH_LIST_FULL);
	}
}

static int __init statistic_bench_init(void)
{
	unsigned int i;
	char name[32];
	int err;

	bench_iface = statistic_create_interface(KBUILD_MODNAME);
	if (IS_ERR(bench_iface))
		return PTR_ERR(bench_iface);
	for (i = 0; i < 2 * BENCH_TYPES; i++) {
		struct statistic *stat;

		snprintf(name, sizeof(name), "%s_%s",
			 i < BENCH_TYPES ? "run" : "stop",
			 bench_type_names[i % BENCH_TYPES]);
		stat = statistic_create(bench_iface, name, "x/calls");
		if (IS_ERR(stat)) {
			err = PTR_ERR(stat);
			goto fail;
		}
		bench_stats[i] = stat;
		err = bench_define(stat, i % BENCH_TYPES);
		if (err)
			goto fail;
		if (i < BENCH_TYPES)
			statistic_start(stat);
	}
	bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_fops);
	return 0;

fail:
	statistic_interface_remove(bench_iface);
	return err;
}
module_init(statistic_bench_init);

static void __exit statistic_bench_exit(void)
{
	debugfs_remove(bench_dir);
	statistic_interface_remove(bench_iface);
	kfree(bench_report);
}
module_exit(statistic_bench_exit);

MODULE_DESCRIPTION("Microbenchmark of statistic_add()");
MODULE_LICENSE("GPL");
