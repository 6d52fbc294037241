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

/* What a write asks of one statistic: its lines, in order, folded into one. */
struct statistic_request {
	struct statistic *stat;
	struct statistic_config cfg;	/* in effect after this write */
	int on;				/* -1: leave as is */
	bool renew;			/* new generation: reset or redefine */
	struct statistic_data *data;	/* new, then old generation */
	struct statistic_prep prep;	/* to run the data it will have */
};

/*
 * All requests of one write: at most one per statistic of the interface,
 * however many lines the write has, so that what it allocates is bounded
 * by the number of statistics.
 */
struct statistic_requests {
	struct statistic_interface *iface;
	struct statistic_request *req;
	unsigned int nr;
	unsigned int alloc;
};

/* The attributes one line gives. */
struct statistic_line {
	const char *name;
	struct statistic_config set;	/* values of the attributes in @got */
	unsigned int got;		/* BIT(DEF_*) */
	int on;				/* -1: not given */
	bool reset;
};

static __printf(2, 3) int def_error(struct statistic_requests *rs,
				    const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_warn_ratelimited("%s: %pV\n", rs->iface->name, &vaf);
	va_end(args);
	return -EINVAL;
}

static struct statistic_request *find_request(struct statistic_requests *rs,
					      struct statistic *stat)
{
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		if (rs->req[i].stat == stat)
			return &rs->req[i];
	return NULL;
}

/* The definition @stat will have after the lines parsed so far. */
static const struct statistic_config *
effective_config(struct statistic_requests *rs, struct statistic *stat)
{
	struct statistic_request *req = find_request(rs, stat);

	return req ? &req->cfg : &stat->data->cfg;
}

/* Fold what a line asks of @stat into its request: later lines win. */
static int queue_request(struct statistic_requests *rs, struct statistic *stat,
			 const struct statistic_config *cfg, int on, bool renew)
{
	struct statistic_request *req = find_request(rs, stat);

	if (!req) {
		if (rs->nr == rs->alloc) {
			unsigned int alloc = max(8U, rs->alloc * 2);

			req = krealloc_array(rs->req, alloc, sizeof(*req),
					     GFP_KERNEL);
			if (!req)
				return -ENOMEM;
			rs->req = req;
			rs->alloc = alloc;
		}
		req = &rs->req[rs->nr++];
		*req = (struct statistic_request){ .stat = stat, .on = -1 };
	}
	req->cfg = *cfg;
	if (on >= 0)
		req->on = on;
	req->renew |= renew;
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

/* "key=value" words that are not definition attributes. */
static int parse_control(struct statistic_requests *rs,
			 struct statistic_line *l, const char *key,
			 const char *val)
{
	if (!strcmp(key, "name")) {
		if (l->name)
			return def_error(rs, "name= given twice");
		l->name = val;
	} else if (!strcmp(key, "on")) {
		if (strcmp(val, "0") && strcmp(val, "1"))
			return def_error(rs, "invalid on=%s", val);
		l->on = val[0] == '1';
	} else if (!strcmp(key, "data")) {
		/* "data=[<time>]" is what reading shows */
		if (!strcmp(val, "reset"))
			l->reset = true;
		else if (val[0] != '[')
			return def_error(rs, "invalid data=%s", val);
	}
	/* units, started, stopped, hits_*, anything else: ignored */
	return 0;
}

/* A definition attribute: its bit in @l->got and its value in @l->set. */
static int parse_attr(struct statistic_requests *rs, struct statistic_line *l,
		      unsigned int attr, const char *val)
{
	struct statistic_config *set = &l->set;
	u32 val32 = 0;
	int err = 0;

	switch (attr) {
	case DEF_TYPE:
		err = parse_enum(rs, attr_names[attr], val, type_names,
				 ARRAY_SIZE(type_names), &val32);
		set->type = val32;
		break;
	case DEF_MODE:
		err = parse_enum(rs, attr_names[attr], val, mode_names,
				 ARRAY_SIZE(mode_names), &val32);
		set->mode = val32;
		break;
	case DEF_SCALE:
		err = parse_enum(rs, attr_names[attr], val, scale_names,
				 ARRAY_SIZE(scale_names), &val32);
		set->scale = val32;
		break;
	case DEF_RANGE_MIN:
		if (kstrtos64(val, 0, &set->range_min))
			err = def_error(rs, "invalid range_min=%s", val);
		break;
	case DEF_RANGE_MAX:
		if (kstrtos64(val, 0, &set->range_max))
			err = def_error(rs, "invalid range_max=%s", val);
		break;
	case DEF_ENTRIES_MAX:
		if (kstrtou32(val, 0, &set->entries_max) || !set->entries_max ||
		    set->entries_max > STATISTIC_ENTRIES_MAX)
			err = def_error(rs, "invalid entries_max=%s (1 to %u)",
					val, STATISTIC_ENTRIES_MAX);
		break;
	case DEF_BASE_INTERVAL:
		if (kstrtou64(val, 0, &set->base_interval) ||
		    !set->base_interval)
			err = def_error(rs, "invalid base_interval=%s", val);
		break;
	case DEF_PERIOD:
		if (kstrtou64(val, 0, &set->period_us) || !set->period_us ||
		    set->period_us > STATISTIC_PERIOD_MAX_US)
			err = def_error(rs, "invalid period=%s (1 to %llu)",
					val, STATISTIC_PERIOD_MAX_US);
		break;
	}
	if (!err)
		l->got |= BIT(attr);
	return err;
}

/* Split a line into its "key=value" words. */
static int parse_words(struct statistic_requests *rs, struct statistic_line *l,
		       char *line)
{
	char *word;
	int attr, err;

	while ((word = strsep(&line, " \t\r")) != NULL) {
		char *val = strchr(word, '=');

		if (!val)
			continue;	/* junk */
		*val++ = '\0';
		attr = match_string(attr_names, NR_DEF_ATTRS, word);
		if (attr >= 0)
			err = parse_attr(rs, l, attr, val);
		else
			err = parse_control(rs, l, word, val);
		if (err)
			return err;
	}
	return 0;
}

/* A line without name=: on, off or reset for every statistic at once. */
static int queue_all(struct statistic_requests *rs,
		     const struct statistic_line *l)
{
	struct statistic *stat;
	int err;

	if (l->got)
		return def_error(rs, "%s= needs name=", attr_names[__ffs(l->got)]);
	if (l->on < 0 && !l->reset)
		return 0;
	list_for_each_entry(stat, &rs->iface->statistics, node) {
		err = queue_request(rs, stat, effective_config(rs, stat),
				    l->on, l->reset);
		if (err)
			return err;
	}
	return 0;
}

/* @base with the attributes of @l, checked for the type it ends up with. */
static int merge_config(struct statistic_requests *rs,
			const struct statistic_line *l,
			const struct statistic_config *base,
			struct statistic_config *cfg)
{
	unsigned int got = l->got, missing, extra;

	*cfg = *base;
	if (got & BIT(DEF_TYPE))
		cfg->type = l->set.type;
	missing = type_attrs[cfg->type] & ~got;
	if (cfg->type != base->type && missing)
		return def_error(rs, "%s: type=%s needs %s=", l->name,
				 type_names[cfg->type],
				 attr_names[__ffs(missing)]);
	extra = got & DEF_SPECIFIC & ~type_attrs[cfg->type];
	if (extra)
		return def_error(rs, "%s: %s= does not apply to type=%s",
				 l->name, attr_names[__ffs(extra)],
				 type_names[cfg->type]);
	if (got & BIT(DEF_RANGE_MIN))
		cfg->range_min = l->set.range_min;
	if (got & BIT(DEF_RANGE_MAX))
		cfg->range_max = l->set.range_max;
	if (got & BIT(DEF_MODE))
		cfg->mode = l->set.mode;
	if (got & BIT(DEF_SCALE))
		cfg->scale = l->set.scale;
	if (got & BIT(DEF_ENTRIES_MAX))
		cfg->entries_max = l->set.entries_max;
	if (got & BIT(DEF_BASE_INTERVAL))
		cfg->base_interval = l->set.base_interval;
	if (got & BIT(DEF_PERIOD))
		cfg->period_us = l->set.period_us;
	config_normalize(cfg);
	if (cfg->range_min > cfg->range_max)
		return def_error(rs, "%s: range_min=%lld > range_max=%lld",
				 l->name, cfg->range_min, cfg->range_max);
	if (statistic_config_check(cfg))
		return def_error(rs, "%s: invalid definition for type=%s%s",
				 l->name, type_names[cfg->type],
				 cfg->type == STATISTIC_TYPE_ARRAY ?
				 " (more than 65536 intervals)" : "");
	return 0;
}

/* A line naming one statistic. */
static int queue_named(struct statistic_requests *rs,
		       const struct statistic_line *l)
{
	const struct statistic_config *base;
	struct statistic_config cfg;
	struct statistic *stat;
	bool changed;
	int err;

	list_for_each_entry(stat, &rs->iface->statistics, node)
		if (!strcmp(stat->name, l->name))
			goto found;
	return def_error(rs, "no statistic name=%s", l->name);

found:
	base = effective_config(rs, stat);
	err = merge_config(rs, l, base, &cfg);
	if (err)
		return err;
	changed = !config_equal(&cfg, base);
	if (l->on < 0 && !l->reset && !changed)
		return 0;
	return queue_request(rs, stat, &cfg, l->on, l->reset || changed);
}

/* Parse one line into requests. */
static int parse_line(struct statistic_requests *rs, char *line)
{
	struct statistic_line l = { .on = -1 };
	int err;

	err = parse_words(rs, &l, line);
	if (err)
		return err;
	return l.name ? queue_named(rs, &l) : queue_all(rs, &l);
}

static void requests_free(struct statistic_requests *rs)
{
	unsigned int i;

	for (i = 0; i < rs->nr; i++) {
		statistic_prep_free(&rs->req[i].prep);
		statistic_data_free(rs->req[i].data);
	}
	kfree(rs->req);
}

/* Allocate what a request needs: its new generation, the per-CPU blocks. */
static int request_alloc(struct statistic_interface *iface,
			 struct statistic_request *req, u64 now)
{
	struct statistic *stat = req->stat;
	bool on = req->on >= 0 ? req->on : stat->on;
	int err;

	if (req->renew) {
		req->data = statistic_data_alloc(&req->cfg, iface, now);
		if (!req->data)
			return -ENOMEM;
		if (on)
			return statistic_prep_alloc(req->data, &req->prep);
		return 0;
	}
	if (on && !stat->on) {
		err = statistic_prep_alloc(stat->data, &req->prep);
		if (err)
			return err;
	}
	return 0;
}

/* Apply a request whose memory is allocated: nothing can fail. */
static void request_commit(struct statistic_request *req, u64 now)
{
	struct statistic *stat = req->stat;

	/* switched off before the data is replaced: no per-CPU blocks for it */
	if (req->on == 0)
		statistic_set_on(stat, false, now, NULL);
	if (req->data)
		req->data = statistic_replace_data(stat, req->data,
						   &req->prep);
	if (req->on == 1)
		statistic_set_on(stat, true, now, &req->prep);
}

/**
 * statistic_definition_write() - apply what a user wrote
 * @iface: the interface
 * @buf: complete lines, NUL-terminated; modified
 *
 * Every line is parsed and checked, and everything the write needs is
 * allocated (at most one generation per statistic: later lines fold into
 * earlier ones), before anything changes.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (with a warning in the kernel log) if any line is
 * invalid; -ENOMEM if memory is short or the layer's limit is reached. On
 * error nothing changes.
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
		err = request_alloc(iface, &rs.req[i], now);
		if (err)
			goto out;
	}

	/* Nothing can fail from here on. */
	for (i = 0; i < rs.nr; i++)
		request_commit(&rs.req[i], now);
	mutex_unlock(&iface->lock);
	for (i = 0; i < rs.nr; i++) {
		statistic_data_retire(rs.req[i].data);
		rs.req[i].data = NULL;
	}
	requests_free(&rs);
	return 0;

out:
	mutex_unlock(&iface->lock);
	requests_free(&rs);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(statistic_definition_write);
