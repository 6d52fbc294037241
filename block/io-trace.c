// SPDX-License-Identifier: GPL-2.0-only
/*
 * io-trace.c - the io trace events: DTrace's io provider on block I/O
 *
 * io:start fires once per bio in submit_bio(), the entry point of the
 * code that issues I/O (file systems, block device files, swap); the
 * bios that the block layer and stacking drivers make of it (splits,
 * clones) go through submit_bio_noacct() and do not fire again.  The
 * bio's sector, size and device are snapshotted into a table keyed by the
 * bio, so io:done, in bio_endio() before bi_end_io, fires once for each
 * bio io:start saw and reports what io:start saw, even after the request
 * it was merged into has advanced it.  The table only holds the bios in
 * flight while an io event is enabled, and is emptied when the last one
 * is disabled: no memory while nobody traces, nothing added to struct bio.
 *
 * The hints of direct-I/O submitters and the waits of tasks live on the
 * stack of the code that gives them and are found through a small table
 * keyed by the task, for the same reason: nothing added to task_struct.
 *
 * The file of a bio is, in this order: the submitter's hint (direct I/O
 * through iomap or block device files, where the pages are the caller's
 * buffer, even when that buffer is another file's page cache as with a
 * loop device); "<unknown>" for other pinned user pages; the host and
 * position of the first folio for page-cache I/O; "<none>" for everything
 * else (metadata in the block device's page cache, swap, kernel buffers).
 *
 * Names are copied only when the event that shows them is enabled, and
 * only in task context: the alias list of an inode is walked under its
 * i_lock, as fs/dcache.c documents, and dentry_path_raw() takes care of
 * renames.  io:done runs in hard-IRQ completion, so it only reads the
 * snapshot, the bio, and the folio it still holds locked or under
 * writeback.
 */

#include <kunit/visibility.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/io_trace.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include <trace/events/io.h>

/* Longest name an event carries; longer ones are "<unknown>" */
#define IO_TRACE_PATH_MAX	256

static const char io_trace_none[] = "<none>";
static const char io_trace_unknown[] = "<unknown>";

DEFINE_STATIC_KEY_FALSE(io_trace_key);

struct io_trace_bucket {
	spinlock_t		lock;	/* protects head */
	struct hlist_head	head;
};

/* What io:start saw of a bio, until its io:done */
struct io_trace_bio {
	struct hlist_node	node;
	const struct bio	*bio;
	u64			lsector;
	u32			bytes;
	dev_t			dev;
	unsigned int		gen;
	bool			pageio;
};

#define IO_TRACE_BIO_BITS	10
#define IO_TRACE_TASK_BITS	8

static struct io_trace_bucket io_trace_bios[1 << IO_TRACE_BIO_BITS];
static struct io_trace_bucket io_trace_hints[1 << IO_TRACE_TASK_BITS];
static struct io_trace_bucket io_trace_waits[1 << IO_TRACE_TASK_BITS];
static struct kmem_cache *io_trace_bio_cache;
/* Bumped when the last event is disabled: older snapshots are stale */
static unsigned int io_trace_gen;
static unsigned int io_trace_users;	/* under tracepoints_mutex */

static struct io_trace_bucket *io_trace_bio_bucket(const struct bio *bio)
{
	return &io_trace_bios[hash_ptr(bio, IO_TRACE_BIO_BITS)];
}

static struct io_trace_bucket *io_trace_task_bucket(struct io_trace_bucket *t)
{
	return &t[hash_ptr(current, IO_TRACE_TASK_BITS)];
}

/* Forget every snapshot: nobody will see the io:done of those bios */
static void io_trace_flush(void)
{
	struct io_trace_bio *s;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(io_trace_bios); i++) {
		spin_lock_irqsave(&io_trace_bios[i].lock, flags);
		hlist_for_each_entry_safe(s, tmp, &io_trace_bios[i].head, node) {
			hlist_del(&s->node);
			kmem_cache_free(io_trace_bio_cache, s);
		}
		spin_unlock_irqrestore(&io_trace_bios[i].lock, flags);
	}
}

/* Called under tracepoints_mutex when an event gets its first consumer */
int io_trace_reg(void)
{
	if (!io_trace_bio_cache)
		return -ENOMEM;
	if (!io_trace_users++)
		io_trace_flush();
	static_branch_inc(&io_trace_key);
	return 0;
}

void io_trace_unreg(void)
{
	static_branch_dec(&io_trace_key);
	if (!--io_trace_users) {
		WRITE_ONCE(io_trace_gen, io_trace_gen + 1);
		io_trace_flush();
	}
}

static int __init io_trace_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(io_trace_bios); i++) {
		spin_lock_init(&io_trace_bios[i].lock);
		INIT_HLIST_HEAD(&io_trace_bios[i].head);
	}
	for (i = 0; i < ARRAY_SIZE(io_trace_hints); i++) {
		spin_lock_init(&io_trace_hints[i].lock);
		INIT_HLIST_HEAD(&io_trace_hints[i].head);
		spin_lock_init(&io_trace_waits[i].lock);
		INIT_HLIST_HEAD(&io_trace_waits[i].head);
	}
	io_trace_bio_cache = KMEM_CACHE(io_trace_bio, 0);
	return io_trace_bio_cache ? 0 : -ENOMEM;
}
postcore_initcall(io_trace_init);

/**
 * io_trace_bflags() - the DTrace b_flags of an I/O
 * @opf: its REQ_OP and REQ_ flags
 * @pinned: its pages are pinned user memory (direct I/O)
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
 * io_trace_fill_rwbs() - the blktrace rwbs string of an operation
 * @rwbs: IO_TRACE_RWBS_LEN bytes
 * @opf: REQ_OP and REQ_ flags
 *
 * F for a preflush, then the operation (R, W, D for discard, DE for
 * secure erase, Z for write zeroes, N for anything else), then F for FUA,
 * A for readahead, S for sync and M for metadata, as blktrace writes it.
 * The rest of @rwbs is zeroed: consumers that key on the whole array
 * (bpftrace maps) must not see the bytes of an older event behind the NUL.
 */
void io_trace_fill_rwbs(char *rwbs, blk_opf_t opf)
{
	int i = 0;

	if (opf & REQ_PREFLUSH)
		rwbs[i++] = 'F';
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_WRITE:
		rwbs[i++] = 'W';
		break;
	case REQ_OP_DISCARD:
		rwbs[i++] = 'D';
		break;
	case REQ_OP_SECURE_ERASE:
		rwbs[i++] = 'D';
		rwbs[i++] = 'E';
		break;
	case REQ_OP_FLUSH:
		rwbs[i++] = 'F';
		break;
	case REQ_OP_READ:
		rwbs[i++] = 'R';
		break;
	case REQ_OP_WRITE_ZEROES:
		rwbs[i++] = 'Z';
		break;
	default:
		rwbs[i++] = 'N';
	}
	if (opf & REQ_FUA)
		rwbs[i++] = 'F';
	if (opf & REQ_RAHEAD)
		rwbs[i++] = 'A';
	if (opf & REQ_SYNC)
		rwbs[i++] = 'S';
	if (opf & REQ_META)
		rwbs[i++] = 'M';
	memset(rwbs + i, 0, IO_TRACE_RWBS_LEN - i);
}
EXPORT_SYMBOL_IF_KUNIT(io_trace_fill_rwbs);

/**
 * io_trace_driver_from_disk() - a driver name from a disk name
 * @driver: where to write it
 * @len: its size
 * @disk: the disk name ("dm-3", "loop0", "nvme0n1")
 *
 * For disks with neither a parent device nor a module: the disk name
 * without its instance, that is without trailing digits and then without a
 * trailing '-' ("dm", "loop", "nvme0n"); the whole name if that leaves
 * nothing.  The rest of @driver is zeroed, as io_trace_fill_rwbs() does.
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

/* The name of @dentry in its file system, or "<unknown>" */
static const char *io_trace_dentry_name(const struct dentry *dentry,
					char *buf)
{
	char *p = dentry_path_raw(dentry, buf, IO_TRACE_PATH_MAX);

	return IS_ERR(p) ? io_trace_unknown : p;
}

/*
 * The name of @inode through its first alias.  The caller keeps the inode
 * from being freed (a folio of its page cache locked, under writeback or
 * referenced, inside an RCU read section).  i_lock keeps the alias on the
 * list while its path is built (fs/dcache.c: i_lock nests outside
 * rename_lock, which dentry_path_raw() may take).
 */
static const char *io_trace_inode_name(struct inode *inode, char *buf)
{
	const char *name = io_trace_unknown;
	struct dentry *dentry;

	spin_lock(&inode->i_lock);
	if (!(inode->i_state & (I_FREEING | I_WILL_FREE | I_CLEAR))) {
		hlist_for_each_entry(dentry, &inode->i_dentry, d_u.d_alias) {
			name = io_trace_dentry_name(dentry, buf);
			break;
		}
	}
	spin_unlock(&inode->i_lock);
	return name;
}

static void io_trace_no_file(struct io_trace_info *info, const char *name)
{
	info->fsdev = 0;
	info->ino = 0;
	info->offset = -1;
	info->fstype = NULL;
	info->oflags = -1;
	if (info->path)
		info->path = name;
}

static void io_trace_inode(struct io_trace_info *info, struct inode *inode,
			   loff_t pos)
{
	info->fsdev = inode->i_sb->s_dev;
	info->ino = inode->i_ino;
	info->offset = pos;
	info->fstype = inode->i_sb->s_type->name;
	info->oflags = -1;
}

/* File info from a struct file the submitter or waiter named */
static void io_trace_file(struct io_trace_info *info, struct file *file,
			  loff_t pos, char *buf)
{
	io_trace_inode(info, file_inode(file), pos);
	info->oflags = file->f_flags;
	if (info->path)
		info->path = io_trace_dentry_name(file->f_path.dentry, buf);
}

/*
 * File info from a page-cache folio at @pos of it: its mapping's host, or
 * "<none>" for the block device's own page cache (metadata, raw block
 * I/O), swap, anonymous and kernel memory.  Return: true for page cache.
 * @buf is NULL in hard-IRQ context: no name then.
 */
static bool io_trace_folio(struct io_trace_info *info, struct folio *folio,
			   size_t offset, char *buf, struct block_device **bdev)
{
	struct address_space *mapping;
	struct inode *host;
	bool pagecache = false;

	rcu_read_lock();
	/* A slab's struct slab overlays the mapping: kmalloc()ed buffers */
	mapping = folio_test_slab(folio) ? NULL : READ_ONCE(folio->mapping);
	if (!mapping || ((unsigned long)mapping & PAGE_MAPPING_FLAGS) ||
	    folio_test_swapcache(folio)) {
		io_trace_no_file(info, io_trace_none);
		goto out;
	}
	pagecache = true;
	host = READ_ONCE(mapping->host);
	if (!host || S_ISBLK(host->i_mode)) {
		if (host && bdev)
			*bdev = I_BDEV(host);
		io_trace_no_file(info, io_trace_none);
		goto out;
	}
	if (bdev)
		*bdev = host->i_sb->s_bdev;
	io_trace_inode(info, host, folio_pos(folio) + offset);
	if (info->path)
		info->path = buf ? io_trace_inode_name(host, buf) :
				   io_trace_unknown;
out:
	rcu_read_unlock();
	return pagecache;
}

static struct io_trace_hint *io_trace_find_hint(const struct bio *bio)
{
	struct io_trace_bucket *b = io_trace_task_bucket(io_trace_hints);
	struct io_trace_hint *h, *found = NULL;

	spin_lock(&b->lock);
	hlist_for_each_entry(h, &b->head, node) {
		if (h->task == current &&
		    (h->bio ? h->bio == bio : h->bdev == bio->bi_bdev)) {
			found = h;
			break;
		}
	}
	spin_unlock(&b->lock);
	/* On the stack of current, which is here: valid after the unlock */
	return found;
}

/*
 * File info of a bio that has not completed, whose data starts at @bv
 * (NULL for a bio without data).  Return: true for page-cache I/O.
 * @buf: NULL when the caller wants no name.
 */
static bool io_trace_bio_file(struct io_trace_info *info, struct bio *bio,
			      const struct bio_vec *bv,
			      const struct io_trace_hint *hint, char *buf)
{
	struct folio *folio;

	if (hint) {
		io_trace_file(info, hint->file,
			      hint->pos >= 0 ? hint->pos :
			      (loff_t)info->lsector << SECTOR_SHIFT, buf);
		return false;
	}
	if (bio_flagged(bio, BIO_PAGE_PINNED)) {
		io_trace_no_file(info, io_trace_unknown);
		return false;
	}
	if (!bv) {
		io_trace_no_file(info, io_trace_none);
		return false;
	}
	folio = page_folio(bv->bv_page);
	return io_trace_folio(info, folio,
			      folio_page_idx(folio, bv->bv_page) * PAGE_SIZE +
			      bv->bv_offset, buf, NULL);
}

/* bufinfo_t and devinfo_t of a bio from what io:start saw */
static void io_trace_bio_buf(struct io_trace_info *info, const struct bio *bio,
			     dev_t dev, u64 lsector, u32 bytes)
{
	struct block_device *bdev = bio->bi_bdev;

	info->dev = dev;
	info->lsector = lsector;
	info->bytes = bytes;
	info->opf = bio->bi_opf;
	info->end_io = bio->bi_end_io;
	info->error = 0;
	info->resid = 0;
	/* A driver may have moved the bio to another device since */
	if (bdev && bdev->bd_dev == dev) {
		info->bdev = bdev;
		info->sector = lsector + bdev->bd_start_sect;
	} else {
		info->bdev = NULL;
		info->sector = lsector;
	}
}

/* Remembers @bio until its io:done; false when there is no memory */
static bool io_trace_snapshot(struct bio *bio, bool pageio)
{
	struct io_trace_bucket *b = io_trace_bio_bucket(bio);
	struct io_trace_bio *s, *old = NULL;
	unsigned long flags;

	s = kmem_cache_alloc(io_trace_bio_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (!s)
		return false;
	s->bio = bio;
	s->lsector = bio->bi_iter.bi_sector;
	s->bytes = bio->bi_iter.bi_size;
	s->dev = bio->bi_bdev->bd_dev;
	s->gen = READ_ONCE(io_trace_gen);
	s->pageio = pageio;
	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(old, &b->head, node) {
		if (old->bio == bio) {
			/* A bio reused without an io:done while nobody traced */
			hlist_del(&old->node);
			break;
		}
	}
	hlist_add_head(&s->node, &b->head);
	spin_unlock_irqrestore(&b->lock, flags);
	if (old)
		kmem_cache_free(io_trace_bio_cache, old);
	return true;
}

/* Takes what io:start saw of @bio out of the table, or NULL */
static struct io_trace_bio *io_trace_unsnapshot(const struct bio *bio)
{
	struct io_trace_bucket *b = io_trace_bio_bucket(bio);
	struct io_trace_bio *s, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(s, &b->head, node) {
		if (s->bio == bio) {
			hlist_del(&s->node);
			found = s;
			break;
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (found && found->gen != READ_ONCE(io_trace_gen)) {
		kmem_cache_free(io_trace_bio_cache, found);
		found = NULL;
	}
	return found;
}

void __io_trace_submit(struct bio *bio)
{
	struct io_trace_info info;
	char buf[IO_TRACE_PATH_MAX] __uninitialized;
	struct bio_vec bv;
	bool task = in_task();
	bool data, pageio;

	if (!bio->bi_bdev)
		return;
	io_trace_bio_buf(&info, bio, bio->bi_bdev->bd_dev,
			 bio->bi_iter.bi_sector, bio->bi_iter.bi_size);
	info.path = trace_start_enabled() ? io_trace_unknown : NULL;
	data = bio_has_data(bio) && bio->bi_iter.bi_size;
	if (data)
		bv = bio_iter_iovec(bio, bio->bi_iter);
	pageio = io_trace_bio_file(&info, bio, data ? &bv : NULL,
				   task ? io_trace_find_hint(bio) : NULL,
				   task && info.path ? buf : NULL);
	/* io:done looks at bi_io_vec[0]: only if the data starts there */
	if (!io_trace_snapshot(bio, pageio && !bio_flagged(bio, BIO_CLONED) &&
			       !bio->bi_iter.bi_idx && !bio->bi_iter.bi_bvec_done)) {
		pr_warn_ratelimited("io-trace: no memory for a bio: no io:start or io:done\n");
		return;
	}
	if (!info.path)
		return;
	info.bflags = io_trace_bflags(info.opf,
				      bio_flagged(bio, BIO_PAGE_PINNED), pageio);
	trace_start(&info);
}

void __io_trace_done(struct bio *bio)
{
	struct io_trace_info info;
	struct io_trace_bio *s;
	struct bio_vec bv;
	struct folio *folio;
	bool pageio;

	s = io_trace_unsnapshot(bio);
	if (!s)
		return;
	io_trace_bio_buf(&info, bio, s->dev, s->lsector, s->bytes);
	pageio = s->pageio;
	kmem_cache_free(io_trace_bio_cache, s);
	if (!trace_done_enabled())
		return;
	info.error = blk_status_to_errno(bio->bi_status);
	if (info.error)
		info.resid = min(bio->bi_iter.bi_size, info.bytes);
	info.path = NULL;
	if (pageio) {
		/* The first folio is still locked or under writeback */
		bv = bio->bi_io_vec[0];
		folio = page_folio(bv.bv_page);
		io_trace_folio(&info, folio,
			       folio_page_idx(folio, bv.bv_page) * PAGE_SIZE +
			       bv.bv_offset, NULL, NULL);
	} else {
		io_trace_no_file(&info, NULL);
	}
	info.bflags = io_trace_bflags(info.opf,
				      bio_flagged(bio, BIO_PAGE_PINNED), pageio);
	trace_done(&info);
}

static void io_trace_register(struct io_trace_bucket *t, struct hlist_node *node)
{
	struct io_trace_bucket *b = io_trace_task_bucket(t);

	spin_lock(&b->lock);
	hlist_add_head(node, &b->head);
	spin_unlock(&b->lock);
}

static void io_trace_unregister(struct io_trace_bucket *t, struct hlist_node *node)
{
	struct io_trace_bucket *b = io_trace_task_bucket(t);

	spin_lock(&b->lock);
	hlist_del(node);
	spin_unlock(&b->lock);
}

void __io_trace_hint_begin(struct io_trace_hint *h, struct file *file,
			   struct bio *bio, struct block_device *bdev,
			   loff_t pos)
{
	h->task = current;
	h->file = file;
	h->bio = bio;
	h->bdev = bdev;
	h->pos = pos;
	io_trace_register(io_trace_hints, &h->node);
	h->set = true;
}

void __io_trace_hint_end(struct io_trace_hint *h)
{
	io_trace_unregister(io_trace_hints, &h->node);
}

/*
 * A reference to the inode whose page cache @folio is in, or NULL: the
 * caller holds a reference to the folio, whose mapping may be going away
 * (RCU keeps the inode readable, igrab() refuses one being freed).
 */
static struct inode *io_trace_folio_igrab(struct folio *folio)
{
	struct address_space *mapping;
	struct inode *inode = NULL;

	rcu_read_lock();
	mapping = folio_test_slab(folio) ? NULL : READ_ONCE(folio->mapping);
	if (mapping && !((unsigned long)mapping & PAGE_MAPPING_FLAGS) &&
	    !folio_test_swapcache(folio) && READ_ONCE(mapping->host))
		inode = igrab(READ_ONCE(mapping->host));
	rcu_read_unlock();
	return inode;
}

void __io_trace_wait_begin(struct io_trace_wait *w, enum io_trace_wait_kind kind,
			   const void *obj, u64 arg)
{
	/* A folio lock is a wait for I/O only while the read is in flight */
	if ((kind == IO_TRACE_WAIT_FOLIO || kind == IO_TRACE_WAIT_FOLIO_DROP) &&
	    arg != PG_writeback && folio_test_uptodate((struct folio *)obj))
		return;
	w->task = current;
	w->kind = kind;
	w->obj = obj;
	w->bytes = arg;
	if (kind == IO_TRACE_WAIT_FOLIO_DROP) {
		/*
		 * The waiter lets go of the folio before it sleeps (the
		 * readahead wait of filemap_update_page()): keep its inode
		 * instead, and where in it the folio was.
		 */
		struct folio *folio = (struct folio *)obj;

		w->obj = io_trace_folio_igrab(folio);
		if (!w->obj)
			return;
		w->sector = folio_pos(folio);
		w->bytes = folio_size(folio);
	}
	if (kind == IO_TRACE_WAIT_BIO) {
		const struct bio *bio = obj;

		w->dev = bio->bi_bdev->bd_dev;
		w->sector = bio->bi_iter.bi_sector;
		w->bytes = bio->bi_iter.bi_size;
	}
	w->fired = false;
	io_trace_register(io_trace_waits, &w->node);
	w->registered = true;
}

/* The wait current registered last, or NULL */
static struct io_trace_wait *io_trace_current_wait(void)
{
	struct io_trace_bucket *b = io_trace_task_bucket(io_trace_waits);
	struct io_trace_wait *w, *found = NULL;

	spin_lock(&b->lock);
	hlist_for_each_entry(w, &b->head, node) {
		if (w->task == current) {
			found = w;
			break;
		}
	}
	spin_unlock(&b->lock);
	return found;
}

#define IO_TRACE_DIO_WRITE	BIT_ULL(63)

/* The device a file's I/O goes to: a block device file's, or its fs's */
static struct block_device *io_trace_file_bdev(struct file *file)
{
	struct inode *inode = file->f_mapping->host;

	return S_ISBLK(inode->i_mode) ? I_BDEV(inode) : inode->i_sb->s_bdev;
}

static void io_trace_wait_info(struct io_trace_info *info,
			       const struct io_trace_wait *w, char *buf)
{
	struct block_device *bdev = NULL;
	struct buffer_head *bh;
	struct folio *folio;
	struct inode *inode;
	struct kiocb *iocb;
	struct bio *bio;
	bool pageio;

	memset(info, 0, sizeof(*info));
	info->path = io_trace_unknown;
	info->lsector = -1;
	info->sector = -1;
	switch (w->kind) {
	case IO_TRACE_WAIT_BIO:
		/* In flight or completed: read the bio, never write it */
		bio = (struct bio *)w->obj;
		info->dev = w->dev;
		info->lsector = w->sector;
		info->sector = w->sector;
		info->bytes = w->bytes;
		info->opf = bio->bi_opf;
		info->end_io = bio->bi_end_io;
		if (bio->bi_bdev && bio->bi_bdev->bd_dev == w->dev) {
			info->bdev = bio->bi_bdev;
			info->sector += bio->bi_bdev->bd_start_sect;
		}
		pageio = io_trace_bio_file(info, bio,
					   bio->bi_vcnt ? &bio->bi_io_vec[0] : NULL,
					   io_trace_find_hint(bio), buf);
		info->bflags = io_trace_bflags(info->opf,
					       bio_flagged(bio, BIO_PAGE_PINNED),
					       pageio);
		return;
	case IO_TRACE_WAIT_FOLIO_DROP:
		inode = (struct inode *)w->obj;
		info->bytes = w->bytes;
		info->opf = REQ_OP_READ;
		if (S_ISBLK(inode->i_mode)) {
			bdev = I_BDEV(inode);
			io_trace_no_file(info, io_trace_none);
		} else {
			bdev = inode->i_sb->s_bdev;
			io_trace_inode(info, inode, w->sector);
			info->path = io_trace_inode_name(inode, buf);
		}
		break;
	case IO_TRACE_WAIT_FOLIO:
		folio = (struct folio *)w->obj;
		info->bytes = folio_size(folio);
		info->opf = w->bytes == PG_writeback ? REQ_OP_WRITE : REQ_OP_READ;
		io_trace_folio(info, folio, 0, buf, &bdev);
		break;
	case IO_TRACE_WAIT_BH:
		bh = (struct buffer_head *)w->obj;
		bdev = bh->b_bdev;
		info->bytes = bh->b_size;
		info->lsector = bh->b_blocknr * (bh->b_size >> SECTOR_SHIFT);
		info->sector = info->lsector + bdev->bd_start_sect;
		info->opf = buffer_uptodate(bh) ? REQ_OP_WRITE : REQ_OP_READ;
		io_trace_folio(info, bh->b_folio, bh_offset(bh), buf, NULL);
		break;
	case IO_TRACE_WAIT_DIO:
		iocb = (struct kiocb *)w->obj;
		info->bytes = w->bytes & ~IO_TRACE_DIO_WRITE;
		info->opf = w->bytes & IO_TRACE_DIO_WRITE ? REQ_OP_WRITE | REQ_SYNC :
							    REQ_OP_READ | REQ_SYNC;
		io_trace_file(info, iocb->ki_filp, iocb->ki_pos, buf);
		bdev = io_trace_file_bdev(iocb->ki_filp);
		info->bflags = io_trace_bflags(info->opf, true, false);
		info->bdev = bdev;
		info->dev = bdev ? bdev->bd_dev : 0;
		return;
	}
	info->bdev = bdev;
	info->dev = bdev ? bdev->bd_dev : 0;
	info->bflags = io_trace_bflags(info->opf, false, true);
}

void __io_trace_sleep(void)
{
	struct io_trace_wait *w = io_trace_current_wait();
	struct io_trace_info info;
	char buf[IO_TRACE_PATH_MAX] __uninitialized;

	if (!w || w->fired)
		return;
	w->fired = true;
	if (!trace_wait_start_enabled())
		return;
	io_trace_wait_info(&info, w, buf);
	trace_wait_start(&info);
}

void __io_trace_wait_end(struct io_trace_wait *w)
{
	struct io_trace_info info;
	char buf[IO_TRACE_PATH_MAX] __uninitialized;

	io_trace_unregister(io_trace_waits, &w->node);
	if (w->fired && trace_wait_done_enabled()) {
		io_trace_wait_info(&info, w, buf);
		trace_wait_done(&info);
	}
	/* The reader's open file holds the inode too: never the last iput() */
	if (w->kind == IO_TRACE_WAIT_FOLIO_DROP)
		iput((struct inode *)w->obj);
}
