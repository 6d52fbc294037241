// SPDX-License-Identifier: GPL-2.0-only
/*
 * io-trace.c - the io trace events: DTrace's io provider on block I/O
 *
 * io:io_start fires in submit_bio_noacct_nocheck(), beside block_bio_queue
 * and as often (once per trip of a bio: a split's remainder and a
 * throttled bio come back with BIO_TRACE_COMPLETION set), for every bio
 * entering a device's queue: the file system's bio for the device it was
 * issued to, and each bio a stacking driver sends down (dm and md clones,
 * dm-crypt's copies) again for its own device.  io:io_done, in
 * bio_endio(), reports what io:io_start saw of the bio (device, sector,
 * size, file), however far the completion has advanced it since: the bio
 * keeps nothing, the in-flight table below does, while an event is
 * enabled.  Each event has its tracepoint's own static key.  The locks
 * are where names are built, in task context: the per-CPU buffers' local
 * lock, an inode's i_lock while its first alias is read, and mount_lock
 * while a written-back file's mount is found
 * (Documentation/trace/io-provider.rst, "Locks").
 *
 * The file of a bio is a submitter's hint (direct I/O, where the pages
 * are the caller's buffer; readahead and fsync, which know the struct
 * file), else its first folio's inode; "<unknown>" for user memory no
 * hint names, "<none>" for everything else (metadata, swap, kernel
 * buffers).  Hints live on the submitter's stack, linked from
 * current->io_trace_hint.
 *
 * Names are built only in task context, at io:io_start and io:io_wait_start,
 * into a per-CPU buffer under a local lock; io:io_done (hard-IRQ completion)
 * and io:io_wait_done (after the waiter may have let go of its folio) name
 * nothing.  See Documentation/trace/io-provider.rst.
 */

#include <kunit/visibility.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/buffer_head.h>
#include <linux/completion.h>
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hash.h>
#include <linux/io_trace.h>
#include <linux/local_lock.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "blk.h"

#define CREATE_TRACE_POINTS
#include <trace/events/io.h>

/* For the NFS client, which may be a module */
EXPORT_TRACEPOINT_SYMBOL_GPL(io_start);
EXPORT_TRACEPOINT_SYMBOL_GPL(io_done);

/*
 * Longest name an event carries, NUL included; a longer one keeps its end
 * after IO_TRACE_TRUNCATED.  With three of them an event always fits in a
 * ring-buffer page, whose largest event is the page less its header (16
 * bytes) and the event's (8): a larger one would be dropped unseen.
 */
#define IO_TRACE_PATH_MAX	1024
#define IO_TRACE_TRUNCATED	"..."
static_assert(sizeof(struct trace_event_raw_io_class) + 3 * IO_TRACE_PATH_MAX <=
	      PAGE_SIZE - 64, "an io event may not fit in a ring-buffer page");

static const char io_trace_none[] = "<none>";
static const char io_trace_unknown[] = "<unknown>";

/*
 * Where io:io_start and io:io_wait_start build their names, one set per
 * CPU, with the mount root_mount_path() last found on that CPU.  They
 * exist while one of the two events is enabled (made by the first one's
 * regfunc, freed after the last one's unregfunc); io_trace_names_lock
 * serializes the users of a CPU's set.
 */
struct io_trace_names {
	char			path[IO_TRACE_PATH_MAX];
	char			mount[IO_TRACE_PATH_MAX];
	char			fspath[IO_TRACE_PATH_MAX];
	struct root_mount_cache	mount_cache;
};

struct io_trace_names_set {
	struct io_trace_names __percpu	*names;
};

static struct io_trace_names_set __rcu *io_trace_names_set;
static unsigned int io_trace_names_users;
static DEFINE_PER_CPU(local_lock_t, io_trace_names_lock) =
	INIT_LOCAL_LOCK(io_trace_names_lock);

/*
 * The CPU's names, locked until io_trace_names_end(), or NULL while
 * neither event is enabled.  In task context.
 */
static struct io_trace_names *io_trace_names_begin(void)
	__acquires(RCU)
{
	struct io_trace_names_set *set;

	rcu_read_lock();
	local_lock(&io_trace_names_lock);
	set = rcu_dereference(io_trace_names_set);
	return set ? this_cpu_ptr(set->names) : NULL;
}

static void io_trace_names_end(void)
	__releases(RCU)
{
	local_unlock(&io_trace_names_lock);
	rcu_read_unlock();
}

/**
 * io_trace_bflags() - the DTrace b_flags of an I/O
 * @opf: its REQ_OP and REQ_ flags
 * @pinned: its pages are user memory (direct I/O)
 * @pagecache: its pages are page cache
 *
 * Return: B_READ for reads, B_WRITE for every other operation, B_ASYNC
 * unless REQ_SYNC is set, and B_PHYS or B_PAGEIO (never both).
 */
u32 io_trace_bflags(blk_opf_t opf, bool pinned, bool pagecache)
{
	u32 f = (opf & REQ_OP_MASK) == REQ_OP_READ ? IO_TRACE_B_READ :
						     IO_TRACE_B_WRITE;

	if (!(opf & REQ_SYNC))
		f |= IO_TRACE_B_ASYNC;
	if (pinned)
		f |= IO_TRACE_B_PHYS;
	else if (pagecache)
		f |= IO_TRACE_B_PAGEIO;
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_bflags);

/**
 * io_trace_rwbs() - blktrace's letters for an operation, zero-padded
 * @rwbs: IO_TRACE_RWBS_LEN bytes
 * @opf: REQ_OP and REQ_ flags
 *
 * The letters are blk_fill_rwbs()'s, so the io events and blktrace name an
 * operation alike. The rest of @rwbs is zeroed: consumers that key on the
 * whole array (bpftrace maps) must not see the bytes of an older event.
 */
void io_trace_rwbs(char *rwbs, blk_opf_t opf)
{
	memset(rwbs, 0, IO_TRACE_RWBS_LEN);
	blk_fill_rwbs(rwbs, opf);
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_rwbs);

/**
 * io_trace_driver_from_disk() - a driver name from a disk name
 * @driver: where to write it
 * @len: its size
 * @disk: the disk name ("dm-3", "loop0", "nvme0n1")
 *
 * For disks with neither a parent device nor a module: the disk name
 * without its instance, that is without trailing digits and then without a
 * trailing '-' ("dm", "loop", "nvme0n"); the whole name if that leaves
 * nothing.  The rest of @driver is zeroed, as io_trace_rwbs() does.
 */
void io_trace_driver_from_disk(char *driver, size_t len, const char *disk)
{
	size_t n = strlen(disk);

	while (n && disk[n - 1] >= '0' && disk[n - 1] <= '9')
		n--;
	if (n && disk[n - 1] == '-')
		n--;
	if (!n)
		n = strlen(disk);
	if (!len)
		return;
	n = min(n, len - 1);
	memcpy(driver, disk, n);
	memset(driver + n, 0, len - n);
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_driver_from_disk);

/**
 * io_trace_fill_disk() - devinfo_t's statistics and driver names
 * @disk: the disk name as iostat shows it ("vda1", "dm-3")
 * @disk_len: its size
 * @driver: the driver: the parent device's driver, else the owning
 *	module, else the disk name without its instance number
 * @driver_len: its size
 * @bdev: the block device, or NULL when there is none ("<none>")
 *
 * Reads only what the block device holds for its whole life: safe in
 * hard-IRQ completion.  Both names are zero-padded to their sizes.
 */
void io_trace_fill_disk(char *disk, size_t disk_len, char *driver,
			size_t driver_len, const struct block_device *bdev)
{
	const struct gendisk *gd;
	const struct device *parent;

	if (!bdev) {
		strscpy_pad(disk, io_trace_none, disk_len);
		strscpy_pad(driver, io_trace_none, driver_len);
		return;
	}
	gd = bdev->bd_disk;
	memset(disk, 0, disk_len);
	snprintf(disk, disk_len, "%pg", bdev);
	parent = disk_to_dev(gd)->parent;
	if (parent && parent->driver)
		strscpy_pad(driver, parent->driver->name, driver_len);
	else if (gd->fops->owner)
		strscpy_pad(driver, module_name(gd->fops->owner), driver_len);
	else
		io_trace_driver_from_disk(driver, driver_len, gd->disk_name);
}

/**
 * io_trace_fill_dev() - devinfo_t's statistics and driver names of an event
 * @disk: the disk name, or for an NFS RPC the server
 * @disk_len: its size
 * @driver: the driver, "nfs" for an NFS RPC
 * @driver_len: its size
 * @info: the event
 *
 * As io_trace_fill_disk() for @info's block device, unless @info is an
 * NFS RPC's.
 */
void io_trace_fill_dev(char *disk, size_t disk_len, char *driver,
		       size_t driver_len, const struct io_trace_info *info)
{
	if (!info->server) {
		io_trace_fill_disk(disk, disk_len, driver, driver_len, info->bdev);
		return;
	}
	strscpy_pad(disk, info->server, disk_len);
	strscpy_pad(driver, "nfs", driver_len);
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_fill_dev);

/**
 * io_trace_bvec_distance() - the bytes between two positions in a bvec table
 * @bv: the table
 * @from_idx: the first position's bi_idx
 * @from_done: its bi_bvec_done
 * @idx: the second position's bi_idx
 * @done: its bi_bvec_done
 *
 * For a bio sent down with its parent's table (a clone, a split): how far
 * into the parent's data it starts.  Walks at most BIO_MAX_VECS entries.
 *
 * Return: the bytes, or -1 when the second position is before the first
 * or further than BIO_MAX_VECS entries from it.
 */
s64 io_trace_bvec_distance(const struct bio_vec *bv, unsigned int from_idx,
			   unsigned int from_done, unsigned int idx,
			   unsigned int done)
{
	s64 bytes = (s64)done - from_done;
	unsigned int i;

	if (idx < from_idx || idx - from_idx > BIO_MAX_VECS)
		return -1;
	for (i = from_idx; i < idx; i++)
		bytes += bv[i].bv_len;
	return bytes < 0 ? -1 : bytes;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_bvec_distance);

/* --- The bios in flight ---------------------------------------------- */

/*
 * While io:io_start or io:io_done is enabled, a table of fixed size holds
 * two kinds of slots, each found by its key in a window of
 * IO_TRACE_FLIGHT_PROBE slots from the key's hash:
 *
 * - a bio that fired io:io_start (or would have, for a consumer of
 *   io:io_done alone), with what its io:io_done reports, until then;
 * - the bvec table of a direct-I/O bio whose submitter named its file
 *   (a hint), with that file and where the bio's data starts in the
 *   table, until that bio's io:io_done: the bios a stacking driver sends
 *   down with the same table (dm and md clones, splits) get the file from
 *   it, whichever task submits them (dm-delay's, kcryptd's or dm-thin's
 *   worker).
 *
 * A slot is claimed with cmpxchg() on its key and freed by storing 0:
 * no lock, nothing allocated per bio.  The key of a bio is removed at
 * its io:io_done, before bi_end_io may free it, so a key is never a
 * freed bio's.  A bio or table that finds no free slot is counted in
 * io_trace_missed (debugfs block/io_trace_missed) and, when io:io_done
 * is enabled, fires neither event: a consumer sees pairs.
 */
#define IO_TRACE_FLIGHT_MIN	16384
#define IO_TRACE_FLIGHT_MAX	262144
#define IO_TRACE_FLIGHT_PER_CPU	256

static struct io_trace_flight __rcu *io_trace_flight;
/* Serializes the regfuncs and unregfuncs: the tables they make and free */
static DEFINE_MUTEX(io_trace_reg_mutex);
static unsigned int io_trace_flight_users;
static atomic_long_t io_trace_missed;
DEFINE_STATIC_KEY_FALSE(io_trace_flight_key);

/**
 * io_trace_flight_slots() - how many slots the in-flight table has
 * @cpus: the possible CPUs
 *
 * 64 bytes a slot: 1 MiB up to 64 possible CPUs, 16 MiB from 1024.
 *
 * Return: a power of two, IO_TRACE_FLIGHT_PER_CPU per possible CPU
 * within [IO_TRACE_FLIGHT_MIN, IO_TRACE_FLIGHT_MAX].
 */
unsigned int io_trace_flight_slots(unsigned int cpus)
{
	unsigned long want = (unsigned long)cpus * IO_TRACE_FLIGHT_PER_CPU;

	return roundup_pow_of_two(clamp_t(unsigned long, want,
					  IO_TRACE_FLIGHT_MIN,
					  IO_TRACE_FLIGHT_MAX));
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_flight_slots);

/**
 * io_trace_flight_alloc() - an empty in-flight table
 * @slots: its size, a power of two
 *
 * Return: the table, or NULL.
 */
struct io_trace_flight *io_trace_flight_alloc(unsigned int slots)
{
	struct io_trace_flight *fl;

	fl = kvzalloc(struct_size(fl, slot, slots), GFP_KERNEL_ACCOUNT);
	if (fl)
		fl->bits = ilog2(slots);
	return fl;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_flight_alloc);

static struct io_trace_slot *io_trace_flight_at(struct io_trace_flight *fl,
						unsigned long key,
						unsigned int i)
{
	unsigned int mask = (1U << fl->bits) - 1;
	unsigned long base = key & ~IO_TRACE_KEY_HAS_DATA;

	return &fl->slot[(hash_long(base, fl->bits) + i) & mask];
}

/**
 * io_trace_flight_claim() - a free slot for a key
 * @fl: the table
 * @key: a bio, or a bvec table with IO_TRACE_KEY_DATA
 *
 * The caller fills the slot's value; the key is set already.
 *
 * Return: the slot, or NULL when the key's window is full.
 */
struct io_trace_slot *io_trace_flight_claim(struct io_trace_flight *fl,
					    unsigned long key)
{
	unsigned int i;

	for (i = 0; i < IO_TRACE_FLIGHT_PROBE; i++) {
		struct io_trace_slot *sl = io_trace_flight_at(fl, key, i);

		if (!READ_ONCE(sl->key) && !cmpxchg(&sl->key, 0, key))
			return sl;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_flight_claim);

/**
 * io_trace_flight_find() - the slot of a key
 * @fl: the table
 * @key: the key, IO_TRACE_KEY_DATA included for a bvec table
 * @mask: the key bits compared (~IO_TRACE_KEY_HAS_DATA for a bio)
 *
 * Return: the slot, or NULL.
 */
struct io_trace_slot *io_trace_flight_find(struct io_trace_flight *fl,
					   unsigned long key,
					   unsigned long mask)
{
	unsigned int i;

	for (i = 0; i < IO_TRACE_FLIGHT_PROBE; i++) {
		struct io_trace_slot *sl = io_trace_flight_at(fl, key, i);

		if ((READ_ONCE(sl->key) & mask) == key)
			return sl;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_flight_find);

/**
 * io_trace_flight_release() - free a slot once its value has been read
 * @sl: the slot
 */
void io_trace_flight_release(struct io_trace_slot *sl)
{
	/* The value is read before the slot can be claimed and written again */
	smp_store_release(&sl->key, 0);
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_flight_release);

/*
 * The table exists while io:io_start or io:io_done is enabled: their
 * regfuncs and unregfuncs, which the tracepoint code calls in process
 * context, under its own mutex, make and free it.
 */
static int io_trace_flight_get_locked(void)
{
	struct io_trace_flight *fl;

	lockdep_assert_held(&io_trace_reg_mutex);
	if (io_trace_flight_users++)
		return 0;
	fl = io_trace_flight_alloc(io_trace_flight_slots(num_possible_cpus()));
	if (!fl) {
		io_trace_flight_users--;
		return -ENOMEM;
	}
	rcu_assign_pointer(io_trace_flight, fl);
	static_branch_enable(&io_trace_flight_key);
	return 0;
}

static void io_trace_flight_put_locked(void)
{
	struct io_trace_flight *fl;

	lockdep_assert_held(&io_trace_reg_mutex);
	if (--io_trace_flight_users)
		return;
	static_branch_disable(&io_trace_flight_key);
	fl = rcu_replace_pointer(io_trace_flight, NULL,
				 lockdep_is_held(&io_trace_reg_mutex));
	/* Submissions and completions look it up under RCU */
	synchronize_rcu();
	kvfree(fl);
}

/* The regfunc and unregfunc of io:io_done: the table */
int io_trace_done_get(void)
{
	guard(mutex)(&io_trace_reg_mutex);
	return io_trace_flight_get_locked();
}

void io_trace_done_put(void)
{
	guard(mutex)(&io_trace_reg_mutex);
	io_trace_flight_put_locked();
}

static int io_trace_names_get(void)
{
	struct io_trace_names_set *set;

	lockdep_assert_held(&io_trace_reg_mutex);
	if (io_trace_names_users++)
		return 0;
	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (set)
		set->names = alloc_percpu_gfp(struct io_trace_names,
					      GFP_KERNEL_ACCOUNT);
	if (!set || !set->names) {
		kfree(set);
		io_trace_names_users--;
		return -ENOMEM;
	}
	rcu_assign_pointer(io_trace_names_set, set);
	return 0;
}

static void io_trace_names_put(void)
{
	struct io_trace_names_set *set;

	lockdep_assert_held(&io_trace_reg_mutex);
	if (--io_trace_names_users)
		return;
	set = rcu_replace_pointer(io_trace_names_set, NULL,
				  lockdep_is_held(&io_trace_reg_mutex));
	/* Their users hold rcu_read_lock() (io_trace_names_begin()) */
	synchronize_rcu();
	free_percpu(set->names);
	kfree(set);
}

/* The regfunc and unregfunc of io:io_start: the names and the table */
int io_trace_start_get(void)
{
	int err;

	guard(mutex)(&io_trace_reg_mutex);
	err = io_trace_names_get();
	if (err)
		return err;
	err = io_trace_flight_get_locked();
	if (err)
		io_trace_names_put();
	return err;
}

void io_trace_start_put(void)
{
	guard(mutex)(&io_trace_reg_mutex);
	io_trace_flight_put_locked();
	io_trace_names_put();
}

/* The regfunc and unregfunc of io:io_wait_start: the names */
int io_trace_wait_start_get(void)
{
	guard(mutex)(&io_trace_reg_mutex);
	return io_trace_names_get();
}

void io_trace_wait_start_put(void)
{
	guard(mutex)(&io_trace_reg_mutex);
	io_trace_names_put();
}

static int io_trace_missed_get(void *data, u64 *val)
{
	*val = atomic_long_read(&io_trace_missed);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(io_trace_missed_fops, io_trace_missed_get, NULL,
			 "%llu\n");

static int __init io_trace_debugfs_init(void)
{
	debugfs_create_file_unsafe("io_trace_missed", 0444, blk_debugfs_root,
				   NULL, &io_trace_missed_fops);
	return 0;
}
late_initcall(io_trace_debugfs_init);

/* --- File information ---------------------------------------------- */

static void io_trace_no_file(struct io_trace_info *info, const char *name)
{
	info->fsdev = 0;
	info->ino = 0;
	info->offset = -1;
	info->fstype = NULL;
	info->oflags = -1;
	if (info->path) {
		info->path = name;
		info->mount = name;
		info->fspath = name;
	}
}

static void io_trace_inode(struct io_trace_info *info,
			   const struct inode *inode, loff_t pos)
{
	info->fsdev = inode->i_sb->s_dev;
	info->ino = inode->i_ino;
	info->offset = pos;
	info->fstype = inode->i_sb->s_type->name;
	info->oflags = -1;
}

/**
 * io_trace_path_result() - a name from what a d_path() function returned
 * @p: its result
 * @buf: the buffer it was given
 * @len: the buffer's size, at least sizeof(IO_TRACE_TRUNCATED)
 *
 * A path too long for @buf has filled all of it with its end before the
 * function gave up with -ENAMETOOLONG (fs/d_path.c's prepend() fills what
 * fits, from the end of each name): that end is kept, after the marker.
 *
 * Return: @p, the truncated path in @buf, or "<unknown>" for any other
 * error (a name that cannot be reached from the root, an unlinked file).
 */
const char *io_trace_path_result(char *p, char *buf, size_t len)
{
	if (!IS_ERR(p))
		return p;
	if (PTR_ERR(p) != -ENAMETOOLONG)
		return io_trace_unknown;
	buf[len - 1] = '\0';
	memcpy(buf, IO_TRACE_TRUNCATED, sizeof(IO_TRACE_TRUNCATED) - 1);
	return buf;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_path_result);

/* The root of @dentry's tree (d_parent only moves under rename_lock) */
static const struct dentry *io_trace_root_of(const struct dentry *dentry)
{
	const struct dentry *parent;

	for (;;) {
		parent = READ_ONCE(dentry->d_parent);
		if (parent == dentry)
			return dentry;
		dentry = parent;
	}
}

/*
 * The names of an open file: it holds its dentry and mount.  When the
 * mount is of its file system's root and the file's dentries lead to it,
 * its path is the mount's path and then its path in the file system: the
 * file's dentries are walked once (dentry_path_raw()) and the mount's path
 * (d_absolute_path() of the mount's root) walks the mounts above only.
 * Else (a bind mount of a directory, a dentry disconnected from the
 * mount's root) the full path is walked as such, and the mount's too.
 */
static void io_trace_file_names(struct io_trace_info *info,
				const struct file *file,
				struct io_trace_names *n)
{
	struct path mnt = {
		.mnt = file->f_path.mnt,
		.dentry = file->f_path.mnt->mnt_root,
	};
	char *p;

	p = dentry_path_raw(file->f_path.dentry, n->fspath, sizeof(n->fspath));
	info->fspath = io_trace_path_result(p, n->fspath, sizeof(n->fspath));
	p = d_absolute_path(&mnt, n->mount, sizeof(n->mount));
	info->mount = io_trace_path_result(p, n->mount, sizeof(n->mount));
	if (mnt.dentry == mnt.mnt->mnt_sb->s_root &&
	    io_trace_root_of(file->f_path.dentry) == mnt.dentry &&
	    info->mount != io_trace_unknown && info->fspath != io_trace_unknown) {
		info->path = io_trace_path_join(n->path, sizeof(n->path),
						info->mount, info->fspath);
		return;
	}
	p = d_absolute_path(&file->f_path, n->path, sizeof(n->path));
	info->path = io_trace_path_result(p, n->path, sizeof(n->path));
}

/* The file system the task's root is the root of, or NULL */
static const struct super_block *io_trace_root_sb(void)
{
	struct fs_struct *fs = current->fs;
	struct path root;
	unsigned int seq;

	if (!fs)
		return NULL;
	do {
		seq = read_seqcount_begin(&fs->seq);
		root = fs->root;
	} while (read_seqcount_retry(&fs->seq, seq));
	if (!root.mnt || root.dentry != root.mnt->mnt_root ||
	    root.dentry != root.mnt->mnt_sb->s_root)
		return NULL;
	return root.mnt->mnt_sb;
}

/**
 * io_trace_path_join() - a file's path from its mount's and its own in its fs
 * @buf: where to build it
 * @len: the size of @buf, at least sizeof(IO_TRACE_TRUNCATED) + 1
 * @mount: where the file system's root is mounted ("/", "/mnt/x")
 * @fspath: the file's path in its file system ("/dir/file")
 *
 * A path too long for @buf keeps its end after IO_TRACE_TRUNCATED, as
 * io_trace_path_result() does.
 *
 * Return: @fspath itself under "/", else the path in @buf.
 */
const char *io_trace_path_join(char *buf, size_t len, const char *mount,
			       const char *fspath)
{
	size_t m = strlen(mount), f = strlen(fspath), keep;

	if (!strcmp(mount, "/"))
		return fspath;
	if (m + f < len) {
		memmove(buf, mount, m);
		memcpy(buf + m, fspath, f + 1);
		return buf;
	}
	/* The last len - 1 - 3 bytes of mount + fspath, after the marker */
	keep = len - sizeof(IO_TRACE_TRUNCATED);
	if (f >= keep) {
		memcpy(buf + sizeof(IO_TRACE_TRUNCATED) - 1, fspath + f - keep,
		       keep + 1);
	} else {
		memmove(buf + sizeof(IO_TRACE_TRUNCATED) - 1,
			mount + m - (keep - f), keep - f);
		memcpy(buf + len - 1 - f, fspath, f + 1);
	}
	memcpy(buf, IO_TRACE_TRUNCATED, sizeof(IO_TRACE_TRUNCATED) - 1);
	return buf;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_path_join);

/*
 * The names of an inode with no open file at hand: its path in its file
 * system through its first alias, which i_lock keeps on the list while
 * the path is built (fs/dcache.c: i_lock nests outside rename_lock, which
 * dentry_path_raw() may take).  The caller keeps the inode from being
 * freed: a folio of its page cache locked or under writeback, inside an
 * RCU read section (which keeps the dentries walked).  The full path puts
 * the path of a mount of the alias' root before it: the task's root, or
 * the first such mount in the initial mount namespace (root_mount_path(),
 * which walks the mounts under mount_lock only when a mount or umount
 * changed them since its last answer on this CPU).
 */
static void io_trace_inode_names(struct io_trace_info *info,
				 struct inode *inode, struct io_trace_names *n)
{
	const struct dentry *dentry, *root = NULL;
	char *p = ERR_PTR(-ENOENT);

	/* The dentries walked, @root included, stay until it is unlocked */
	rcu_read_lock();
	spin_lock(&inode->i_lock);
	if (!(inode->i_state & (I_FREEING | I_WILL_FREE | I_CLEAR))) {
		hlist_for_each_entry(dentry, &inode->i_dentry, d_u.d_alias) {
			p = dentry_path_raw(dentry, n->fspath, sizeof(n->fspath));
			root = io_trace_root_of(dentry);
			break;
		}
	}
	spin_unlock(&inode->i_lock);
	info->fspath = io_trace_path_result(p, n->fspath, sizeof(n->fspath));
	info->path = io_trace_unknown;
	info->mount = io_trace_unknown;
	if (info->fspath == io_trace_unknown)
		goto out;
	if (inode->i_sb == io_trace_root_sb() && root == inode->i_sb->s_root) {
		info->path = info->fspath;
		info->mount = "/";
		goto out;
	}
	p = root_mount_path(root, &n->mount_cache, n->mount, sizeof(n->mount));
	info->mount = io_trace_path_result(p, n->mount, sizeof(n->mount));
	if (info->mount != io_trace_unknown)
		info->path = io_trace_path_join(n->path, sizeof(n->path),
						info->mount, info->fspath);
out:
	rcu_read_unlock();
}

/*
 * A file scope hint of the task (readahead, fsync, NFS direct I/O) whose
 * file's page cache @mapping is, or NULL.
 */
static const struct io_trace_hint *
io_trace_scope_hint(const struct address_space *mapping)
{
	const struct io_trace_hint *h;

	for (h = current->io_trace_hint; h; h = h->prev)
		if (!h->bio && !h->bdev && h->file &&
		    h->file->f_mapping == mapping)
			return h;
	return NULL;
}

/* The file of a folio: its kinds, as Documentation/trace/io-provider.rst lists them */
enum io_trace_folio_kind {
	IO_TRACE_FOLIO_NONE,		/* no file's data */
	IO_TRACE_FOLIO_USER,		/* user memory: some file's, unknown */
	IO_TRACE_FOLIO_FILE,		/* a regular file's page cache */
};

/*
 * File information from a folio at @offset in it: its mapping's host.
 * With @n, in task context, the names too.  The caller keeps the folio
 * referenced; a regular file's folio names its file only while it is
 * locked or under writeback, as page-cache I/O keeps it.  @bdev, when not
 * NULL, gets the block device of the folio's file system or block device.
 */
static enum io_trace_folio_kind
io_trace_folio(struct io_trace_info *info, struct folio *folio, size_t offset,
	       struct io_trace_names *n, struct block_device **bdev)
{
	enum io_trace_folio_kind kind = IO_TRACE_FOLIO_NONE;
	const struct io_trace_hint *scope;
	struct address_space *mapping;
	struct inode *host;

	rcu_read_lock();
	/* A slab's struct slab overlays the mapping: kmalloc()ed buffers */
	mapping = folio_test_slab(folio) ? NULL : READ_ONCE(folio->mapping);
	if (mapping && folio_test_anon(folio) && !folio_test_swapcache(folio)) {
		io_trace_no_file(info, io_trace_unknown);
		kind = IO_TRACE_FOLIO_USER;
		goto out;
	}
	if (!mapping || ((unsigned long)mapping & PAGE_MAPPING_FLAGS) ||
	    folio_test_swapcache(folio)) {
		io_trace_no_file(info, io_trace_none);
		goto out;
	}
	host = READ_ONCE(mapping->host);
	if (!host || S_ISBLK(host->i_mode)) {
		if (host && bdev)
			*bdev = I_BDEV(host);
		io_trace_no_file(info, io_trace_none);
		goto out;
	}
	/*
	 * Page-cache I/O holds its folio locked (a read) or under writeback
	 * (a write) until it completes, which keeps the folio in its file.
	 * Any other file folio is memory some task mapped, such as a direct
	 * I/O buffer a driver's worker passes down: it is not the file the
	 * I/O is for, and truncation may take it from its mapping meanwhile.
	 */
	if (!folio_test_locked(folio) && !folio_test_writeback(folio)) {
		io_trace_no_file(info, io_trace_unknown);
		kind = IO_TRACE_FOLIO_USER;
		goto out;
	}
	kind = IO_TRACE_FOLIO_FILE;
	if (bdev)
		*bdev = host->i_sb->s_bdev;
	io_trace_inode(info, host, folio_pos(folio) + offset);
	if (!info->path)
		goto out;
	if (!n) {
		info->path = io_trace_unknown;
		info->mount = io_trace_unknown;
		info->fspath = io_trace_unknown;
		goto out;
	}
	scope = io_trace_scope_hint(mapping);
	if (scope) {
		info->oflags = scope->file->f_flags;
		io_trace_file_names(info, scope->file, n);
	} else {
		io_trace_inode_names(info, host, n);
	}
out:
	rcu_read_unlock();
	return kind;
}

/* File information from a file a submitter or waiter named */
static void io_trace_file(struct io_trace_info *info, struct file *file,
			  loff_t pos, struct io_trace_names *n)
{
	io_trace_inode(info, file_inode(file), pos);
	info->oflags = file->f_flags;
	if (!info->path)
		return;
	if (n)
		io_trace_file_names(info, file, n);
	else
		io_trace_no_file(info, io_trace_unknown);
}

/* --- io:io_start and io:io_done ------------------------------------------ */

/* A bio with data pages left (bio_has_data(), for a const bio) */
static bool io_trace_has_data(const struct bio *bio)
{
	return bio->bi_iter.bi_size && !bio_no_advance_iter(bio);
}

static void io_trace_bio_buf(struct io_trace_info *info, const struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;

	info->bdev = bdev;
	info->server = NULL;
	info->dev = bdev->bd_dev;
	info->sector = bio->bi_iter.bi_sector;
	/* submit_bio_noacct() has moved a partition's bio to the whole disk */
	info->lsector = info->sector - bdev->bd_start_sect;
	info->bytes = bio->bi_iter.bi_size;
	info->opf = bio->bi_opf;
	info->end_io = bio->bi_end_io;
	info->error = 0;
	info->resid = 0;
}

/*
 * The task's direct-I/O hint for @bio: one given for this very bio (the
 * same bio with the same bvec table, so not a later bio at a freed one's
 * address) or for its device; NULL without one.
 */
static const struct io_trace_hint *io_trace_dio_hint(const struct bio *bio)
{
	const struct io_trace_hint *h;

	for (h = current->io_trace_hint; h; h = h->prev) {
		if (h->bio ? h->bio == bio && h->bvecs == bio->bi_io_vec :
			     h->bdev && h->bdev == bio->bi_bdev)
			return h;
	}
	return NULL;
}

/*
 * Keep a hinted bio's file for the bios sent down with its bvec table.
 * Return: true when @bio owns the table's slot (its io:io_done frees it).
 */
static bool io_trace_data_keep(struct io_trace_flight *fl, const struct bio *bio,
			       struct file *file, loff_t pos)
{
	unsigned long key = (unsigned long)bio->bi_io_vec | IO_TRACE_KEY_DATA;
	struct io_trace_slot *sl = io_trace_flight_find(fl, key, ~0UL);

	if (sl) {
		/*
		 * A second hinted bio on the same table: a loop device's
		 * direct I/O to its backing file, with the upper bio's
		 * pages.  Which of the two files a bio sent down with that
		 * table is for is not known: it is named neither.
		 */
		WRITE_ONCE(sl->data.contested, true);
		return false;
	}
	sl = io_trace_flight_claim(fl, key);
	if (!sl) {
		atomic_long_inc(&io_trace_missed);
		return false;
	}
	sl->data.owner = bio;
	sl->data.file = file;
	sl->data.pos = pos;
	sl->data.idx = bio->bi_iter.bi_idx;
	sl->data.done = bio->bi_iter.bi_bvec_done;
	sl->data.contested = false;
	return true;
}

/*
 * The file of a bio sent down with the bvec table of a hinted bio still in
 * flight (a clone or a split, in any task), and its offset: the hinted
 * bio's plus how far into its data this bio starts.  False without one.
 */
static bool io_trace_data_file(struct io_trace_flight *fl, const struct bio *bio,
			       struct file **file, loff_t *pos)
{
	unsigned long key = (unsigned long)bio->bi_io_vec | IO_TRACE_KEY_DATA;
	struct io_trace_slot *sl = io_trace_flight_find(fl, key, ~0UL);
	struct io_trace_slot v;
	s64 off;

	if (!sl)
		return false;
	/*
	 * The owner is in flight while bios with its pages are, and filled
	 * its slot before any of them was sent: the slot is read once it
	 * is found, and read again after, in case it was reused meanwhile.
	 */
	smp_rmb();	/* the value after the key that found it */
	v.data = sl->data;
	smp_rmb();	/* the key again after the value */
	if (READ_ONCE(sl->key) != key || v.data.contested)
		return false;
	off = io_trace_bvec_distance(bio->bi_io_vec, v.data.idx, v.data.done,
				     bio->bi_iter.bi_idx,
				     bio->bi_iter.bi_bvec_done);
	*file = v.data.file;
	*pos = v.data.pos >= 0 && off >= 0 ? v.data.pos + off : -1;
	return true;
}

/* What io:io_done will report of a bio: what its io:io_start saw */
static void io_trace_slot_keep(struct io_trace_slot *sl,
			       const struct io_trace_info *info)
{
	sl->bio.bdev = info->bdev;
	sl->bio.sector = info->sector;
	sl->bio.ino = info->ino;
	sl->bio.offset = info->offset;
	sl->bio.fstype = info->fstype;
	sl->bio.bytes = info->bytes;
	sl->bio.fsdev = info->fsdev;
	sl->bio.bflags = info->bflags;
	sl->bio.oflags = info->oflags;
}

void __io_trace_submit(struct bio *bio)
{
	enum io_trace_folio_kind kind = IO_TRACE_FOLIO_NONE;
	bool start = trace_io_start_enabled();
	const struct io_trace_hint *hint = NULL;
	struct io_trace_names *n = NULL;
	struct io_trace_slot *sl = NULL;
	struct io_trace_flight *fl;
	struct io_trace_info info;
	bool task = in_task();
	bool named = start && task;
	bool owner = false;
	struct file *file;
	loff_t pos;

	if (!bio->bi_bdev)
		return;
	rcu_read_lock();
	fl = rcu_dereference(io_trace_flight);
	/*
	 * A slot whenever the table exists, io:io_done enabled or not yet
	 * (its consumer may enable it after io:io_start).  Without one, and
	 * with io:io_done enabled, neither event: a consumer sees pairs.
	 */
	if (fl) {
		sl = io_trace_flight_claim(fl, (unsigned long)bio);
		if (!sl) {
			atomic_long_inc(&io_trace_missed);
			if (trace_io_done_enabled())
				goto out;
		}
	}

	io_trace_bio_buf(&info, bio);
	/* Names only for io:io_start: io:io_done carries none */
	info.path = start ? io_trace_unknown : NULL;
	if (named)
		n = io_trace_names_begin();
	if (task)
		hint = io_trace_dio_hint(bio);
	if (hint) {
		pos = hint->bio ? hint->pos : (loff_t)info.lsector << SECTOR_SHIFT;
		io_trace_file(&info, hint->file, pos, n);
		kind = IO_TRACE_FOLIO_USER;
		/*
		 * Its table's slot is freed by its io:io_done, through its
		 * own.  Only a bio-based driver (dm, md, NVMe multipath) sends
		 * bios down with a bio's table: a blk-mq device's splits fire
		 * nothing, and a loop device's direct I/O to its backing file
		 * has its own hint.
		 */
		if (sl && io_trace_has_data(bio) &&
		    !queue_is_mq(bdev_get_queue(bio->bi_bdev)))
			owner = io_trace_data_keep(fl, bio, hint->file, pos);
	} else if (fl && io_trace_has_data(bio) &&
		   io_trace_data_file(fl, bio, &file, &pos)) {
		io_trace_file(&info, file, pos, n);
		kind = IO_TRACE_FOLIO_USER;
	} else if (bio_flagged(bio, BIO_PAGE_PINNED)) {
		io_trace_no_file(&info, io_trace_unknown);
		kind = IO_TRACE_FOLIO_USER;
	} else if (io_trace_has_data(bio)) {
		struct bio_vec bv = bio_iter_iovec(bio, bio->bi_iter);
		size_t off;
		struct folio *folio;

		off = bv.bv_offset & ~PAGE_MASK;
		folio = page_folio(bv.bv_page);
		off += folio_page_idx(folio, bv.bv_page) * PAGE_SIZE;
		kind = io_trace_folio(&info, folio, off, n, NULL);
	} else {
		io_trace_no_file(&info, io_trace_none);
	}
	info.bflags = io_trace_bflags(info.opf, kind == IO_TRACE_FOLIO_USER,
				      kind == IO_TRACE_FOLIO_FILE);
	if (sl) {
		io_trace_slot_keep(sl, &info);
		if (owner)
			WRITE_ONCE(sl->key, (unsigned long)bio | IO_TRACE_KEY_HAS_DATA);
	}
	if (start)
		trace_io_start(&info);
	if (named)
		io_trace_names_end();
out:
	rcu_read_unlock();
}

void __io_trace_done(struct bio *bio)
{
	struct io_trace_flight *fl;
	struct io_trace_slot *sl;
	struct io_trace_info info;
	struct io_trace_slot v;
	unsigned long key;

	rcu_read_lock();
	fl = rcu_dereference(io_trace_flight);
	sl = fl ? io_trace_flight_find(fl, (unsigned long)bio,
				       ~IO_TRACE_KEY_HAS_DATA) : NULL;
	if (!sl) {
		rcu_read_unlock();
		return;
	}
	key = READ_ONCE(sl->key);
	v.bio = sl->bio;
	io_trace_flight_release(sl);
	if (key & IO_TRACE_KEY_HAS_DATA) {
		sl = io_trace_flight_find(fl, (unsigned long)bio->bi_io_vec |
					  IO_TRACE_KEY_DATA, ~0UL);
		if (sl && sl->data.owner == bio)
			io_trace_flight_release(sl);
	}
	rcu_read_unlock();
	if (!trace_io_done_enabled())
		return;

	memset(&info, 0, sizeof(info));
	info.bdev = v.bio.bdev;
	info.dev = v.bio.bdev->bd_dev;
	/* A zone append's sector is where the device wrote it */
	info.sector = bio_op(bio) == REQ_OP_ZONE_APPEND ?
		      bio->bi_iter.bi_sector : v.bio.sector;
	info.lsector = info.sector - v.bio.bdev->bd_start_sect;
	info.bytes = v.bio.bytes;
	info.opf = bio->bi_opf;
	info.end_io = bio->bi_end_io;
	info.error = blk_status_to_errno(bio->bi_status);
	if (info.error)
		info.resid = min(bio->bi_iter.bi_size, v.bio.bytes);
	info.fsdev = v.bio.fsdev;
	info.ino = v.bio.ino;
	info.offset = v.bio.offset;
	info.fstype = v.bio.fstype;
	info.bflags = v.bio.bflags;
	info.oflags = v.bio.oflags;
	trace_io_done(&info);
}

/* --- NFS READ and WRITE RPCs ------------------------------------------- */

/*
 * An RPC's bufinfo_t and devinfo_t: the device is the server, reached
 * through the mount's anonymous device; an RPC has no sector (-1), its
 * logical block is the file offset in 512-byte units.
 */
static void io_trace_rpc_buf(struct io_trace_info *info,
			     const struct io_trace_rpc *rpc)
{
	memset(info, 0, sizeof(*info));
	info->server = rpc->server;
	info->dev = rpc->inode->i_sb->s_dev;
	info->sector = -1;
	info->lsector = rpc->offset >> SECTOR_SHIFT;
	info->bytes = rpc->bytes;
	info->resid = rpc->resid;
	info->error = rpc->error;
	info->opf = rpc->write ? REQ_OP_WRITE : REQ_OP_READ;
	info->bflags = io_trace_bflags(info->opf, rpc->direct, !rpc->direct);
	io_trace_inode(info, rpc->inode, rpc->offset);
}

/**
 * __io_trace_rpc_start() - io:io_start for an NFS READ or WRITE RPC
 * @rpc: the RPC, about to be sent
 *
 * The file is named by the task's hint when one names it (full path and
 * open flags), else through the inode (the path in its file system).
 * Called in task context with the inode held by the RPC's open context.
 */
void __io_trace_rpc_start(const struct io_trace_rpc *rpc)
{
	const struct io_trace_hint *hint;
	struct io_trace_names *n;
	struct io_trace_info info;

	if (!trace_io_start_enabled())
		return;
	io_trace_rpc_buf(&info, rpc);
	info.path = io_trace_unknown;
	info.mount = io_trace_unknown;
	info.fspath = io_trace_unknown;
	if (!in_task()) {
		trace_io_start(&info);
		return;
	}
	n = io_trace_names_begin();
	/* Readahead, fsync and NFS direct I/O give file scope hints */
	hint = io_trace_scope_hint(rpc->inode->i_mapping);
	if (hint)
		io_trace_file(&info, hint->file, rpc->offset, n);
	else if (n)
		io_trace_inode_names(&info, rpc->inode, n);
	trace_io_start(&info);
	io_trace_names_end();
}
EXPORT_SYMBOL_GPL(__io_trace_rpc_start);

/**
 * __io_trace_rpc_done() - io:io_done for an NFS READ or WRITE RPC
 * @rpc: the RPC, released after its last reply: the numbers of its
 *	io:io_start, with the bytes not transferred and the error
 */
void __io_trace_rpc_done(const struct io_trace_rpc *rpc)
{
	struct io_trace_info info;

	if (!trace_io_done_enabled())
		return;
	io_trace_rpc_buf(&info, rpc);
	trace_io_done(&info);
}
EXPORT_SYMBOL_GPL(__io_trace_rpc_done);

/* --- Hints ----------------------------------------------------------- */

void __io_trace_hint_begin(struct io_trace_hint *h, struct file *file,
			   const struct bio *bio, struct block_device *bdev,
			   loff_t pos)
{
	h->file = file;
	h->bio = bio;
	h->bvecs = bio ? bio->bi_io_vec : NULL;
	h->bdev = bdev;
	h->pos = pos;
	h->prev = current->io_trace_hint;
	current->io_trace_hint = h;
	h->set = true;
}
EXPORT_SYMBOL_GPL(__io_trace_hint_begin);

/* --- Waits ----------------------------------------------------------- */

static void io_trace_wait_keep(struct io_trace_wait *w,
			       const struct io_trace_info *info)
{
	w->bdev = info->bdev;
	w->fstype = info->fstype;
	w->sector = info->sector;
	w->ino = info->ino;
	w->offset = info->offset;
	w->dev = info->dev;
	w->fsdev = info->fsdev;
	w->bytes = info->bytes;
	w->bflags = info->bflags;
	w->opf = info->opf;
	w->oflags = info->oflags;
}

static void io_trace_wait_info(struct io_trace_info *info,
			       const struct io_trace_wait *w)
{
	memset(info, 0, sizeof(*info));
	info->bdev = w->bdev;
	info->fstype = w->fstype;
	info->sector = w->sector;
	info->lsector = w->bdev && w->sector != (u64)-1 ?
			w->sector - w->bdev->bd_start_sect : w->sector;
	info->ino = w->ino;
	info->offset = w->offset;
	info->dev = w->dev;
	info->fsdev = w->fsdev;
	info->bytes = w->bytes;
	info->bflags = w->bflags;
	info->opf = w->opf;
	info->oflags = w->oflags;
}

/* io:io_wait_start with @info's names, and the numbers kept for io:io_wait_done */
static void io_trace_wait_start(struct io_trace_wait *w,
				const struct io_trace_info *info)
{
	io_trace_wait_keep(w, info);
	w->fired = true;
	if (trace_io_wait_start_enabled()) {
		struct io_trace_info ev;

		io_trace_wait_info(&ev, w);
		ev.path = info->path;
		ev.mount = info->mount;
		ev.fspath = info->fspath;
		trace_io_wait_start(&ev);
	}
}

/* The file and names of a folio waited on, fired, under the names' lock */
static void io_trace_wait_folio_fire(struct io_trace_wait *w,
				     struct io_trace_info *info,
				     struct folio *folio, size_t offset,
				     bool from_folio_bdev)
{
	struct block_device *bdev = NULL;
	struct io_trace_names *n;
	enum io_trace_folio_kind kind;

	n = io_trace_names_begin();
	info->path = io_trace_unknown;
	kind = io_trace_folio(info, folio, offset, n, &bdev);
	if (from_folio_bdev) {
		info->bdev = bdev;
		info->dev = bdev ? bdev->bd_dev : 0;
	}
	info->bflags = io_trace_bflags(info->opf, kind == IO_TRACE_FOLIO_USER,
				       kind == IO_TRACE_FOLIO_FILE);
	io_trace_wait_start(w, info);
	io_trace_names_end();
}

void __io_trace_wait_bio(struct io_trace_wait *w, const struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;

	/* Its numbers as io:io_start will see them, after the partition remap */
	w->bdev = bdev;
	w->dev = bdev->bd_dev;
	w->sector = bio->bi_iter.bi_sector +
		    (bdev_is_partition(bdev) ? bdev->bd_start_sect : 0);
	w->bytes = bio->bi_iter.bi_size;
	w->opf = bio->bi_opf;
	w->fstype = NULL;
	w->ino = 0;
	w->offset = -1;
	w->fsdev = 0;
	w->oflags = -1;
	w->bflags = 0;
	/* The first folio, which the waiter owns: named when it sleeps */
	w->folio = NULL;
	if (io_trace_has_data(bio)) {
		struct bio_vec bv = bio_iter_iovec(bio, bio->bi_iter);

		w->folio = page_folio(bv.bv_page);
		w->folio_off = folio_page_idx(w->folio, bv.bv_page) * PAGE_SIZE +
			       bv.bv_offset;
	}
	w->armed = true;
}

void __io_trace_wait_fire(struct io_trace_wait *w, struct completion *done)
{
	struct io_trace_info info;

	if (completion_done(done))
		return;
	io_trace_wait_info(&info, w);
	if (w->folio) {
		io_trace_wait_folio_fire(w, &info, w->folio, w->folio_off, false);
		return;
	}
	info.path = io_trace_none;
	info.mount = io_trace_none;
	info.fspath = io_trace_none;
	info.offset = -1;
	info.oflags = -1;
	info.bflags = io_trace_bflags(info.opf, false, false);
	io_trace_wait_start(w, &info);
}

void __io_trace_wait_folio(struct io_trace_wait *w, struct folio *folio,
			   int bit_nr)
{
	struct io_trace_info info;

	/* A folio lock is a wait for I/O only while the read is in flight */
	if (!test_bit(bit_nr, folio_flags(folio, 0)) ||
	    (bit_nr != PG_writeback && folio_test_uptodate(folio)))
		return;
	memset(&info, 0, sizeof(info));
	info.sector = -1;
	info.lsector = -1;
	info.bytes = folio_size(folio);
	info.opf = bit_nr == PG_writeback ? REQ_OP_WRITE : REQ_OP_READ;
	io_trace_wait_folio_fire(w, &info, folio, 0, true);
}

void __io_trace_wait_bh(struct io_trace_wait *w, struct buffer_head *bh)
{
	struct block_device *bdev = bh->b_bdev;
	struct io_trace_info info;

	if (!buffer_locked(bh))
		return;
	memset(&info, 0, sizeof(info));
	info.bdev = bdev;
	info.dev = bdev->bd_dev;
	info.bytes = bh->b_size;
	info.lsector = bh->b_blocknr * (bh->b_size >> SECTOR_SHIFT);
	info.sector = info.lsector + bdev->bd_start_sect;
	info.opf = buffer_uptodate(bh) ? REQ_OP_WRITE : REQ_OP_READ;
	io_trace_wait_folio_fire(w, &info, bh->b_folio, bh_offset(bh), false);
}

/* The device a file's I/O goes to: a block device file's, or its fs's */
static struct block_device *io_trace_file_bdev(struct file *file)
{
	struct inode *inode = file->f_mapping->host;

	return S_ISBLK(inode->i_mode) ? I_BDEV(inode) : inode->i_sb->s_bdev;
}

void __io_trace_wait_dio(struct io_trace_wait *w, struct kiocb *iocb,
			 u32 bytes, bool write)
{
	struct io_trace_info info;
	struct io_trace_names *n;

	memset(&info, 0, sizeof(info));
	info.bdev = io_trace_file_bdev(iocb->ki_filp);
	info.dev = info.bdev ? info.bdev->bd_dev : 0;
	info.sector = -1;
	info.lsector = -1;
	info.bytes = bytes;
	info.opf = (write ? REQ_OP_WRITE : REQ_OP_READ) | REQ_SYNC;
	info.bflags = io_trace_bflags(info.opf, true, false);
	info.path = io_trace_unknown;
	n = io_trace_names_begin();
	io_trace_file(&info, iocb->ki_filp, iocb->ki_pos, n);
	io_trace_wait_start(w, &info);
	io_trace_names_end();
}

void __io_trace_wait_end(struct io_trace_wait *w)
{
	struct io_trace_info info;

	if (!trace_io_wait_done_enabled())
		return;
	io_trace_wait_info(&info, w);
	trace_io_wait_done(&info);
}
