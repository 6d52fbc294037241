/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic statistics layer: exploiters report (X, Y) pairs, users decide in
 * debugfs how they are processed and shown. See Documentation/statistics.rst.
 */
#ifndef _LINUX_STATISTIC_H
#define _LINUX_STATISTIC_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct statistic_interface;
struct statistic_data;

/**
 * enum statistic_type - how a statistic processes (X, Y) pairs
 * @STATISTIC_TYPE_VALUE: one counter: total of Y, or of X * Y
 * @STATISTIC_TYPE_RANGE: number (total of Y), minimum, average, maximum of X
 * @STATISTIC_TYPE_LIST: total of Y per discrete X, up to entries_max X values
 * @STATISTIC_TYPE_ARRAY: total of Y per interval of X (linear or log2 scale)
 * @STATISTIC_TYPE_HISTORY: a value or range result per period of time
 * @STATISTIC_TYPE_RAW: a ring of timestamped (X, Y) pairs with serial numbers
 */
enum statistic_type {
	STATISTIC_TYPE_VALUE,
	STATISTIC_TYPE_RANGE,
	STATISTIC_TYPE_LIST,
	STATISTIC_TYPE_ARRAY,
	STATISTIC_TYPE_HISTORY,
	STATISTIC_TYPE_RAW,
};

/**
 * enum statistic_mode - what a value or history statistic accumulates
 * @STATISTIC_MODE_INCREMENTS: the total of Y
 * @STATISTIC_MODE_PRODUCTS: the total of X * Y (signed)
 * @STATISTIC_MODE_RANGE: number, minimum, average and maximum (history only)
 */
enum statistic_mode {
	STATISTIC_MODE_INCREMENTS,
	STATISTIC_MODE_PRODUCTS,
	STATISTIC_MODE_RANGE,
};

/**
 * enum statistic_scale - the X scale of an array statistic
 * @STATISTIC_SCALE_LIN: interval bounds range_min + k * base_interval
 * @STATISTIC_SCALE_LOG2: interval bounds range_min + base_interval * 2^k
 */
enum statistic_scale {
	STATISTIC_SCALE_LIN,
	STATISTIC_SCALE_LOG2,
};

/* The widest range of X: nothing is out of range. */
#define STATISTIC_RANGE_MIN	S64_MIN
#define STATISTIC_RANGE_MAX	S64_MAX

/* Upper limits of entries_max and of the number of array intervals. */
#define STATISTIC_ENTRIES_MAX	65536U

/**
 * struct statistic - one statistic of an interface
 * @active: the data being gathered into while the statistic runs, %NULL
 *	while it is stopped; the only member statistic_add() reads
 *
 * The other members belong to lib/statistic-*.c and are protected by the
 * interface's mutex.
 */
struct statistic {
	struct statistic_data __rcu *active;
	/* private: */
	struct statistic_data *data;
	struct statistic_interface *iface;
	struct list_head node;
	u64 started;
	u64 stopped;
	bool on;
	char *name;
	char *units;
};

#if IS_ENABLED(CONFIG_STATISTICS)

struct statistic_interface *statistic_create_interface(const char *name);
void statistic_interface_remove(struct statistic_interface *iface);
void statistic_interface_set_clock(struct statistic_interface *iface,
				   u64 (*clock)(void));

struct statistic *statistic_create(struct statistic_interface *iface,
				   const char *name, const char *units);
void statistic_remove(struct statistic *stat);

int statistic_define_value(struct statistic *stat, s64 range_min,
			   s64 range_max, enum statistic_mode mode);
int statistic_define_range(struct statistic *stat, s64 range_min,
			   s64 range_max);
int statistic_define_list(struct statistic *stat, s64 range_min,
			  s64 range_max, u32 entries_max);
int statistic_define_array(struct statistic *stat, s64 range_min,
			   s64 range_max, u64 base_interval,
			   enum statistic_scale scale);
int statistic_define_history(struct statistic *stat, s64 range_min,
			     s64 range_max, u32 entries_max, u64 period_us,
			     enum statistic_mode mode);
int statistic_define_raw(struct statistic *stat, s64 range_min,
			 s64 range_max, u32 entries_max);

bool statistic_start(struct statistic *stat);
bool statistic_stop(struct statistic *stat);
int statistic_reset(struct statistic *stat);

void __statistic_add(struct statistic *stat, s64 x, u64 y);

/**
 * statistic_add() - report an (X, Y) pair to a statistic
 * @stat: the statistic
 * @x: the main characteristic, e.g. a request size or a latency
 * @y: its qualifier, e.g. the number of occurrences of @x
 *
 * Context: any, including hard interrupts; never sleeps. The caller must
 * keep @stat alive: no call may run during or after statistic_remove().
 * A stopped statistic costs one predictable branch; a running one updates
 * per-CPU state without locks or shared atomics (except type raw).
 */
static __always_inline void statistic_add(struct statistic *stat, s64 x, u64 y)
{
	if (rcu_access_pointer(stat->active))
		__statistic_add(stat, x, y);
}

/**
 * statistic_running() - is a statistic gathering data?
 * @stat: the statistic
 *
 * For exploiters whose X takes work to compute: skip that work while the
 * statistic is stopped. The answer may be stale by the time it is used;
 * statistic_add() on a statistic stopped meanwhile is harmless.
 *
 * Context: any.
 * Return: true if @stat is on.
 */
static __always_inline bool statistic_running(const struct statistic *stat)
{
	return rcu_access_pointer(stat->active);
}

/**
 * statistic_inc() - report one occurrence of @x to a statistic
 * @stat: the statistic
 * @x: the main characteristic
 *
 * Same as statistic_add(@stat, @x, 1).
 */
static __always_inline void statistic_inc(struct statistic *stat, s64 x)
{
	statistic_add(stat, x, 1);
}

#else /* !CONFIG_STATISTICS */

static inline struct statistic_interface *
statistic_create_interface(const char *name)
{
	return NULL;
}

static inline void statistic_interface_remove(struct statistic_interface *iface) {}
static inline void statistic_interface_set_clock(struct statistic_interface *iface,
						 u64 (*clock)(void)) {}

static inline struct statistic *
statistic_create(struct statistic_interface *iface, const char *name,
		 const char *units)
{
	return NULL;
}

static inline void statistic_remove(struct statistic *stat) {}

static inline int statistic_define_value(struct statistic *stat, s64 range_min,
					 s64 range_max, enum statistic_mode mode)
{
	return 0;
}

static inline int statistic_define_range(struct statistic *stat, s64 range_min,
					 s64 range_max)
{
	return 0;
}

static inline int statistic_define_list(struct statistic *stat, s64 range_min,
					s64 range_max, u32 entries_max)
{
	return 0;
}

static inline int statistic_define_array(struct statistic *stat, s64 range_min,
					 s64 range_max, u64 base_interval,
					 enum statistic_scale scale)
{
	return 0;
}

static inline int statistic_define_history(struct statistic *stat,
					   s64 range_min, s64 range_max,
					   u32 entries_max, u64 period_us,
					   enum statistic_mode mode)
{
	return 0;
}

static inline int statistic_define_raw(struct statistic *stat, s64 range_min,
				       s64 range_max, u32 entries_max)
{
	return 0;
}

static inline bool statistic_start(struct statistic *stat) { return false; }
static inline bool statistic_stop(struct statistic *stat) { return false; }
static inline int statistic_reset(struct statistic *stat) { return 0; }
static inline void statistic_add(struct statistic *stat, s64 x, u64 y) {}
static inline bool statistic_running(const struct statistic *stat) { return false; }
static inline void statistic_inc(struct statistic *stat, s64 x) {}

#endif /* CONFIG_STATISTICS */

#endif /* _LINUX_STATISTIC_H */
