// SPDX-License-Identifier: GPL-2.0
/*
 * Generic statistics layer: the six data-processing types, what differs
 * between them (struct statistic_type_ops), how each adds, and how each is
 * read. statistic-data.c allocates, runs and retires their generations.
 *
 * Every type keeps its counters in per-CPU cells that only the owning CPU
 * writes (safe against its own interrupts, no lock, no shared atomic);
 * readers fold all CPUs. Value, range and array cells live in the hot
 * block (struct statistic_hot, see <linux/statistic.h>), updated inline by
 * statistic_add() with this_cpu operations. List, history and big arrays
 * use struct statistic_cpu blocks of local64_t cells, updated out of line
 * with preemption disabled. Two types need more than that: a list admits a
 * new X value under a lock (once per X value, at most entries_max times
 * per generation), and raw keeps one global ring under a lock because its
 * serial numbers define a total order.
 */
#define pr_fmt(fmt) "statistic: " fmt

#include <linux/export.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "statistic-internal.h"

/**
 * struct statistic_type_ops - what differs between the types
 * @check: is a definition of this type valid (0 or -EINVAL)
 * @setup: where a new generation's cells live
 * @lines: the lines a data file reader shows; may set *@first
 * @show: one data file line, after the name; 0 or SEQ_SKIP
 */
struct statistic_type_ops {
	int (*check)(const struct statistic_config *cfg);
	void (*setup)(struct statistic_data *data);
	u64 (*lines)(struct statistic_data *data, u64 now, u64 *first);
	int (*show)(struct seq_file *m, struct statistic_data *data,
		    const struct statistic_snapshot *snap, u64 line);
};

static const struct statistic_type_ops *
statistic_type(const struct statistic_config *cfg);

/* Number of interval bounds ("<=" lines) of an array definition. */
static u64 array_bounds(const struct statistic_config *cfg)
{
	u64 span = (u64)cfg->range_max - (u64)cfg->range_min;
	u64 steps = div64_u64(span, cfg->base_interval);

	if (cfg->scale == STATISTIC_SCALE_LIN)
		return steps + 1;
	return 1 + (steps ? fls64(steps) : 0);
}

static int value_check(const struct statistic_config *cfg)
{
	if (cfg->mode != STATISTIC_MODE_INCREMENTS &&
	    cfg->mode != STATISTIC_MODE_PRODUCTS)
		return -EINVAL;
	return 0;
}

static int range_check(const struct statistic_config *cfg)
{
	return 0;
}

/* list and raw: a bounded number of entries */
static int entries_check(const struct statistic_config *cfg)
{
	if (!cfg->entries_max || cfg->entries_max > STATISTIC_ENTRIES_MAX)
		return -EINVAL;
	return 0;
}

static int array_check(const struct statistic_config *cfg)
{
	if (!cfg->base_interval)
		return -EINVAL;
	if (cfg->scale != STATISTIC_SCALE_LIN &&
	    cfg->scale != STATISTIC_SCALE_LOG2)
		return -EINVAL;
	/* the bounds plus the last ">" interval; steps + 1 may wrap */
	if (cfg->scale == STATISTIC_SCALE_LIN &&
	    div64_u64((u64)cfg->range_max - (u64)cfg->range_min,
		      cfg->base_interval) >= STATISTIC_ENTRIES_MAX - 1)
		return -EINVAL;
	return 0;
}

static int history_check(const struct statistic_config *cfg)
{
	if (entries_check(cfg))
		return -EINVAL;
	if (!cfg->period_us || cfg->period_us > STATISTIC_PERIOD_MAX_US)
		return -EINVAL;
	if (cfg->mode != STATISTIC_MODE_INCREMENTS &&
	    cfg->mode != STATISTIC_MODE_PRODUCTS &&
	    cfg->mode != STATISTIC_MODE_RANGE)
		return -EINVAL;
	return 0;
}

/*
 * Setting up a generation: where the type's cells live. The hot block
 * holds a value, a range and a small power-of-two array; list, history
 * and other arrays use struct statistic_cpu blocks; raw has its ring.
 */
static void value_setup(struct statistic_data *data)
{
	data->hot_cells = 1;
	if (data->cfg.mode == STATISTIC_MODE_PRODUCTS)
		data->params |= STATISTIC_HOT_PRODUCTS;
	if (data->cfg.mode == STATISTIC_MODE_INCREMENTS &&
	    data->span == U64_MAX)
		data->kind = STATISTIC_HOT_INCREMENTS;
	else
		data->kind = STATISTIC_HOT_COUNT;
}

/* range: the hot block's minimum, maximum, number and accumulator */
static void nothing_setup(struct statistic_data *data)
{
}

static void array_setup(struct statistic_data *data)
{
	const struct statistic_config *cfg = &data->cfg;

	data->nbuckets = array_bounds(cfg) + 1;
	if (is_power_of_2(cfg->base_interval))
		data->shift = ilog2(cfg->base_interval);
	/* see statistic_hot_count() */
	if (data->nbuckets > STATISTIC_HOT_CELLS_MAX ||
	    data->shift < 0 || data->span >= BIT_ULL(63)) {
		data->ncells = data->nbuckets;
		return;
	}
	data->hot_cells = data->nbuckets;
	data->kind = STATISTIC_HOT_COUNT;
	data->params = data->shift;
	if (cfg->scale == STATISTIC_SCALE_LOG2)
		data->params |= STATISTIC_HOT_LOG2;
	data->params |= (u64)(data->nbuckets - 1) << STATISTIC_HOT_LAST_SHIFT;
}

static void list_setup(struct statistic_data *data)
{
	data->ncells = data->cfg.entries_max;
}

static void history_setup(struct statistic_data *data)
{
	const struct statistic_config *cfg = &data->cfg;

	data->stride = 1 + (cfg->mode == STATISTIC_MODE_RANGE ? RANGE_CELLS : 1);
	data->ncells = cfg->entries_max * data->stride;
	data->period = cfg->period_us * NSEC_PER_USEC;
}

/* x * y, in two's complement: the total is shown signed */
static inline u64 product(s64 x, u64 y)
{
	return (u64)x * y;
}

/*
 * A history range slot. Minimum and maximum first, then the accumulator,
 * then the number: a reader that sees a number sees the minimum and
 * maximum that go with it.
 */
static void range_add(local64_t *cells, s64 x, u64 y)
{
	s64 cur, seen;

	if (!y)
		return;
	cur = local64_read(&cells[RANGE_MIN]);
	while (x < cur) {
		seen = local64_cmpxchg(&cells[RANGE_MIN], cur, x);
		if (seen == cur)
			break;
		cur = seen;
	}
	cur = local64_read(&cells[RANGE_MAX]);
	while (x > cur) {
		seen = local64_cmpxchg(&cells[RANGE_MAX], cur, x);
		if (seen == cur)
			break;
		cur = seen;
	}
	local64_add((s64)((u64)x * y), &cells[RANGE_ACC]);
	smp_wmb();	/* pairs with smp_rmb() in range_fold() */
	local64_add(y, &cells[RANGE_NUM]);
}

/*
 * For X in [range_min, range_max]: interval k > 0 holds (bound(k - 1),
 * bound(k)], interval 0 range_min itself, the last one X above the last
 * bound (up to range_max).
 */
static __always_inline unsigned int
array_index(const struct statistic_data *data, s64 x)
{
	const struct statistic_config *cfg = &data->cfg;
	unsigned int last = data->nbuckets - 1;
	u64 dist, steps;

	if (x <= cfg->range_min)
		return 0;
	dist = (u64)x - (u64)cfg->range_min;
	if (data->shift >= 0)
		steps = (dist >> data->shift) +
			!!(dist & (cfg->base_interval - 1));
	else
		steps = div64_u64(dist - 1, cfg->base_interval) + 1;
	if (cfg->scale == STATISTIC_SCALE_LOG2)
		steps = 1 + fls64(steps - 1);
	return steps < last ? steps : last;
}

static s64 array_bound(const struct statistic_data *data, unsigned int i)
{
	const struct statistic_config *cfg = &data->cfg;
	u64 offset;

	if (cfg->scale == STATISTIC_SCALE_LIN)
		offset = cfg->base_interval * i;
	else
		offset = i ? cfg->base_interval << (i - 1) : 0;
	/* in u64: the last log2 bound of the whole s64 range wraps to 0 */
	return (s64)((u64)cfg->range_min + offset);
}

static struct statistic_list_entry *list_find(struct statistic_list *list,
					      s64 x)
{
	struct statistic_list_entry *entry;
	struct hlist_head *head = &list->buckets[hash_64((u64)x,
							 list->hash_bits)];

	hlist_for_each_entry_rcu(entry, head, node)
		if (entry->x == x)
			return entry;
	return NULL;
}

static void list_add_pair(struct statistic_data *data,
			  struct statistic_cpu *cpu, s64 x, u64 y)
{
	struct statistic_list *list = data->list;
	struct statistic_list_entry *entry;
	unsigned long flags;

	entry = list_find(list, x);
	if (unlikely(!entry)) {
		/*
		 * A full list stays full until its data is retired: an unseen
		 * x is then missed without the lock, which is taken at most
		 * once per entry and per racing adder of a new x.
		 */
		if (READ_ONCE(list->used) >= data->cfg.entries_max) {
			local64_inc(&cpu->missed);
			return;
		}
		raw_spin_lock_irqsave(&list->lock, flags);
		entry = list_find(list, x);
		if (!entry && list->used < data->cfg.entries_max) {
			entry = &list->entries[list->used];
			entry->x = x;
			hlist_add_head_rcu(&entry->node,
					   &list->buckets[hash_64((u64)x,
								  list->hash_bits)]);
			/* readers walk entries[0, used) */
			smp_store_release(&list->used, list->used + 1);
		}
		raw_spin_unlock_irqrestore(&list->lock, flags);
		if (!entry) {
			local64_inc(&cpu->missed);
			return;
		}
	}
	local64_add(y, &cpu->cells[entry - list->entries]);
}

/*
 * The slot of this CPU's ring for the current period. A slot is tagged with
 * its period + 1; it is cleared when a CPU first adds to a new period. The
 * period a CPU is in is cached so that the common case costs a comparison.
 */
static local64_t *history_slot(struct statistic_data *data,
			       struct statistic_cpu *cpu)
{
	u64 now = statistic_data_now(data);
	unsigned long flags;
	local64_t *slot;
	u64 epoch;
	u32 index;

	if (likely(now < READ_ONCE(cpu->epoch_end) &&
		   now >= data->origin))
		return &cpu->cells[READ_ONCE(cpu->slot)];

	if (now < data->origin)
		now = data->origin;
	epoch = div64_u64(now - data->origin, data->period);
	local_irq_save(flags);
	/* an interrupt may have moved on meanwhile: never go back */
	if (cpu->epoch_end && epoch < cpu->epoch)
		epoch = cpu->epoch;
	div_u64_rem(epoch, data->cfg.entries_max, &index);
	index *= data->stride;
	slot = &cpu->cells[index];
	if (local64_read(&slot[0]) != (s64)(epoch + 1)) {
		unsigned int i;

		for (i = 1; i < data->stride; i++)
			local64_set(&slot[i], 0);
		if (data->cfg.mode == STATISTIC_MODE_RANGE)
			statistic_range_init(&slot[1]);
		smp_wmb();	/* cleared before tagged: see history_show() */
		local64_set(&slot[0], epoch + 1);
	}
	WRITE_ONCE(cpu->slot, index);
	WRITE_ONCE(cpu->epoch, epoch);
	WRITE_ONCE(cpu->epoch_end, data->origin + (epoch + 1) * data->period);
	local_irq_restore(flags);
	return slot;
}

static void raw_add(struct statistic_data *data, s64 x, u64 y)
{
	struct statistic_raw *raw = data->raw;
	struct statistic_raw_entry *entry;
	unsigned long flags;

	raw_spin_lock_irqsave(&raw->lock, flags);
	entry = &raw->ring[raw->head];
	entry->time = statistic_data_now(data);
	entry->serial = raw->next_serial++;
	entry->x = x;
	entry->y = y;
	if (++raw->head == data->cfg.entries_max)
		raw->head = 0;
	raw_spin_unlock_irqrestore(&raw->lock, flags);
}

/* Lower this CPU's minimum (@max false) or raise its maximum to @x. */
static void hot_extend(u64 __percpu *cell, s64 x, bool max)
{
	u64 cur = statistic_cell_this_read(*cell), seen;

	/*
	 * Each compare-and-exchange is one this_cpu operation: if the adder
	 * moves to another CPU meanwhile, it fails against that CPU's value
	 * and starts over with it.
	 */
	while (max ? x > (s64)cur : x < (s64)cur) {
		seen = statistic_cell_cmpxchg(*cell, cur, (u64)x);
		if (seen == cur)
			break;
		cur = seen;
	}
}

/*
 * A range statistic's X in range but outside this CPU's minimum and
 * maximum so far: make it the new minimum or maximum, then add it as
 * statistic_hot_range() does. Minimum and maximum first, then the
 * accumulator, then the number: a reader that sees a number sees the
 * minimum and maximum that go with it.
 */
static void hot_range_add(struct statistic_hot __percpu *hot, s64 x, u64 y)
{
	if (!y)
		return;
	hot_extend(&hot->cells[STATISTIC_CELL_MIN], x, false);
	hot_extend(&hot->cells[STATISTIC_CELL_MAX], x, true);
	statistic_cell_add(hot->cells[STATISTIC_CELL_ACC], (u64)x * y);
	smp_wmb();	/* pairs with smp_rmb() in hot_range_fold() */
	statistic_cell_add(hot->cells[STATISTIC_CELL_NUM], y);
}

/**
 * __statistic_add() - the out-of-line part of statistic_add()
 * @hot: the hot block of a running statistic's data
 * @x: X
 * @y: Y
 *
 * For X out of range; a range statistic's X outside this CPU's minimum
 * and maximum; list, history and raw; arrays whose intervals are not a
 * power of two wide, or too many for the hot block. Preemption is
 * disabled: a list or history add takes several steps on this CPU's block.
 *
 * Context: any; see statistic_add().
 */
void __statistic_add(struct statistic_hot __percpu *hot, s64 x, u64 y)
{
	struct statistic_data *data;
	struct statistic_cpu *cpu;
	local64_t *slot;

	preempt_disable_notrace();
	data = this_cpu_read(hot->data);
	/* one unsigned comparison for range_min <= x <= range_max */
	if (unlikely((u64)x - (u64)data->cfg.range_min > data->span)) {
		statistic_cell_add(hot->cells[STATISTIC_CELL_OUT_OF_RANGE], 1);
		goto out;
	}
	cpu = this_cpu_read(hot->cpu);
	switch (data->cfg.type) {
	case STATISTIC_TYPE_RANGE:
		hot_range_add(hot, x, y);
		break;
	case STATISTIC_TYPE_ARRAY:
		/* in the hot block, arrays are handled inline */
		local64_add(y, &cpu->cells[array_index(data, x)]);
		break;
	case STATISTIC_TYPE_LIST:
		list_add_pair(data, cpu, x, y);
		break;
	case STATISTIC_TYPE_HISTORY:
		slot = history_slot(data, cpu);
		if (data->cfg.mode == STATISTIC_MODE_RANGE)
			range_add(&slot[1], x, y);
		else
			local64_add(data->cfg.mode == STATISTIC_MODE_PRODUCTS ?
				    product(x, y) : y, &slot[1]);
		break;
	case STATISTIC_TYPE_RAW:
		raw_add(data, x, y);
		break;
	default:
		/* value in range is always handled inline */
		break;
	}
out:
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(__statistic_add);

/*
 * Reading: fold the base blocks (what earlier runs gathered) and, while
 * the statistic runs, every CPU's blocks. A source is a CPU number, or
 * STATISTIC_BASE for the base blocks.
 */
#define STATISTIC_BASE	(-1)

#define STATISTIC_NO_SOURCE	(-2)

/* The source after @src (STATISTIC_NO_SOURCE: the first), or false. */
static bool next_source(const struct statistic_data *data, int *src)
{
	if (*src == STATISTIC_NO_SOURCE && data->base_hot) {
		*src = STATISTIC_BASE;
		return true;
	}
	if (!data->run)
		return false;
	*src = cpumask_next(max(*src, STATISTIC_BASE), cpu_possible_mask);
	return *src < nr_cpu_ids;
}

static const struct statistic_hot *hot_block(const struct statistic_data *data,
					     int src)
{
	if (src == STATISTIC_BASE)
		return data->base_hot;
	return per_cpu_ptr(data->run->hot, src);
}

static struct statistic_cpu *cpu_block(const struct statistic_data *data,
				       int src)
{
	if (src == STATISTIC_BASE)
		return data->base_cpu;
	return per_cpu_ptr(data->run->hot, src)->cpu;
}

static u64 hot_cell(const struct statistic_data *data, int src,
		    unsigned int cell)
{
	return statistic_cell_read(&hot_block(data, src)->cells[cell]);
}

/* Value total, array interval or list entry @i, summed over all sources. */
static u64 fold_cell(const struct statistic_data *data, unsigned int i)
{
	u64 sum = 0;
	int src;

	for (src = STATISTIC_NO_SOURCE; next_source(data, &src);)
		sum += data->ncells ?
		       local64_read(&cpu_block(data, src)->cells[i]) :
		       hot_cell(data, src, STATISTIC_CELL_FIRST + i);
	return sum;
}

/**
 * statistic_data_out_of_range() - pairs dropped for X out of range
 * @data: the generation
 *
 * Return: the number of (X, Y) pairs, summed over all CPUs.
 */
u64 statistic_data_out_of_range(const struct statistic_data *data)
{
	u64 sum = 0;
	int src;

	for (src = STATISTIC_NO_SOURCE; next_source(data, &src);)
		sum += hot_cell(data, src, STATISTIC_CELL_OUT_OF_RANGE);
	return sum;
}

/**
 * statistic_data_missed() - pairs a full list could not take
 * @data: the generation
 *
 * Return: the number of (X, Y) pairs, summed over all CPUs.
 */
u64 statistic_data_missed(const struct statistic_data *data)
{
	u64 sum = 0;
	int src;

	if (!data->ncells)
		return 0;
	for (src = STATISTIC_NO_SOURCE; next_source(data, &src);)
		sum += local64_read(&cpu_block(data, src)->missed);
	return sum;
}

struct range_result {
	u64 num;
	s64 acc;
	s64 min;
	s64 max;
};

/*
 * A range statistic: all numbers first, then the rest. An adder may move
 * to another CPU between its minimum and its number, so the minimum and
 * maximum are those of all CPUs, whether they have a number or not.
 */
static void hot_range_fold(const struct statistic_data *data,
			   struct range_result *r)
{
	u64 num = 0;
	int src;

	for (src = STATISTIC_NO_SOURCE; next_source(data, &src);)
		num += hot_cell(data, src, STATISTIC_CELL_NUM);
	/* pairs with smp_wmb() in statistic_hot_range(), hot_range_add() */
	smp_rmb();
	if (!num)
		return;
	r->num = num;
	r->min = S64_MAX;
	r->max = S64_MIN;
	for (src = STATISTIC_NO_SOURCE; next_source(data, &src);) {
		r->acc += hot_cell(data, src, STATISTIC_CELL_ACC);
		r->min = min_t(s64, r->min, hot_cell(data, src, STATISTIC_CELL_MIN));
		r->max = max_t(s64, r->max, hot_cell(data, src, STATISTIC_CELL_MAX));
	}
}

/* A history range slot of one CPU. */
static void range_fold(struct range_result *r, local64_t *cells)
{
	u64 num = local64_read(&cells[RANGE_NUM]);

	smp_rmb();	/* pairs with smp_wmb() in range_add() */
	if (!num)
		return;
	if (!r->num) {
		r->min = S64_MAX;
		r->max = S64_MIN;
	}
	r->num += num;
	r->acc += local64_read(&cells[RANGE_ACC]);
	r->min = min_t(s64, r->min, local64_read(&cells[RANGE_MIN]));
	r->max = max_t(s64, r->max, local64_read(&cells[RANGE_MAX]));
}

/* " <number> <min> <avg> <max>": avg rounded half away from zero */
static void range_print(struct seq_file *m, const struct range_result *r)
{
	u64 mag, whole, rem, milli;
	bool neg;

	if (!r->num) {
		seq_puts(m, " 0 0 0.000 0\n");
		return;
	}
	neg = r->acc < 0;
	mag = neg ? -(u64)r->acc : (u64)r->acc;
	whole = div64_u64_rem(mag, r->num, &rem);
	milli = (mul_u64_u64_div_u64(rem, 2000, r->num) + 1) / 2;
	if (milli == 1000) {
		whole++;
		milli = 0;
	}
	seq_printf(m, " %llu %lld %s%llu.%03llu %lld\n", r->num, r->min,
		   neg && (whole || milli) ? "-" : "", whole, milli, r->max);
}

/**
 * statistic_print_time() - print a time printk-style, e.g. "[12.345678]"
 * @m: where to
 * @ns: nanoseconds
 */
void statistic_print_time(struct seq_file *m, u64 ns)
{
	u32 rem;
	u64 sec = div_u64_rem(ns, NSEC_PER_SEC, &rem);

	seq_printf(m, "[%llu.%06u]", sec, rem / (u32)NSEC_PER_USEC);
}

/*
 * The lines a data file reader will show, fixed when it starts on a
 * statistic; *first is the first epoch (history) or serial (raw).
 */
static u64 one_line(struct statistic_data *data, u64 now, u64 *first)
{
	return 1;
}

static u64 array_lines(struct statistic_data *data, u64 now, u64 *first)
{
	return data->nbuckets;
}

static u64 list_lines(struct statistic_data *data, u64 now, u64 *first)
{
	if (!data->list)
		return 0;
	/* pairs with smp_store_release() in list_add_pair() */
	return smp_load_acquire(&data->list->used);
}

static u64 history_lines(struct statistic_data *data, u64 now, u64 *first)
{
	u64 epoch;

	now = max(now, data->origin);
	epoch = div64_u64(now - data->origin, data->period);
	if (epoch >= data->cfg.entries_max)
		*first = epoch + 1 - data->cfg.entries_max;
	return epoch + 1 - *first;
}

static u64 raw_lines(struct statistic_data *data, u64 now, u64 *first)
{
	unsigned long flags;
	u64 next, lines;

	if (!data->raw)
		return 0;
	raw_spin_lock_irqsave(&data->raw->lock, flags);
	next = data->raw->next_serial;
	raw_spin_unlock_irqrestore(&data->raw->lock, flags);
	lines = min_t(u64, next, data->cfg.entries_max);
	*first = next - lines;
	return lines;
}

/**
 * statistic_data_snapshot() - fix what a data file reader shows
 * @data: the generation
 * @now: the time the reader looks at (the stop time of a stopped statistic)
 * @snap: filled with the number of lines and the first history period or
 *	raw serial number
 */
void statistic_data_snapshot(struct statistic_data *data, u64 now,
			     struct statistic_snapshot *snap)
{
	snap->first = 0;
	snap->lines = statistic_type(&data->cfg)->lines(data, now, &snap->first);
}

static void history_show(struct seq_file *m, struct statistic_data *data,
			 u64 epoch)
{
	struct range_result r = {};
	u64 total = 0;
	u32 index;
	int src;

	div_u64_rem(epoch, data->cfg.entries_max, &index);
	index *= data->stride;
	for (src = STATISTIC_NO_SOURCE; next_source(data, &src);) {
		local64_t *slot = &cpu_block(data, src)->cells[index];
		struct range_result part = {};
		u64 part_total = 0;

		if (local64_read(&slot[0]) != (s64)(epoch + 1))
			continue;
		smp_rmb();	/* tag before data: see history_slot() */
		if (data->cfg.mode == STATISTIC_MODE_RANGE)
			range_fold(&part, &slot[1]);
		else
			part_total = local64_read(&slot[1]);
		smp_rmb();	/* data before the tag is checked again */
		/* recycled for a later period while we read: not ours */
		if (local64_read(&slot[0]) != (s64)(epoch + 1))
			continue;
		total += part_total;
		if (part.num) {
			if (!r.num) {
				r.min = S64_MAX;
				r.max = S64_MIN;
			}
			r.num += part.num;
			r.acc += part.acc;
			r.min = min(r.min, part.min);
			r.max = max(r.max, part.max);
		}
	}

	seq_putc(m, ' ');
	statistic_print_time(m, data->origin + (epoch + 1) * data->period);
	if (data->cfg.mode == STATISTIC_MODE_RANGE)
		range_print(m, &r);
	else if (data->cfg.mode == STATISTIC_MODE_PRODUCTS)
		seq_printf(m, " %lld\n", (s64)total);
	else
		seq_printf(m, " %llu\n", total);
}

static int raw_show(struct seq_file *m, struct statistic_data *data,
		    u64 serial)
{
	struct statistic_raw *raw = data->raw;
	struct statistic_raw_entry entry;
	unsigned long flags;
	u32 index;
	bool gone;

	div_u64_rem(serial, data->cfg.entries_max, &index);
	raw_spin_lock_irqsave(&raw->lock, flags);
	entry = raw->ring[index];
	gone = entry.serial != serial;
	raw_spin_unlock_irqrestore(&raw->lock, flags);
	if (gone)
		return 1;	/* overwritten since the snapshot */
	seq_putc(m, ' ');
	statistic_print_time(m, entry.time);
	seq_printf(m, " %llu %lld %llu\n", entry.serial, entry.x, entry.y);
	return 0;
}

/**
 * statistic_data_show_line() - print one line of the data file
 * @m: the data file
 * @name: the statistic's name, which starts the line
 * @data: the generation
 * @snap: what statistic_data_snapshot() fixed
 * @line: which line, below @snap->lines
 *
 * Return: 0, or SEQ_SKIP if the line has gone meanwhile (raw).
 */
int statistic_data_show_line(struct seq_file *m, const char *name,
			     struct statistic_data *data,
			     const struct statistic_snapshot *snap, u64 line)
{
	seq_puts(m, name);
	return statistic_type(&data->cfg)->show(m, data, snap, line);
}

/* The rest of one data file line, after the statistic's name. */
static int value_show(struct seq_file *m, struct statistic_data *data,
		      const struct statistic_snapshot *snap, u64 line)
{
	if (data->cfg.mode == STATISTIC_MODE_PRODUCTS)
		seq_printf(m, " %lld\n", (s64)fold_cell(data, 0));
	else
		seq_printf(m, " %llu\n", fold_cell(data, 0));
	return 0;
}

static int range_show(struct seq_file *m, struct statistic_data *data,
		      const struct statistic_snapshot *snap, u64 line)
{
	struct range_result r = {};

	hot_range_fold(data, &r);
	range_print(m, &r);
	return 0;
}

static int array_show(struct seq_file *m, struct statistic_data *data,
		      const struct statistic_snapshot *snap, u64 line)
{
	unsigned int i = line;

	if (i < data->nbuckets - 1)
		seq_printf(m, " <=%lld", array_bound(data, i));
	else
		seq_printf(m, " >%lld", array_bound(data, i - 1));
	seq_printf(m, " %llu\n", fold_cell(data, i));
	return 0;
}

static int list_show(struct seq_file *m, struct statistic_data *data,
		     const struct statistic_snapshot *snap, u64 line)
{
	unsigned int i = line;
	s64 x = data->list->entries[i].x;

	seq_printf(m, " %s0x%llx %llu\n", x < 0 ? "-" : "",
		   x < 0 ? -(u64)x : (u64)x, fold_cell(data, i));
	return 0;
}

static int history_show_line(struct seq_file *m, struct statistic_data *data,
			     const struct statistic_snapshot *snap, u64 line)
{
	history_show(m, data, snap->first + line);
	return 0;
}

static int raw_show_line(struct seq_file *m, struct statistic_data *data,
			 const struct statistic_snapshot *snap, u64 line)
{
	/* gone meanwhile: seq_file drops what this record printed */
	return raw_show(m, data, snap->first + line) ? SEQ_SKIP : 0;
}

/*
 * One table per type; adds dispatch with a switch in __statistic_add()
 * instead, so that the add path takes no indirect branch (a retpoline).
 */
static const struct statistic_type_ops statistic_type_table[] = {
	[STATISTIC_TYPE_VALUE] = {
		.check = value_check, .setup = value_setup,
		.lines = one_line, .show = value_show,
	},
	[STATISTIC_TYPE_RANGE] = {
		.check = range_check, .setup = nothing_setup,
		.lines = one_line, .show = range_show,
	},
	[STATISTIC_TYPE_LIST] = {
		.check = entries_check, .setup = list_setup,
		.lines = list_lines, .show = list_show,
	},
	[STATISTIC_TYPE_ARRAY] = {
		.check = array_check, .setup = array_setup,
		.lines = array_lines, .show = array_show,
	},
	[STATISTIC_TYPE_HISTORY] = {
		.check = history_check, .setup = history_setup,
		.lines = history_lines, .show = history_show_line,
	},
	[STATISTIC_TYPE_RAW] = {
		.check = entries_check, .setup = nothing_setup,
		.lines = raw_lines, .show = raw_show_line,
	},
};

/* Only for a definition statistic_config_check() accepted. */
static const struct statistic_type_ops *
statistic_type(const struct statistic_config *cfg)
{
	return &statistic_type_table[cfg->type];
}

/**
 * statistic_config_check() - validate a definition
 * @cfg: the definition
 *
 * Return: 0 if @cfg can be instantiated, -EINVAL otherwise.
 */
int statistic_config_check(const struct statistic_config *cfg)
{
	if (cfg->range_min > cfg->range_max)
		return -EINVAL;
	if ((unsigned int)cfg->type >= ARRAY_SIZE(statistic_type_table))
		return -EINVAL;
	return statistic_type(cfg)->check(cfg);
}

/**
 * statistic_type_setup() - where a new generation's cells live
 * @data: the generation, its definition checked by statistic_config_check()
 */
void statistic_type_setup(struct statistic_data *data)
{
	statistic_type(&data->cfg)->setup(data);
}
