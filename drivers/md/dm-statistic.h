/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper statistics in the generic statistics layer: one interface
 * per mapped device, /sys/kernel/debug/statistics/dm-<major>:<minor>/.
 * Built with CONFIG_DM_STATISTIC; without it every hook is an empty inline.
 */
#ifndef DM_STATISTIC_H
#define DM_STATISTIC_H

#include <linux/types.h>

struct mapped_device;
struct dm_io;

#if IS_ENABLED(CONFIG_DM_STATISTIC)

void dm_statistic_create(struct mapped_device *md);
void dm_statistic_remove(struct mapped_device *md);
void dm_statistic_io_begin(struct dm_io *io);
void dm_statistic_io(struct dm_io *io, unsigned int sectors, bool end);
void dm_statistic_barrier(void);

#else

static inline void dm_statistic_create(struct mapped_device *md) {}
static inline void dm_statistic_remove(struct mapped_device *md) {}
static inline void dm_statistic_io_begin(struct dm_io *io) {}
static inline void dm_statistic_io(struct dm_io *io, unsigned int sectors,
				   bool end) {}
static inline void dm_statistic_barrier(void) {}

#endif

#endif
