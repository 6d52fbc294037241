/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records snoop.bpf.c sends to iotally (src/snoop/bpf_io_reader.cpp)
 * through its ring buffer: one per completed block I/O, one per I/O wait,
 * and one the first time a file is named. Fixed-width types only: this
 * header is read by the BPF program and by C++.
 */
#ifndef IOTALLY_IOTRACE_RECORD_H
#define IOTALLY_IOTRACE_RECORD_H

#ifdef __cplusplus
#include <cstdint>
typedef std::uint8_t iot_u8;
typedef std::uint32_t iot_u32;
typedef std::int32_t iot_s32;
typedef std::uint64_t iot_u64;
typedef std::int64_t iot_s64;
#else
typedef __u8 iot_u8;
typedef __u32 iot_u32;
typedef __s32 iot_s32;
typedef __u64 iot_u64;
typedef __s64 iot_s64;
#endif

enum iot_record_type {
	IOT_REC_IO = 1,		/* struct iot_io: a bio's start and completion */
	IOT_REC_WAIT = 2,	/* struct iot_io: a sleep in io_schedule*() */
	IOT_REC_PATH = 3,	/* struct iot_path: a file's path in its file system */
};

/* What the file of an I/O is (the native events' path markers) */
enum iot_file_kind {
	IOT_FILE_NONE = 0,	/* no file's data: metadata, kernel buffers ("<none>") */
	IOT_FILE_UNKNOWN = 1,	/* user memory no direct I/O call names ("<unknown>") */
	IOT_FILE_FILE = 2,	/* a regular file: fsdev, ino, offset, fstype */
};

/* DTrace b_flags, as include/trace/events/io.h gives them */
#define IOT_B_PAGEIO 0x010
#define IOT_B_PHYS 0x020
#define IOT_B_READ 0x040
#define IOT_B_WRITE 0x100
#define IOT_B_ASYNC 0x400

#define IOT_COMM_LEN 16
#define IOT_DISK_LEN 32
#define IOT_FSTYPE_LEN 16
#define IOT_RWBS_LEN 8

struct iot_io {
	iot_u32 type;			/* IOT_REC_IO or IOT_REC_WAIT */
	iot_u32 pid;			/* the submitting (waiting) task's thread id */
	iot_u64 start_ns;		/* bpf_ktime_get_ns() at the start */
	iot_u64 done_ns;		/* and at the completion (the wakeup) */
	iot_u64 sector;			/* from the start of the whole disk */
	iot_u64 start_sect;		/* of the partition: lsector = sector - start_sect */
	iot_u64 ino;
	iot_s64 offset;			/* in the file, -1 unknown */
	iot_u32 dev;			/* kernel dev_t: major << 20 | minor */
	iot_u32 bytes;
	iot_u32 opf;			/* REQ_OP and REQ_ flags */
	iot_u32 flags;			/* IOT_B_* */
	iot_s32 error;			/* -errno of the completion, 0 */
	iot_u32 resid;			/* bytes not transferred when it failed */
	iot_u32 fsdev;
	iot_s32 oflags;			/* of the direct I/O call's file, -1 */
	iot_u32 file_kind;		/* enum iot_file_kind */
	iot_u32 partno;
	char comm[IOT_COMM_LEN];
	char disk[IOT_DISK_LEN];	/* the gendisk's name ("dm-0", "nullb0") */
	char fstype[IOT_FSTYPE_LEN];
	char rwbs[IOT_RWBS_LEN];
	char driver[IOT_DISK_LEN];	/* the parent device's driver, else the module */
};

#define IOT_PATH_MAX_DEPTH 32
#define IOT_PATH_BUF 2048
#define IOT_NAME_MAX 256

/*
 * A file's path in its file system, leaf first: names[] holds `depth`
 * NUL-terminated components, the file's own name first, up to (not
 * including) its file system's root. `complete` is 0 when the walk
 * stopped before the root (deeper than IOT_PATH_MAX_DEPTH or longer than
 * IOT_PATH_BUF).
 */
struct iot_path {
	iot_u32 type;			/* IOT_REC_PATH */
	iot_u32 fsdev;
	iot_u64 ino;
	iot_u32 depth;
	iot_u32 complete;
	iot_u32 len;			/* bytes used in names[] */
	iot_u32 pad;
	char names[IOT_PATH_BUF + IOT_NAME_MAX];
};

/* The per-CPU counters of what the program could not record */
enum iot_counter {
	IOT_CNT_INFLIGHT_FULL = 0,	/* a start not kept: the in-flight map was full */
	IOT_CNT_RINGBUF_FULL = 1,	/* a record not sent: the ring buffer was full */
	IOT_CNT_NO_START = 2,		/* a completion whose start was not seen */
	IOT_CNT_PATH_LOST = 3,		/* a path not sent (ring buffer full): named later */
	IOT_CNT_MAX = 4,
};

#endif
