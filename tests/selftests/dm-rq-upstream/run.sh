#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What the stock 6.12 engine reports for requests: the finding behind the
# request-based timing check of the dm-stats-engine suite, pinned down on
# the same workload (three 4 KiB reads through dm-multipath over null_blk,
# each completed after 100 ms).
#
# dm-rq.c stores "jiffies - start" in tio->duration_jiffies and passes it as
# dm_stats_account_io()'s start_time; the stock engine subtracts it from
# jiffies again, so each request adds the current jiffies value (about 2^32
# on 64-bit, which starts counting 5 minutes below it), not its duration,
# to the read time and puts it in the histogram's last bucket. The mail
# series fixes dm-rq.c in its first patch (suite dm-rq-fixed; see
# Documentation/admin-guide/device-mapper/statistics-engine.rst). Should
# a later stock kernel fix dm-rq.c, these checks fail and say so.
. ../lib.sh
. ../dm-multipath.sh

mp_first_reads
t=$mp_read_time
# 3 x 100 ms would be 300; 3 x jiffies_to_msecs(~2^32) is over 10^10.
check_cmp "stock engine: request read time is jiffies, not 3 x 100 ms (ms: $t)" -gt "$t" 1000000000
check_eq "stock engine: each request lands in the >1000 ms bucket" "0:0:3" "$mp_read_hist"
mp_teardown
tap_finish
