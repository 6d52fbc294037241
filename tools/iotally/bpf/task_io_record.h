/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records task_io.bpf.c shares with user space (src/taskstats/
 * bpf_task_io.cpp): the counters of one thread, one process or one cgroup,
 * with the meaning of struct taskstats_io (kernel/task_io_stats.c), and
 * the exit records of its ring buffer. Plain C, fixed-size types only: the
 * BPF object and the C++ loader both include it.
 */
#ifndef IOTALLY_TASK_IO_RECORD_H
#define IOTALLY_TASK_IO_RECORD_H

#define TIO_READ 0
#define TIO_WRITE 1
#define TIO_DISCARD 2
#define TIO_FLUSH 3
#define TIO_NR_OPS 4
#define TIO_HIST_SHIFT 10
#define TIO_HIST_BUCKETS 24
#define TIO_COMM_LEN 16

/* What one thread, process or cgroup did since the program was attached. */
struct tio_counters {
	__u64 ops[TIO_NR_OPS];
	__u64 sectors[TIO_NR_OPS];
	__u64 wait_count;
	__u64 wait_total_ns;
	__u64 wait_max_ns;
	__u64 wait_hist[TIO_HIST_BUCKETS];
};

/*
 * A value of the per-thread map (keyed by tid) and of the per-process map
 * of exited threads (keyed by tgid).
 */
struct tio_task {
	struct tio_counters c;
	__u64 cgroup_id;     /* at the last bio, wait or exit */
	__u64 wait_start_ns; /* of the sleep in progress, 0 when none */
	__u64 wait_nvcsw;    /* nvcsw when it started */
	__u32 tgid;
	__u32 threads; /* per-process map: exited threads folded in */
	char comm[TIO_COMM_LEN];
};

#define TIO_EXIT_THREAD 1  /* one thread exited (its own counters) */
#define TIO_EXIT_PROCESS 2 /* its last thread exited: the process's sum */

/* A record of the ring buffer "exits". */
struct tio_exit {
	struct tio_counters c;
	__u64 cgroup_id;
	__u32 kind; /* TIO_EXIT_* */
	__u32 tid;
	__u32 tgid;
	__u32 cpu;     /* where the exit ran (tasks -m listens per CPU) */
	__u32 threads; /* TIO_EXIT_PROCESS: threads folded into it */
	__u32 pad;
	char comm[TIO_COMM_LEN];
};

/* Indexes of the per-CPU array "drops": what could not be counted. */
#define TIO_DROP_TASK_FULL 0   /* the per-thread map was full: a bio or wait lost */
#define TIO_DROP_PROC_FULL 1   /* the per-process map was full: a thread's sum lost */
#define TIO_DROP_CGROUP_FULL 2 /* the per-cgroup map was full: a bio or wait lost */
#define TIO_DROP_RINGBUF 3     /* the ring buffer was full: an exit record lost */
#define TIO_LATE_EXIT 4        /* a thread folded after its process's record */
#define TIO_EXITS 5            /* processes whose last thread exited */
#define TIO_NR_DROPS 6

/*
 * The request operations of enum req_op (include/linux/blk_types.h), part
 * of the kernel's ABI with its block drivers since 4.10, and
 * REQ_OP_MASK's width.
 */
#define TIO_REQ_OP_MASK 0xffu
#define TIO_REQ_OP_READ 0u
#define TIO_REQ_OP_WRITE 1u
#define TIO_REQ_OP_FLUSH 2u
#define TIO_REQ_OP_DISCARD 3u
#define TIO_REQ_OP_SECURE_ERASE 5u
#define TIO_REQ_OP_ZONE_APPEND 7u
#define TIO_REQ_OP_WRITE_ZEROES 9u

/* What one bio adds: an operation (or none, -1) and a flush. */
struct tio_bio_class {
	int op;      /* TIO_READ ... TIO_DISCARD, or -1 */
	int flush;   /* 1: it counts one flush (no sectors) */
	__u32 sectors;
};

/*
 * task_io_stats_count_bio()'s classification: REQ_PREFLUSH counts one
 * flush; a write with data counts as a write too (an empty write is only
 * the flush); write-zeroes and zone-append are writes, secure erase a
 * discard; a bare REQ_OP_FLUSH one flush; anything else (zone management,
 * driver-private) nothing. `preflush` is REQ_PREFLUSH of the running
 * kernel (CO-RE).
 */
static inline struct tio_bio_class tio_classify_bio(__u32 opf, __u32 bytes, __u32 preflush)
{
	struct tio_bio_class c = {-1, 0, bytes >> 9};
	__u32 op = opf & TIO_REQ_OP_MASK;

	if (opf & preflush)
		c.flush = 1;
	switch (op) {
	case TIO_REQ_OP_READ:
		c.op = TIO_READ;
		break;
	case TIO_REQ_OP_WRITE:
		if (c.sectors)
			c.op = TIO_WRITE;
		break;
	case TIO_REQ_OP_WRITE_ZEROES:
	case TIO_REQ_OP_ZONE_APPEND:
		c.op = TIO_WRITE;
		break;
	case TIO_REQ_OP_DISCARD:
	case TIO_REQ_OP_SECURE_ERASE:
		c.op = TIO_DISCARD;
		break;
	case TIO_REQ_OP_FLUSH:
		c.flush = 1;
		break;
	default:
		break;
	}
	return c;
}

/*
 * task_io_stats_bucket(): 0 below 2^TIO_HIST_SHIFT ns, b for
 * [2^(b + SHIFT - 1), 2^(b + SHIFT)) ns, the last bucket for longer.
 */
static inline __u32 tio_bucket(__u64 ns)
{
	__u32 log = 0;

	if (ns < (1ull << TIO_HIST_SHIFT))
		return 0;
	if (ns >> 32) { ns >>= 32; log += 32; }
	if (ns >> 16) { ns >>= 16; log += 16; }
	if (ns >> 8) { ns >>= 8; log += 8; }
	if (ns >> 4) { ns >>= 4; log += 4; }
	if (ns >> 2) { ns >>= 2; log += 2; }
	if (ns >> 1) log += 1;
	log = log - TIO_HIST_SHIFT + 1;
	return log < TIO_HIST_BUCKETS - 1 ? log : TIO_HIST_BUCKETS - 1;
}

#endif
