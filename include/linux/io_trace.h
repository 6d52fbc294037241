/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The io trace events (DTrace's io provider): hooks and the hints that
 * the submitters and waiters of block I/O give them.
 *
 * io:start and io:done fire in submit_bio() and bio_endio(); the waits
 * (io:wait_start, io:wait_done) are sites registered with the task around
 * a wait for one I/O, fired from the sleep in io_schedule() that per-task
 * I/O accounting already hooks.  Everything costs one static branch while
 * no io event is enabled.  See Documentation/trace/io-provider.rst.
 */
#ifndef _LINUX_IO_TRACE_H
#define _LINUX_IO_TRACE_H

#include <linux/blk_types.h>
#include <linux/types.h>

struct bio;
struct block_device;
struct task_struct;
struct buffer_head;
struct file;
struct folio;

/* bufinfo_t b_flags, with the values of the DTrace io provider */
#define IO_TRACE_B_PAGEIO	0x010
#define IO_TRACE_B_PHYS		0x020
#define IO_TRACE_B_READ		0x040
#define IO_TRACE_B_WRITE	0x100
#define IO_TRACE_B_ASYNC	0x400

/* Length of the rwbs string, terminating NUL included */
#define IO_TRACE_RWBS_LEN	8

/*
 * A submitter's word on which file the bios it submits belong to, for I/O
 * whose pages say nothing about it (direct I/O).  It applies to @bio, or
 * when @bio is NULL to every bio submitted to @bdev while it is set; @pos
 * is the file offset of the bio's first byte, or -1 when the offset is the
 * bio's sector on @bdev (block device files).  Declare it __uninitialized:
 * with CONFIG_INIT_STACK_ALL_ZERO the compiler would clear it at every
 * call, even while no event is enabled; io_trace_hint_begin() sets what
 * is read.
 */
struct io_trace_hint {
	struct hlist_node	node;
	struct task_struct	*task;
	struct file		*file;
	struct bio		*bio;
	struct block_device	*bdev;
	loff_t			pos;
	bool			set;
};

enum io_trace_wait_kind {
	IO_TRACE_WAIT_BIO,
	IO_TRACE_WAIT_FOLIO,
	IO_TRACE_WAIT_FOLIO_DROP,
	IO_TRACE_WAIT_BH,
	IO_TRACE_WAIT_DIO,
};

/*
 * One wait of a task for one I/O, registered by the code that waits
 * (submit_bio_wait(), folio_wait_bit_common(), __wait_on_buffer(), the
 * synchronous direct-I/O waits).  io:wait_start fires the first time the
 * task sleeps in io_schedule() while it is registered, io:wait_done when
 * the site ends, so a wait that never sleeps fires neither.  A bio is
 * registered before it is submitted, so that its sector, size and device
 * are the ones it was submitted with.  Declared __uninitialized, as
 * struct io_trace_hint is.
 */
struct io_trace_wait {
	struct hlist_node	node;
	struct task_struct	*task;
	const void		*obj;
	u64			sector;
	u64			bytes;
	dev_t			dev;
	u8			kind;
	bool			registered;
	bool			fired;
};

/*
 * What one io event records, filled by block/io-trace.c: the bufinfo_t,
 * devinfo_t and fileinfo_t of the DTrace io provider.  @bdev is only used
 * for the disk and driver names; @path is NULL when the event has no name
 * (io:done), otherwise a name, "<none>" or "<unknown>".
 */
struct io_trace_info {
	const struct block_device *bdev;
	const void	*end_io;
	const char	*fstype;
	const char	*path;
	u64		sector;
	u64		lsector;
	u64		ino;
	s64		offset;
	dev_t		dev;
	dev_t		fsdev;
	u32		bytes;
	u32		bflags;
	blk_opf_t	opf;
	u32		resid;
	int		error;
	int		oflags;
};

#ifdef CONFIG_IO_TRACE_EVENTS
#include <linux/jump_label.h>

/* On while at least one io event has a consumer */
DECLARE_STATIC_KEY_FALSE(io_trace_key);

void __io_trace_submit(struct bio *bio);
void __io_trace_done(struct bio *bio);
void __io_trace_hint_begin(struct io_trace_hint *h, struct file *file,
			   struct bio *bio, struct block_device *bdev,
			   loff_t pos);
void __io_trace_hint_end(struct io_trace_hint *h);
void __io_trace_wait_begin(struct io_trace_wait *w, enum io_trace_wait_kind kind,
			   const void *obj, u64 arg);
void __io_trace_wait_end(struct io_trace_wait *w);
void __io_trace_sleep(void);

/* submit_bio(): snapshot the bio and fire io:start */
static inline void io_trace_submit(struct bio *bio)
{
	if (static_branch_unlikely(&io_trace_key))
		__io_trace_submit(bio);
}

/* bio_endio(), before bi_end_io: io:done for a bio submit_bio() snapshotted */
static inline void io_trace_done(struct bio *bio)
{
	if (static_branch_unlikely(&io_trace_key))
		__io_trace_done(bio);
}

static inline void io_trace_hint_begin(struct io_trace_hint *h,
				       struct file *file, struct bio *bio,
				       struct block_device *bdev, loff_t pos)
{
	h->set = false;
	if (static_branch_unlikely(&io_trace_key))
		__io_trace_hint_begin(h, file, bio, bdev, pos);
}

static inline void io_trace_hint_end(struct io_trace_hint *h)
{
	if (h->set)
		__io_trace_hint_end(h);
}

/*
 * @obj: the bio, folio, buffer_head, or for direct I/O the kiocb; @arg:
 * for a folio the bit waited on (PG_locked or PG_writeback), for direct
 * I/O the bytes submitted; unused otherwise.  IO_TRACE_WAIT_FOLIO_DROP is
 * a waiter that drops its folio reference before it sleeps.
 */
static inline void io_trace_wait_begin(struct io_trace_wait *w,
				       enum io_trace_wait_kind kind,
				       const void *obj, u64 arg)
{
	w->registered = false;
	if (static_branch_unlikely(&io_trace_key))
		__io_trace_wait_begin(w, kind, obj, arg);
}

static inline void io_trace_wait_end(struct io_trace_wait *w)
{
	if (w->registered)
		__io_trace_wait_end(w);
}

/* io_schedule(), just before the task sleeps */
static inline void io_trace_sleep(void)
{
	if (static_branch_unlikely(&io_trace_key))
		__io_trace_sleep();
}

#else /* !CONFIG_IO_TRACE_EVENTS */

static inline void io_trace_submit(struct bio *bio) { }
static inline void io_trace_done(struct bio *bio) { }
static inline void io_trace_hint_begin(struct io_trace_hint *h,
				       struct file *file, struct bio *bio,
				       struct block_device *bdev, loff_t pos) { }
static inline void io_trace_hint_end(struct io_trace_hint *h) { }
static inline void io_trace_wait_begin(struct io_trace_wait *w,
				       enum io_trace_wait_kind kind,
				       const void *obj, u64 arg) { }
static inline void io_trace_wait_end(struct io_trace_wait *w) { }
static inline void io_trace_sleep(void) { }

#endif /* CONFIG_IO_TRACE_EVENTS */

/* Pure helpers, in block/io-trace.c, tested by block/io-trace-test.c */
u32 io_trace_bflags(blk_opf_t opf, bool pinned, bool pagecache);
void io_trace_fill_rwbs(char *rwbs, blk_opf_t opf);
void io_trace_driver_from_disk(char *driver, size_t len, const char *disk);
void io_trace_fill_disk(char *disk, size_t disk_len, char *driver,
			size_t driver_len, const struct block_device *bdev);

#endif /* _LINUX_IO_TRACE_H */
