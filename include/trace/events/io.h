/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The io trace system: DTrace's io provider (start, done, wait-start,
 * wait-done) with its bufinfo_t, devinfo_t and fileinfo_t as fields.
 * fileinfo_t's fi_name and fi_dirname are not carried: they are the last
 * component of path (of fspath when path is not known) and the rest of
 * it, and three strings of at most IO_TRACE_PATH_MAX bytes keep every
 * event within a ring-buffer page (block/io-trace.c checks it at build).
 * The hooks are in block/io-trace.c; Documentation/trace/io-provider.rst
 * maps every field to its member in the provider's structures.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM io

#if !defined(_TRACE_IO_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IO_H

#include <linux/io_trace.h>
#include <linux/kdev_t.h>
#include <linux/tracepoint.h>

/*
 * io_start, io_done, io_wait_start and io_wait_done are DTrace's
 * io:::start, io:::done, io:::wait-start and io:::wait-done.  The C
 * symbols, tracefs, perf, BPF and trace_event= all use these names.
 */
DECLARE_EVENT_CLASS(io_class,
		    TP_PROTO(const struct io_trace_info *info),
		    TP_ARGS(info),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(u64, sector)
				     __field(u64, lsector)
				     __field(u32, bytes)
				     __field(u32, flags)
				     __field(u32, opf)
				     __array(char, rwbs, IO_TRACE_RWBS_LEN)
				     __field(const void *, end_io)
				     __field(int, error)
				     __field(u32, resid)
				     __array(char, disk, 32)
				     __array(char, driver, 16)
				     __field(dev_t, fsdev)
				     __field(u64, ino)
				     __field(s64, offset)
				     __array(char, fstype, 16)
				     __field(int, oflags)
				     __string(path, info->path ?: "")
				     __string(mount, info->mount ?: "")
				     __string(fspath, info->fspath ?: "")),
		    TP_fast_assign(__entry->dev = info->dev;
				   __entry->sector = info->sector;
				   __entry->lsector = info->lsector;
				   __entry->bytes = info->bytes;
				   __entry->flags = info->bflags;
				   __entry->opf = (__force u32)info->opf;
				   io_trace_rwbs(__entry->rwbs, info->opf);
				   __entry->end_io = info->end_io;
				   __entry->error = info->error;
				   __entry->resid = info->resid;
				   io_trace_fill_dev(__entry->disk, sizeof(__entry->disk),
						     __entry->driver, sizeof(__entry->driver),
						     info);
				   __entry->fsdev = info->fsdev;
				   __entry->ino = info->ino;
				   __entry->offset = info->offset;
				   strscpy_pad(__entry->fstype,
					       info->fstype ? info->fstype : "<none>",
					       sizeof(__entry->fstype));
				   __entry->oflags = info->oflags;
				   __assign_str(path);
				   __assign_str(mount);
				   __assign_str(fspath);),
		    TP_printk("%d,%d %s %llu + %u (%llu) flags=0x%x opf=0x%x disk=%s driver=%s end_io=%ps error=%d resid=%u fs=%d,%d fstype=%s ino=%llu off=%lld oflags=0x%x mount=%s fspath=%s path=%s",
			      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->rwbs,
			      __entry->sector, __entry->bytes, __entry->lsector,
			      __entry->flags, __entry->opf,
			      __entry->disk, __entry->driver, __entry->end_io,
			      __entry->error, __entry->resid,
			      MAJOR(__entry->fsdev), MINOR(__entry->fsdev),
			      __entry->fstype, __entry->ino, __entry->offset,
			      __entry->oflags, __get_str(mount), __get_str(fspath),
			      __get_str(path)));

/*
 * While either is enabled, block/io-trace.c keeps the bios in flight in a
 * table, which io_done reports from: made by the first one enabled,
 * freed when the last one is disabled.  io_start and io_wait_start build
 * names in per-CPU buffers, which exist while either of them is enabled.
 */
DEFINE_EVENT_FN(io_class, io_start, TP_PROTO(const struct io_trace_info *info),
		TP_ARGS(info), io_trace_start_get, io_trace_start_put);

DEFINE_EVENT_FN(io_class, io_done, TP_PROTO(const struct io_trace_info *info),
		TP_ARGS(info), io_trace_done_get, io_trace_done_put);

DEFINE_EVENT_FN(io_class, io_wait_start,
		TP_PROTO(const struct io_trace_info *info),
		TP_ARGS(info), io_trace_wait_start_get, io_trace_wait_start_put);

DEFINE_EVENT(io_class, io_wait_done, TP_PROTO(const struct io_trace_info *info),
	     TP_ARGS(info));

#endif /* _TRACE_IO_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
