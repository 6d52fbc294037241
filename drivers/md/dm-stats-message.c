// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: the @stats_* messages, parsed and checked
 * here before dm-stats.c acts on a device's regions. A message that fails
 * here changes nothing. See
 * Documentation/admin-guide/device-mapper/statistics-engine.rst.
 */
#include <linux/device-mapper.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "dm-core.h"
#include "dm-stats-region.h"

#define DM_MSG_PREFIX "stats"

/**
 * dm_stats_parse_histogram - parse "n1,n2,..." histogram boundaries
 * @s: the text after "histogram:"
 * @n: number of boundaries
 * @bounds: kvmalloc'ed boundaries, strictly increasing and non-zero
 *
 * The upstream engine takes the boundaries into one kmalloc'ed array, so
 * it refuses more than fit in KMALLOC_MAX_SIZE with -ENOMEM (and a
 * warning splat); so do we, without the splat. Below that, the array may
 * come from vmalloc: a fragmented machine still takes a big histogram.
 *
 * Return: 0, -EINVAL or -ENOMEM; on error nothing is allocated.
 */
int dm_stats_parse_histogram(const char *s, unsigned int *n, u64 **bounds)
{
	unsigned int count = 1, i = 0;
	unsigned long long prev = 0;
	const char *q;
	u64 *b;

	for (q = s; *q; q++)
		if (*q == ',')
			count++;
	if (count > DM_STATS_MAX_HISTOGRAM_BOUNDS) {
		DMWARN("histogram: %u boundaries, at most %lu", count,
		       DM_STATS_MAX_HISTOGRAM_BOUNDS);
		return -ENOMEM;
	}
	b = kvmalloc_array(count, sizeof(*b), GFP_KERNEL | __GFP_NOWARN);
	if (!b) {
		DMWARN("histogram: no memory for %u boundaries", count);
		return -ENOMEM;
	}
	for (;;) {
		unsigned long long v;
		char sep;
		int got = sscanf(s, "%llu%c", &v, &sep);

		if (got < 1 || (got == 2 && sep != ',') || v <= prev ||
		    WARN_ON_ONCE(i >= count)) {
			kvfree(b);
			return -EINVAL;
		}
		b[i++] = v;
		prev = v;
		if (got == 1)
			break;
		s = strchr(s, ',') + 1;
	}
	*n = count;
	*bounds = b;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_parse_histogram);

/**
 * dm_stats_parse_create - parse the arguments of @stats_create
 * @argc: argument count, including "@stats_create"
 * @argv: arguments
 * @dev_size: device size in sectors, for the "-" range
 * @a: result; a->bounds must be kvfree'd by the caller on success
 *
 * <range> <step> [<nr_opts> <opt>...] [<program_id> [<aux_data>]]
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dm_stats_parse_create(unsigned int argc, char **argv, sector_t dev_size,
			  struct dm_stats_create_args *a)
{
	unsigned long long start, len, step;
	unsigned int i = 1, divisor, nr_opts;
	const char *arg;
	char dummy;
	int ret = -EINVAL;

	memset(a, 0, sizeof(*a));
	if (argc < 3)
		return -EINVAL;

	arg = argv[i++];
	if (!strcmp(arg, "-")) {
		start = 0;
		len = dev_size ? dev_size : 1;
	} else if (sscanf(arg, "%llu+%llu%c", &start, &len, &dummy) != 2) {
		return -EINVAL;
	}
	if (start + len <= start)
		return -EINVAL;

	arg = argv[i++];
	if (sscanf(arg, "/%u%c", &divisor, &dummy) == 1) {
		u32 rem;

		if (!divisor)
			return -EINVAL;
		step = div_u64_rem(len, divisor, &rem);
		if (rem)
			step++;
		if (!step)
			step = 1;
	} else if (sscanf(arg, "%llu%c", &step, &dummy) != 1 || !step) {
		return -EINVAL;
	}

	/* A number here counts options; so an all-digit program id cannot. */
	if (i < argc && sscanf(argv[i], "%u%c", &nr_opts, &dummy) == 1) {
		i++;
		while (nr_opts--) {
			if (i >= argc)
				goto fail;
			arg = argv[i++];
			if (!strcasecmp(arg, "precise_timestamps")) {
				a->flags |= DM_STATS_PRECISE_TIMESTAMPS;
			} else if (!strncasecmp(arg, "histogram:", 10)) {
				if (a->n_bounds)
					goto fail;
				ret = dm_stats_parse_histogram(arg + 10, &a->n_bounds,
							       &a->bounds);
				if (ret)
					goto fail;
				ret = -EINVAL;
			} else {
				goto fail;
			}
		}
	}
	a->program_id = i < argc ? argv[i++] : "-";
	a->aux_data = i < argc ? argv[i++] : "-";
	if (i < argc)
		goto fail;

	a->start = start;
	a->end = start + len;
	a->step = step;
	return 0;

fail:
	kvfree(a->bounds);
	a->bounds = NULL;
	a->n_bounds = 0;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_parse_create);

static int parse_id(unsigned int argc, char **argv, unsigned int want, int *id)
{
	char dummy;

	if (argc != want)
		return -EINVAL;
	if (sscanf(argv[1], "%d%c", id, &dummy) != 1 || *id < 0)
		return -EINVAL;
	return 0;
}

static int msg_create(struct dm_stats *st, sector_t dev_size,
		      unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	struct dm_stats_create_args a;
	int ret;

	ret = dm_stats_parse_create(argc, argv, dev_size, &a);
	if (ret)
		return ret;
	/*
	 * The id must fit in @result: check before creating, as a region
	 * whose id userspace never saw could not be found again.
	 */
	snprintf(result, maxlen, "%d", INT_MAX);
	if (dm_message_test_buffer_overflow(result, maxlen)) {
		ret = 1;
		goto out;
	}
	ret = dm_stats_region_create(st, &a);
	if (ret >= 0) {
		snprintf(result, maxlen, "%d", ret);
		ret = 1;
	}
out:
	kvfree(a.bounds);
	return ret;
}

static int msg_list(struct dm_stats *st, unsigned int argc, char **argv,
		    char *result, unsigned int maxlen)
{
	char *program = NULL;
	int ret;

	if (argc < 1 || argc > 2)
		return -EINVAL;
	/* dm-ioctl's result buffer overlaps the message: copy the filter. */
	if (argc > 1) {
		program = kstrdup(argv[1], GFP_KERNEL);
		if (!program)
			return -ENOMEM;
	}
	ret = dm_stats_region_list(st, program, result, maxlen);
	kfree(program);
	return ret;
}

static int msg_print(struct dm_stats *st, unsigned int argc, char **argv,
		     bool clear, char *result, unsigned int maxlen)
{
	unsigned long first = 0, count = ULONG_MAX;
	char dummy;
	int id;

	if (argc != 2 && argc != 4)
		return -EINVAL;
	if (sscanf(argv[1], "%d%c", &id, &dummy) != 1 || id < 0)
		return -EINVAL;
	if (argc == 4) {
		if (strcmp(argv[2], "-") &&
		    sscanf(argv[2], "%lu%c", &first, &dummy) != 1)
			return -EINVAL;
		if (strcmp(argv[3], "-") &&
		    sscanf(argv[3], "%lu%c", &count, &dummy) != 1)
			return -EINVAL;
	}
	return dm_stats_region_print(st, id, first, count, clear, result, maxlen);
}

/**
 * dm_stats_dispatch - run a statistics message
 * @st: the device's statistics
 * @dev_size: device size in sectors
 * @argc: argument count
 * @argv: arguments, argv[0] is the message name
 * @result: output buffer
 * @maxlen: its size
 *
 * Return: 2 if this is not a statistics message; 1 if output is in
 * @result; 0 on success without output; a negative errno on failure.
 */
int dm_stats_dispatch(struct dm_stats *st, sector_t dev_size,
		      unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	const char *name = argv[0];
	int ret, id;

	if (!strcasecmp(name, "@stats_create")) {
		ret = msg_create(st, dev_size, argc, argv, result, maxlen);
	} else if (!strcasecmp(name, "@stats_delete")) {
		ret = parse_id(argc, argv, 2, &id);
		if (!ret)
			ret = dm_stats_region_delete(st, id);
	} else if (!strcasecmp(name, "@stats_clear")) {
		ret = parse_id(argc, argv, 2, &id);
		if (!ret)
			ret = dm_stats_region_clear(st, id);
	} else if (!strcasecmp(name, "@stats_list")) {
		ret = msg_list(st, argc, argv, result, maxlen);
	} else if (!strcasecmp(name, "@stats_print")) {
		ret = msg_print(st, argc, argv, false, result, maxlen);
	} else if (!strcasecmp(name, "@stats_print_clear")) {
		ret = msg_print(st, argc, argv, true, result, maxlen);
	} else if (!strcasecmp(name, "@stats_set_aux")) {
		ret = parse_id(argc, argv, 3, &id);
		if (!ret)
			ret = dm_stats_region_set_aux(st, id, argv[2]);
	} else {
		return 2;
	}
	if (ret == -EINVAL)
		DMCRIT("Invalid parameters for message %s", name);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_dispatch);

/**
 * dm_stats_message - handle a device-mapper statistics message
 * @md: the device
 * @argc: argument count
 * @argv: arguments, argv[0] is the message name
 * @result: output buffer
 * @maxlen: its size
 *
 * Return: as dm_stats_dispatch().
 */
int dm_stats_message(struct mapped_device *md, unsigned int argc, char **argv,
		     char *result, unsigned int maxlen)
{
	return dm_stats_dispatch(dm_get_stats(md), dm_get_size(md), argc, argv,
				 result, maxlen);
}
