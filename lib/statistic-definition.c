// SPDX-License-Identifier: GPL-2.0
/*
 * Generic statistics layer: the "definition" file, one line per statistic:
 *
 *   name=<name> on=<0|1> type=<type> range_min=<X> range_max=<X>
 *   [type-specific attributes] hits_out_of_range=<n> data=[<reset time>]
 *   started=[<time>] stopped=[<time>] units=<units>
 *
 * A write is parsed and checked in full, every new generation of data is
 * allocated, and only then is everything committed under the interface
 * mutex: a write that fails changes nothing. Read-only attributes and
 * unknown words are ignored, so that a line read can be written back.
 */
#define pr_fmt(fmt) "statistic: " fmt

#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "statistic-internal.h"

static const char * const type_names[] = {
	[STATISTIC_TYPE_VALUE] = "value",
	[STATISTIC_TYPE_RANGE] = "range",
	[STATISTIC_TYPE_LIST] = "list",
	[STATISTIC_TYPE_ARRAY] = "array",
	[STATISTIC_TYPE_HISTORY] = "history",
	[STATISTIC_TYPE_RAW] = "raw",
};

static const char * const mode_names[] = {
	[STATISTIC_MODE_INCREMENTS] = "increments",
	[STATISTIC_MODE_PRODUCTS] = "products",
	[STATISTIC_MODE_RANGE] = "range",
};

static const char * const scale_names[] = {
	[STATISTIC_SCALE_LIN] = "lin",
	[STATISTIC_SCALE_LOG2] = "log2",
};

/* Attributes that (re)define a statistic. */
enum {
	DEF_TYPE,
	DEF_RANGE_MIN,
	DEF_RANGE_MAX,
	DEF_MODE,
	DEF_SCALE,
	DEF_ENTRIES_MAX,
	DEF_BASE_INTERVAL,
	DEF_PERIOD,
	NR_DEF_ATTRS
};

static const char * const attr_names[NR_DEF_ATTRS] = {
	[DEF_TYPE] = "type",
	[DEF_RANGE_MIN] = "range_min",
	[DEF_RANGE_MAX] = "range_max",
	[DEF_MODE] = "mode",
	[DEF_SCALE] = "scale",
	[DEF_ENTRIES_MAX] = "entries_max",
	[DEF_BASE_INTERVAL] = "base_interval",
	[DEF_PERIOD] = "period",
};

#define DEF_SPECIFIC	(BIT(DEF_MODE) | BIT(DEF_SCALE) | \
			 BIT(DEF_ENTRIES_MAX) | BIT(DEF_BASE_INTERVAL) | \
			 BIT(DEF_PERIOD))

/* The type-specific attributes of each type: all required on a type change. */
static const unsigned int type_attrs[] = {
	[STATISTIC_TYPE_VALUE] = BIT(DEF_MODE),
	[STATISTIC_TYPE_RANGE] = 0,
	[STATISTIC_TYPE_LIST] = BIT(DEF_ENTRIES_MAX),
	[STATISTIC_TYPE_ARRAY] = BIT(DEF_BASE_INTERVAL) | BIT(DEF_SCALE),
	[STATISTIC_TYPE_HISTORY] = BIT(DEF_ENTRIES_MAX) | BIT(DEF_MODE) |
				   BIT(DEF_PERIOD),
	[STATISTIC_TYPE_RAW] = BIT(DEF_ENTRIES_MAX),
};

/* Clear what does not apply to the type, so that definitions compare. */
static void config_normalize(struct statistic_config *cfg)
{
	unsigned int attrs = type_attrs[cfg->type];

	if (!(attrs & BIT(DEF_MODE)))
		cfg->mode = 0;
	if (!(attrs & BIT(DEF_SCALE)))
		cfg->scale = 0;
	if (!(attrs & BIT(DEF_ENTRIES_MAX)))
		cfg->entries_max = 0;
	if (!(attrs & BIT(DEF_BASE_INTERVAL)))
		cfg->base_interval = 0;
	if (!(attrs & BIT(DEF_PERIOD)))
		cfg->period_us = 0;
}

static bool config_equal(const struct statistic_config *a,
			 const struct statistic_config *b)
{
	return a->type == b->type && a->mode == b->mode &&
	       a->scale == b->scale && a->range_min == b->range_min &&
	       a->range_max == b->range_max &&
	       a->entries_max == b->entries_max &&
	       a->base_interval == b->base_interval &&
	       a->period_us == b->period_us;
}

/**
 * statistic_show_definition() - print a statistic's definition line
 * @m: the definition file
 * @stat: the statistic
 *
 * Context: the interface mutex held.
 */
void statistic_show_definition(struct seq_file *m, struct statistic *stat)
{
	struct statistic_data *data = stat->data;
	const struct statistic_config *cfg = &data->cfg;

	seq_printf(m, "name=%s on=%d type=%s range_min=%lld range_max=%lld",
		   stat->name, stat->on, type_names[cfg->type],
		   cfg->range_min, cfg->range_max);
	switch (cfg->type) {
	case STATISTIC_TYPE_VALUE:
		seq_printf(m, " mode=%s", mode_names[cfg->mode]);
		break;
	case STATISTIC_TYPE_RANGE:
		break;
	case STATISTIC_TYPE_LIST:
		seq_printf(m, " entries_max=%u hits_missed=%llu",
			   cfg->entries_max, statistic_data_missed(data));
		break;
	case STATISTIC_TYPE_ARRAY:
		seq_printf(m, " base_interval=%llu scale=%s",
			   cfg->base_interval, scale_names[cfg->scale]);
		break;
	case STATISTIC_TYPE_HISTORY:
		seq_printf(m, " entries_max=%u mode=%s period=%llu",
			   cfg->entries_max, mode_names[cfg->mode],
			   cfg->period_us);
		break;
	case STATISTIC_TYPE_RAW:
		seq_printf(m, " entries_max=%u", cfg->entries_max);
		break;
	}
	seq_printf(m, " hits_out_of_range=%llu data=",
		   statistic_data_out_of_range(data));
	statistic_print_time(m, data->origin);
	seq_puts(m, " started=");
	statistic_print_time(m, stat->started);
	seq_puts(m, " stopped=");
	statistic_print_time(m, stat->stopped);
	seq_printf(m, " units=%s\n", stat->units);
}

/* What one line asks of one statistic. */
struct statistic_request {
	struct statistic *stat;
	struct statistic_config cfg;	/* in effect after this request */
	int on;				/* -1: leave as is */
	bool renew;			/* new generation: reset or redefine */
	struct statistic_data *data;	/* new, then old generation */
};

struct statistic_requests {
	struct statistic_interface *iface;
	struct statistic_request *req;
	unsigned int nr;
	unsigned int alloc;
};

static __printf(2, 3) int def_error(struct statistic_requests *rs,
				    const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_warn("%s: %pV\n", rs->iface->name, &vaf);
	va_end(args);
	return -EINVAL;
}

/* The definition @stat will have after the requests queued so far. */
static const struct statistic_config *
effective_config(struct statistic_requests *rs, struct statistic *stat)
{
	unsigned int i = rs->nr;

	while (i--)
		if (rs->req[i].stat == stat)
			return &rs->req[i].cfg;
	return &stat->data->cfg;
}

static int queue_request(struct statistic_requests *rs, struct statistic *stat,
			 const struct statistic_config *cfg, int on, bool renew)
{
	struct statistic_request *req;

	if (rs->nr == rs->alloc) {
		unsigned int alloc = max(8U, rs->alloc * 2);

		req = krealloc_array(rs->req, alloc, sizeof(*req), GFP_KERNEL);
		if (!req)
			return -ENOMEM;
		rs->req = req;
		rs->alloc = alloc;
	}
	req = &rs->req[rs->nr++];
	req->stat = stat;
	req->cfg = *cfg;
	req->on = on;
	req->renew = renew;
	req->data = NULL;
	return 0;
}

static int parse_enum(struct statistic_requests *rs, const char *key,
		      const char *val, const char * const *names,
		      unsigned int nr, u32 *out)
{
	int i = match_string(names, nr, val);

	if (i < 0)
		return def_error(rs, "invalid %s=%s", key, val);
	*out = i;
	return 0;
}

/* Parse one line into requests. */
static int parse_line(struct statistic_requests *rs, char *line)
{
	struct statistic_config set = {}, cfg;
	const struct statistic_config *base;
	struct statistic *stat;
	unsigned int got = 0, missing, extra;
	const char *name = NULL;
	bool reset = false;
	int on = -1, err = 0;
	char *word;
	u32 val32 = 0;

	while ((word = strsep(&line, " \t\r")) != NULL) {
		char *val = strchr(word, '=');

		if (!val)
			continue;	/* junk */
		*val++ = '\0';
		if (!strcmp(word, "name")) {
			if (name)
				return def_error(rs, "name= given twice");
			name = val;
		} else if (!strcmp(word, "on")) {
			if (strcmp(val, "0") && strcmp(val, "1"))
				return def_error(rs, "invalid on=%s", val);
			on = val[0] == '1';
		} else if (!strcmp(word, "data")) {
			/* "data=[<time>]" is what reading shows */
			if (!strcmp(val, "reset"))
				reset = true;
			else if (val[0] != '[')
				return def_error(rs, "invalid data=%s", val);
		} else if (!strcmp(word, "type")) {
			err = parse_enum(rs, word, val, type_names,
					 ARRAY_SIZE(type_names), &val32);
			set.type = val32;
			got |= BIT(DEF_TYPE);
		} else if (!strcmp(word, "mode")) {
			err = parse_enum(rs, word, val, mode_names,
					 ARRAY_SIZE(mode_names), &val32);
			set.mode = val32;
			got |= BIT(DEF_MODE);
		} else if (!strcmp(word, "scale")) {
			err = parse_enum(rs, word, val, scale_names,
					 ARRAY_SIZE(scale_names), &val32);
			set.scale = val32;
			got |= BIT(DEF_SCALE);
		} else if (!strcmp(word, "range_min")) {
			if (kstrtos64(val, 0, &set.range_min))
				return def_error(rs, "invalid range_min=%s", val);
			got |= BIT(DEF_RANGE_MIN);
		} else if (!strcmp(word, "range_max")) {
			if (kstrtos64(val, 0, &set.range_max))
				return def_error(rs, "invalid range_max=%s", val);
			got |= BIT(DEF_RANGE_MAX);
		} else if (!strcmp(word, "entries_max")) {
			if (kstrtou32(val, 0, &set.entries_max) ||
			    !set.entries_max ||
			    set.entries_max > STATISTIC_ENTRIES_MAX)
				return def_error(rs, "invalid entries_max=%s (1 to %u)",
						 val, STATISTIC_ENTRIES_MAX);
			got |= BIT(DEF_ENTRIES_MAX);
		} else if (!strcmp(word, "base_interval")) {
			if (kstrtou64(val, 0, &set.base_interval) ||
			    !set.base_interval)
				return def_error(rs, "invalid base_interval=%s",
						 val);
			got |= BIT(DEF_BASE_INTERVAL);
		} else if (!strcmp(word, "period")) {
			if (kstrtou64(val, 0, &set.period_us) || !set.period_us)
				return def_error(rs, "invalid period=%s", val);
			got |= BIT(DEF_PERIOD);
		}
		/* units, started, stopped, hits_*, anything else: ignored */
		if (err)
			return err;
	}

	if (!name) {
		if (got) {
			unsigned int a = __ffs(got);

			return def_error(rs, "%s= needs name=", attr_names[a]);
		}
		if (on < 0 && !reset)
			return 0;
		/* the whole interface, committed at once */
		list_for_each_entry(stat, &rs->iface->statistics, node) {
			err = queue_request(rs, stat, effective_config(rs, stat),
					    on, reset);
			if (err)
				return err;
		}
		return 0;
	}

	stat = NULL;
	list_for_each_entry(stat, &rs->iface->statistics, node)
		if (!strcmp(stat->name, name))
			break;
	if (list_entry_is_head(stat, &rs->iface->statistics, node))
		return def_error(rs, "no statistic name=%s", name);

	base = effective_config(rs, stat);
	cfg = *base;
	if (got & BIT(DEF_TYPE))
		cfg.type = set.type;
	missing = type_attrs[cfg.type] & ~got;
	if (cfg.type != base->type && missing)
		return def_error(rs, "%s: type=%s needs %s=", name,
				 type_names[cfg.type],
				 attr_names[__ffs(missing)]);
	extra = got & DEF_SPECIFIC & ~type_attrs[cfg.type];
	if (extra)
		return def_error(rs, "%s: %s= does not apply to type=%s", name,
				 attr_names[__ffs(extra)],
				 type_names[cfg.type]);
	if (got & BIT(DEF_RANGE_MIN))
		cfg.range_min = set.range_min;
	if (got & BIT(DEF_RANGE_MAX))
		cfg.range_max = set.range_max;
	if (got & BIT(DEF_MODE))
		cfg.mode = set.mode;
	if (got & BIT(DEF_SCALE))
		cfg.scale = set.scale;
	if (got & BIT(DEF_ENTRIES_MAX))
		cfg.entries_max = set.entries_max;
	if (got & BIT(DEF_BASE_INTERVAL))
		cfg.base_interval = set.base_interval;
	if (got & BIT(DEF_PERIOD))
		cfg.period_us = set.period_us;
	config_normalize(&cfg);
	if (cfg.range_min > cfg.range_max)
		return def_error(rs, "%s: range_min=%lld > range_max=%lld",
				 name, cfg.range_min, cfg.range_max);
	if (statistic_config_check(&cfg))
		return def_error(rs, "%s: invalid definition for type=%s%s",
				 name, type_names[cfg.type],
				 cfg.type == STATISTIC_TYPE_ARRAY ?
				 " (more than 65536 intervals)" : "");
	if (on < 0 && !reset && config_equal(&cfg, base))
		return 0;
	return queue_request(rs, stat, &cfg, on,
			     reset || !config_equal(&cfg, base));
}

static void requests_free_data(struct statistic_requests *rs)
{
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		statistic_data_free(rs->req[i].data);
}

/**
 * statistic_definition_write() - apply what a user wrote
 * @iface: the interface
 * @buf: complete lines, NUL-terminated; modified
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (with a warning in the kernel log) if any line is
 * invalid; -ENOMEM. On error nothing changes.
 */
int statistic_definition_write(struct statistic_interface *iface, char *buf)
{
	struct statistic_requests rs = { .iface = iface };
	unsigned int i;
	char *line;
	int err = 0;
	u64 now;

	mutex_lock(&iface->lock);
	while ((line = strsep(&buf, "\n")) != NULL) {
		err = parse_line(&rs, line);
		if (err)
			goto out;
	}

	now = statistic_now(iface);
	for (i = 0; i < rs.nr; i++) {
		struct statistic_request *req = &rs.req[i];

		if (!req->renew)
			continue;
		req->data = statistic_data_alloc(&req->cfg, iface->clock, now);
		if (!req->data) {
			requests_free_data(&rs);
			err = -ENOMEM;
			goto out;
		}
	}

	/* Nothing can fail from here on. */
	for (i = 0; i < rs.nr; i++) {
		struct statistic_request *req = &rs.req[i];

		if (req->data)
			req->data = statistic_replace_data(req->stat, req->data);
		if (req->on >= 0)
			statistic_set_on(req->stat, req->on, now);
	}
	mutex_unlock(&iface->lock);
	for (i = 0; i < rs.nr; i++)
		statistic_data_retire(rs.req[i].data);
	kfree(rs.req);
	return 0;

out:
	mutex_unlock(&iface->lock);
	kfree(rs.req);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(statistic_definition_write);
