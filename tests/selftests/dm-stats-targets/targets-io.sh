# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced by run.sh after ./targets-lib.sh, whose workload() sets $whole and
# $two: shellcheck cannot see that from this file.
# shellcheck disable=SC2154
#
# Counters on every target, against upstream's (the stock engine's) values.
# Ramdisks: ram0 data, ram1/ram2 thin metadata/data, ram3 snapshot COW,
# ram4 mirror's second leg; cache metadata and cache blocks are slices of
# ram1 and ram2 once the thin pool is gone (zeroed first).

modprobe_all() { for _m in "$@"; do modprobe "$_m" 2>/dev/null; done; }
modprobe_all dm-zero dm-delay dm-crypt xts dm-thin-pool dm-snapshot dm-mirror dm-cache \
	dm-cache-smq dm-flakey

mk t_linear "0 $SECT linear /dev/ram0 0"
conform linear t_linear merges
rm_dev t_linear

mk t_zero "0 $SECT zero"
conform zero t_zero merges
rm_dev t_zero

# dm-delay and dm-crypt account a bio when they remap it, from a worker.
mk t_delay "0 $SECT delay /dev/ram0 0 50"
conform "delay (50 ms)" t_delay
rm_dev t_delay

mk t_crypt "0 $SECT crypt aes-xts-plain64 $CRYPT_KEY 0 /dev/ram0 0"
conform "crypt (aes-xts-plain64)" t_crypt
rm_dev t_crypt

# dm-thin: 64 KiB blocks. The first pass finds every block unprovisioned (reads
# are answered with zeroes by the target itself, writes provision a block);
# the second runs on blocks provisioned before its regions were created.
mk t_pool "0 $SECT thin-pool /dev/ram1 /dev/ram2 128 0 1 skip_block_zeroing"
m t_pool create_thin 0 || bail "cannot create a thin volume"
mk t_thin "0 $SECT thin /dev/mapper/t_pool 0"
conform "thin, unprovisioned blocks" t_thin
taskset -c 0 /usr/bin/dd status=none if=/dev/zero of=/dev/mapper/t_thin bs=64k count=80 \
	oflag=direct ||
	bail "cannot provision the thin volume"
conform "thin, provisioned blocks" t_thin
rm_dev t_thin t_pool

# dm-snapshot: a non-persistent snapshot of ram0 with 8 KiB chunks, and the
# origin through which writes copy chunks out first.
mk t_snap "0 $SECT snapshot /dev/ram0 /dev/ram3 N 16"
mk t_origin "0 $SECT snapshot-origin /dev/ram0"
conform "snapshot-origin" t_origin merges
conform "snapshot" t_snap merges
rm_dev t_origin t_snap

mk t_mirror "0 $SECT mirror core 2 64 nosync 2 /dev/ram0 0 /dev/ram4 0"
conform "mirror (2 legs, core log)" t_mirror merges
rm_dev t_mirror

# dm-cache: writethrough, 32 KiB blocks, the smq policy; metadata and cache
# blocks on zeroed slices of ram1 and ram2, origin ram0.
taskset -c 0 /usr/bin/dd status=none if=/dev/zero of=/dev/ram1 bs=1M count=8 oflag=direct
mk t_cmeta "0 8192 linear /dev/ram1 0"
mk t_cfast "0 8192 linear /dev/ram2 0"
mk t_cache "0 $SECT cache /dev/mapper/t_cmeta /dev/mapper/t_cfast /dev/ram0 64 1 writethrough smq 0"
conform "cache (writethrough, smq)" t_cache
rm_dev t_cache t_cfast t_cmeta

# dm-multipath is request-based: a request is accounted when it is started.
. ../dm-multipath.sh
if mp_setup; then
	conform "multipath (request-based)" mp rq
	mp_teardown
else
	fail "multipath device over null_blk" "mp_setup failed"
fi

# Failed I/O. Upstream accounts a bio when the target maps it, and a bio the
# target kills at map time (DM_MAPIO_KILL) not at all: dm-error's every I/O,
# dm-flakey's reads with error_reads. A bio the target takes and then fails
# (DM_MAPIO_SUBMITTED, then bio_io_error(): flakey's error_writes) is
# accounted like any other.
mk t_error "0 $SECT error"
workload t_error
check_eq "error: every I/O fails" 7 $?
check_eq "error: killed bios are not counted" "0 0 0 0 0 0 0" \
	"$(counters "$(area t_error "$whole" 0)")"
check_eq "error: nor put in the histogram" "0:0" "$(area t_error "$whole" 0 | awk '{ print $15 }')"
rm_dev t_error

mk t_flakey "0 $SECT flakey /dev/ram0 0 0 3600 1 error_reads"
workload t_flakey
check_eq "flakey error_reads: the 4 reads fail" 4 $?
check_eq "flakey error_reads: only the writes are counted" "0 0 0 3 0 24 0" \
	"$(counters "$(area t_flakey "$whole" 0)")"
check_eq "flakey error_reads: per area" "0 0 0 2 0 10 0/0 0 0 2 0 14 0" \
	"$(counters "$(area t_flakey "$two" 0)")/$(counters "$(area t_flakey "$two" 1)")"
check_eq "flakey error_reads: sequential writes count as merged" "$WL_MERGED" "$(merged t_flakey)"
rm_dev t_flakey

mk t_flakey "0 $SECT flakey /dev/ram0 0 0 3600 1 error_writes"
workload t_flakey
check_eq "flakey error_writes: the 3 writes fail" 3 $?
check_eq "flakey error_writes: failed writes are counted with the reads" "$WL_WHOLE" \
	"$(counters "$(area t_flakey "$whole" 0)")"
check_eq "flakey error_writes: histogram counts the failed writes" "7:0" \
	"$(area t_flakey "$whole" 0 | awk '{ print $15 }')"
check_eq "flakey error_writes: sequential failed writes count as merged" "$WL_MERGED" \
	"$(merged t_flakey)"
rm_dev t_flakey
