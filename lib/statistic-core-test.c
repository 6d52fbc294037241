// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite statistic-core of the generic statistics layer: life cycle
 * and memory: errors, removal, redefinition under adds, memory only while
 * statistics run and within the limit.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/statistic.h>
#include <linux/string.h>

#include "statistic-test.h"

static void create_errors(struct kunit *test)
{
	int ret;
	struct statistic_interface *iface = new_iface(test);

	new_stat(test, iface, "s");
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "s", "u")), -EEXIST);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "a b", "u")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "a=b", "u")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "", "u")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create(iface, "a", "u v")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create_interface("a/b")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(statistic_create_interface("")), -EINVAL);
	ret = statistic_define_list(NULL, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, -EINVAL, ret);
}

/*
 * A closed layer (booted without debugfs or locked down) refuses every
 * interface with its reason, before it allocates anything.
 */
static void closed_layer_refuses(struct kunit *test)
{
	static const int reasons[] = { -ENODEV, -EPERM };
	unsigned long before;
	unsigned int i;
	int was;

	statistic_data_retire_barrier();	/* earlier cases' frees landed */
	before = statistic_allocated_bytes();
	for (i = 0; i < ARRAY_SIZE(reasons); i++) {
		was = statistic_set_closed(reasons[i]);
		KUNIT_EXPECT_EQ(test, 0, was);
		KUNIT_EXPECT_EQ(test, reasons[i],
				PTR_ERR(statistic_create_interface("kunit-closed")));
		KUNIT_EXPECT_EQ(test, reasons[i],
				PTR_ERR(statistic_create_interface("a/b")));
		statistic_set_closed(was);
	}
	KUNIT_EXPECT_EQ(test, before, statistic_allocated_bytes());
}

static void remove_statistic(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	struct statistic *a = new_stat(test, iface, "a");

	new_stat(test, iface, "b");
	statistic_start(a);
	statistic_remove(a);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "b 0\n");
	KUNIT_EXPECT_EQ(test, -EINVAL, def_write(test, iface, "name=a on=1"));
}

/* Reconfiguration while every CPU adds: RCU keeps each generation alive. */

struct adder {
	struct statistic *stat;
	struct task_struct *task;
	unsigned long rounds;
};

static int adder_fn(void *arg)
{
	struct adder *a = arg;

	while (!kthread_should_stop()) {
		statistic_add(a->stat, (s64)(a->rounds * 7 % 200) - 50, 1);
		WRITE_ONCE(a->rounds, a->rounds + 1);
		cond_resched();
	}
	return 0;
}

static void reconfigure_under_adds(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "c");
	struct adder adders[2] = {};
	unsigned int nr = 0, i;
	const char *text;
	int cpu, ret;

	statistic_interface_set_clock(iface, NULL);	/* real time */
	statistic_start(stat);
	/*
	 * The adders use @adders and @stat: from here on a failure stops them
	 * before the test returns (no KUNIT_ASSERT until they are stopped).
	 */
	for_each_online_cpu(cpu) {
		struct adder *a = &adders[nr];
		struct task_struct *task;

		if (nr == ARRAY_SIZE(adders))
			break;
		a->stat = stat;
		task = kthread_create(adder_fn, a, "statistic-adder/%d", cpu);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_create: %pe", task);
			goto stop;
		}
		a->task = task;
		kthread_bind(task, cpu);
		wake_up_process(task);
		nr++;
	}
	/* reconfiguring does not wait for anything: start once they add */
	for (i = 0; i < nr; i++) {
		unsigned long deadline = jiffies + 10 * HZ;

		/*
		 * A tick's sleep, not usleep_range(): a short hrtimer sleep
		 * that expires before schedule() does not switch (seen under
		 * QEMU -icount), and with PREEMPT_NONE the adder bound to
		 * this CPU would never run.
		 */
		while (!READ_ONCE(adders[i].rounds) &&
		       time_before(jiffies, deadline))
			schedule_timeout_uninterruptible(1);
		if (!READ_ONCE(adders[i].rounds)) {
			KUNIT_FAIL(test, "the adder on CPU %u did not run in 10 s",
				   task_cpu(adders[i].task));
			goto stop;
		}
	}
	for (i = 0; i < 60; i++) {
		switch (i % 6) {
		case 0:
			ret = statistic_define_list(stat, -20, 100, 8);
			break;
		case 1:
			ret = statistic_define_array(stat, 0, 64, 2,
						     STATISTIC_SCALE_LOG2);
			break;
		case 2:
			ret = statistic_define_history(stat, S64_MIN, S64_MAX,
						       4, 1000,
						       STATISTIC_MODE_RANGE);
			break;
		case 3:
			ret = statistic_define_raw(stat, S64_MIN, S64_MAX, 16);
			break;
		case 4:
			ret = statistic_define_range(stat, -10, 10);
			break;
		default:
			ret = statistic_reset(stat);
			break;
		}
		KUNIT_EXPECT_EQ(test, 0, ret);
		if (ret)
			goto stop;
		KUNIT_EXPECT_EQ(test, 0, def_write(test, iface,
						   i & 1 ? "on=1" : "data=reset"));
		/* every read sees whole lines of the current generation */
		text = data_text(test, iface);
		KUNIT_EXPECT_TRUE(test, !*text || (!strncmp(text, "c ", 2) &&
						   text[strlen(text) - 1] == '\n'));
		usleep_range(100, 200);
		cond_resched();
	}
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_GT(test, READ_ONCE(adders[i].rounds), 0UL);
stop:
	for (i = 0; i < nr; i++)
		kthread_stop(adders[i].task);
	/* quiet again: exact arithmetic on the last generation */
	ret = statistic_define_value(stat, S64_MIN, S64_MAX,
				     STATISTIC_MODE_INCREMENTS);
	KUNIT_ASSERT_EQ(test, 0, ret);
	statistic_add(stat, 1, 41);
	statistic_inc(stat, 1);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), "c 42\n");
}

/*
 * A cell is a u64 that its CPU adds to while other CPUs read it: on 32-bit
 * that is two stores, unless the add is one atomic operation. Adds of
 * 2^32 + 1 keep both halves of the sum equal (n << 32 | n), so a reader
 * that sees half of an add shows.
 */
#define TORN_Y	((1ULL << 32) + 1)

struct torn_adder {
	struct statistic *stat;
	unsigned long rounds;
};

static int torn_adder_fn(void *arg)
{
	struct torn_adder *a = arg;

	while (!kthread_should_stop()) {
		statistic_add(a->stat, 1, TORN_Y);
		WRITE_ONCE(a->rounds, a->rounds + 1);
		if (!(a->rounds & 255))
			cond_resched();
	}
	return 0;
}

static void cells_never_torn(struct kunit *test)
{
	unsigned long deadline, reads = 0, torn = 0, changes = 0;
	struct statistic_interface *iface = new_iface(test);
	struct statistic *stat = new_stat(test, iface, "c");
	struct torn_adder a = { .stat = stat };
	struct task_struct *task;
	u64 v, last = 0;
	char *buf;

	buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, 0, statistic_define_value(stat, S64_MIN, S64_MAX,
							STATISTIC_MODE_INCREMENTS));
	KUNIT_ASSERT_EQ(test, 0, statistic_start(stat));
	task = kthread_run(torn_adder_fn, &a, "statistic-torn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));

	deadline = jiffies + msecs_to_jiffies(300);
	while (time_before(jiffies, deadline) || changes < 100) {
		if (statistic_format(iface, false, buf, 128) < 0 ||
		    sscanf(buf, "c %llu", &v) != 1) {
			KUNIT_FAIL(test, "data: %s", buf);
			break;
		}
		reads++;
		if (upper_32_bits(v) != lower_32_bits(v))
			torn++;
		if (v != last) {
			last = v;
			changes++;
		}
		if (time_after(jiffies, deadline + 5 * HZ))
			break;
		if (!(reads & 63))
			cond_resched();
	}
	kthread_stop(task);

	kunit_info(test, "%lu reads, %lu while the adder moved on, %lu adds: %lu torn\n",
		   reads, changes, READ_ONCE(a.rounds), torn);
	/* the adder ran beside the reader, else nothing was tested */
	KUNIT_EXPECT_GE(test, changes, 100UL);
	KUNIT_EXPECT_EQ(test, torn, 0UL);
}

/* Let retired generations and per-CPU blocks be freed (and uncharged). */
static void settle(void)
{
	statistic_data_retire_barrier();
}

/* dm's statistics, as drivers/md/dm-statistic.c defines them. */
static void define_dm_like(struct kunit *test, struct statistic_interface *iface)
{
	KUNIT_ASSERT_EQ(test, 0, statistic_define_list(new_stat(test, iface, "sizes"),
						       0, S64_MAX, 256));
	KUNIT_ASSERT_EQ(test, 0, statistic_define_array(new_stat(test, iface, "lat"),
							0, (1 << 21) - 1, 1,
							STATISTIC_SCALE_LOG2));
	KUNIT_ASSERT_EQ(test, 0, statistic_define_range(new_stat(test, iface, "pending"),
							0, S64_MAX));
	KUNIT_ASSERT_EQ(test, 0,
			statistic_define_history(new_stat(test, iface, "tput"),
						 0, S64_MAX, 60, 1000000,
						 STATISTIC_MODE_PRODUCTS));
	KUNIT_ASSERT_EQ(test, 0, statistic_define_raw(new_stat(test, iface, "raw"),
						      S64_MIN, S64_MAX, 64));
}

/*
 * Memory only while in use: statistics that never ran take no per-CPU
 * memory nor anything their definition sizes; running ones take per-CPU
 * blocks, which stopping folds and frees.
 */
static void memory_while_stopped(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	unsigned long before, running, stopped;

	settle();
	before = statistic_allocated_bytes();
	define_dm_like(test, iface);
	def_write(test, iface, "data=reset");
	settle();
	KUNIT_EXPECT_EQ(test, statistic_allocated_bytes() - before, 0UL);

	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=1"));
	running = statistic_allocated_bytes() - before;
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=0"));
	settle();
	stopped = statistic_allocated_bytes() - before;
	kunit_info(test, "stopped, never run: 0 bytes; running: %lu bytes on %u possible CPUs; stopped: %lu bytes\n",
		   running, num_possible_cpus(), stopped);
	/* every per-CPU block is given back; the folded data stays */
	KUNIT_EXPECT_GT(test, running, stopped);
	KUNIT_EXPECT_GT(test, stopped, 0UL);

	/* a new generation of a stopped statistic has nothing again */
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "data=reset"));
	settle();
	KUNIT_EXPECT_EQ(test, statistic_allocated_bytes() - before, 0UL);
}

/* Stopping folds every CPU's data; starting again adds to it. */
static void stop_start_keeps_data(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	const char *first, *second;
	int i;

	define_dm_like(test, iface);
	test_now = 5ULL * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "data=reset\non=1"));
	for (i = 0; i < 3; i++) {
		struct statistic *stat;

		mutex_lock(&iface->lock);
		list_for_each_entry(stat, &iface->statistics, node) {
			statistic_add(stat, 4096, 1);
			statistic_add(stat, 512, 2);
			statistic_add(stat, -1, 1);
		}
		mutex_unlock(&iface->lock);
		if (i == 0) {
			KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=0"));
			first = data_text(test, iface);
			KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=1"));
			KUNIT_EXPECT_STREQ(test, data_text(test, iface), first);
		}
	}
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=0"));
	second = data_text(test, iface);
	KUNIT_EXPECT_STREQ(test, attr(test, iface, "pending", "hits_out_of_range"), "3");
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "sizes 0x1000 3\nsizes 0x200 6\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "pending 9 512 1706.667 4096\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "lat <=512 6\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "lat <=4096 3\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "tput [6.000000] 15360\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(second, "raw [5.000000] 7 512 2\n"
					   "raw [5.000000] 8 -1 1\n"));
}

/* A definition past the limit fails with ENOMEM and changes nothing. */
static void limit_refuses_and_changes_nothing(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	const char *def, *data;
	unsigned long old;
	int ret;

	define_dm_like(test, iface);
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "name=pending on=1"));
	statistic_add(iface_stat(iface, "pending"), 7, 1);
	def = def_text(test, iface);
	data = data_text(test, iface);
	old = statistic_set_max_allocated_bytes(statistic_allocated_bytes() +
						64 * 1024);
	/* the first line fits, the second does not: neither is applied */
	ret = def_write(test, iface,
			"name=sizes on=1\n"
			"name=tput type=history mode=range period=1 entries_max=65536 on=1");
	statistic_set_max_allocated_bytes(old);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_STREQ(test, def_text(test, iface), def);
	KUNIT_EXPECT_STREQ(test, data_text(test, iface), data);
	KUNIT_EXPECT_EQ(test, 0, def_write(test, iface, "name=sizes on=1"));
}

/*
 * An exploiter's own memory accounting (statistic_interface_set_memory())
 * takes every charge of its interface, and its limit is the one that
 * applies; the layer's counter does not move.
 */
static atomic_long_t own_bytes;
static long own_limit;

static bool own_claim(size_t bytes)
{
	if (atomic_long_add_return(bytes, &own_bytes) > own_limit) {
		atomic_long_sub(bytes, &own_bytes);
		return false;
	}
	return true;
}

static void own_release(size_t bytes)
{
	atomic_long_sub(bytes, &own_bytes);
}

static const struct statistic_memory own_memory = {
	.claim = own_claim,
	.release = own_release,
};

static void own_memory_accounting(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	unsigned long layer;
	struct statistic *a;
	long running;

	statistic_data_retire_barrier();	/* earlier cases settled */
	layer = statistic_allocated_bytes();
	atomic_long_set(&own_bytes, 0);
	own_limit = LONG_MAX;
	statistic_interface_set_memory(iface, &own_memory);
	a = new_stat(test, iface, "a");
	KUNIT_ASSERT_EQ(test, 0, statistic_define_list(a, 0, 100, 1000));
	KUNIT_ASSERT_EQ(test, 0, statistic_start(a));
	running = atomic_long_read(&own_bytes);
	KUNIT_EXPECT_GT(test, running, 0L);
	KUNIT_EXPECT_EQ(test, layer, statistic_allocated_bytes());

	/* its limit, not the layer's, refuses what does not fit */
	own_limit = running;
	KUNIT_EXPECT_EQ(test, -ENOMEM, statistic_reset(a));
	own_limit = LONG_MAX;
	KUNIT_EXPECT_EQ(test, 0, statistic_reset(a));

	/* everything comes back once the retired generations are freed */
	statistic_remove(a);
	statistic_data_retire_barrier();
	KUNIT_EXPECT_EQ(test, 0L, atomic_long_read(&own_bytes));
	KUNIT_EXPECT_EQ(test, layer, statistic_allocated_bytes());
}

/* However many lines a write has, it makes one generation per statistic. */
static void many_lines_one_generation(struct kunit *test)
{
	struct statistic_interface *iface = new_iface(test);
	unsigned long before, peak;
	char *buf, *p;
	int i;

	define_dm_like(test, iface);
	KUNIT_ASSERT_EQ(test, 0, def_write(test, iface, "on=1"));
	settle();
	before = statistic_allocated_bytes();
	buf = kunit_kzalloc(test, 20000 * 11 + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0, p = buf; i < 20000; i++)
		p += sprintf(p, "data=reset\n");
	p[-1] = '\0';
	KUNIT_ASSERT_EQ(test, 0, statistic_definition_write(iface, buf));
	peak = statistic_allocated_bytes();
	kunit_info(test, "20000 data=reset lines: %lu bytes before, %lu after\n",
		   before, peak);
	/* the new generations, the old ones waiting for a grace period */
	KUNIT_EXPECT_LE(test, peak - before, before + PAGE_SIZE);
}

static struct kunit_case statistic_core_cases[] = {
	KUNIT_CASE(create_errors),
	KUNIT_CASE(closed_layer_refuses),
	KUNIT_CASE(remove_statistic),
	KUNIT_CASE(reconfigure_under_adds),
	KUNIT_CASE(cells_never_torn),
	KUNIT_CASE(memory_while_stopped),
	KUNIT_CASE(stop_start_keeps_data),
	KUNIT_CASE(limit_refuses_and_changes_nothing),
	KUNIT_CASE(own_memory_accounting),
	KUNIT_CASE(many_lines_one_generation),
	{}
};

static struct kunit_suite statistic_core_suite = {
	.name = "statistic-core",
	.suite_init = statistic_suite_init,
	.suite_exit = statistic_suite_exit,
	.test_cases = statistic_core_cases,
};

kunit_test_suite(statistic_core_suite);
