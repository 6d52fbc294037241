/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The io trace events (DTrace's io provider): the hooks, the hints that
 * submitters of block I/O give them, and the waits.
 *
 * io:io_start fires in submit_bio_noacct_nocheck() for every bio entering a
 * device's queue, io:io_done in bio_endio() with what io:io_start saw of
 * the bio, kept in a table of fixed size while an event is enabled
 * (block/io-trace.c), io:io_wait_start and io:io_wait_done at the sites
 * that wait for one I/O.  Each event has its own static key (its
 * tracepoint's); the completion's has one more, set while the table
 * exists.  Nothing is allocated per I/O; the only locks, taken in
 * io-trace.c while a name is built, are per CPU, per inode, and
 * mount_lock for a written-back file's mount.  See
 * Documentation/trace/io-provider.rst, "Locks".
 */
#ifndef _LINUX_IO_TRACE_H
#define _LINUX_IO_TRACE_H

#include <linux/blk_types.h>
#include <linux/jump_label.h>
#include <linux/tracepoint-defs.h>
#include <linux/types.h>

struct bio;
struct bio_vec;
struct bvec_iter;
struct block_device;
struct buffer_head;
struct completion;
struct file;
struct folio;
struct kiocb;

/* bufinfo_t b_flags, with the values of the DTrace io provider */
#define IO_TRACE_B_PAGEIO	0x010
#define IO_TRACE_B_PHYS		0x020
#define IO_TRACE_B_READ		0x040
#define IO_TRACE_B_WRITE	0x100
#define IO_TRACE_B_ASYNC	0x400

/* Length of the rwbs string, terminating NUL included */
#define IO_TRACE_RWBS_LEN	8

/*
 * A slot of the table of bios in flight (block/io-trace.c): a bio with
 * what its io:io_done reports, or the bvec table of a bio whose file a
 * submitter named (IO_TRACE_KEY_DATA), with that file, for the bios sent
 * down with the same table.  A bio whose slot also owns its table's has
 * IO_TRACE_KEY_HAS_DATA in its key.  Key 0: free.
 */
#define IO_TRACE_KEY_DATA	1UL
#define IO_TRACE_KEY_HAS_DATA	2UL
#define IO_TRACE_FLIGHT_PROBE	8

struct io_trace_slot {
	unsigned long key;
	union {
		struct {
			const struct block_device *bdev;
			u64			sector;
			u64			ino;
			s64			offset;
			const char		*fstype;
			u32			bytes;
			dev_t			fsdev;
			u32			bflags;
			int			oflags;
		} bio;
		struct {
			const struct bio	*owner;
			struct file		*file;
			loff_t			pos;
			unsigned int		idx;
			unsigned int		done;
			bool			contested;
		} data;
	};
};

struct io_trace_flight {
	unsigned int		bits;
	struct io_trace_slot	slot[];
};

/*
 * A submitter's word on the file of the bios it submits, for I/O whose
 * pages do not say (direct I/O: the pages are the caller's buffer) or say
 * too little (page cache: an inode, but no mount).  On the submitter's
 * stack, linked from current->io_trace_hint while it is set, as
 * current->plug links a plug.  It applies to @bio with @pos its file
 * offset; or when @bio is NULL and @bdev is set, to every bio to @bdev,
 * at the offset of its sector (block device files); or when both are
 * NULL, to the page-cache bios of @file's own pages (readahead, fsync).
 * Declare it __uninitialized: io_trace_hint_begin() sets what is read.
 */
struct io_trace_hint {
	struct io_trace_hint	*prev;
	struct file		*file;
	const struct bio	*bio;
	/* @bio's table: a later bio at the address of a freed @bio has another */
	const struct bio_vec	*bvecs;
	struct block_device	*bdev;
	loff_t			pos;
	bool			set;
};

/*
 * One wait of a task for one I/O, on the waiter's stack.  The numbers of
 * io:io_wait_start, kept for io:io_wait_done, which names nothing.  Declare it
 * __uninitialized, as struct io_trace_hint.
 */
struct io_trace_wait {
	const struct block_device *bdev;
	struct folio	*folio;
	size_t		folio_off;
	const char	*fstype;
	u64		sector;
	u64		ino;
	s64		offset;
	dev_t		dev;
	dev_t		fsdev;
	u32		bytes;
	u32		bflags;
	blk_opf_t	opf;
	int		oflags;
	bool		armed;
	bool		fired;
};

/*
 * What one io event records, filled by block/io-trace.c: the bufinfo_t,
 * devinfo_t and fileinfo_t of the DTrace io provider.  @bdev is only used
 * for the disk and driver names.  @path, @mount and @fspath are NULL when
 * the event names nothing (io:io_done, io:io_wait_done), otherwise a name,
 * "<none>" or "<unknown>".  @server, when not NULL, is the NFS server of
 * an RPC, the device in place of @bdev.
 */
struct io_trace_info {
	const struct block_device *bdev;
	const char	*server;
	const void	*end_io;
	const char	*fstype;
	const char	*path;
	const char	*mount;
	const char	*fspath;
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

/*
 * An NFS READ or WRITE RPC (fs/nfs/pagelist.c), the spec's "file read and
 * file write requests to an NFS server": its file, where in the file, how
 * many bytes, and at io:io_done how it ended.
 */
struct io_trace_rpc {
	struct inode	*inode;
	const char	*server;
	loff_t		offset;
	u32		bytes;
	u32		resid;
	int		error;
	bool		write;
	bool		direct;
};

#ifdef CONFIG_IO_TRACE_EVENTS
#include <linux/sched.h>

DECLARE_TRACEPOINT(io_start);
DECLARE_TRACEPOINT(io_done);
DECLARE_TRACEPOINT(io_wait_start);
DECLARE_TRACEPOINT(io_wait_done);
DECLARE_STATIC_KEY_FALSE(io_trace_flight_key);

int io_trace_start_get(void);
void io_trace_start_put(void);
int io_trace_done_get(void);
void io_trace_done_put(void);
int io_trace_wait_start_get(void);
void io_trace_wait_start_put(void);

void __io_trace_submit(struct bio *bio);
void __io_trace_done(struct bio *bio);
void __io_trace_hint_begin(struct io_trace_hint *h, struct file *file,
			   const struct bio *bio, struct block_device *bdev,
			   loff_t pos);
void __io_trace_wait_bio(struct io_trace_wait *w, const struct bio *bio);
void __io_trace_wait_folio(struct io_trace_wait *w, struct folio *folio,
			   int bit_nr);
void __io_trace_wait_bh(struct io_trace_wait *w, struct buffer_head *bh);
void __io_trace_wait_dio(struct io_trace_wait *w, struct kiocb *iocb,
			 u32 bytes, bool write);
void __io_trace_wait_fire(struct io_trace_wait *w, struct completion *done);
void __io_trace_wait_end(struct io_trace_wait *w);
void __io_trace_rpc_start(const struct io_trace_rpc *rpc);
void __io_trace_rpc_done(const struct io_trace_rpc *rpc);

/* submit_bio_noacct_nocheck(): io:io_start, and what io:io_done will need */
static inline void io_trace_submit(struct bio *bio)
{
	if (tracepoint_enabled(io_start) || tracepoint_enabled(io_done))
		__io_trace_submit(bio);
}

/* bio_endio(), before bi_end_io: io:io_done for a bio in the table */
static inline void io_trace_done(struct bio *bio)
{
	if (static_branch_unlikely(&io_trace_flight_key))
		__io_trace_done(bio);
}

static inline void io_trace_hint_begin(struct io_trace_hint *h,
				       struct file *file, const struct bio *bio,
				       struct block_device *bdev, loff_t pos)
{
	h->set = false;
	if (tracepoint_enabled(io_start) || tracepoint_enabled(io_done))
		__io_trace_hint_begin(h, file, bio, bdev, pos);
}

static inline void io_trace_hint_end(struct io_trace_hint *h)
{
	if (h->set)
		current->io_trace_hint = h->prev;
}

/* An RPC is about to be sent: does io:io_start or io:io_done want it? */
static inline bool io_trace_rpcs(void)
{
	return tracepoint_enabled(io_start) || tracepoint_enabled(io_done);
}

static inline bool io_trace_waits(void)
{
	return tracepoint_enabled(io_wait_start) ||
	       tracepoint_enabled(io_wait_done);
}

/*
 * The wait sites.  io_trace_wait_*() fire io:io_wait_start for the object
 * waited on when the site has found its I/O in flight, before the task
 * sleeps; io_trace_wait_end() fires io:io_wait_done if it did.  For a bio,
 * io_trace_wait_bio() takes its numbers before it is submitted and
 * io_trace_wait_fire() fires once it is, if it has not completed.
 */
static inline void io_trace_wait_bio(struct io_trace_wait *w,
				     const struct bio *bio)
{
	w->armed = false;
	w->fired = false;
	if (io_trace_waits())
		__io_trace_wait_bio(w, bio);
}

/* After submit_bio(): io:io_wait_start unless @done is already complete */
static inline void io_trace_wait_fire(struct io_trace_wait *w,
				      struct completion *done)
{
	if (w->armed)
		__io_trace_wait_fire(w, done);
}

static inline void io_trace_wait_folio(struct io_trace_wait *w,
				       struct folio *folio, int bit_nr)
{
	w->fired = false;
	if (io_trace_waits())
		__io_trace_wait_folio(w, folio, bit_nr);
}

static inline void io_trace_wait_bh(struct io_trace_wait *w,
				    struct buffer_head *bh)
{
	w->fired = false;
	if (io_trace_waits())
		__io_trace_wait_bh(w, bh);
}

/* @in_flight: the site's own test that the I/O has not completed */
static inline void io_trace_wait_dio(struct io_trace_wait *w,
				     struct kiocb *iocb, u32 bytes, bool write,
				     bool in_flight)
{
	w->fired = false;
	if (in_flight && io_trace_waits())
		__io_trace_wait_dio(w, iocb, bytes, write);
}

static inline void io_trace_wait_end(struct io_trace_wait *w)
{
	if (w->fired)
		__io_trace_wait_end(w);
}

#else /* !CONFIG_IO_TRACE_EVENTS */

static inline void io_trace_submit(struct bio *bio) { }
static inline void io_trace_done(struct bio *bio) { }
static inline void io_trace_hint_begin(struct io_trace_hint *h,
				       struct file *file, const struct bio *bio,
				       struct block_device *bdev, loff_t pos) { }
static inline void io_trace_hint_end(struct io_trace_hint *h) { }
static inline void io_trace_wait_bio(struct io_trace_wait *w,
				     const struct bio *bio) { }
static inline void io_trace_wait_fire(struct io_trace_wait *w,
				      struct completion *done) { }
static inline void io_trace_wait_folio(struct io_trace_wait *w,
				       struct folio *folio, int bit_nr) { }
static inline void io_trace_wait_bh(struct io_trace_wait *w,
				    struct buffer_head *bh) { }
static inline void io_trace_wait_dio(struct io_trace_wait *w,
				     struct kiocb *iocb, u32 bytes, bool write,
				     bool in_flight) { }
static inline void io_trace_wait_end(struct io_trace_wait *w) { }
static inline bool io_trace_rpcs(void) { return false; }
static inline void __io_trace_rpc_start(const struct io_trace_rpc *rpc) { }
static inline void __io_trace_rpc_done(const struct io_trace_rpc *rpc) { }

#endif /* CONFIG_IO_TRACE_EVENTS */

/* Pure helpers, in block/io-trace.c, tested by block/io-trace-test.c */
u32 io_trace_bflags(blk_opf_t opf, bool pinned, bool pagecache);
void io_trace_rwbs(char *rwbs, blk_opf_t opf);
void io_trace_driver_from_disk(char *driver, size_t len, const char *disk);
void io_trace_fill_disk(char *disk, size_t disk_len, char *driver,
			size_t driver_len, const struct block_device *bdev);
void io_trace_fill_dev(char *disk, size_t disk_len, char *driver,
		       size_t driver_len, const struct io_trace_info *info);
s64 io_trace_bvec_distance(const struct bio_vec *bv, unsigned int from_idx,
			   unsigned int from_done, unsigned int idx,
			   unsigned int done);
unsigned int io_trace_flight_slots(unsigned int cpus);
struct io_trace_flight *io_trace_flight_alloc(unsigned int slots);
struct io_trace_slot *io_trace_flight_claim(struct io_trace_flight *fl,
					    unsigned long key);
struct io_trace_slot *io_trace_flight_find(struct io_trace_flight *fl,
					   unsigned long key,
					   unsigned long mask);
void io_trace_flight_release(struct io_trace_slot *sl);
const char *io_trace_path_result(char *p, char *buf, size_t len);
const char *io_trace_path_join(char *buf, size_t len, const char *mount,
			       const char *fspath);

#endif /* _LINUX_IO_TRACE_H */
