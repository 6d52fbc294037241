// SPDX-License-Identifier: GPL-2.0
/*
 * Generic statistics layer: the memory all statistics' data may take. The
 * bottom of the layer: the data types charge here what they allocate, and
 * nothing here calls back up.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>

#include "statistic-internal.h"

/*
 * What users' definitions may take: the per-CPU blocks of running
 * statistics, and the base blocks, lists and rings of the generations that
 * have run. A statistic that never ran takes none. As dm-stats does, the
 * total is capped (by default at a quarter of RAM) and shown read-only.
 */
static atomic_long_t statistic_allocated;
static unsigned long current_allocated_bytes;
static unsigned long max_allocated_bytes;

static int current_allocated_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%lu\n", statistic_allocated_bytes());
}

static const struct kernel_param_ops current_allocated_ops = {
	.get = current_allocated_get,
};

module_param_cb(current_allocated_bytes, &current_allocated_ops,
		&current_allocated_bytes, 0444);
MODULE_PARM_DESC(current_allocated_bytes,
		 "Memory the statistics' data takes now, in bytes");
module_param(max_allocated_bytes, ulong, 0644);
MODULE_PARM_DESC(max_allocated_bytes,
		 "Most memory the statistics' data may take, in bytes (default: a quarter of RAM)");

/**
 * statistic_charge() - account memory a definition needs, within the limit
 * @mem: the interface's exploiter's accounting, or %NULL for the layer's
 * @bytes: what it is about to allocate
 *
 * Return: 0, or -ENOMEM (nothing charged) past the limit: @mem's, or
 * max_allocated_bytes.
 */
int statistic_charge(const struct statistic_memory *mem, size_t bytes)
{
	unsigned long max = READ_ONCE(max_allocated_bytes);

	if (mem)
		return mem->claim(bytes) ? 0 : -ENOMEM;

	if (atomic_long_add_return(bytes, &statistic_allocated) > max) {
		atomic_long_sub(bytes, &statistic_allocated);
		return -ENOMEM;
	}
	return 0;
}

/**
 * statistic_allocated_bytes() - memory the statistics' data takes now
 *
 * Return: the bytes charged, as current_allocated_bytes shows them.
 */
unsigned long statistic_allocated_bytes(void)
{
	return atomic_long_read(&statistic_allocated);
}
EXPORT_SYMBOL_IF_KUNIT(statistic_allocated_bytes);

/**
 * statistic_set_max_allocated_bytes() - change the limit
 * @bytes: the new limit
 *
 * Return: the old limit.
 */
unsigned long statistic_set_max_allocated_bytes(unsigned long bytes)
{
	return xchg(&max_allocated_bytes, bytes);
}
EXPORT_SYMBOL_IF_KUNIT(statistic_set_max_allocated_bytes);

/**
 * statistic_uncharge() - give back what statistic_charge() accounted
 * @mem: as given to statistic_charge()
 * @bytes: the amount charged
 *
 * Context: any.
 */
void statistic_uncharge(const struct statistic_memory *mem, size_t bytes)
{
	if (!bytes)
		return;
	if (mem)
		mem->release(bytes);
	else
		atomic_long_sub(bytes, &statistic_allocated);
}

/* The default limit, a quarter of RAM, unless set on the command line. */
void __init statistic_mem_init(void)
{
	if (!max_allocated_bytes)
		max_allocated_bytes = totalram_pages() / 4 * PAGE_SIZE;
}
