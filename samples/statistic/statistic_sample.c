// SPDX-License-Identifier: GPL-2.0
/*
 * Sample exploiter of the generic statistics layer, driven from user space
 * so that tests can feed statistics with known (X, Y) sequences.
 *
 * Write commands, one per line, to /sys/kernel/debug/statistic_sample/control:
 *
 *   interface IFACE                 statistic_create_interface()
 *   interface_remove IFACE          statistic_interface_remove()
 *   clock IFACE                     make IFACE use the sample's clock
 *   time [+]NS                      set (or advance) the sample's clock
 *   create IFACE NAME UNITS         statistic_create()
 *   remove IFACE NAME               statistic_remove()
 *   define IFACE NAME value MIN MAX increments|products
 *   define IFACE NAME range MIN MAX
 *   define IFACE NAME list MIN MAX ENTRIES
 *   define IFACE NAME array MIN MAX BASE lin|log2
 *   define IFACE NAME history MIN MAX ENTRIES PERIOD_US MODE
 *   define IFACE NAME raw MIN MAX ENTRIES
 *   start|stop|reset IFACE NAME     statistic_start/stop/reset()
 *   add IFACE NAME X Y [COUNT]      statistic_add(X, Y), COUNT times
 *   inc IFACE NAME X [COUNT]        statistic_inc(X), COUNT times
 *   sweep IFACE NAME X STEP COUNT   statistic_inc(X + i * STEP), i < COUNT
 *
 * A bad command fails the write with -EINVAL (and a message in the log);
 * the commands before it on the same write have been carried out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/statistic.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define SAMPLE_MAX_WORDS	9
#define SAMPLE_WRITE_MAX	PAGE_SIZE

struct sample_stat {
	struct list_head node;
	struct statistic *stat;
	char *name;
};

struct sample_iface {
	struct list_head node;
	struct list_head stats;
	struct statistic_interface *iface;
	char *name;
};

static LIST_HEAD(sample_ifaces);
static DEFINE_MUTEX(sample_lock);
static struct dentry *sample_dir;
static atomic64_t sample_time;

static u64 sample_clock(void)
{
	return atomic64_read(&sample_time);
}

static struct sample_iface *find_iface(const char *name)
{
	struct sample_iface *si;

	list_for_each_entry(si, &sample_ifaces, node)
		if (!strcmp(si->name, name))
			return si;
	return NULL;
}

static struct sample_stat *find_stat(struct sample_iface *si, const char *name)
{
	struct sample_stat *ss;

	list_for_each_entry(ss, &si->stats, node)
		if (!strcmp(ss->name, name))
			return ss;
	return NULL;
}

static void remove_stat(struct sample_stat *ss)
{
	list_del(&ss->node);
	statistic_remove(ss->stat);
	kfree(ss->name);
	kfree(ss);
}

static void remove_iface(struct sample_iface *si)
{
	struct sample_stat *ss, *next;

	/* statistic_interface_remove() removes the statistics too */
	list_for_each_entry_safe(ss, next, &si->stats, node) {
		list_del(&ss->node);
		kfree(ss->name);
		kfree(ss);
	}
	list_del(&si->node);
	statistic_interface_remove(si->iface);
	kfree(si->name);
	kfree(si);
}

static int parse_mode(const char *s, enum statistic_mode *mode)
{
	if (!strcmp(s, "increments"))
		*mode = STATISTIC_MODE_INCREMENTS;
	else if (!strcmp(s, "products"))
		*mode = STATISTIC_MODE_PRODUCTS;
	else if (!strcmp(s, "range"))
		*mode = STATISTIC_MODE_RANGE;
	else
		return -EINVAL;
	return 0;
}

static int cmd_define(struct statistic *stat, char **w, int n)
{
	enum statistic_mode mode;
	u64 base, period;
	s64 min, max;
	u32 entries;

	if (n < 6 || kstrtos64(w[4], 0, &min) || kstrtos64(w[5], 0, &max))
		return -EINVAL;
	if (!strcmp(w[3], "value") && n == 7 && !parse_mode(w[6], &mode))
		return statistic_define_value(stat, min, max, mode);
	if (!strcmp(w[3], "range") && n == 6)
		return statistic_define_range(stat, min, max);
	if (!strcmp(w[3], "list") && n == 7 && !kstrtou32(w[6], 0, &entries))
		return statistic_define_list(stat, min, max, entries);
	if (!strcmp(w[3], "raw") && n == 7 && !kstrtou32(w[6], 0, &entries))
		return statistic_define_raw(stat, min, max, entries);
	if (!strcmp(w[3], "array") && n == 8 && !kstrtou64(w[6], 0, &base))
		return statistic_define_array(stat, min, max, base,
					      !strcmp(w[7], "log2") ?
					      STATISTIC_SCALE_LOG2 :
					      !strcmp(w[7], "lin") ?
					      STATISTIC_SCALE_LIN : -1);
	if (!strcmp(w[3], "history") && n == 9 &&
	    !kstrtou32(w[6], 0, &entries) && !kstrtou64(w[7], 0, &period) &&
	    !parse_mode(w[8], &mode))
		return statistic_define_history(stat, min, max, entries,
						period, mode);
	return -EINVAL;
}

static int cmd_feed(struct statistic *stat, char **w, int n, bool inc)
{
	int want = inc ? 4 : 5;
	u64 y = 1, count = 1, i;
	s64 x;

	if (n < want || n > want + 1 || kstrtos64(w[3], 0, &x) ||
	    (!inc && kstrtou64(w[4], 0, &y)) ||
	    (n == want + 1 && kstrtou64(w[want], 0, &count)))
		return -EINVAL;
	for (i = 0; i < count; i++) {
		if (inc)
			statistic_inc(stat, x);
		else
			statistic_add(stat, x, y);
		cond_resched();
	}
	return 0;
}

static int cmd_sweep(struct statistic *stat, char **w, int n)
{
	s64 x, step;
	u64 count, i;

	if (n != 6 || kstrtos64(w[3], 0, &x) || kstrtos64(w[4], 0, &step) ||
	    kstrtou64(w[5], 0, &count))
		return -EINVAL;
	for (i = 0; i < count; i++) {
		statistic_inc(stat, x + (s64)i * step);
		cond_resched();
	}
	return 0;
}

/* "time NS" sets the sample clock, "time +NS" advances it */
static int cmd_time(const char *arg)
{
	u64 ns;

	if (kstrtou64(arg + (arg[0] == '+'), 0, &ns))
		return -EINVAL;
	if (arg[0] == '+')
		atomic64_add(ns, &sample_time);
	else
		atomic64_set(&sample_time, ns);
	return 0;
}

static int cmd_interface(const char *name)
{
	struct statistic_interface *iface;
	struct sample_iface *si;

	if (find_iface(name))
		return -EEXIST;
	si = kzalloc(sizeof(*si), GFP_KERNEL);
	if (!si)
		return -ENOMEM;
	si->name = kstrdup(name, GFP_KERNEL);
	iface = statistic_create_interface(name);
	if (!si->name || IS_ERR(iface)) {
		kfree(si->name);
		kfree(si);
		return IS_ERR(iface) ? PTR_ERR(iface) : -ENOMEM;
	}
	si->iface = iface;
	INIT_LIST_HEAD(&si->stats);
	list_add_tail(&si->node, &sample_ifaces);
	return 0;
}

static int cmd_create(struct sample_iface *si, const char *name,
		      const char *units)
{
	struct sample_stat *ss;
	struct statistic *stat;

	if (find_stat(si, name))
		return -EEXIST;
	ss = kzalloc(sizeof(*ss), GFP_KERNEL);
	if (!ss)
		return -ENOMEM;
	ss->name = kstrdup(name, GFP_KERNEL);
	stat = statistic_create(si->iface, name, units);
	if (!ss->name || IS_ERR(stat)) {
		kfree(ss->name);
		kfree(ss);
		return IS_ERR(stat) ? PTR_ERR(stat) : -ENOMEM;
	}
	ss->stat = stat;
	list_add_tail(&ss->node, &si->stats);
	return 0;
}

/* The commands on one statistic: w[0] the command, w[2] the statistic. */
static int run_stat_command(struct sample_stat *ss, char **w, int n)
{
	struct statistic *stat = ss->stat;

	if (!strcmp(w[0], "remove") && n == 3) {
		remove_stat(ss);
		return 0;
	}
	if (!strcmp(w[0], "define"))
		return cmd_define(stat, w, n);
	if (!strcmp(w[0], "start") && n == 3) {
		statistic_start(stat);
		return 0;
	}
	if (!strcmp(w[0], "stop") && n == 3) {
		statistic_stop(stat);
		return 0;
	}
	if (!strcmp(w[0], "reset") && n == 3)
		return statistic_reset(stat);
	if (!strcmp(w[0], "add"))
		return cmd_feed(stat, w, n, false);
	if (!strcmp(w[0], "inc"))
		return cmd_feed(stat, w, n, true);
	if (!strcmp(w[0], "sweep"))
		return cmd_sweep(stat, w, n);
	return -EINVAL;
}

static int run_command(char **w, int n)
{
	struct sample_iface *si;
	struct sample_stat *ss;

	if (!strcmp(w[0], "time") && n == 2)
		return cmd_time(w[1]);
	if (n < 2)
		return -EINVAL;
	if (!strcmp(w[0], "interface") && n == 2)
		return cmd_interface(w[1]);
	si = find_iface(w[1]);
	if (!si)
		return -ENOENT;
	if (!strcmp(w[0], "interface_remove") && n == 2) {
		remove_iface(si);
		return 0;
	}
	if (!strcmp(w[0], "clock") && n == 2) {
		statistic_interface_set_clock(si->iface, sample_clock);
		return 0;
	}
	if (n < 3)
		return -EINVAL;
	if (!strcmp(w[0], "create") && n == 4)
		return cmd_create(si, w[2], w[3]);
	ss = find_stat(si, w[2]);
	if (!ss)
		return -ENOENT;
	return run_stat_command(ss, w, n);
}

static int run_line(char *line)
{
	char *w[SAMPLE_MAX_WORDS], *word;
	int n = 0, err;

	while ((word = strsep(&line, " \t")) != NULL) {
		if (!*word)
			continue;
		if (n == SAMPLE_MAX_WORDS)
			return -EINVAL;
		w[n++] = word;
	}
	if (!n)
		return 0;
	err = run_command(w, n);
	if (err)
		pr_warn("command \"%s\" failed: %d\n", w[0], err);
	return err;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char *buf, *line, *cur;
	int err = 0;

	if (count >= SAMPLE_WRITE_MAX)
		return -EFBIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	cur = buf;
	mutex_lock(&sample_lock);
	while (!err && (line = strsep(&cur, "\n")) != NULL)
		err = run_line(line);
	mutex_unlock(&sample_lock);
	kfree(buf);
	return err ?: count;
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = control_write,
	.llseek = noop_llseek,
};

static int __init statistic_sample_init(void)
{
	sample_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(sample_dir))
		return PTR_ERR(sample_dir);
	debugfs_create_file("control", 0200, sample_dir, NULL, &control_fops);
	return 0;
}
module_init(statistic_sample_init);

static void __exit statistic_sample_exit(void)
{
	struct sample_iface *si, *next;

	debugfs_remove(sample_dir);
	mutex_lock(&sample_lock);
	list_for_each_entry_safe(si, next, &sample_ifaces, node)
		remove_iface(si);
	mutex_unlock(&sample_lock);
}
module_exit(statistic_sample_exit);

MODULE_DESCRIPTION("Sample exploiter of the generic statistics layer");
MODULE_LICENSE("GPL");
