/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the generic statistics layer: what the suites of
 * statistic-*-test.c share, interfaces on a clock the tests control and
 * the text of their files.
 */
#ifndef _LIB_STATISTIC_TEST_H
#define _LIB_STATISTIC_TEST_H

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/statistic.h>
#include <linux/string.h>

#include "statistic-internal.h"

#define TEXT_SIZE	(64 * 1024)

/* A millisecond of the test clock */
#define MS		1000000ULL

static u64 test_now;

static inline u64 test_clock(void)
{
	return test_now;
}

static inline void iface_remove_action(void *iface)
{
	statistic_interface_remove(iface);
}

/* A fresh interface on the test clock, removed when the test ends. */
static inline struct statistic_interface *new_iface(struct kunit *test)
{
	/* one counter per suite's file: the case's name keeps names unique */
	static atomic_t serial = ATOMIC_INIT(0);
	struct statistic_interface *iface;
	char name[NAME_MAX + 1];

	snprintf(name, sizeof(name), "kunit-%s-%d", test->name,
		 atomic_inc_return(&serial));
	iface = statistic_create_interface(name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(iface));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   iface_remove_action,
							   iface));
	statistic_interface_set_clock(iface, test_clock);
	return iface;
}

static inline struct statistic *new_stat(struct kunit *test,
					 struct statistic_interface *iface,
					 const char *name)
{
	struct statistic *stat = statistic_create(iface, name, "x/y");

	KUNIT_ASSERT_FALSE(test, IS_ERR(stat));
	return stat;
}

static inline struct statistic *iface_stat(struct statistic_interface *iface,
					   const char *name)
{
	struct statistic *stat, *found = NULL;

	mutex_lock(&iface->lock);
	list_for_each_entry(stat, &iface->statistics, node)
		if (!strcmp(stat->name, name))
			found = stat;
	mutex_unlock(&iface->lock);
	return found;
}

static inline const char *text(struct kunit *test, struct statistic_interface *iface,
			       bool definition)
{
	char *buf = kunit_kzalloc(test, TEXT_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_GE(test, statistic_format(iface, definition, buf,
					       TEXT_SIZE), 0);
	return buf;
}

static inline const char *data_text(struct kunit *test,
				    struct statistic_interface *iface)
{
	return text(test, iface, false);
}

static inline const char *def_text(struct kunit *test,
				   struct statistic_interface *iface)
{
	return text(test, iface, true);
}

static inline int def_write(struct kunit *test, struct statistic_interface *iface,
			    const char *s)
{
	char *buf = kunit_kstrdup(test, s, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return statistic_definition_write(iface, buf);
}

/* The value of one attribute in a statistic's definition line. */
static inline const char *attr(struct kunit *test, struct statistic_interface *iface,
			       const char *name, const char *key)
{
	char *def = kunit_kstrdup(test, def_text(test, iface), GFP_KERNEL);
	char *line, *word;
	size_t klen = strlen(key);

	while ((line = strsep(&def, "\n")) != NULL) {
		if (strncmp(line, "name=", 5) || strncmp(line + 5, name,
							 strlen(name)) ||
		    line[5 + strlen(name)] != ' ')
			continue;
		while ((word = strsep(&line, " ")) != NULL)
			if (!strncmp(word, key, klen) && word[klen] == '=')
				return word + klen + 1;
	}
	return "(none)";
}

/*
 * The cases test the layer itself, also on kernels where it is closed to
 * exploiters (debugfs=off, lockdown): their interfaces then have no
 * directory.
 */
static int closed_before_suite __maybe_unused;

static inline int statistic_suite_init(struct kunit_suite *suite)
{
	closed_before_suite = statistic_set_closed(0);
	return 0;
}

static inline void statistic_suite_exit(struct kunit_suite *suite)
{
	statistic_set_closed(closed_before_suite);
}

#endif
