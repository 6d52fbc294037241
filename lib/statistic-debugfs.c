// SPDX-License-Identifier: GPL-2.0
/*
 * Generic statistics layer: the top, where an interface becomes a directory
 * /sys/kernel/debug/statistics/<interface>/ and the module starts.
 * "data" (0400) streams one line per seq_file record, so that a list or raw
 * statistic of any size is read without large allocations; "definition"
 * (0600) shows one line per statistic and takes changes.
 */
#define pr_fmt(fmt) "statistic: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include "statistic-internal.h"

/* Longest write to a definition file, pending partial line included. */
#define STATISTIC_WRITE_MAX	SZ_1M

static struct dentry *statistic_root;

/*
 * Where a data file reader is: line @line of @stat, which is line @pos of
 * the file. Kept between reads; valid while the interface's generation is.
 */
struct statistic_cursor {
	struct statistic_interface *iface;
	u64 generation;
	loff_t pos;
	struct statistic *stat;
	struct statistic_snapshot snap;
	u64 line;
};

static void cursor_enter(struct statistic_cursor *cur, struct statistic *stat)
{
	struct statistic_interface *iface = cur->iface;

	cur->stat = stat;
	cur->line = 0;
	if (stat)
		statistic_data_snapshot(stat->data,
					statistic_view_time(stat,
							    statistic_now(iface)),
					&cur->snap);
}

/* Move past statistics without (more) lines. */
static void cursor_settle(struct statistic_cursor *cur)
{
	struct list_head *head = &cur->iface->statistics;

	while (cur->stat && cur->line >= cur->snap.lines)
		cursor_enter(cur, list_is_last(&cur->stat->node, head) ? NULL :
			     list_next_entry(cur->stat, node));
}

static void cursor_rewind(struct statistic_cursor *cur, loff_t pos)
{
	struct statistic_interface *iface = cur->iface;

	cur->generation = iface->generation;
	cur->pos = 0;
	cursor_enter(cur, list_first_entry_or_null(&iface->statistics,
						   struct statistic, node));
	cursor_settle(cur);
	while (cur->stat && cur->pos < pos) {
		u64 skip = min_t(u64, cur->snap.lines - cur->line,
				 pos - cur->pos);

		cur->line += skip;
		cur->pos += skip;
		cursor_settle(cur);
	}
}

static void *data_start(struct seq_file *m, loff_t *pos)
{
	struct statistic_cursor *cur = m->private;

	mutex_lock(&cur->iface->lock);
	if (!*pos || cur->generation != cur->iface->generation ||
	    cur->pos != *pos)
		cursor_rewind(cur, *pos);
	return cur->stat ? cur : NULL;
}

static void *data_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct statistic_cursor *cur = v;

	cur->line++;
	cur->pos++;
	*pos = cur->pos;
	cursor_settle(cur);
	return cur->stat ? cur : NULL;
}

static void data_stop(struct seq_file *m, void *v)
{
	struct statistic_cursor *cur = m->private;

	mutex_unlock(&cur->iface->lock);
}

static int data_show(struct seq_file *m, void *v)
{
	struct statistic_cursor *cur = v;

	return statistic_data_show_line(m, cur->stat->name, cur->stat->data,
					&cur->snap, cur->line);
}

static const struct seq_operations data_seq_ops = {
	.start = data_start,
	.next = data_next,
	.stop = data_stop,
	.show = data_show,
};

static int data_open(struct inode *inode, struct file *file)
{
	struct statistic_cursor *cur;

	cur = __seq_open_private(file, &data_seq_ops, sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	cur->iface = inode->i_private;
	cur->generation = U64_MAX;
	cur->pos = -1;
	return 0;
}

static const struct file_operations data_fops = {
	.owner = THIS_MODULE,
	.open = data_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/*
 * An open definition file: a line written in pieces waits here. The file
 * is created with debugfs_create_file_unsafe(), so that close() reaches
 * def_flush(): every operation that touches the interface holds the
 * dentry with debugfs_file_get() against the interface's removal.
 */
struct statistic_def_file {
	struct statistic_interface *iface;
	struct mutex lock;	/* serialises writers of @pending */
	char *pending;
	size_t pending_len;
};

static int def_show(struct seq_file *m, void *v)
{
	struct statistic_def_file *df = m->private;
	struct statistic *stat;

	mutex_lock(&df->iface->lock);
	list_for_each_entry(stat, &df->iface->statistics, node)
		statistic_show_definition(m, stat);
	mutex_unlock(&df->iface->lock);
	return 0;
}

static int def_open(struct inode *inode, struct file *file)
{
	struct statistic_def_file *df;
	int err;

	df = kzalloc(sizeof(*df), GFP_KERNEL);
	if (!df)
		return -ENOMEM;
	df->iface = inode->i_private;
	mutex_init(&df->lock);
	err = single_open(file, def_show, df);
	if (err)
		kfree(df);
	return err;
}

static ssize_t def_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	struct dentry *dentry = file->f_path.dentry;
	ssize_t ret;

	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	ret = seq_read(file, ubuf, count, ppos);
	debugfs_file_put(dentry);
	return ret;
}

static loff_t def_llseek(struct file *file, loff_t offset, int whence)
{
	struct dentry *dentry = file->f_path.dentry;
	loff_t ret;

	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	ret = seq_lseek(file, offset, whence);
	debugfs_file_put(dentry);
	return ret;
}

/* Apply @buf's complete lines; what follows the last newline stays pending. */
static ssize_t def_write_locked(struct statistic_def_file *df, char *buf,
				size_t len)
{
	char *end = strrchr(buf, '\n'), *rest = NULL;
	size_t rest_len;
	int err;

	if (!end) {
		kvfree(df->pending);
		df->pending = buf;
		df->pending_len = len;
		return 0;
	}
	*end++ = '\0';
	/* what stays pending is allocated before anything is applied */
	rest_len = strlen(end);
	if (rest_len) {
		rest = kvmemdup(end, rest_len + 1, GFP_KERNEL);
		if (!rest) {
			kvfree(buf);
			return -ENOMEM;
		}
	}
	err = statistic_definition_write(df->iface, buf);
	kvfree(buf);
	if (err) {
		/* refused: the file is as it was, pending text included */
		kvfree(rest);
		return err;
	}
	kvfree(df->pending);
	df->pending = rest;
	df->pending_len = rest_len;
	return 0;
}

/*
 * Complete lines are applied at once, all or nothing, and the write fails
 * with their error; a trailing partial line waits for the rest, or for
 * close(), which then returns its error.
 */
static ssize_t def_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct statistic_def_file *df = m->private;
	struct dentry *dentry = file->f_path.dentry;
	size_t len;
	ssize_t err;
	char *buf;

	err = debugfs_file_get(dentry);
	if (err)
		return err;
	mutex_lock(&df->lock);
	len = df->pending_len + count;
	err = -EFBIG;
	if (len > STATISTIC_WRITE_MAX)
		goto out;
	err = -ENOMEM;
	buf = kvmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		goto out;
	if (df->pending_len)
		memcpy(buf, df->pending, df->pending_len);
	err = -EFAULT;
	if (copy_from_user(buf + df->pending_len, ubuf, count)) {
		kvfree(buf);
		goto out;
	}
	buf[len] = '\0';
	err = -EINVAL;
	if (strlen(buf) != len) {
		kvfree(buf);
		goto out;
	}
	err = def_write_locked(df, buf, len) ?: count;
out:
	mutex_unlock(&df->lock);
	debugfs_file_put(dentry);
	return err;
}

/* close(): apply a pending partial line, and return its error. */
static int def_flush(struct file *file, fl_owner_t id)
{
	struct seq_file *m = file->private_data;
	struct statistic_def_file *df = m->private;
	struct dentry *dentry = file->f_path.dentry;
	int err = 0;

	mutex_lock(&df->lock);
	if (!df->pending_len)
		goto out;
	/* the interface may be gone: debugfs tells */
	err = debugfs_file_get(dentry);
	if (!err) {
		err = statistic_definition_write(df->iface, df->pending);
		debugfs_file_put(dentry);
	}
	kvfree(df->pending);
	df->pending = NULL;
	df->pending_len = 0;
out:
	mutex_unlock(&df->lock);
	return err;
}

static int def_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct statistic_def_file *df = m->private;

	kvfree(df->pending);
	mutex_destroy(&df->lock);
	kfree(df);
	return single_release(inode, file);
}

static const struct file_operations def_fops = {
	.owner = THIS_MODULE,
	.open = def_open,
	.read = def_read,
	.write = def_write,
	.llseek = def_llseek,
	.flush = def_flush,
	.release = def_release,
};

/*
 * Why users cannot reach statistics, or 0: -ENODEV without debugfs, -EPERM
 * on a kernel locked down at boot (statistic_debugfs_init()). Set once at
 * init; only KUnit changes it later.
 */
static int statistic_closed;

/**
 * statistic_set_closed() - open or close the layer to new interfaces
 * @err: 0 to open it, else the error statistic_create_interface() returns
 *
 * For KUnit, which tests the layer on kernels booted without debugfs or
 * locked down: interfaces made while it is open have no directory there.
 *
 * Return: the old state.
 */
int statistic_set_closed(int err)
{
	return xchg(&statistic_closed, err);
}
EXPORT_SYMBOL_IF_KUNIT(statistic_set_closed);

/**
 * statistic_create_interface() - create a directory of statistics
 * @name: the directory's name under /sys/kernel/debug/statistics/,
 *	e.g. "dm-253:0"
 *
 * The directory holds the files "data" (0400) and "definition" (0600).
 * Attach statistics with statistic_create().
 *
 * Where users cannot write definition files, so that no statistic could
 * ever be started, the layer is closed and nothing is made: without
 * debugfs (-ENODEV) and on a kernel locked down at boot (-EPERM). The
 * layer has said so in the kernel log once; an exploiter then goes on
 * without statistics, silently. Without the root (a closed layer opened
 * by KUnit), the interface has no directory.
 *
 * Context: process context, may sleep.
 * Return: the interface, or an ERR_PTR(): -EINVAL for a bad name, -EEXIST
 * if the directory exists, -ENOMEM, -ENODEV or -EPERM if the layer is
 * closed.
 */
struct statistic_interface *statistic_create_interface(const char *name)
{
	struct statistic_interface *iface;
	struct dentry *dir;
	int err;

	err = READ_ONCE(statistic_closed);
	if (err)
		return ERR_PTR(err);
	iface = statistic_interface_alloc(name);
	if (IS_ERR(iface) || !statistic_root)
		return iface;
	dir = debugfs_create_dir(iface->name, statistic_root);
	if (IS_ERR(dir)) {
		statistic_interface_free(iface);
		return ERR_CAST(dir);
	}
	iface->dir = dir;
	debugfs_create_file("data", 0400, dir, iface, &data_fops);
	debugfs_create_file_unsafe("definition", 0600, dir, iface, &def_fops);
	return iface;
}
EXPORT_SYMBOL_GPL(statistic_create_interface);

/**
 * statistic_interface_remove() - remove an interface with its statistics
 * @iface: the interface, or an ERR_PTR() or %NULL (ignored)
 *
 * Removes the debugfs directory (waiting for readers and writers of its
 * files) and every statistic still attached, as statistic_remove() does.
 *
 * Context: process context, may sleep.
 */
void statistic_interface_remove(struct statistic_interface *iface)
{
	if (IS_ERR_OR_NULL(iface))
		return;
	debugfs_remove(iface->dir);
	iface->dir = NULL;
	statistic_interface_free(iface);
}
EXPORT_SYMBOL_GPL(statistic_interface_remove);

/*
 * Users define and start statistics by writing definition files. When
 * they cannot (debugfs=off, or a kernel locked down at boot, where debugfs
 * refuses to open writable files), the layer is closed: it says so once
 * and statistic_create_interface() fails, so that exploiters allocate and
 * hook nothing for statistics nobody could ever start.
 */
static int statistic_debugfs_init(void)
{
	struct dentry *root;
	int err;

	err = security_locked_down(LOCKDOWN_DEBUGFS);
	if (err) {
		pr_notice("kernel lockdown: debugfs files cannot be written, so no statistics are created\n");
		return err;
	}
	root = debugfs_create_dir("statistics", NULL);
	if (IS_ERR(root)) {
		pr_info("no debugfs: no statistics are created\n");
		return -ENODEV;
	}
	statistic_root = root;
	return 0;
}

static int __init statistic_init(void)
{
	statistic_mem_init();
	statistic_closed = statistic_debugfs_init();
	return 0;
}
subsys_initcall(statistic_init);

static void __exit statistic_exit(void)
{
	debugfs_remove(statistic_root);
	statistic_data_retire_barrier();
}
module_exit(statistic_exit);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * statistic_format() - what reading a file of an interface shows
 * @iface: the interface
 * @definition: the definition file, else the data file
 * @buf: where to
 * @size: its size
 *
 * Return: the length of the text in @buf, NUL-terminated, or -ENOSPC.
 */
ssize_t statistic_format(struct statistic_interface *iface, bool definition,
			 char *buf, size_t size)
{
	struct statistic_cursor cur = { .iface = iface };
	struct seq_file m = { .buf = buf, .size = size - 1 };
	struct statistic_def_file df = { .iface = iface };
	loff_t pos = 0;
	void *v;

	if (definition) {
		m.private = &df;
		def_show(&m, NULL);
	} else {
		m.private = &cur;
		for (v = data_start(&m, &pos); v; v = data_next(&m, v, &pos)) {
			size_t count = m.count;

			if (data_show(&m, v) == SEQ_SKIP)
				m.count = count;
		}
		data_stop(&m, NULL);
	}
	if (seq_has_overflowed(&m))
		return -ENOSPC;
	buf[m.count] = '\0';
	return m.count;
}
EXPORT_SYMBOL_IF_KUNIT(statistic_format);
#endif

MODULE_DESCRIPTION("Generic statistics layer in debugfs");
MODULE_LICENSE("GPL");
