// SPDX-License-Identifier: GPL-2.0
/*
 * Generic statistics layer: generations of data. A generation is
 * allocated with its definition, gets its per-CPU blocks (charged, before
 * anything changes) when it starts running, folds them into its base
 * blocks when it stops, and is freed after the adds that may still use it
 * are gone. Where a type's cells live is statistic-types.c's business.
 */
#define pr_fmt(fmt) "statistic: " fmt

#include <linux/export.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "statistic-internal.h"

static void run_free(struct statistic_run *run)
{
	int cpu;

	if (!run)
		return;
	if (run->hot)
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(run->hot, cpu)->cpu);
	free_percpu(run->hot);
	statistic_uncharge(run->mem, run->charged);
	kfree(run);
}

static void list_free(struct statistic_list *list)
{
	if (list)
		kvfree(list->buckets);
	kvfree(list);
}

/**
 * statistic_data_free() - free a generation of data
 * @data: the generation, or %NULL
 *
 * Context: no add may still run on @data (after a grace period).
 */
void statistic_data_free(struct statistic_data *data)
{
	if (!data)
		return;
	run_free(data->run);
	kfree(data->base_hot);
	kvfree(data->base_cpu);
	list_free(data->list);
	kvfree(data->raw);
	statistic_uncharge(data->mem, data->charged);
	kfree(data);
}

static void data_free_rcu_tasks(struct rcu_head *head)
{
	statistic_data_free(container_of(head, struct statistic_data, rcu));
}

static void data_free_rcu(struct rcu_head *head)
{
	/* now wait for adders preempted in the middle of an add */
	call_rcu_tasks(head, data_free_rcu_tasks);
}

/**
 * statistic_data_retire() - free a generation once no add can still use it
 * @data: the generation, no longer published in any statistic's ->active,
 *	or %NULL
 *
 * statistic_add() does not disable preemption, so an adder may be
 * preempted between loading ->active and its update: after an RCU grace
 * period (adders in interrupts and other non-preemptible code) comes an
 * RCU Tasks grace period (tasks preempted anywhere outside a voluntary
 * context switch). Without CONFIG_PREEMPTION, the second is the first.
 */
void statistic_data_retire(struct statistic_data *data)
{
	if (data)
		call_rcu(&data->rcu, data_free_rcu);
}

static void run_free_rcu_tasks(struct rcu_head *head)
{
	run_free(container_of(head, struct statistic_run, rcu));
}

static void run_free_rcu(struct rcu_head *head)
{
	call_rcu_tasks(head, run_free_rcu_tasks);
}

/**
 * statistic_data_retire_barrier() - wait until retired generations are freed
 *
 * Context: process context, may sleep.
 */
void statistic_data_retire_barrier(void)
{
	rcu_barrier();		/* every data_free_rcu() has run ... */
	/* ... and so has every data_free_rcu_tasks() */
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		rcu_barrier_tasks();
	else
		rcu_barrier();	/* call_rcu_tasks() is call_rcu() */
}
EXPORT_SYMBOL_IF_KUNIT(statistic_data_retire_barrier);

/**
 * statistic_data_alloc() - make a new, empty generation of data
 * @cfg: a definition that passed statistic_config_check()
 * @iface: the interface: its clock, and where memory is charged
 * @origin: the time of the reset this generation stands for
 *
 * Only the description: the blocks that hold data come with the first
 * run (statistic_prep_alloc()), so a statistic that never runs costs no
 * more than this structure.
 *
 * Context: process context, may sleep.
 * Return: the generation, or %NULL if memory is short.
 */
struct statistic_data *statistic_data_alloc(const struct statistic_config *cfg,
					    const struct statistic_interface *iface,
					    u64 origin)
{
	struct statistic_data *data;

	data = kzalloc(sizeof(*data), GFP_KERNEL);
	if (!data)
		return NULL;
	data->cfg = *cfg;
	data->clock = iface->clock;
	data->mem = iface->mem;
	data->origin = origin;
	data->shift = -1;
	data->span = (u64)cfg->range_max - (u64)cfg->range_min;
	data->kind = STATISTIC_HOT_RANGE;

	statistic_type_setup(data);
	/* the kind goes into the low bits of ->active */
	BUILD_BUG_ON(STATISTIC_HOT_RANGE > STATISTIC_HOT_KIND_MASK);
	if (data->kind == STATISTIC_HOT_RANGE)
		data->hot_cells = STATISTIC_CELL_MAX;
	return data;
}

static size_t hot_size(const struct statistic_data *data)
{
	return struct_size_t(struct statistic_hot, cells,
			     STATISTIC_CELL_FIRST + data->hot_cells);
}

static size_t cpu_size(const struct statistic_data *data)
{
	return struct_size_t(struct statistic_cpu, cells, data->ncells);
}

/* A hot block before any add: empty minimum and maximum for range. */
static void hot_init(const struct statistic_data *data,
		     struct statistic_hot *hot, struct statistic_cpu *cpu)
{
	hot->data = (void *)data;
	hot->cpu = cpu;
	hot->range_min = data->cfg.range_min;
	hot->span = data->span;
	hot->params = data->params;
	/* empty: the first X goes to __statistic_add() */
	if (data->kind == STATISTIC_HOT_RANGE) {
		hot->cells[STATISTIC_CELL_MIN] = S64_MAX;
		hot->cells[STATISTIC_CELL_MAX] = S64_MIN;
	}
}

static struct statistic_list *list_alloc(u32 entries)
{
	unsigned int bits = max(1, order_base_2(entries));
	struct statistic_list *list;

	list = kvzalloc(struct_size(list, entries, entries), GFP_KERNEL);
	if (!list)
		return NULL;
	list->buckets = kvcalloc(1U << bits, sizeof(*list->buckets), GFP_KERNEL);
	if (!list->buckets) {
		kvfree(list);
		return NULL;
	}
	raw_spin_lock_init(&list->lock);
	list->hash_bits = bits;
	return list;
}

static size_t list_size(u32 entries)
{
	unsigned int bits = max(1, order_base_2(entries));

	return struct_size_t(struct statistic_list, entries, entries) +
	       (sizeof(struct hlist_head) << bits);
}

static size_t raw_size(u32 entries)
{
	return struct_size_t(struct statistic_raw, ring, entries);
}

/* The bytes statistic_prep_alloc() charges to run @data, from nothing. */
static size_t prep_size(const struct statistic_data *data, bool run,
			bool store)
{
	size_t per_cpu = hot_size(data) + (data->ncells ? cpu_size(data) : 0);
	size_t bytes = 0;

	if (run)
		bytes += sizeof(struct statistic_run) +
			 per_cpu * num_possible_cpus();
	if (!store)
		return bytes;
	bytes += per_cpu;
	if (data->cfg.type == STATISTIC_TYPE_LIST)
		bytes += list_size(data->cfg.entries_max);
	if (data->cfg.type == STATISTIC_TYPE_RAW)
		bytes += raw_size(data->cfg.entries_max);
	return bytes;
}

/**
 * statistic_prep_free() - free what statistic_prep_alloc() allocated
 * @prep: unused by statistic_run_start(), or what it left
 */
void statistic_prep_free(struct statistic_prep *prep)
{
	run_free(prep->run);
	kfree(prep->base_hot);
	kvfree(prep->base_cpu);
	list_free(prep->list);
	kvfree(prep->raw);
	statistic_uncharge(prep->mem, prep->charged);
	*prep = (struct statistic_prep){};
}

static int run_alloc(struct statistic_data *data, struct statistic_prep *prep)
{
	struct statistic_run *run;
	int cpu;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	prep->run = run;
	run->data = data;
	run->mem = data->mem;
	run->hot = __alloc_percpu(hot_size(data), STATISTIC_HOT_KIND_MASK + 1);
	if (!run->hot ||
	    WARN_ON_ONCE((unsigned long)(void __force *)run->hot &
			 STATISTIC_HOT_KIND_MASK))
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct statistic_cpu *block = NULL;

		if (data->ncells) {
			block = kvzalloc_node(cpu_size(data), GFP_KERNEL,
					      cpu_to_node(cpu));
			if (!block)
				return -ENOMEM;
		}
		hot_init(data, per_cpu_ptr(run->hot, cpu), block);
	}
	return 0;
}

/**
 * statistic_prep_alloc() - allocate what running a generation takes
 * @data: the generation
 * @prep: filled with per-CPU blocks, and the base blocks, list and ring
 *	the generation does not have yet
 *
 * Everything is charged first (statistic_charge()), so that a definition
 * that would take more than the limit allows fails before it allocates.
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM (and @prep holds nothing).
 */
int statistic_prep_alloc(struct statistic_data *data,
			 struct statistic_prep *prep)
{
	bool store = !data->base_hot;
	size_t bytes = prep_size(data, true, store);
	int err;

	*prep = (struct statistic_prep){ .mem = data->mem };
	err = statistic_charge(data->mem, bytes);
	if (err)
		return err;
	prep->charged = bytes;
	err = run_alloc(data, prep);
	if (err)
		goto fail;
	/* the run's own share, uncharged when it is freed */
	prep->run->charged = prep_size(data, true, false);
	prep->charged -= prep->run->charged;
	if (!store)
		return 0;

	err = -ENOMEM;
	prep->base_hot = kzalloc(hot_size(data), GFP_KERNEL);
	if (!prep->base_hot)
		goto fail;
	hot_init(data, prep->base_hot, NULL);
	if (data->ncells) {
		prep->base_cpu = kvzalloc(cpu_size(data), GFP_KERNEL);
		if (!prep->base_cpu)
			goto fail;
	}
	if (data->cfg.type == STATISTIC_TYPE_LIST) {
		prep->list = list_alloc(data->cfg.entries_max);
		if (!prep->list)
			goto fail;
	}
	if (data->cfg.type == STATISTIC_TYPE_RAW) {
		prep->raw = kvzalloc(raw_size(data->cfg.entries_max),
				     GFP_KERNEL);
		if (!prep->raw)
			goto fail;
		raw_spin_lock_init(&prep->raw->lock);
	}
	return 0;

fail:
	statistic_prep_free(prep);
	return err;
}

/**
 * statistic_run_start() - give a generation its per-CPU blocks
 * @data: the generation, not running
 * @prep: from statistic_prep_alloc() for @data; emptied
 *
 * Context: the interface mutex held. Cannot fail.
 * Return: the ->active word that makes statistic_add() gather into @data.
 */
unsigned long statistic_run_start(struct statistic_data *data,
				  struct statistic_prep *prep)
{
	if (prep->base_hot) {
		data->base_hot = prep->base_hot;
		data->base_cpu = prep->base_cpu;
		data->list = prep->list;
		data->raw = prep->raw;
		data->charged = prep->charged;
	}
	data->run = prep->run;
	*prep = (struct statistic_prep){};
	return (unsigned long)(void __force *)data->run->hot + data->kind;
}

/* Add a history slot of one block to the same slot of another. */
static void history_fold_slot(const struct statistic_data *data,
			      local64_t *to, local64_t *from)
{
	s64 tag = local64_read(&from[0]), have = local64_read(&to[0]);
	unsigned int i;

	if (!tag || tag < have)
		return;		/* empty, or an older period */
	if (tag > have) {
		for (i = 1; i < data->stride; i++)
			local64_set(&to[i], 0);
		if (data->cfg.mode == STATISTIC_MODE_RANGE)
			statistic_range_init(&to[1]);
		local64_set(&to[0], tag);
	}
	if (data->cfg.mode != STATISTIC_MODE_RANGE) {
		local64_add(local64_read(&from[1]), &to[1]);
		return;
	}
	if (!local64_read(&from[1 + RANGE_NUM]))
		return;
	local64_add(local64_read(&from[1 + RANGE_NUM]), &to[1 + RANGE_NUM]);
	local64_add(local64_read(&from[1 + RANGE_ACC]), &to[1 + RANGE_ACC]);
	local64_set(&to[1 + RANGE_MIN],
		    min(local64_read(&to[1 + RANGE_MIN]),
			local64_read(&from[1 + RANGE_MIN])));
	local64_set(&to[1 + RANGE_MAX],
		    max(local64_read(&to[1 + RANGE_MAX]),
			local64_read(&from[1 + RANGE_MAX])));
}

/* Add one CPU's blocks to the base blocks. */
static void run_fold_cpu(struct statistic_data *data,
			 const struct statistic_hot *hot)
{
	struct statistic_hot *base = data->base_hot;
	struct statistic_cpu *cpu = hot->cpu;
	unsigned int i;

	base->cells[STATISTIC_CELL_OUT_OF_RANGE] +=
		statistic_cell_read(&hot->cells[STATISTIC_CELL_OUT_OF_RANGE]);
	if (data->kind == STATISTIC_HOT_RANGE) {
		base->cells[STATISTIC_CELL_NUM] +=
			statistic_cell_read(&hot->cells[STATISTIC_CELL_NUM]);
		base->cells[STATISTIC_CELL_ACC] +=
			statistic_cell_read(&hot->cells[STATISTIC_CELL_ACC]);
		base->cells[STATISTIC_CELL_MIN] =
			min_t(s64, base->cells[STATISTIC_CELL_MIN],
			      statistic_cell_read(&hot->cells[STATISTIC_CELL_MIN]));
		base->cells[STATISTIC_CELL_MAX] =
			max_t(s64, base->cells[STATISTIC_CELL_MAX],
			      statistic_cell_read(&hot->cells[STATISTIC_CELL_MAX]));
	} else {
		for (i = 0; i < data->hot_cells; i++)
			base->cells[STATISTIC_CELL_FIRST + i] +=
				statistic_cell_read(&hot->cells[STATISTIC_CELL_FIRST + i]);
	}
	if (!cpu)
		return;
	local64_add(local64_read(&cpu->missed), &data->base_cpu->missed);
	if (data->cfg.type == STATISTIC_TYPE_HISTORY) {
		for (i = 0; i < data->ncells; i += data->stride)
			history_fold_slot(data, &data->base_cpu->cells[i],
					  &cpu->cells[i]);
		return;
	}
	for (i = 0; i < data->ncells; i++)
		local64_add(local64_read(&cpu->cells[i]),
			    &data->base_cpu->cells[i]);
}

/**
 * statistic_run_stop() - fold the per-CPU blocks into the base and free them
 * @data: the generation, running but no longer published in ->active
 *
 * Adds that loaded ->active before it was cleared and land after the fold
 * are lost; the blocks they write to are freed after RCU and RCU Tasks
 * grace periods.
 *
 * Context: the interface mutex held.
 */
void statistic_run_stop(struct statistic_data *data)
{
	struct statistic_run *run = data->run;
	int cpu;

	for_each_possible_cpu(cpu)
		run_fold_cpu(data, per_cpu_ptr(run->hot, cpu));
	data->run = NULL;
	call_rcu(&run->rcu, run_free_rcu);
}
