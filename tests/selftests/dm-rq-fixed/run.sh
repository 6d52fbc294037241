#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The first patch of the series on its own: upstream's engine, with dm-rq.c
# passing each request's start time to dm_stats_account_io() (the fix of
# patches/dm-rq-start-time.patch), reports request times as durations. The
# workload of dm-rq-upstream, which pins the unfixed kernel's numbers: three
# 4 KiB reads through dm-multipath over null_blk, each completed after
# 100 ms, with and without precise_timestamps. Without the fix each read
# adds the jiffies value of its start (over 10^9 ms) and lands in the last
# histogram bucket, and with precise_timestamps its end subtracts a start
# in ns that was never recorded.
. ../lib.sh
. ../dm-multipath.sh

mp_first_reads
t=$mp_read_time
check_cmp "upstream engine, fixed dm-rq: read time covers 3 x 100 ms" -ge "$t" 300
check_cmp "upstream engine, fixed dm-rq: read time is a duration, under 3 s" -lt "$t" 3000
check_eq "upstream engine, fixed dm-rq: each read in the 50-1000 ms bucket" "0:3:0" "$mp_read_hist"
# precise_timestamps: times and histogram boundaries in ns, the start
# recorded by dm_stats_record_start() (bounds: half the delay, as the
# guest's clock may run ahead of its jiffies on a loaded host)
mp_check_reads "precise_timestamps: 3 reads, 24 sectors, none in flight" \
	2 precise_timestamps histogram:50000000,1000000000
t=$mp_read_time
check_cmp "upstream engine, fixed dm-rq, ns: read time covers 3 x 50 ms" -ge "$t" 150000000
check_cmp "upstream engine, fixed dm-rq, ns: read time is a duration, under 2 s" -lt "$t" 2000000000
check_eq "upstream engine, fixed dm-rq, ns: each read in the 50-1000 ms bucket" "0:3:0" "$mp_read_hist"
mp_teardown
tap_finish
