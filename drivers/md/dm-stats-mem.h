/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper I/O statistics: the shared memory limit and the region
 * index generations (dm-stats-mem.c).
 */
#ifndef DM_STATS_MEM_H
#define DM_STATS_MEM_H

#include <linux/types.h>

unsigned long dm_stats_memory_limit(void);
bool dm_stats_mem_claim(size_t bytes, bool enforce);
void dm_stats_mem_release(size_t bytes);
unsigned long dm_stats_mem_used(void);
u64 dm_stats_next_gen(void);

#endif
