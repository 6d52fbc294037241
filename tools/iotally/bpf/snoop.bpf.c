// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snoop.bpf.c - the io trace events of `iotally snoop` on a kernel
 * without them (Documentation/iotally-bpf.rst, "snoop").
 *
 * A bio's start is block_bio_queue, which the block layer fires once per
 * bio and device (each dm or md clone, each loop request, the disk below),
 * never again for the remainder of a split; its end is block_bio_complete
 * on a bio-based device (dm, md), block_rq_complete of the request that
 * holds it on a blk-mq one (which never fires block_bio_complete).
 * The start is kept in `inflight` by the bio's address and sent with its
 * completion as one record: the device, sector and size are the start's,
 * as the completion has advanced the bio's iterator.
 *
 * The file of a bio: a page-cache page names its inode; a bio of user
 * memory (direct I/O) is named by the direct I/O call the task is in
 * (__iomap_dio_rw, blkdev_read_iter/blkdev_write_iter), and the bios a
 * stacking driver sends down with the same first page, in any task, by
 * `dio_pages`. A file's path in its file system is sent once (`described`).
 *
 * Waits: a sleep in io_schedule() or io_schedule_timeout() (the task not
 * running at entry, a voluntary switch by exit), named by the last bio the
 * task started.
 *
 * Every map is bounded; what does not fit is counted in `counters`.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "snoop_record.h"

char LICENSE[] SEC("license") = "GPL";

#define S_IFMT 00170000
#define S_IFBLK 0060000
#define S_IFREG 0100000
#define O_DIRECT 00040000
#define PAGE_SHIFT 12
#define PAGE_MAPPING_FLAGS 0x3UL
/* include/linux/blk_types.h: fixed since 6.5 and 4.20; anonymous enums have no CO-RE */
#define REQ_OP_MASK 0xffU

#ifndef IOT_INFLIGHT_MAX
#define IOT_INFLIGHT_MAX 10240
#endif

struct file_info {
	iot_u64 ino;
	iot_s64 offset;
	iot_u32 fsdev;
	iot_s32 oflags;
	iot_u32 kind;
	iot_u32 pad;
	char fstype[IOT_FSTYPE_LEN];
};

struct inflight {
	struct iot_io rec;
	iot_u64 dio_page;	/* the dio_pages key this bio owns, 0 none */
	iot_u32 dio_off;
	iot_u32 pad;
};

struct dio_key {
	iot_u64 page;
	iot_u32 off;
	iot_u32 pad;
};

struct dio_call {
	struct file_info file;
	iot_s64 cursor;		/* file offset of the call's next bio */
	iot_u64 next_bio;	/* the bio iomap is about to submit, at next_pos */
	iot_s64 next_pos;
};

struct wait_start {
	iot_u64 ts;
	iot_u64 nvcsw;
};

struct inode_key {
	iot_u64 ino;
	iot_u32 fsdev;
	iot_u32 pad;
};

/* Set by user space before load */
const volatile bool want_waits = true;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);	/* resized by user space (--buffer-kb) */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOT_INFLIGHT_MAX);
	__type(key, iot_u64);		/* the bio's address */
	__type(value, struct inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOT_INFLIGHT_MAX);
	__type(key, struct dio_key);	/* first page and offset of a direct I/O bio */
	__type(value, struct file_info);
} dio_pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, iot_u32);		/* thread id */
	__type(value, struct dio_call);
} dio_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, iot_u32);		/* thread id */
	__type(value, struct wait_start);
} waits SEC(".maps");

/* The last bio each task started, to name its waits: losing one loses a name, no count */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, iot_u32);
	__type(value, struct iot_io);
} last_io SEC(".maps");

/* Files whose path was sent: an eviction only sends it again */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct inode_key);
	__type(value, iot_u8);
} described SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IOT_CNT_MAX);
	__type(key, iot_u32);
	__type(value, iot_u64);
} counters SEC(".maps");

/* Where a start is built: too big for the stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, iot_u32);
	__type(value, struct inflight);
} scratch SEC(".maps");

static __always_inline void count(iot_u32 which)
{
	iot_u64 *n = bpf_map_lookup_elem(&counters, &which);

	if (n)
		*n += 1;
}

/* The path of @dentry in its file system, sent once per (fsdev, ino) */
static __always_inline void describe(struct dentry *dentry, iot_u32 fsdev, iot_u64 ino)
{
	struct inode_key key = { .ino = ino, .fsdev = fsdev };
	struct iot_path *p;
	iot_u32 off = 0, depth = 0;
	iot_u8 one = 1;
	int i;

	if (!dentry || bpf_map_lookup_elem(&described, &key))
		return;
	p = bpf_ringbuf_reserve(&events, sizeof(*p), 0);
	if (!p) {
		count(IOT_CNT_PATH_LOST);
		return;
	}
	p->type = IOT_REC_PATH;
	p->fsdev = fsdev;
	p->ino = ino;
	p->complete = 0;
	p->pad = 0;
	for (i = 0; i < IOT_PATH_MAX_DEPTH; i++) {
		struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
		const unsigned char *name;
		long n;

		if (!parent || parent == dentry) {
			p->complete = 1;
			break;
		}
		if (off >= IOT_PATH_BUF)
			break;
		name = BPF_CORE_READ(dentry, d_name.name);
		n = bpf_probe_read_kernel_str(&p->names[off & (IOT_PATH_BUF - 1)], IOT_NAME_MAX,
					      name);
		if (n <= 0)
			break;
		off += n;
		depth++;
		dentry = parent;
	}
	p->depth = depth;
	p->len = off;
	bpf_ringbuf_submit(p, 0);
	bpf_map_update_elem(&described, &key, &one, BPF_ANY);
}

static __always_inline void inode_info(struct file_info *fi, struct inode *inode)
{
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);

	fi->ino = BPF_CORE_READ(inode, i_ino);
	fi->fsdev = BPF_CORE_READ(sb, s_dev);
	bpf_probe_read_kernel_str(fi->fstype, sizeof(fi->fstype), BPF_CORE_READ(sb, s_type, name));
	fi->oflags = -1;
	fi->kind = IOT_FILE_FILE;
}

/* The first alias of an inode (the native event's io_trace_inode_names()) */
static __always_inline struct dentry *inode_dentry(struct inode *inode)
{
	struct hlist_node *first = BPF_CORE_READ(inode, i_dentry.first);

	if (!first)
		return NULL;
	return (struct dentry *)((void *)first -
				 __builtin_preserve_field_info(((struct dentry *)0)->d_u.d_alias,
							       BPF_FIELD_BYTE_OFFSET));
}

enum page_kind { PAGE_NONE, PAGE_USER, PAGE_FILE };

/*
 * What a bio's first page is: a regular file's page cache (its inode and
 * offset in @fi), user memory (anonymous), or nothing (kernel buffers,
 * slab, a block device's own page cache: metadata).
 */
static __always_inline enum page_kind page_kind(struct page *page, iot_u32 in_page,
						struct file_info *fi)
{
	unsigned long head = BPF_CORE_READ(page, compound_head);
	struct page *hp = (head & 1) ? (struct page *)(head - 1) : page;
	struct address_space *mapping;
	struct inode *host;
	iot_u64 index, nth;
	umode_t mode;

	if (bpf_core_enum_value_exists(enum pagetype, PGTY_slab) &&
	    (BPF_CORE_READ(hp, page_type) >> 24) == bpf_core_enum_value(enum pagetype, PGTY_slab))
		return PAGE_NONE;
	mapping = BPF_CORE_READ(hp, mapping);
	if (!mapping)
		return PAGE_NONE;
	if ((unsigned long)mapping & PAGE_MAPPING_FLAGS)
		return ((unsigned long)mapping & 1) ? PAGE_USER : PAGE_NONE;
	host = BPF_CORE_READ(mapping, host);
	/* a struct slab or anything else overlaying the mapping is no file's */
	if (!host || BPF_CORE_READ(host, i_mapping) != mapping)
		return PAGE_NONE;
	mode = BPF_CORE_READ(host, i_mode);
	if ((mode & S_IFMT) != S_IFREG)
		return PAGE_NONE;
	inode_info(fi, host);
	index = BPF_CORE_READ(hp, index);
	nth = ((iot_u64)page - (iot_u64)hp) / bpf_core_type_size(struct page);
	fi->offset = (iot_s64)(((index + nth) << PAGE_SHIFT) + in_page);
	describe(inode_dentry(host), fi->fsdev, fi->ino);
	return PAGE_FILE;
}

static __always_inline void fill_rwbs(char *rwbs, iot_u32 opf)
{
	iot_u32 op = opf & REQ_OP_MASK;
	int i = 0;

	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		rwbs[i++] = 'F';
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE) ||
	    op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES)) {
		rwbs[i++] = 'W';
	} else if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD)) {
		rwbs[i++] = 'D';
	} else if (op == bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE)) {
		rwbs[i++] = 'D';
		rwbs[i++] = 'E';
	} else if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH)) {
		rwbs[i++] = 'F';
	} else if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ)) {
		rwbs[i++] = 'R';
	} else {
		rwbs[i++] = 'N';
	}
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		rwbs[i++] = 'F';
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		rwbs[i++] = 'A';
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		rwbs[i++] = 'S';
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		rwbs[i++] = 'M';
}

/* devinfo_t's driver as io_trace_fill_disk() names it; "" leaves it to user space */
static __always_inline void fill_driver(char *driver, struct gendisk *gd)
{
	struct device_driver *drv = BPF_CORE_READ(gd, part0, bd_device.parent, driver);
	struct module *owner;

	if (drv) {
		bpf_probe_read_kernel_str(driver, IOT_DISK_LEN, BPF_CORE_READ(drv, name));
		return;
	}
	owner = BPF_CORE_READ(gd, fops, owner);
	if (owner)
		bpf_probe_read_kernel_str(driver, IOT_DISK_LEN, owner->name);
}

static __always_inline void set_file(struct iot_io *r, const struct file_info *fi)
{
	r->ino = fi->ino;
	r->offset = fi->offset;
	r->fsdev = fi->fsdev;
	r->oflags = fi->oflags;
	r->file_kind = fi->kind;
	__builtin_memcpy(r->fstype, fi->fstype, sizeof(r->fstype));
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(bio_queue, struct bio *bio)
{
	iot_u64 key = (iot_u64)bio;
	iot_u32 zero = 0, tid = (iot_u32)bpf_get_current_pid_tgid();
	struct block_device *bdev = BPF_CORE_READ(bio, bi_bdev);
	struct file_info fi = { .offset = -1, .oflags = -1, .kind = IOT_FILE_NONE };
	enum page_kind pk = PAGE_NONE;
	struct inflight *s;
	struct iot_io *r;
	iot_u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);
	iot_u32 opf = BPF_CORE_READ(bio, bi_opf);
	bool pinned, user = false, has_data;
	struct page *page = NULL;
	iot_u32 in_page = 0;

	if (!bdev)
		return 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	__builtin_memset(s, 0, sizeof(*s));
	r = &s->rec;
	r->type = IOT_REC_IO;
	r->pid = tid;
	r->start_ns = bpf_ktime_get_ns();
	r->dev = BPF_CORE_READ(bdev, bd_dev);
	r->sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	r->start_sect = BPF_CORE_READ(bdev, bd_start_sect);
	/* 6.10+: the partition number is __bd_flags' low byte (BD_PARTNO) */
	if (bpf_core_field_exists(bdev->__bd_flags))
		r->partno = BPF_CORE_READ(bdev, __bd_flags.counter) & 0xff;
	r->bytes = size;
	r->opf = opf;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_probe_read_kernel_str(r->disk, sizeof(r->disk), BPF_CORE_READ(bdev, bd_disk, disk_name));
	fill_rwbs(r->rwbs, opf);
	fill_driver(r->driver, BPF_CORE_READ(bdev, bd_disk));

	pinned = BPF_CORE_READ(bio, bi_flags) &
		 (1U << BIO_PAGE_PINNED);
	/*
	 * bio_has_data(): a size, and not an operation without pages. Not
	 * bi_vcnt: a clone (dm's) shares its parent's table with a count of 0.
	 */
	has_data = size && BPF_CORE_READ(bio, bi_io_vec) &&
		   (opf & REQ_OP_MASK) != bpf_core_enum_value(enum req_op, REQ_OP_DISCARD) &&
		   (opf & REQ_OP_MASK) != bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE) &&
		   (opf & REQ_OP_MASK) != bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES);
	if (has_data) {
		struct bio_vec *bv = BPF_CORE_READ(bio, bi_io_vec);
		iot_u32 idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
		iot_u32 done = BPF_CORE_READ(bio, bi_iter.bi_bvec_done);
		struct bio_vec v;

		if (bpf_probe_read_kernel(&v, sizeof(v), bv + idx) == 0) {
			iot_u32 o = v.bv_offset + done;

			page = (struct page *)((void *)v.bv_page +
					       (iot_u64)(o >> PAGE_SHIFT) *
						       bpf_core_type_size(struct page));
			in_page = o & ((1U << PAGE_SHIFT) - 1);
			pk = page_kind(page, in_page, &fi);
		}
	}
	if (pk != PAGE_FILE && page) {
		struct dio_key dk = { .page = (iot_u64)page, .off = in_page };
		struct file_info *known = bpf_map_lookup_elem(&dio_pages, &dk);
		struct dio_call *call;

		if (known) {
			/* a lower layer's bio of a direct I/O bio in flight */
			fi = *known;
			user = true;
		} else if ((pinned || pk == PAGE_USER) &&
			   (call = bpf_map_lookup_elem(&dio_calls, &tid))) {
			fi = call->file;
			fi.offset = call->next_bio == key ? call->next_pos : call->cursor;
			call->cursor = fi.offset + size;
			user = true;
			if (bpf_map_update_elem(&dio_pages, &dk, &fi, BPF_NOEXIST) == 0) {
				s->dio_page = dk.page;
				s->dio_off = dk.off;
			}
		} else if (pinned || pk == PAGE_USER) {
			fi.kind = IOT_FILE_UNKNOWN;
			user = true;
		}
	} else if (pinned && pk != PAGE_FILE) {
		fi.kind = IOT_FILE_UNKNOWN;
		user = true;
	}
	set_file(r, &fi);
	r->flags = ((opf & REQ_OP_MASK) ==
				    bpf_core_enum_value(enum req_op, REQ_OP_READ) ?
			    IOT_B_READ :
			    IOT_B_WRITE) |
		   (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)) ?
			    0 :
			    IOT_B_ASYNC) |
		   (user ? IOT_B_PHYS : (pk == PAGE_FILE ? IOT_B_PAGEIO : 0));

	if (bpf_map_update_elem(&inflight, &key, s, BPF_ANY) != 0) {
		count(IOT_CNT_INFLIGHT_FULL);
		if (s->dio_page) {
			struct dio_key dk = { .page = s->dio_page, .off = s->dio_off };

			bpf_map_delete_elem(&dio_pages, &dk);
		}
		return 0;
	}
	if (want_waits)
		bpf_map_update_elem(&last_io, &tid, r, BPF_ANY);
	return 0;
}

/* Sends the record of a bio whose start is kept, and forgets it */
static __always_inline void bio_done(struct bio *bio, iot_u8 status, iot_u32 left, bool count_unseen)
{
	iot_u64 key = (iot_u64)bio;
	struct inflight *s = bpf_map_lookup_elem(&inflight, &key);
	struct iot_io *r;

	if (!s) {
		if (count_unseen)
			count(IOT_CNT_NO_START);
		return;
	}
	if (s->dio_page) {
		struct dio_key dk = { .page = s->dio_page, .off = s->dio_off };

		bpf_map_delete_elem(&dio_pages, &dk);
	}
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(IOT_CNT_RINGBUF_FULL);
		bpf_map_delete_elem(&inflight, &key);
		return;
	}
	__builtin_memcpy(r, &s->rec, sizeof(*r));
	r->done_ns = bpf_ktime_get_ns();
	/* user space turns the blk_status_t into -errno */
	r->error = status;
	r->resid = status ? left : 0;
	if (r->resid > r->bytes)
		r->resid = r->bytes;
	bpf_ringbuf_submit(r, 0);
	bpf_map_delete_elem(&inflight, &key);
}

/*
 * The completion of a bio of a bio-based device (dm, md, loop's bios are
 * blk-mq's): bio_endio() fires it once the bio and its split parts are done.
 */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(bio_complete, struct request_queue *q, struct bio *bio)
{
	iot_u8 status = BPF_CORE_READ(bio, bi_status);

	bio_done(bio, status, status ? BPF_CORE_READ(bio, bi_iter.bi_size) : 0, true);
	return 0;
}

#define IOT_RQ_BIOS 64

/*
 * A blk-mq request's completion: blk-mq traces the request, not its bios
 * (block_bio_complete never fires for them). The bios that @nr_bytes
 * completes, in order, are done. A bio split to fit the device is done
 * when the request with its last part completes (the part whose address
 * is the bio's): the latency is to that part's completion. Bios of the
 * request that were never queued (split parts) are not counted as
 * unmatched.
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct bio *bio = BPF_CORE_READ(rq, bio);
	iot_u32 left = nr_bytes;
	int i;

	for (i = 0; i < IOT_RQ_BIOS && bio; i++) {
		iot_u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);

		if (size > left)
			break;
		left -= size;
		bio_done(bio, (iot_u8)error, error ? size : 0, false);
		bio = BPF_CORE_READ(bio, bi_next);
	}
	return 0;
}

/* A direct I/O call of a task: its file names the bios of user memory it submits */
static __always_inline void dio_begin(struct kiocb *iocb)
{
	iot_u32 tid = (iot_u32)bpf_get_current_pid_tgid();
	struct file *file = BPF_CORE_READ(iocb, ki_filp);
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct dio_call c = {};

	if (!inode)
		return;
	inode_info(&c.file, inode);
	c.file.oflags = BPF_CORE_READ(file, f_flags);
	c.cursor = BPF_CORE_READ(iocb, ki_pos);
	c.file.offset = c.cursor;
	describe(BPF_CORE_READ(file, f_path.dentry), c.file.fsdev, c.file.ino);
	bpf_map_update_elem(&dio_calls, &tid, &c, BPF_ANY);
}

static __always_inline void dio_end(void)
{
	iot_u32 tid = (iot_u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&dio_calls, &tid);
}

SEC("fentry/__iomap_dio_rw")
int BPF_PROG(iomap_dio_enter, struct kiocb *iocb)
{
	dio_begin(iocb);
	return 0;
}

SEC("fexit/__iomap_dio_rw")
int BPF_PROG(iomap_dio_exit, struct kiocb *iocb)
{
	dio_end();
	return 0;
}

/* iomap gives each bio's file position as it submits it: exact across holes */
SEC("fentry/iomap_dio_submit_bio")
int BPF_PROG(iomap_dio_submit, const struct iomap_iter *iter, struct iomap_dio *dio,
	     struct bio *bio, loff_t pos)
{
	iot_u32 tid = (iot_u32)bpf_get_current_pid_tgid();
	struct dio_call *call = bpf_map_lookup_elem(&dio_calls, &tid);

	if (call) {
		call->next_bio = (iot_u64)bio;
		call->next_pos = pos;
	}
	return 0;
}

static __always_inline bool blkdev_direct(struct kiocb *iocb)
{
	return BPF_CORE_READ(iocb, ki_filp, f_flags) & O_DIRECT;
}

SEC("fentry/blkdev_read_iter")
int BPF_PROG(blkdev_read_enter, struct kiocb *iocb)
{
	if (blkdev_direct(iocb))
		dio_begin(iocb);
	return 0;
}

SEC("fexit/blkdev_read_iter")
int BPF_PROG(blkdev_read_exit, struct kiocb *iocb)
{
	dio_end();
	return 0;
}

SEC("fentry/blkdev_write_iter")
int BPF_PROG(blkdev_write_enter, struct kiocb *iocb)
{
	if (blkdev_direct(iocb))
		dio_begin(iocb);
	return 0;
}

SEC("fexit/blkdev_write_iter")
int BPF_PROG(blkdev_write_exit, struct kiocb *iocb)
{
	dio_end();
	return 0;
}

/* --- Waits --------------------------------------------------------- */

static __always_inline void wait_enter(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	iot_u32 tid = (iot_u32)bpf_get_current_pid_tgid();
	struct wait_start w;

	/* Only a sleep: io_schedule*() with the task running returns at once */
	if (task->__state == 0)
		return;
	w.ts = bpf_ktime_get_ns();
	w.nvcsw = task->nvcsw;
	bpf_map_update_elem(&waits, &tid, &w, BPF_ANY);
}

static __always_inline void wait_exit(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	iot_u32 tid = (iot_u32)bpf_get_current_pid_tgid();
	struct wait_start *w = bpf_map_lookup_elem(&waits, &tid);
	struct iot_io *last, *r;

	if (!w)
		return;
	if (task->nvcsw == w->nvcsw) {
		bpf_map_delete_elem(&waits, &tid);
		return;
	}
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(IOT_CNT_RINGBUF_FULL);
		bpf_map_delete_elem(&waits, &tid);
		return;
	}
	last = bpf_map_lookup_elem(&last_io, &tid);
	if (last) {
		__builtin_memcpy(r, last, sizeof(*r));
	} else {
		__builtin_memset(r, 0, sizeof(*r));
		r->offset = -1;
		r->oflags = -1;
		r->file_kind = IOT_FILE_NONE;
	}
	r->type = IOT_REC_WAIT;
	r->pid = tid;
	r->start_ns = w->ts;
	r->done_ns = bpf_ktime_get_ns();
	r->error = 0;
	r->resid = 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_ringbuf_submit(r, 0);
	bpf_map_delete_elem(&waits, &tid);
}

SEC("fentry/io_schedule")
int BPF_PROG(io_schedule_enter)
{
	wait_enter();
	return 0;
}

SEC("fexit/io_schedule")
int BPF_PROG(io_schedule_exit)
{
	wait_exit();
	return 0;
}

SEC("fentry/io_schedule_timeout")
int BPF_PROG(io_schedule_timeout_enter)
{
	wait_enter();
	return 0;
}

SEC("fexit/io_schedule_timeout")
int BPF_PROG(io_schedule_timeout_exit)
{
	wait_exit();
	return 0;
}

/*
 * Never loaded but by the test suite (IOTALLY_BPF_TEST_VERIFIER_REFUSES):
 * a program the verifier must refuse, since a tracing program may only read
 * the kernel's memory, so that the load error path is tested on a real
 * refusal, the verifier's own log included. The "?" keeps it out of the
 * skeleton's default load.
 */
SEC("?tp_btf/block_bio_queue")
int BPF_PROG(verifier_refuses, struct bio *bio)
{
	bio->bi_iter.bi_size = 0;
	return 0;
}
