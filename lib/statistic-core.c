// SPDX-License-Identifier: GPL-2.0
/*
 * Generic statistics layer: interfaces, statistics, their life cycle and
 * the programming interface.
 *
 * Locking: an interface's mutex serialises everything but adding data.
 * statistic_add() reads stat->active without a lock and without disabling
 * preemption (see <linux/statistic.h>). Every reset or redefinition
 * publishes a new generation of data and frees the old one only after RCU
 * and RCU Tasks grace periods (statistic_data_retire()), so a redefinition
 * never races with an add, not even a preempted one.
 */
#define pr_fmt(fmt) "statistic: " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "statistic-internal.h"

/*
 * statistic_data_retire() relies on RCU Tasks to wait for preempted adders:
 * with preemption, call_rcu_tasks() must not fall back to call_rcu().
 * CONFIG_STATISTICS selects it; an out-of-tree build needs a kernel that has
 * it (every kernel with tracing or BPF does).
 */
#if IS_ENABLED(CONFIG_PREEMPTION) && !IS_ENABLED(CONFIG_TASKS_RCU)
#error "the statistics layer needs CONFIG_TASKS_RCU on a preemptible kernel"
#endif

/* Longest statistic name or units string. */
#define STATISTIC_NAME_MAX	64

u64 statistic_now(const struct statistic_interface *iface)
{
	return iface->clock ? iface->clock() : local_clock();
}

/* What a reader of a stopped statistic looks at: the time it stopped. */
u64 statistic_view_time(const struct statistic *stat, u64 now)
{
	return stat->on ? now : stat->stopped;
}

/* Names and units go into "key=value" lines: no blanks, no '='. */
static bool statistic_word_valid(const char *s, bool may_be_empty)
{
	size_t len = strnlen(s, STATISTIC_NAME_MAX + 1);

	if (len > STATISTIC_NAME_MAX || (!len && !may_be_empty))
		return false;
	for (; *s; s++)
		if (!isgraph(*s) || *s == '=')
			return false;
	return true;
}

/**
 * statistic_interface_alloc() - a new interface with no statistics
 * @name: its name, checked here
 *
 * Context: process context, may sleep.
 * Return: the interface, or an ERR_PTR(): -EINVAL for a bad name, -ENOMEM.
 */
struct statistic_interface *statistic_interface_alloc(const char *name)
{
	struct statistic_interface *iface;

	if (!name || !*name || strchr(name, '/') || strlen(name) > NAME_MAX)
		return ERR_PTR(-EINVAL);
	iface = kzalloc(sizeof(*iface), GFP_KERNEL);
	if (!iface)
		return ERR_PTR(-ENOMEM);
	mutex_init(&iface->lock);
	INIT_LIST_HEAD(&iface->statistics);
	iface->name = kstrdup(name, GFP_KERNEL);
	if (!iface->name) {
		mutex_destroy(&iface->lock);
		kfree(iface);
		return ERR_PTR(-ENOMEM);
	}
	return iface;
}

/**
 * statistic_interface_set_clock() - give an interface its own time source
 * @iface: the interface
 * @clock: returns nanoseconds, never going back; %NULL for local_clock()
 *
 * For exploiters with a time base of their own, and for tests. Call it
 * before creating statistics: existing data keeps the clock it was made
 * with until its next reset or redefinition.
 *
 * Context: process context, may sleep.
 */
void statistic_interface_set_clock(struct statistic_interface *iface,
				   u64 (*clock)(void))
{
	mutex_lock(&iface->lock);
	iface->clock = clock;
	mutex_unlock(&iface->lock);
}
EXPORT_SYMBOL_GPL(statistic_interface_set_clock);

/**
 * statistic_interface_set_memory() - charge an exploiter for the memory
 * @iface: the interface, before statistics are attached to it
 * @mem: the exploiter's accounting (see struct statistic_memory), or
 *	%NULL for the layer's own (current_allocated_bytes)
 *
 * What the interface's statistics take while they run, and what their
 * definitions size, is then charged to @mem and limited by it, not by the
 * layer's max_allocated_bytes: one limit for all of the exploiter's
 * statistics, where two would each allow their share of RAM.
 *
 * Context: process context, may sleep.
 */
void statistic_interface_set_memory(struct statistic_interface *iface,
				    const struct statistic_memory *mem)
{
	mutex_lock(&iface->lock);
	WARN_ON_ONCE(!list_empty(&iface->statistics));
	iface->mem = mem;
	mutex_unlock(&iface->lock);
}
EXPORT_SYMBOL_GPL(statistic_interface_set_memory);

/**
 * statistic_barrier() - wait until what removed statistics held is freed
 *
 * Removals, resets and redefinitions free the old data after RCU and RCU
 * Tasks grace periods, and only then give its memory back to a struct
 * statistic_memory. An exploiter whose struct statistic_memory lives in a
 * module calls this, after removing its interfaces, before the module
 * goes away.
 *
 * Context: process context, may sleep.
 */
void statistic_barrier(void)
{
	statistic_data_retire_barrier();
}
EXPORT_SYMBOL_GPL(statistic_barrier);

/* With iface->lock held. */
static struct statistic *statistic_find(struct statistic_interface *iface,
					const char *name)
{
	struct statistic *stat;

	list_for_each_entry(stat, &iface->statistics, node)
		if (!strcmp(stat->name, name))
			return stat;
	return NULL;
}

/**
 * statistic_create() - attach a statistic to an interface
 * @iface: the interface
 * @name: the statistic's name in the definition and data files; printable,
 *	no blanks, no '=', at most 64 characters, unique in @iface
 * @units: what X and Y are, e.g. "bytes/incidents"; same rules, may be ""
 *
 * The new statistic is of type value (mode=increments, every X in range)
 * and stopped. Give it a sensible default with statistic_define_*().
 *
 * Context: process context, may sleep.
 * Return: the statistic, or an ERR_PTR(): -EINVAL for a bad name or units,
 * -EEXIST if @iface has a statistic of that name, -ENOMEM.
 */
struct statistic *statistic_create(struct statistic_interface *iface,
				   const char *name, const char *units)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_VALUE,
		.mode = STATISTIC_MODE_INCREMENTS,
		.range_min = STATISTIC_RANGE_MIN,
		.range_max = STATISTIC_RANGE_MAX,
	};
	struct statistic *stat;
	int err = -ENOMEM;
	u64 now;

	if (!iface || !name || !units || !statistic_word_valid(name, false) ||
	    !statistic_word_valid(units, true))
		return ERR_PTR(-EINVAL);
	stat = kzalloc(sizeof(*stat), GFP_KERNEL);
	if (!stat)
		return ERR_PTR(-ENOMEM);
	stat->iface = iface;
	stat->name = kstrdup(name, GFP_KERNEL);
	stat->units = kstrdup(units, GFP_KERNEL);
	if (!stat->name || !stat->units)
		goto fail;

	mutex_lock(&iface->lock);
	if (statistic_find(iface, name)) {
		err = -EEXIST;
		goto fail_unlock;
	}
	now = statistic_now(iface);
	stat->data = statistic_data_alloc(&cfg, iface, now);
	if (!stat->data)
		goto fail_unlock;
	stat->started = now;
	stat->stopped = now;
	list_add_tail(&stat->node, &iface->statistics);
	iface->generation++;
	mutex_unlock(&iface->lock);
	return stat;

fail_unlock:
	mutex_unlock(&iface->lock);
fail:
	kfree(stat->units);
	kfree(stat->name);
	kfree(stat);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(statistic_create);

static void statistic_free(struct statistic *stat)
{
	/* an add that loaded ->active before it was cleared may still run */
	statistic_data_retire(stat->data);
	kfree(stat->units);
	kfree(stat->name);
	kfree(stat);
}

/**
 * statistic_remove() - remove a statistic and its data
 * @stat: the statistic, or an ERR_PTR() or %NULL (ignored)
 *
 * The caller must make sure that no statistic_add() on @stat runs or
 * starts during or after this call.
 *
 * Context: process context, may sleep.
 */
void statistic_remove(struct statistic *stat)
{
	struct statistic_interface *iface;

	if (IS_ERR_OR_NULL(stat))
		return;
	iface = stat->iface;
	mutex_lock(&iface->lock);
	list_del(&stat->node);
	WRITE_ONCE(stat->active, 0);
	iface->generation++;
	mutex_unlock(&iface->lock);
	statistic_free(stat);
}
EXPORT_SYMBOL_GPL(statistic_remove);

/**
 * statistic_interface_free() - free an interface and its statistics
 * @iface: the interface, no longer reachable by readers and writers
 *
 * Stops every statistic still attached, as statistic_remove() does.
 *
 * Context: process context, may sleep.
 */
void statistic_interface_free(struct statistic_interface *iface)
{
	struct statistic *stat, *next;

	mutex_lock(&iface->lock);
	list_for_each_entry(stat, &iface->statistics, node)
		WRITE_ONCE(stat->active, 0);
	mutex_unlock(&iface->lock);
	list_for_each_entry_safe(stat, next, &iface->statistics, node) {
		list_del(&stat->node);
		statistic_free(stat);
	}
	mutex_destroy(&iface->lock);
	kfree(iface->name);
	kfree(iface);
}

/**
 * statistic_replace_data() - install a new generation of data
 * @stat: the statistic
 * @data: the new generation
 * @prep: if @stat is on, what running @data takes (statistic_prep_alloc());
 *	emptied
 *
 * Context: @stat's interface mutex held. Cannot fail.
 * Return: the old generation: free it with statistic_data_retire().
 */
struct statistic_data *statistic_replace_data(struct statistic *stat,
					      struct statistic_data *data,
					      struct statistic_prep *prep)
{
	struct statistic_data *old = stat->data;

	lockdep_assert_held(&stat->iface->lock);
	stat->data = data;
	if (stat->on) {
		/* pairs with READ_ONCE() and the address dependency in statistic_add() */
		smp_store_release(&stat->active, statistic_run_start(data, prep));
	}
	stat->iface->generation++;
	return old;
}

/**
 * statistic_set_on() - start or stop gathering data
 * @stat: the statistic
 * @on: start or stop
 * @now: the time to record as started or stopped
 * @prep: to start a stopped statistic, what running its data takes
 *	(statistic_prep_alloc()); emptied. Else unused, may be %NULL.
 *
 * Starting gives the data its per-CPU blocks; stopping folds them into
 * the data's base blocks and frees them.
 *
 * Context: @stat's interface mutex held. Cannot fail.
 */
void statistic_set_on(struct statistic *stat, bool on, u64 now,
		      struct statistic_prep *prep)
{
	lockdep_assert_held(&stat->iface->lock);
	if (on == stat->on)
		return;
	stat->on = on;
	if (on) {
		stat->started = now;
		/* pairs with READ_ONCE() and the address dependency in statistic_add() */
		smp_store_release(&stat->active,
				  statistic_run_start(stat->data, prep));
	} else {
		stat->stopped = now;
		WRITE_ONCE(stat->active, 0);
		statistic_run_stop(stat->data);
	}
	stat->iface->generation++;
}

/**
 * statistic_start() - start gathering data
 * @stat: the statistic
 *
 * Keeps the data gathered so far and allocates the per-CPU blocks the
 * statistic gathers into while it runs. Users can do the same with "on=1".
 *
 * Context: process context, may sleep.
 * Return: 1 if @stat was running already, 0 if it started, -ENOMEM (and
 * it stays stopped) if memory is short or the layer's limit is reached.
 */
int statistic_start(struct statistic *stat)
{
	struct statistic_interface *iface = stat->iface;
	struct statistic_prep prep;
	int err = 1;

	mutex_lock(&iface->lock);
	if (stat->on)
		goto out;
	err = statistic_prep_alloc(stat->data, &prep);
	if (err)
		goto out;
	statistic_set_on(stat, true, statistic_now(iface), &prep);
out:
	mutex_unlock(&iface->lock);
	return err;
}
EXPORT_SYMBOL_GPL(statistic_start);

/**
 * statistic_stop() - stop gathering data
 * @stat: the statistic
 *
 * Keeps the data gathered so far, folded from all CPUs, and frees the
 * per-CPU blocks. Users can do the same with "on=0". Adds already running
 * on other CPUs may be lost.
 *
 * Context: process context, may sleep.
 * Return: whether @stat was running.
 */
bool statistic_stop(struct statistic *stat)
{
	bool was;

	mutex_lock(&stat->iface->lock);
	was = stat->on;
	statistic_set_on(stat, false, statistic_now(stat->iface), NULL);
	mutex_unlock(&stat->iface->lock);
	return was;
}
EXPORT_SYMBOL_GPL(statistic_stop);

/**
 * statistic_commit_config() - reset a statistic, with a new definition
 * @stat: the statistic
 * @cfg: the new definition, or %NULL to keep the current one
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_commit_config(struct statistic *stat,
			    const struct statistic_config *cfg)
{
	struct statistic_interface *iface = stat->iface;
	struct statistic_prep prep = {};
	struct statistic_data *data;
	int err = -ENOMEM;

	if (cfg && statistic_config_check(cfg))
		return -EINVAL;
	mutex_lock(&iface->lock);
	data = statistic_data_alloc(cfg ?: &stat->data->cfg, iface,
				    statistic_now(iface));
	if (!data)
		goto out;
	if (stat->on) {
		err = statistic_prep_alloc(data, &prep);
		if (err) {
			statistic_data_free(data);
			goto out;
		}
	}
	data = statistic_replace_data(stat, data, &prep);
	err = 0;
out:
	mutex_unlock(&iface->lock);
	if (!err)
		statistic_data_retire(data);
	return err;
}

/**
 * statistic_reset() - discard the data gathered so far
 * @stat: the statistic
 *
 * Keeps the definition and the on/off state. Users can do the same with
 * "data=reset".
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM (and nothing changes).
 */
int statistic_reset(struct statistic *stat)
{
	if (IS_ERR_OR_NULL(stat))
		return -EINVAL;
	return statistic_commit_config(stat, NULL);
}
EXPORT_SYMBOL_GPL(statistic_reset);

static int statistic_define(struct statistic *stat,
			    const struct statistic_config *cfg)
{
	if (IS_ERR_OR_NULL(stat))
		return -EINVAL;
	return statistic_commit_config(stat, cfg);
}

/**
 * statistic_define_value() - make a statistic a single counter
 * @stat: the statistic
 * @range_min: smallest X counted; smaller ones count as out of range
 * @range_max: largest X counted; larger ones count as out of range
 * @mode: %STATISTIC_MODE_INCREMENTS: total += Y;
 *	%STATISTIC_MODE_PRODUCTS: total += X * Y
 *
 * Data file: "<name> <total>", the total of products signed.
 * Replaces the definition and discards the data; keeps the on/off state.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_define_value(struct statistic *stat, s64 range_min,
			   s64 range_max, enum statistic_mode mode)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_VALUE, .mode = mode,
		.range_min = range_min, .range_max = range_max,
	};

	return statistic_define(stat, &cfg);
}
EXPORT_SYMBOL_GPL(statistic_define_value);

/**
 * statistic_define_range() - make a statistic a fill level indicator
 * @stat: the statistic
 * @range_min: smallest X counted; smaller ones count as out of range
 * @range_max: largest X counted; larger ones count as out of range
 *
 * Keeps the number of occurrences (the total of Y), and the minimum,
 * average (weighted by Y) and maximum of X. Data file:
 * "<name> <number> <min> <avg> <max>", avg with three decimals, rounded;
 * "<name> 0 0 0.000 0" while empty.
 * Replaces the definition and discards the data; keeps the on/off state.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_define_range(struct statistic *stat, s64 range_min,
			   s64 range_max)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_RANGE,
		.range_min = range_min, .range_max = range_max,
	};

	return statistic_define(stat, &cfg);
}
EXPORT_SYMBOL_GPL(statistic_define_range);

/**
 * statistic_define_list() - make a statistic a histogram of discrete X
 * @stat: the statistic
 * @range_min: smallest X counted; smaller ones count as out of range
 * @range_max: largest X counted; larger ones count as out of range
 * @entries_max: how many distinct X values are kept (1 to 65536); pairs
 *	with further X values count as hits_missed
 *
 * Keeps the total of Y per X, first come first served. Data file: one
 * "<name> 0x<X in hex> <total>" line per X, in order of first appearance.
 * Replaces the definition and discards the data; keeps the on/off state.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_define_list(struct statistic *stat, s64 range_min,
			  s64 range_max, u32 entries_max)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_LIST, .entries_max = entries_max,
		.range_min = range_min, .range_max = range_max,
	};

	return statistic_define(stat, &cfg);
}
EXPORT_SYMBOL_GPL(statistic_define_list);

/**
 * statistic_define_array() - make a statistic a histogram of X intervals
 * @stat: the statistic
 * @range_min: the first bound; smaller X count as out of range
 * @range_max: no bound lies above it; larger X count as out of range
 * @base_interval: width of the intervals (lin), of the first interval (log2)
 * @scale: %STATISTIC_SCALE_LIN: bounds range_min + k * base_interval;
 *	%STATISTIC_SCALE_LOG2: bounds range_min, then range_min +
 *	base_interval * 2^k
 *
 * Keeps the total of Y per interval (bound(k-1), bound(k)]. The first
 * interval holds X = range_min, the last X above the last bound up to
 * range_max. Data file: "<name> <=<bound> <total>" per bound, then
 * "<name> ><last bound> <total>". At most 65536 intervals.
 * Replaces the definition and discards the data; keeps the on/off state.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_define_array(struct statistic *stat, s64 range_min,
			   s64 range_max, u64 base_interval,
			   enum statistic_scale scale)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_ARRAY, .scale = scale,
		.base_interval = base_interval,
		.range_min = range_min, .range_max = range_max,
	};

	return statistic_define(stat, &cfg);
}
EXPORT_SYMBOL_GPL(statistic_define_array);

/**
 * statistic_define_history() - make a statistic a result per period of time
 * @stat: the statistic
 * @range_min: smallest X counted; smaller ones count as out of range
 * @range_max: largest X counted; larger ones count as out of range
 * @entries_max: how many periods are kept (1 to 65536)
 * @period_us: length of a period in microseconds
 * @mode: %STATISTIC_MODE_INCREMENTS or %STATISTIC_MODE_PRODUCTS as for a
 *	value statistic, %STATISTIC_MODE_RANGE as for a range statistic
 *
 * Periods start at the last reset. Data file: one line per period, oldest
 * first, up to the current one: "<name> [<end of period>] <total>" or
 * "<name> [<end of period>] <number> <min> <avg> <max>". Periods without
 * data show zeros. A stopped statistic shows the periods up to its stop.
 * Replaces the definition and discards the data; keeps the on/off state.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_define_history(struct statistic *stat, s64 range_min,
			     s64 range_max, u32 entries_max, u64 period_us,
			     enum statistic_mode mode)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_HISTORY, .mode = mode,
		.entries_max = entries_max, .period_us = period_us,
		.range_min = range_min, .range_max = range_max,
	};

	return statistic_define(stat, &cfg);
}
EXPORT_SYMBOL_GPL(statistic_define_history);

/**
 * statistic_define_raw() - make a statistic a record of (X, Y) pairs
 * @stat: the statistic
 * @range_min: smallest X recorded; smaller ones count as out of range
 * @range_max: largest X recorded; larger ones count as out of range
 * @entries_max: ring size (1 to 65536); the newest pairs overwrite the oldest
 *
 * Every pair gets a timestamp and a serial number (0 after a reset). Data
 * file: "<name> [<time>] <serial> <X> <Y>", oldest first. This type takes
 * a lock per pair: use it for debugging, not on hot paths.
 * Replaces the definition and discards the data; keeps the on/off state.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an invalid definition, -ENOMEM; on error nothing
 * changes.
 */
int statistic_define_raw(struct statistic *stat, s64 range_min,
			 s64 range_max, u32 entries_max)
{
	struct statistic_config cfg = {
		.type = STATISTIC_TYPE_RAW, .entries_max = entries_max,
		.range_min = range_min, .range_max = range_max,
	};

	return statistic_define(stat, &cfg);
}
EXPORT_SYMBOL_GPL(statistic_define_raw);
