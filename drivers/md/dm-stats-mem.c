// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: the memory all devices' statistics share
 * and the generations that order their region indexes.
 *
 * The bottom of the engine: regions, indexes and dm's statistics-layer
 * interfaces charge what they allocate here; nothing here calls back up.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "dm-stats-mem.h"

/*
 * A mistyped area size must not take the machine down: all statistics
 * together may use at most 1/4 of RAM and 1/2 of the vmalloc space.
 */
#define DM_STATS_RAM_FRACTION		4
#define DM_STATS_VMALLOC_FRACTION	2

static DEFINE_SPINLOCK(dm_stats_mem_lock);
static unsigned long dm_stats_mem_bytes;
static atomic64_t dm_stats_generation = ATOMIC64_INIT(0);

static bool dm_stats_mem_fits(unsigned long total)
{
	if (total >> PAGE_SHIFT > totalram_pages() / DM_STATS_RAM_FRACTION)
		return false;
#ifdef CONFIG_MMU
	if (total > (VMALLOC_END - VMALLOC_START) / DM_STATS_VMALLOC_FRACTION)
		return false;
#endif
	return true;
}

/**
 * dm_stats_memory_limit - most bytes all statistics may use together
 *
 * Return: the limit in bytes.
 */
unsigned long dm_stats_memory_limit(void)
{
	unsigned long limit;

	limit = ((totalram_pages() / DM_STATS_RAM_FRACTION) + 1) << PAGE_SHIFT;
	limit--;
#ifdef CONFIG_MMU
	limit = min(limit, (unsigned long)(VMALLOC_END - VMALLOC_START) /
			   DM_STATS_VMALLOC_FRACTION);
#endif
	return limit;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_memory_limit);

/**
 * dm_stats_mem_claim - charge memory to the statistics limit
 * @bytes: amount
 * @enforce: fail rather than go over the limit
 *
 * Return: true if charged.
 */
bool dm_stats_mem_claim(size_t bytes, bool enforce)
{
	unsigned long total;
	bool ok = true;

	spin_lock_irq(&dm_stats_mem_lock);
	if (check_add_overflow(dm_stats_mem_bytes, (unsigned long)bytes, &total) ||
	    (enforce && !dm_stats_mem_fits(total)))
		ok = false;
	else
		dm_stats_mem_bytes = total;
	spin_unlock_irq(&dm_stats_mem_lock);
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_mem_claim);

/**
 * dm_stats_mem_release - return memory charged with dm_stats_mem_claim()
 * @bytes: amount
 */
void dm_stats_mem_release(size_t bytes)
{
	unsigned long flags;

	spin_lock_irqsave(&dm_stats_mem_lock, flags);
	if (WARN_ON_ONCE(dm_stats_mem_bytes < bytes))
		dm_stats_mem_bytes = 0;
	else
		dm_stats_mem_bytes -= bytes;
	spin_unlock_irqrestore(&dm_stats_mem_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_mem_release);

/**
 * dm_stats_mem_used - bytes charged now
 *
 * Return: the stats_current_allocated_bytes value.
 */
unsigned long dm_stats_mem_used(void)
{
	return READ_ONCE(dm_stats_mem_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_mem_used);

/**
 * dm_stats_next_gen - a generation newer than every one handed out
 *
 * Global, so that a stale struct dm_stats_aux left by another device can
 * never name a generation that one of this device's live regions has.
 *
 * Return: the generation.
 */
u64 dm_stats_next_gen(void)
{
	return atomic64_inc_return(&dm_stats_generation);
}

module_param_named(stats_current_allocated_bytes, dm_stats_mem_bytes, ulong, 0444);
MODULE_PARM_DESC(stats_current_allocated_bytes, "Memory currently used by statistics");
