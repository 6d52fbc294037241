/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic statistics layer: what its parts (core, types, definition parser,
 * debugfs files) share. Nothing here is an interface for exploiters.
 */
#ifndef _LIB_STATISTIC_INTERNAL_H
#define _LIB_STATISTIC_INTERNAL_H

#include <asm/local64.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>
#include <linux/statistic.h>

struct seq_file;
struct dentry;

/**
 * struct statistic_config - everything a user or exploiter defines
 * @type: enum statistic_type
 * @mode: enum statistic_mode (value, history)
 * @scale: enum statistic_scale (array)
 * @range_min: smallest X of interest
 * @range_max: largest X of interest
 * @entries_max: list entries, history periods or raw pairs kept
 * @base_interval: width of the first interval (array)
 * @period_us: length of one history period in microseconds
 */
struct statistic_config {
	enum statistic_type type;
	enum statistic_mode mode;
	enum statistic_scale scale;
	s64 range_min;
	s64 range_max;
	u32 entries_max;
	u64 base_interval;
	u64 period_us;
};

/*
 * Load a cell of a hot block that its CPU may be updating: whole, on
 * 32-bit too (see statistic_cell_add() in <linux/statistic.h>).
 */
static inline u64 statistic_cell_read(const u64 *cell)
{
#ifdef CONFIG_64BIT
	return READ_ONCE(*cell);
#else
	return atomic64_read((const atomic64_t *)cell);
#endif
}

/*
 * Per-CPU state of the types handled out of line (list, history, arrays
 * too big for the per-CPU allocator's liking). Only its own CPU writes it,
 * with preemption disabled and local64 operations that are safe against
 * interrupts on that CPU; readers on other CPUs fold all CPUs' blocks.
 */
struct statistic_cpu {
	local64_t missed;
	/* history: the period this CPU adds to, cached; see history_slot() */
	u64 epoch;
	u64 epoch_end;
	unsigned int slot;
	local64_t cells[];
};

/* Offsets of the fields of a history range result within its cells. */
enum {
	RANGE_NUM,
	RANGE_ACC,
	RANGE_MIN,
	RANGE_MAX,
	RANGE_CELLS,
};

struct statistic_list_entry {
	struct hlist_node node;
	s64 x;
};

/* The X values a list statistic has admitted, in order of first sight. */
struct statistic_list {
	raw_spinlock_t lock;
	unsigned int used;
	unsigned int hash_bits;
	struct hlist_head *buckets;
	struct statistic_list_entry entries[];
};

struct statistic_raw_entry {
	u64 time;
	u64 serial;
	s64 x;
	u64 y;
};

/* A ring of entries_max pairs; serial numbers start at 0 on reset. */
struct statistic_raw {
	raw_spinlock_t lock;
	u64 next_serial;
	unsigned int head;
	struct statistic_raw_entry ring[];
};

/* Arrays with more intervals keep them in struct statistic_cpu blocks. */
#define STATISTIC_HOT_CELLS_MAX	512U

/**
 * struct statistic_run - the per-CPU blocks of a running statistic
 * @hot: per-CPU hot blocks; each points to its CPU's struct statistic_cpu
 *	block (list, history, big arrays), if the type has one
 * @data: the generation they gather into
 * @mem: where @charged is charged (the generation's, which may be freed
 *	first)
 * @charged: bytes charged for them (statistic_charge())
 * @rcu: for freeing once no add can still use them
 *
 * Allocated when a statistic is switched on, folded into the
 * generation's base blocks and freed when it is switched off: a stopped
 * statistic has no per-CPU memory.
 */
struct statistic_run {
	struct statistic_hot __percpu *hot;
	struct statistic_data *data;
	const struct statistic_memory *mem;
	size_t charged;
	struct rcu_head rcu;
};

/**
 * struct statistic_data - one generation of a statistic's data
 * @run: the per-CPU blocks while the statistic runs, else %NULL
 * @base_hot: what earlier runs of this generation gathered, folded from
 *	all CPUs into one block laid out as a CPU's hot block; %NULL until
 *	the generation first runs
 * @base_cpu: the same for the struct statistic_cpu blocks, or %NULL
 * @kind: enum statistic_hot_kind, from @cfg
 * @span: range_max - range_min (as u64): X is in range if
 *	(u64)X - (u64)range_min <= @span
 * @params: struct statistic_hot.params of STATISTIC_HOT_COUNT
 * @hot_cells: cells of a hot block after the out of range counter
 * @cfg: the definition it was made for
 * @ncells: cells per struct statistic_cpu block, 0 if the type has none
 * @nbuckets: array: intervals including the last ">" one
 * @shift: array: log2 of base_interval if it is a power of two, else -1
 * @stride: history: cells per period slot (tag plus result)
 * @period: history: period in nanoseconds
 * @origin: the time of the reset that made this generation
 * @clock: the interface's clock
 * @list: list: admitted X values, from the first run on
 * @raw: raw: the ring, from the first run on
 * @mem: where memory is charged: the interface's, %NULL for the layer's
 * @charged: bytes charged for the base blocks, @list and @raw
 * @rcu: for statistic_data_retire()
 *
 * A new generation replaces the old one on every reset or redefinition;
 * adds still running on the old one finish before it is freed. Until it
 * first runs, a generation is this structure alone.
 */
struct statistic_data {
	struct statistic_run *run;
	struct statistic_hot *base_hot;
	struct statistic_cpu *base_cpu;
	unsigned int kind;
	u64 span;
	u64 params;
	unsigned int hot_cells;
	struct statistic_config cfg;
	unsigned int ncells;
	unsigned int nbuckets;
	int shift;
	unsigned int stride;
	u64 period;
	u64 origin;
	u64 (*clock)(void);
	struct statistic_list *list;
	struct statistic_raw *raw;
	const struct statistic_memory *mem;
	size_t charged;
	struct rcu_head rcu;
};

/* The time of @data's clock: the interface's, else local_clock(). */
static inline u64 statistic_data_now(const struct statistic_data *data)
{
	return data->clock ? data->clock() : local_clock();
}

/* A history range slot, empty. */
static inline void statistic_range_init(local64_t *cells)
{
	local64_set(&cells[RANGE_NUM], 0);
	local64_set(&cells[RANGE_ACC], 0);
	local64_set(&cells[RANGE_MIN], S64_MAX);
	local64_set(&cells[RANGE_MAX], S64_MIN);
}

/**
 * struct statistic_prep - what running a generation needs, allocated
 *	before anything changes
 * @run: the per-CPU blocks
 * @base_hot: base hot block, if the generation has none yet
 * @base_cpu: base statistic_cpu block, if needed and not there yet
 * @list: list entries, if needed and not there yet
 * @raw: raw ring, if needed and not there yet
 * @mem: where @charged is charged (statistic_data.mem)
 * @charged: bytes charged for the four above
 */
struct statistic_prep {
	struct statistic_run *run;
	struct statistic_hot *base_hot;
	struct statistic_cpu *base_cpu;
	struct statistic_list *list;
	struct statistic_raw *raw;
	const struct statistic_memory *mem;
	size_t charged;
};

/**
 * struct statistic_interface - a debugfs directory of statistics
 * @lock: protects @statistics and every statistic's definition, data
 *	pointer, on/off state and timestamps
 * @statistics: in order of creation
 * @generation: bumped whenever a statistic's data is replaced or the list
 *	changes, so that data file readers resume safely
 * @clock: time source, local_clock() unless an exploiter sets its own
 * @mem: the exploiter's memory accounting, %NULL for the layer's own
 * @dir: the debugfs directory
 * @name: the directory's name
 */
struct statistic_interface {
	struct mutex lock;	/* see @lock above */
	struct list_head statistics;
	u64 generation;
	u64 (*clock)(void);
	const struct statistic_memory *mem;
	struct dentry *dir;
	char *name;
};

/*
 * The layer's files, each calling only those listed before it:
 * statistic-mem.c, statistic-types.c, statistic-data.c, statistic-core.c,
 * statistic-definition.c, statistic-debugfs.c.
 */

/* statistic-mem.c: the memory a user's definitions take */
int statistic_charge(const struct statistic_memory *mem, size_t bytes);
void statistic_uncharge(const struct statistic_memory *mem, size_t bytes);
unsigned long statistic_allocated_bytes(void);
unsigned long statistic_set_max_allocated_bytes(unsigned long bytes);
void statistic_mem_init(void);

/* statistic-types.c: what differs between the types, adding, reading */
int statistic_config_check(const struct statistic_config *cfg);
void statistic_type_setup(struct statistic_data *data);
u64 statistic_data_out_of_range(const struct statistic_data *data);
u64 statistic_data_missed(const struct statistic_data *data);

/* What a data file reader fixes when it starts on a statistic. */
struct statistic_snapshot {
	u64 lines;
	u64 first;	/* history: first epoch; raw: first serial */
};

void statistic_data_snapshot(struct statistic_data *data, u64 now,
			     struct statistic_snapshot *snap);
int statistic_data_show_line(struct seq_file *m, const char *name,
			     struct statistic_data *data,
			     const struct statistic_snapshot *snap, u64 line);
void statistic_print_time(struct seq_file *m, u64 ns);

/* statistic-data.c: generations of data */
struct statistic_data *statistic_data_alloc(const struct statistic_config *cfg,
					    const struct statistic_interface *iface,
					    u64 origin);
void statistic_data_free(struct statistic_data *data);
void statistic_data_retire(struct statistic_data *data);
void statistic_data_retire_barrier(void);
int statistic_prep_alloc(struct statistic_data *data,
			 struct statistic_prep *prep);
void statistic_prep_free(struct statistic_prep *prep);
unsigned long statistic_run_start(struct statistic_data *data,
				  struct statistic_prep *prep);
void statistic_run_stop(struct statistic_data *data);

/* statistic-core.c */
struct statistic_interface *statistic_interface_alloc(const char *name);
void statistic_interface_free(struct statistic_interface *iface);
u64 statistic_now(const struct statistic_interface *iface);
u64 statistic_view_time(const struct statistic *stat, u64 now);
struct statistic_data *statistic_replace_data(struct statistic *stat,
					      struct statistic_data *data,
					      struct statistic_prep *prep);
void statistic_set_on(struct statistic *stat, bool on, u64 now,
		      struct statistic_prep *prep);
int statistic_commit_config(struct statistic *stat,
			    const struct statistic_config *cfg);

/* statistic-definition.c */
void statistic_show_definition(struct seq_file *m, struct statistic *stat);
int statistic_definition_write(struct statistic_interface *iface, char *buf);

/* statistic-debugfs.c */
int statistic_set_closed(int err);

#if IS_ENABLED(CONFIG_KUNIT)
ssize_t statistic_format(struct statistic_interface *iface, bool definition,
			 char *buf, size_t size);
#endif

#endif /* _LIB_STATISTIC_INTERNAL_H */
