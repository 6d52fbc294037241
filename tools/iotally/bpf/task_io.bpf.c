// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * task_io.bpf.c - per-task block I/O for `iotally tasks` and
 * `serve --cgroups` on a kernel without the taskstats I/O attribute.
 *
 * The counters mean what kernel/task_io_stats.c counts: every bio through
 * submit_bio() charged to the task that submits it, from task context, by
 * kind (read, write, discard, flush: tio_classify_bio()); every real sleep
 * in io_schedule() or io_schedule_timeout() timed and charged to the
 * sleeper (count, total, maximum, log2 histogram). Counting starts when
 * the programs are attached.
 *
 * Maps, all bounded:
 *   threads  tid -> struct tio_task: each thread's own counters;
 *   procs    tgid -> struct tio_task: the threads of a live process that
 *            have exited, folded together (what signal_struct keeps);
 *   cgroups  cgroup id -> struct tio_counters: every bio and wait charged
 *            to the cgroup the task was in at that moment;
 *   exits    ring buffer of struct tio_exit: a record per exiting thread
 *            (exit_records >= 2) and per exiting process (>= 1);
 *   drops    per-CPU counts of what a full map or ring buffer cost.
 * Documentation/iotally-bpf.rst, "tasks and cgroups".
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "task_io_record.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load: 0 no exit records, 1 processes, 2 threads too. */
const volatile __u32 exit_records = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* the loader may change it */
	__type(key, __u32);
	__type(value, struct tio_task);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tio_task);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct tio_counters);
} cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} exits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TIO_NR_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

extern struct pcpu_hot pcpu_hot __ksym;

#define TIO_TASK_RUNNING 0x0000
#define TIO_TASK_INTERRUPTIBLE 0x0001
#define TIO_TASK_WAKEKILL 0x0100
#define TIO_TIF_SIGPENDING 2
#define TIO_TIF_NOTIFY_SIGNAL 17
#define TIO_SIGKILL 9
#define TIO_NMI_MASK 0x00f00000
#define TIO_HARDIRQ_MASK 0x000f0000
#define TIO_SOFTIRQ_OFFSET 0x00000100

static void count_drop(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &what);

	if (n)
		*n += 1;
}

/* in_task(): neither NMI, hard interrupt nor softirq. */
static bool in_task_context(void)
{
	struct pcpu_hot *hot = bpf_this_cpu_ptr(&pcpu_hot);

	return !(hot->preempt_count & (TIO_NMI_MASK | TIO_HARDIRQ_MASK | TIO_SOFTIRQ_OFFSET));
}

/* The current thread's entry, created zeroed when it has none. */
static struct tio_task *current_entry(struct task_struct *task)
{
	__u32 tid = task->pid;
	struct tio_task *t = bpf_map_lookup_elem(&threads, &tid);

	if (t)
		return t;
	struct tio_task zero = {};

	zero.tgid = task->tgid;
	bpf_get_current_comm(zero.comm, sizeof(zero.comm));
	bpf_map_update_elem(&threads, &tid, &zero, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (!t)
		count_drop(TIO_DROP_TASK_FULL);
	return t;
}

static struct tio_counters *cgroup_entry(__u64 id)
{
	struct tio_counters *c = bpf_map_lookup_elem(&cgroups, &id);

	if (c)
		return c;
	struct tio_counters zero = {};

	bpf_map_update_elem(&cgroups, &id, &zero, BPF_NOEXIST);
	c = bpf_map_lookup_elem(&cgroups, &id);
	if (!c)
		count_drop(TIO_DROP_CGROUP_FULL);
	return c;
}

/* Adds the bio's class to counters written by their owner only. */
static void add_bio(struct tio_counters *c, struct tio_bio_class k)
{
	if (k.flush)
		c->ops[TIO_FLUSH] += 1;
	if (k.op >= 0 && k.op < TIO_FLUSH) {
		c->ops[k.op] += 1;
		c->sectors[k.op] += k.sectors;
	}
}

/* The same to counters that many CPUs update (a cgroup's). */
static void add_bio_atomic(struct tio_counters *c, struct tio_bio_class k)
{
	if (k.flush)
		__sync_fetch_and_add(&c->ops[TIO_FLUSH], 1);
	if (k.op >= 0 && k.op < TIO_FLUSH) {
		__sync_fetch_and_add(&c->ops[k.op], 1);
		__sync_fetch_and_add(&c->sectors[k.op], k.sectors);
	}
}

/* signal_pending_state(): a signal that keeps the task from sleeping. */
static bool signal_pending_state(unsigned int state, struct task_struct *task)
{
	if (!(state & (TIO_TASK_INTERRUPTIBLE | TIO_TASK_WAKEKILL)))
		return false;
	unsigned long flags = task->thread_info.flags;

	if (!(flags & ((1ul << TIO_TIF_SIGPENDING) | (1ul << TIO_TIF_NOTIFY_SIGNAL))))
		return false;
	if (state & TIO_TASK_INTERRUPTIBLE)
		return true;
	return task->pending.signal.sig[0] & (1ul << (TIO_SIGKILL - 1));
}

static void wait_start(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	unsigned int state = task->__state;

	/* Already woken, or a signal keeps it awake: not a sleep. */
	if (state == TIO_TASK_RUNNING || signal_pending_state(state, task))
		return;
	struct tio_task *t = current_entry(task);

	if (!t)
		return;
	t->wait_nvcsw = task->nvcsw;
	t->wait_start_ns = bpf_ktime_get_ns();
}

static void wait_done(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = task->pid;
	struct tio_task *t = bpf_map_lookup_elem(&threads, &tid);

	if (!t || !t->wait_start_ns)
		return;
	__u64 start = t->wait_start_ns;

	t->wait_start_ns = 0;
	/* Woken before it went to sleep: no wait to count. */
	if (task->nvcsw == t->wait_nvcsw)
		return;
	__u64 ns = now > start ? now - start : 0;
	__u32 b = tio_bucket(ns);

	if (b >= TIO_HIST_BUCKETS)
		return;
	__u64 cgid = bpf_get_current_cgroup_id();

	t->c.wait_count += 1;
	t->c.wait_total_ns += ns;
	if (ns > t->c.wait_max_ns)
		t->c.wait_max_ns = ns;
	t->c.wait_hist[b] += 1;
	t->cgroup_id = cgid;
	struct tio_counters *cg = cgroup_entry(cgid);

	if (!cg)
		return;
	__sync_fetch_and_add(&cg->wait_count, 1);
	__sync_fetch_and_add(&cg->wait_total_ns, ns);
	__sync_fetch_and_add(&cg->wait_hist[b], 1);
	/* The maximum: a lost race between two CPUs keeps the smaller one. */
	if (ns > cg->wait_max_ns)
		cg->wait_max_ns = ns;
}

SEC("fentry/io_schedule")
int BPF_PROG(tio_io_schedule)
{
	wait_start();
	return 0;
}

SEC("fexit/io_schedule")
int BPF_PROG(tio_io_schedule_exit)
{
	wait_done();
	return 0;
}

SEC("fentry/io_schedule_timeout")
int BPF_PROG(tio_io_schedule_timeout, long timeout)
{
	wait_start();
	return 0;
}

SEC("fexit/io_schedule_timeout")
int BPF_PROG(tio_io_schedule_timeout_exit, long timeout, long ret)
{
	wait_done();
	return 0;
}

static void fold(struct tio_counters *dst, const struct tio_counters *src)
{
	for (int i = 0; i < TIO_NR_OPS; i++) {
		__sync_fetch_and_add(&dst->ops[i], src->ops[i]);
		__sync_fetch_and_add(&dst->sectors[i], src->sectors[i]);
	}
	__sync_fetch_and_add(&dst->wait_count, src->wait_count);
	__sync_fetch_and_add(&dst->wait_total_ns, src->wait_total_ns);
	if (src->wait_max_ns > dst->wait_max_ns)
		dst->wait_max_ns = src->wait_max_ns;
	for (int i = 0; i < TIO_HIST_BUCKETS; i++)
		__sync_fetch_and_add(&dst->wait_hist[i], src->wait_hist[i]);
}

static void plain_fold(struct tio_counters *dst, const struct tio_counters *src)
{
	for (int i = 0; i < TIO_NR_OPS; i++) {
		dst->ops[i] += src->ops[i];
		dst->sectors[i] += src->sectors[i];
	}
	dst->wait_count += src->wait_count;
	dst->wait_total_ns += src->wait_total_ns;
	if (src->wait_max_ns > dst->wait_max_ns)
		dst->wait_max_ns = src->wait_max_ns;
	for (int i = 0; i < TIO_HIST_BUCKETS; i++)
		dst->wait_hist[i] += src->wait_hist[i];
}

/*
 * An exit record of @kind on the ring buffer, zeroed but for who exits
 * (current), or NULL with the drop counted. The caller adds the counters
 * and submits it.
 */
static __always_inline struct tio_exit *exit_record(__u32 kind, __u32 tid, __u32 tgid,
						    __u64 cgid)
{
	struct tio_exit *r = bpf_ringbuf_reserve(&exits, sizeof(*r), 0);

	if (!r) {
		count_drop(TIO_DROP_RINGBUF);
		return NULL;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->tid = tid;
	r->tgid = tgid;
	r->cgroup_id = cgid;
	r->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	return r;
}

/*
 * A thread exits (do_exit(), current; signal->live is already decremented,
 * so 0 means it is the process's last thread). Its counters go into its
 * process's entry; the last one sends the process's sum and removes it.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tio_exit, struct task_struct *task)
{
	__u32 tid = task->pid, tgid = task->tgid;
	struct tio_task *t = bpf_map_lookup_elem(&threads, &tid);
	bool group_dead = task->signal->live.counter == 0;
	__u64 cgid = bpf_get_current_cgroup_id();
	struct tio_exit *r;

	if (exit_records >= 2) {
		r = exit_record(TIO_EXIT_THREAD, tid, tgid, cgid);
		if (r) {
			if (t)
				r->c = t->c;
			bpf_ringbuf_submit(r, 0);
		}
	}
	struct tio_task *p = bpf_map_lookup_elem(&procs, &tgid);

	if (!group_dead) {
		if (!p) {
			struct tio_task zero = {};

			zero.tgid = tgid;
			bpf_map_update_elem(&procs, &tgid, &zero, BPF_NOEXIST);
			p = bpf_map_lookup_elem(&procs, &tgid);
		}
		if (p) {
			if (t)
				fold(&p->c, &t->c);
			__sync_fetch_and_add(&p->threads, 1);
		} else if (t) {
			count_drop(TIO_DROP_PROC_FULL);
		}
		if (t)
			bpf_map_delete_elem(&threads, &tid);
		return 0;
	}
	count_drop(TIO_EXITS);
	if (exit_records >= 1) {
		r = exit_record(TIO_EXIT_PROCESS, tid, tgid, cgid);
		if (r) {
			if (p) {
				r->c = p->c;
				r->threads = p->threads;
			}
			if (t)
				plain_fold(&r->c, &t->c);
			r->threads += 1;
			bpf_ringbuf_submit(r, 0);
		}
	}
	if (t)
		bpf_map_delete_elem(&threads, &tid);
	if (p)
		bpf_map_delete_elem(&procs, &tgid);
	return 0;
}

/*
 * A task is released. The entry of a thread that called exec() from
 * another thread than the leader stays under its old tid, which
 * de_thread() gives the old leader it releases: it goes into its
 * process's entry. An entry made after the exit above (I/O while closing
 * files) has had its cgroup charged, and is removed.
 */
SEC("fentry/release_task")
int BPF_PROG(tio_release_task, struct task_struct *task)
{
	__u32 tid = task->pid, tgid = task->tgid;
	struct tio_task *t = bpf_map_lookup_elem(&threads, &tid);

	if (!t)
		return 0;
	if (task->signal->live.counter > 0) {
		struct tio_task *p = bpf_map_lookup_elem(&procs, &tgid);

		if (!p) {
			struct tio_task zero = {};

			zero.tgid = tgid;
			bpf_map_update_elem(&procs, &tgid, &zero, BPF_NOEXIST);
			p = bpf_map_lookup_elem(&procs, &tgid);
		}
		if (p)
			fold(&p->c, &t->c);
		else
			count_drop(TIO_DROP_PROC_FULL);
	} else {
		count_drop(TIO_LATE_EXIT);
	}
	bpf_map_delete_elem(&threads, &tid);
	return 0;
}

/*
 * Last in the file, so attached last (libbpf attaches in this order): a bio
 * is counted only once the waits and exits it leads to are watched.
 */
SEC("fentry/submit_bio")
int BPF_PROG(tio_submit_bio, struct bio *bio)
{
	/* A bio submitted from interrupt context belongs to no task. */
	if (!in_task_context())
		return 0;
	__u32 preflush = 1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH);
	struct tio_bio_class k = tio_classify_bio(bio->bi_opf, bio->bi_iter.bi_size, preflush);

	if (k.op < 0 && !k.flush)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	struct tio_task *t = current_entry(task);
	__u64 cgid = bpf_get_current_cgroup_id();

	if (t) {
		add_bio(&t->c, k);
		t->cgroup_id = cgid;
	}
	struct tio_counters *cg = cgroup_entry(cgid);

	if (cg)
		add_bio_atomic(cg, k);
	return 0;
}
