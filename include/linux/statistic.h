/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic statistics layer: exploiters report (X, Y) pairs, users decide in
 * debugfs how they are processed and shown. See
 * Documentation/core-api/statistics.rst.
 */
#ifndef _LINUX_STATISTIC_H
#define _LINUX_STATISTIC_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/barrier.h>

struct statistic_interface;
struct statistic_data;
struct statistic_cpu;

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

/* Longest history period: a bit over 11 days, in microseconds. */
#define STATISTIC_PERIOD_MAX_US	1000000000000ULL

/*
 * The hot path.
 *
 * A running statistic's ->active word is the per-CPU address of a struct
 * statistic_hot, with the kind of add it takes in the low bits (the block
 * is 8-byte aligned); 0 while the statistic is stopped. So statistic_add()
 * finds everything it needs with one load: stopped costs one branch, and
 * the common kinds update this CPU's cells inline with this_cpu operations.
 * Each update is a single this_cpu operation that is correct even if the
 * adder is preempted and moved to another CPU before it (the readers sum
 * all CPUs), so the hot path does not disable preemption. A generation's
 * blocks are freed only after an RCU and an RCU Tasks grace period, which
 * also wait for adders preempted in the middle of an add.
 */

/**
 * enum statistic_hot_kind - what statistic_add() does with a pair
 * @STATISTIC_HOT_INCREMENTS: value, mode=increments, every X in range:
 *	cells[1] += Y
 * @STATISTIC_HOT_COUNT: value, and arrays with intervals a power of two
 *	wide: one cell per pair, chosen by @params
 * @STATISTIC_HOT_RANGE: range: number, accumulator, minimum, maximum in
 *	cells[1..4]; an X outside this CPU's [minimum, maximum] goes out of
 *	line to __statistic_add(). The other types take this kind too, with
 *	an empty [minimum, maximum]: every X goes out of line.
 */
enum statistic_hot_kind {
	STATISTIC_HOT_INCREMENTS = 1,
	STATISTIC_HOT_COUNT,
	STATISTIC_HOT_RANGE,
};

#define STATISTIC_HOT_KIND_MASK		7UL

/* struct statistic_hot.params of STATISTIC_HOT_COUNT */
#define STATISTIC_HOT_SHIFT_MASK	0x3fULL	/* log2 of base_interval */
#define STATISTIC_HOT_LOG2		0x40ULL	/* log2 scale, else linear */
#define STATISTIC_HOT_PRODUCTS		0x80ULL	/* add X * Y, else Y */
#define STATISTIC_HOT_LAST_SHIFT	32	/* above: the last interval */

/* Cells of a struct statistic_hot. */
enum {
	STATISTIC_CELL_OUT_OF_RANGE,	/* every kind: X out of range */
	STATISTIC_CELL_FIRST,		/* value: the total; array: intervals */
	STATISTIC_CELL_NUM = STATISTIC_CELL_FIRST,	/* range: total of Y */
	STATISTIC_CELL_ACC,		/* range: total of X * Y */
	STATISTIC_CELL_MIN,		/* range: minimum X, S64_MAX if none */
	STATISTIC_CELL_MAX,		/* range: maximum X, S64_MIN if none */
};

/**
 * struct statistic_hot - one CPU's part of a running generation of data
 * @data: the generation (struct statistic_data) this block belongs to
 * @cpu: this CPU's block of the types handled out of line, or %NULL
 * @range_min: the smallest X in range
 * @span: range_max - range_min: X is in range if
 *	(u64)X - @range_min <= @span
 * @params: STATISTIC_HOT_COUNT: how X chooses the cell
 * @cells: see STATISTIC_CELL_*; only this CPU's this_cpu operations write
 *	them, readers sum all CPUs
 *
 * Every CPU has its own copy of @data, @range_min, @span and @params,
 * written before the block is published and read-only afterwards, so that
 * the hot path reads them with this_cpu operations like the cells.
 */
struct statistic_hot {
	void *data;
	struct statistic_cpu *cpu;
	u64 range_min;
	u64 span;
	u64 params;
	u64 cells[];
};

/**
 * struct statistic - one statistic of an interface
 * @active: while the statistic runs, the per-CPU address of its data's
 *	struct statistic_hot plus its enum statistic_hot_kind; 0 while it is
 *	stopped. The only member statistic_add() reads.
 *
 * The other members belong to lib/statistic-*.c and are protected by the
 * interface's mutex.
 */
struct statistic {
	unsigned long active;
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

/**
 * struct statistic_memory - an exploiter's own memory accounting
 * @claim: charge @bytes to it; false (and nothing charged) past its limit
 * @release: give back @bytes that @claim charged; any context
 *
 * For an exploiter that already caps the memory of its statistics (as
 * dm-stats does): an interface's statistics then charge it instead of the
 * layer's own counter, so that both share one limit. The functions must
 * stay callable until statistic_barrier() returns after the interface is
 * removed.
 */
struct statistic_memory {
	bool (*claim)(size_t bytes);
	void (*release)(size_t bytes);
};

#if IS_ENABLED(CONFIG_STATISTICS)

struct statistic_interface *statistic_create_interface(const char *name);
void statistic_interface_remove(struct statistic_interface *iface);
void statistic_interface_set_clock(struct statistic_interface *iface,
				   u64 (*clock)(void));
void statistic_interface_set_memory(struct statistic_interface *iface,
				    const struct statistic_memory *mem);
void statistic_barrier(void);

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

int statistic_start(struct statistic *stat);
bool statistic_stop(struct statistic *stat);
int statistic_reset(struct statistic *stat);

void __statistic_add(struct statistic_hot __percpu *hot, s64 x, u64 y);

/*
 * A cell of a hot block is a u64 that its CPU updates and any CPU reads.
 * On 64-bit one this_cpu operation is one store. On 32-bit it would be
 * two, with interrupts off, and a reader on another CPU could see half of
 * an update: there each update is one atomic64 operation on the cell of
 * the CPU it started on (the adder may move meanwhile: the update stays
 * whole, and readers sum every CPU), and readers load cells with
 * atomic64_read() (statistic_cell_read() in lib/statistic-internal.h).
 */
#ifdef CONFIG_64BIT
#define statistic_cell_add(pcp, val)	this_cpu_add(pcp, val)
#define statistic_cell_this_read(pcp)	this_cpu_read(pcp)
#define statistic_cell_cmpxchg(pcp, old, new) this_cpu_cmpxchg(pcp, old, new)
#else
#define statistic_cell_ptr(pcp)		((atomic64_t *)raw_cpu_ptr(&(pcp)))
#define statistic_cell_add(pcp, val)	\
	atomic64_add(val, statistic_cell_ptr(pcp))
#define statistic_cell_this_read(pcp)	\
	((u64)atomic64_read(statistic_cell_ptr(pcp)))
#define statistic_cell_cmpxchg(pcp, old, new)	\
	((u64)atomic64_cmpxchg(statistic_cell_ptr(pcp), old, new))
#endif

static __always_inline struct statistic_hot __percpu *
statistic_hot(unsigned long active, enum statistic_hot_kind kind)
{
	return (struct statistic_hot __percpu __force *)(active - kind);
}

/*
 * Value and array: the cell is the interval of X (value: clamped to the
 * only one). Chosen with conditional moves rather than branches.
 */
static __always_inline void statistic_hot_count(struct statistic_hot __percpu *hot,
						s64 x, u64 y)
{
	u64 dist = (u64)x - this_cpu_read(hot->range_min);
	u64 params, cell;
	s64 t;

	if (unlikely(dist > this_cpu_read(hot->span))) {
		__statistic_add(hot, x, y);	/* out of range */
		return;
	}
	params = this_cpu_read(hot->params);
	/*
	 * Whole base intervals below X - 1, -1 for X == range_min (arrays on
	 * this path span less than 2^63). Interval k holds (bound(k - 1),
	 * bound(k)]: linear k = t + 1, log2 k = 1 + fls64(t) and 0 for t < 0.
	 */
	t = (s64)(dist - 1) >> (params & STATISTIC_HOT_SHIFT_MASK);
	if (params & STATISTIC_HOT_LOG2)
		cell = (fls64(t) + 1) & ~(t >> 63);
	else
		cell = t + 1;
	cell = min(cell, params >> STATISTIC_HOT_LAST_SHIFT);
	statistic_cell_add(hot->cells[STATISTIC_CELL_FIRST + cell],
			   params & STATISTIC_HOT_PRODUCTS ? (u64)x * y : y);
}

/*
 * Range: X within this CPU's minimum and maximum (so in range, too) only
 * adds to the accumulator and the number; the rest is out of line.
 */
static __always_inline void statistic_hot_range(struct statistic_hot __percpu *hot,
						s64 x, u64 y)
{
	if (unlikely(x < (s64)statistic_cell_this_read(hot->cells[STATISTIC_CELL_MIN]) ||
		     x > (s64)statistic_cell_this_read(hot->cells[STATISTIC_CELL_MAX]))) {
		__statistic_add(hot, x, y);
		return;
	}
	statistic_cell_add(hot->cells[STATISTIC_CELL_ACC], (u64)x * y);
	smp_wmb();	/* pairs with smp_rmb() in the readers */
	statistic_cell_add(hot->cells[STATISTIC_CELL_NUM], y);
}

/**
 * statistic_add() - report an (X, Y) pair to a statistic
 * @stat: the statistic
 * @x: the main characteristic, e.g. a request size or a latency
 * @y: its qualifier, e.g. the number of occurrences of @x
 *
 * Context: any, including hard interrupts; never sleeps. The caller must
 * keep @stat alive: no call may run during or after statistic_remove().
 * A stopped statistic costs one load and one predictable branch; a running
 * value, range or array statistic updates this CPU's cells inline, without
 * locks, shared atomics or disabling preemption; the other types, X out of
 * range, and arrays whose base_interval is not a power of two, with more
 * than 512 intervals or spanning 2^63 or more are handled out of line.
 * Inlined, it is about 160 bytes of x86-64 code per call site.
 */
static __always_inline void statistic_add(struct statistic *stat, s64 x, u64 y)
{
	/* pairs with smp_store_release() in statistic_publish() */
	unsigned long active = READ_ONCE(stat->active);
	unsigned long kind = active & STATISTIC_HOT_KIND_MASK;
	struct statistic_hot __percpu *hot;

	if (!active)
		return;
	if (kind == STATISTIC_HOT_RANGE) {
		statistic_hot_range(statistic_hot(active, STATISTIC_HOT_RANGE),
				    x, y);
	} else if (kind == STATISTIC_HOT_COUNT) {
		statistic_hot_count(statistic_hot(active, STATISTIC_HOT_COUNT),
				    x, y);
	} else {
		hot = statistic_hot(active, STATISTIC_HOT_INCREMENTS);
		statistic_cell_add(hot->cells[STATISTIC_CELL_FIRST], y);
	}
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
	return READ_ONCE(stat->active);
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
static inline void statistic_interface_set_memory(struct statistic_interface *iface,
						  const struct statistic_memory *mem) {}
static inline void statistic_barrier(void) {}

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

static inline int statistic_start(struct statistic *stat) { return 0; }
static inline bool statistic_stop(struct statistic *stat) { return false; }
static inline int statistic_reset(struct statistic *stat) { return 0; }
static inline void statistic_add(struct statistic *stat, s64 x, u64 y) {}
static inline bool statistic_running(const struct statistic *stat) { return false; }
static inline void statistic_inc(struct statistic *stat, s64 x) {}

#endif /* CONFIG_STATISTICS */

#endif /* _LINUX_STATISTIC_H */
