// SPDX-License-Identifier: GPL-2.0-only
/*
 * io-trace.c - the io trace events: DTrace's io provider on block I/O
 *
 * io:io_start fires in submit_bio_noacct_nocheck() for every bio entering a
 * device's queue: the file system's bio for the device it was issued to,
 * and each bio a stacking driver sends down (dm and md clones, dm-crypt's
 * copies) again for its own device.  The bio remembers in bi_io_trace
 * that it fired and the sector it was sent to, so that a remainder
 * resubmitted after a split does not fire again and io:io_done, in
 * bio_endio(), reports the sector and size of io:io_start however far the
 * completion has advanced the bio since.  Nothing is allocated or looked
 * up in a table, and io:io_done takes no lock; each event has its
 * tracepoint's own static key.  The locks are where names are built, in
 * task context: the per-CPU buffers' local lock, and an inode's i_lock
 * while its first alias is read (Documentation/trace/io-provider.rst,
 * "Locks").
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
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/io_trace.h>
#include <linux/local_lock.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>

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

/* Where io:io_start and io:io_wait_start build their names, one set per CPU */
struct io_trace_names {
	local_lock_t	lock;
	char		path[IO_TRACE_PATH_MAX];
	char		mount[IO_TRACE_PATH_MAX];
	char		fspath[IO_TRACE_PATH_MAX];
};

static DEFINE_PER_CPU(struct io_trace_names, io_trace_names) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

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
 * io_trace_bio_word() - what a bio keeps of its io:io_start in bi_io_trace
 * @sector: the sector it is sent to
 * @bytes: its size
 * @hinted: its file came from a submitter's hint, not from its pages
 *
 * Return: the word, never 0.
 */
u64 io_trace_bio_word(u64 sector, u32 bytes, bool hinted)
{
	u64 low = sector & (BIT_ULL(IO_TRACE_BIO_LOW_BITS) - 1);

	return IO_TRACE_BIO_STARTED | (hinted ? IO_TRACE_BIO_HINTED : 0) |
	       low << IO_TRACE_BIO_LOW_SHIFT | bytes;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_bio_word);

/**
 * io_trace_start_sector() - the sector of a bio's io:io_start, from the bio now
 * @word: its bi_io_trace
 * @sector: its bi_sector now
 *
 * The iterator of a bio only moves forward (splits, dm's trims, the
 * request completion; bio_advance() leaves the sector of the last piece
 * when it completes the rest), by less than its size: less than 2^23
 * sectors, which the low 30 bits of the start sector cover.
 *
 * Return: the start sector.
 */
u64 io_trace_start_sector(u64 word, u64 sector)
{
	u64 mask = BIT_ULL(IO_TRACE_BIO_LOW_BITS) - 1;
	u64 low = (word >> IO_TRACE_BIO_LOW_SHIFT) & mask;

	return sector - ((sector - low) & mask);
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_start_sector);

/**
 * io_trace_bvec_back() - where a bio's data started in its bvec table
 * @bv: the table
 * @idx: the iterator's bi_idx now
 * @done: its bi_bvec_done now
 * @bytes: the bytes it has consumed since its start
 * @start_idx: the bi_idx it started at
 * @start_done: the bi_bvec_done it started at
 *
 * Walks back at most @idx entries.  A start at the very end of an entry
 * is given as the start of the next one.
 *
 * Return: false when the table holds fewer than @bytes before the
 * iterator (the bio was not built the way its iterator says).
 */
bool io_trace_bvec_back(const struct bio_vec *bv, unsigned int idx,
			unsigned int done, u32 bytes, unsigned int *start_idx,
			unsigned int *start_done)
{
	while (bytes > done) {
		if (!idx)
			return false;
		bytes -= done;
		done = bv[--idx].bv_len;
	}
	done -= bytes;
	if (done && done == bv[idx].bv_len) {
		idx++;
		done = 0;
	}
	*start_idx = idx;
	*start_done = done;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_bvec_back);

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

/* The names of an open file: it holds its dentry and mount */
static void io_trace_file_names(struct io_trace_info *info,
				const struct file *file,
				struct io_trace_names *n)
{
	struct path mnt = {
		.mnt = file->f_path.mnt,
		.dentry = file->f_path.mnt->mnt_root,
	};

	char *p;

	p = d_absolute_path(&file->f_path, n->path, sizeof(n->path));
	info->path = io_trace_path_result(p, n->path, sizeof(n->path));
	p = d_absolute_path(&mnt, n->mount, sizeof(n->mount));
	info->mount = io_trace_path_result(p, n->mount, sizeof(n->mount));
	p = dentry_path_raw(file->f_path.dentry, n->fspath, sizeof(n->fspath));
	info->fspath = io_trace_path_result(p, n->fspath, sizeof(n->fspath));
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

/*
 * The names of an inode with no open file at hand: its path in its file
 * system through its first alias, which i_lock keeps on the list while
 * the path is built (fs/dcache.c: i_lock nests outside rename_lock, which
 * dentry_path_raw() may take).  The caller keeps the inode from being
 * freed: a folio of its page cache locked or under writeback, inside an
 * RCU read section.  The full path only for the task's root file system.
 */
static void io_trace_inode_names(struct io_trace_info *info,
				 struct inode *inode, struct io_trace_names *n)
{
	const struct dentry *dentry;
	char *p = ERR_PTR(-ENOENT);

	spin_lock(&inode->i_lock);
	if (!(inode->i_state & (I_FREEING | I_WILL_FREE | I_CLEAR))) {
		hlist_for_each_entry(dentry, &inode->i_dentry, d_u.d_alias) {
			p = dentry_path_raw(dentry, n->fspath, sizeof(n->fspath));
			break;
		}
	}
	spin_unlock(&inode->i_lock);
	info->fspath = io_trace_path_result(p, n->fspath, sizeof(n->fspath));
	if (info->fspath != io_trace_unknown && inode->i_sb == io_trace_root_sb()) {
		info->path = info->fspath;
		info->mount = "/";
	} else {
		info->path = io_trace_unknown;
		info->mount = io_trace_unknown;
	}
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

/* The folio at a position of a bvec table, and the offset in it */
static struct folio *io_trace_bvec_folio(const struct bio_vec *bv,
					 unsigned int done, size_t *offset)
{
	size_t off = bv->bv_offset + done;
	struct page *page = nth_page(bv->bv_page, off >> PAGE_SHIFT);
	struct folio *folio = page_folio(page);

	*offset = folio_page_idx(folio, page) * PAGE_SIZE + offset_in_page(off);
	return folio;
}

/* --- io:io_start and io:io_done ------------------------------------------ */

/* A bio with data pages left (bio_has_data(), for a const bio) */
static bool io_trace_has_data(const struct bio *bio)
{
	return bio->bi_iter.bi_size && !bio_no_advance_iter(bio);
}

static void io_trace_bio_buf(struct io_trace_info *info, const struct bio *bio,
			     u64 sector, u32 bytes)
{
	struct block_device *bdev = bio->bi_bdev;

	info->bdev = bdev;
	info->server = NULL;
	info->dev = bdev->bd_dev;
	info->sector = sector;
	/* submit_bio_noacct() has moved a partition's bio to the whole disk */
	info->lsector = sector - bdev->bd_start_sect;
	info->bytes = bytes;
	info->opf = bio->bi_opf;
	info->end_io = bio->bi_end_io;
	info->error = 0;
	info->resid = 0;
}

/*
 * The task's direct-I/O hint for @bio: one that names it or its device
 * (@exact), else the innermost one, whose bio a stacking driver is
 * sending down in this task; NULL without one.
 */
static const struct io_trace_hint *io_trace_dio_hint(const struct bio *bio,
						     bool *exact)
{
	const struct io_trace_hint *h, *inner = NULL;

	for (h = current->io_trace_hint; h; h = h->prev) {
		if (!h->bio && !h->bdev)
			continue;
		if (h->bio == bio || (!h->bio && h->bdev == bio->bi_bdev)) {
			*exact = true;
			return h;
		}
		if (!inner)
			inner = h;
	}
	*exact = false;
	return inner;
}

/* The file offset of @bio under a hint that names it or its device */
static loff_t io_trace_hint_pos(const struct io_trace_hint *h, u64 lsector)
{
	return h->bio ? h->pos : (loff_t)lsector << SECTOR_SHIFT;
}

/* The offset of a bio a driver sends down under @h: known if it starts where @h's did */
static loff_t io_trace_lower_pos(const struct io_trace_hint *h,
				 const struct bio *bio)
{
	struct bio_vec bv;

	if (!h->bio || !h->page || !io_trace_has_data(bio))
		return -1;
	bv = bio_iter_iovec(bio, bio->bi_iter);
	return bv.bv_page == h->page && bv.bv_offset == h->page_off ? h->pos : -1;
}

void __io_trace_submit(struct bio *bio)
{
	const struct io_trace_hint *hint = NULL;
	struct io_trace_names *n = NULL;
	enum io_trace_folio_kind kind = IO_TRACE_FOLIO_NONE;
	struct io_trace_info info;
	bool task = in_task();
	bool exact = false;

	/* Once per trip: a split's remainder, a throttled bio come back */
	if (bio->bi_io_trace || !bio->bi_bdev)
		return;
	if (task)
		hint = io_trace_dio_hint(bio, &exact);
	bio->bi_io_trace = io_trace_bio_word(bio->bi_iter.bi_sector,
					     bio->bi_iter.bi_size, hint);
	if (!trace_io_start_enabled())
		return;

	io_trace_bio_buf(&info, bio, bio->bi_iter.bi_sector, bio->bi_iter.bi_size);
	info.path = io_trace_unknown;
	if (task) {
		local_lock(&io_trace_names.lock);
		n = this_cpu_ptr(&io_trace_names);
	}
	if (hint) {
		io_trace_file(&info, hint->file,
			      exact ? io_trace_hint_pos(hint, info.lsector) :
				      io_trace_lower_pos(hint, bio), n);
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
	info.bflags = io_trace_bflags(info.opf,
				      hint || kind == IO_TRACE_FOLIO_USER,
				      kind == IO_TRACE_FOLIO_FILE);
	trace_io_start(&info);
	if (n)
		local_unlock(&io_trace_names.lock);
}

void __io_trace_done(struct bio *bio)
{
	u64 word = bio->bi_io_trace;
	enum io_trace_folio_kind kind = IO_TRACE_FOLIO_NONE;
	struct io_trace_info info;
	u32 bytes = (u32)word;
	u64 start;

	bio->bi_io_trace = 0;
	if (!trace_io_done_enabled() || !bio->bi_bdev)
		return;
	/* A zone append's sector is where the device wrote it */
	start = bio_op(bio) == REQ_OP_ZONE_APPEND ? bio->bi_iter.bi_sector :
		io_trace_start_sector(word, bio->bi_iter.bi_sector);
	io_trace_bio_buf(&info, bio, start, bytes);
	info.error = blk_status_to_errno(bio->bi_status);
	if (info.error)
		info.resid = min(bio->bi_iter.bi_size, bytes);
	info.path = NULL;
	info.mount = NULL;
	info.fspath = NULL;
	io_trace_no_file(&info, NULL);
	if (word & IO_TRACE_BIO_HINTED) {
		/* The pages are the caller's buffer, not the file */
		info.fstype = io_trace_unknown;
		kind = IO_TRACE_FOLIO_USER;
	} else if (bytes && !bio_no_advance_iter(bio) &&
		   bio_op(bio) != REQ_OP_ZONE_APPEND) {
		unsigned int idx, done;
		struct folio *folio;
		size_t off;

		/* The bytes the iterator moved since, sector for sector */
		if (io_trace_bvec_back(bio->bi_io_vec, bio->bi_iter.bi_idx,
				       bio->bi_iter.bi_bvec_done,
				       (bio->bi_iter.bi_sector - start) << SECTOR_SHIFT,
				       &idx, &done)) {
			folio = io_trace_bvec_folio(&bio->bi_io_vec[idx], done,
						    &off);
			kind = io_trace_folio(&info, folio, off, NULL, NULL);
		}
		if (bio_flagged(bio, BIO_PAGE_PINNED))
			kind = IO_TRACE_FOLIO_USER;
	}
	info.bflags = io_trace_bflags(info.opf, kind == IO_TRACE_FOLIO_USER,
				      kind == IO_TRACE_FOLIO_FILE);
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
	local_lock(&io_trace_names.lock);
	n = this_cpu_ptr(&io_trace_names);
	/* Readahead, fsync and NFS direct I/O give file scope hints */
	hint = io_trace_scope_hint(rpc->inode->i_mapping);
	if (hint)
		io_trace_file(&info, hint->file, rpc->offset, n);
	else
		io_trace_inode_names(&info, rpc->inode, n);
	trace_io_start(&info);
	local_unlock(&io_trace_names.lock);
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
	h->bdev = bdev;
	h->pos = pos;
	h->page = NULL;
	h->page_off = 0;
	if (bio && io_trace_has_data(bio)) {
		struct bio_vec bv = bio_iter_iovec(bio, bio->bi_iter);

		h->page = bv.bv_page;
		h->page_off = bv.bv_offset;
	}
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

	local_lock(&io_trace_names.lock);
	n = this_cpu_ptr(&io_trace_names);
	info->path = io_trace_unknown;
	kind = io_trace_folio(info, folio, offset, n, &bdev);
	if (from_folio_bdev) {
		info->bdev = bdev;
		info->dev = bdev ? bdev->bd_dev : 0;
	}
	info->bflags = io_trace_bflags(info->opf, kind == IO_TRACE_FOLIO_USER,
				       kind == IO_TRACE_FOLIO_FILE);
	io_trace_wait_start(w, info);
	local_unlock(&io_trace_names.lock);
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
	local_lock(&io_trace_names.lock);
	n = this_cpu_ptr(&io_trace_names);
	io_trace_file(&info, iocb->ki_filp, iocb->ki_pos, n);
	io_trace_wait_start(w, &info);
	local_unlock(&io_trace_names.lock);
}

void __io_trace_wait_end(struct io_trace_wait *w)
{
	struct io_trace_info info;

	if (!trace_io_wait_done_enabled())
		return;
	io_trace_wait_info(&info, w);
	trace_io_wait_done(&info);
}
