/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit tests of the device-mapper statistics engine: what the suites of
 * dm-stats-*-test.c share, a device's statistics without a device and the
 * messages sent to it.
 */
#ifndef DM_STATS_TEST_H
#define DM_STATS_TEST_H

#include <kunit/test.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-stats-index.h"
#include "dm-stats-mem.h"
#include "dm-stats-region.h"

#define DEV_SECTORS	1000
#define RESULT_LEN	4096

/* A device's statistics, without a device. */
struct stats_fixture {
	struct dm_stats st;
	char result[RESULT_LEN];
};

static inline int stats_fixture_init(struct kunit *test)
{
	struct stats_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, dm_stats_init(&f->st), 0);
	test->priv = f;
	return 0;
}

static inline void stats_fixture_exit(struct kunit *test)
{
	struct stats_fixture *f = test->priv;

	dm_stats_cleanup(&f->st);
	dm_stats_free_barrier();
}

/* Split a message at spaces into a kunit-managed argv. */
static inline unsigned int split(struct kunit *test, const char *line, char ***argvp)
{
	char *copy = kunit_kzalloc(test, strlen(line) + 1, GFP_KERNEL);
	char **argv = kunit_kcalloc(test, 32, sizeof(char *), GFP_KERNEL);
	unsigned int argc = 0;
	char *tok;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_ASSERT_NOT_NULL(test, argv);
	memcpy(copy, line, strlen(line) + 1);
	while ((tok = strsep(&copy, " ")) && argc < 32)
		if (*tok)
			argv[argc++] = tok;
	*argvp = argv;
	return argc;
}

/* Send a message with a reply buffer of @maxlen bytes (at most RESULT_LEN). */
static inline int send_len(struct kunit *test, const char *line, unsigned int maxlen)
{
	struct stats_fixture *f = test->priv;
	char **argv;
	unsigned int argc = split(test, line, &argv);

	f->result[0] = 0;
	return dm_stats_dispatch(&f->st, DEV_SECTORS, argc, argv, f->result,
				 min_t(unsigned int, maxlen, RESULT_LEN));
}

static inline int send(struct kunit *test, const char *line)
{
	return send_len(test, line, RESULT_LEN);
}

static inline const char *list(struct kunit *test)
{
	struct stats_fixture *f = test->priv;

	KUNIT_EXPECT_EQ(test, send(test, "@stats_list"), 1);
	return f->result;
}

/* Area @area of region @id, folded over all CPUs. */
static inline void read_area(struct kunit *test, struct dm_stats *st, int id,
			     size_t area, struct dm_stats_totals *t)
{
	struct dm_stats_region *r = xa_load(&st->regions, id);

	KUNIT_ASSERT_NOT_NULL(test, r);
	dm_stats_fold(r, area, t);
}

#endif
