# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced by run.sh after ../lib.sh (run() sets $out), and called after its
# start_load() set $loadpid and start_writer() $ddpid: shellcheck cannot
# see that from this file.
# shellcheck disable=SC2154
#
# Sourced by run.sh: what Documentation/accounting/taskstats-io.rst says
# is charged to whom. A buffered writer (dd through the page cache of the dm-delay
# device) submits no bio of its own: the writeback is charged to the task
# that submits it (here `sync`, or the flusher), where /proc/PID/io charges
# the writer for the bytes it dirtied. Its sleeps in dirty throttling
# (balance_dirty_pages(), io_schedule_timeout()) are I/O waits: with a
# 1 MiB dirty limit, writing 8 MiB to a device that holds every I/O
# $DELAY_MS ms throttles it. And the run-queue delay after a wake-up is
# part of a wait.

start_writer
feed_writer
tasks_query dd "query the buffered writer" -p $ddpid
check_ops "buffered writer after sync: no bio of its own" $T/dd.txt write 0 0
check_eq "... where /proc/PID/io charges it the 8 MiB it dirtied" 8388608 \
	"$(proc_io $ddpid write_bytes)"
check_cmp "dirty throttling: its sleeps in balance_dirty_pages() are I/O waits" \
	-ge "$(field $T/dd.txt wait 3)" 1
stop_writer

# The run-queue delay after the wake-up is part of the wait: a reader
# pinned to CPU 0 reads null_blk, whose timer completes each read after
# 20 ms in hard interrupt context (so the hog below cannot delay the
# completion itself), while a SCHED_FIFO busy loop holds CPU 0: the woken
# reader waits for the CPU until the deferred fair server lets it run (up
# to 950 ms a second), so its waits last far longer than the device's.
# A second, ordinary busy loop on CPU 0 spends the fair server's 50 ms:
# alone, the reader used almost none of it, so once the server ran, every
# later wake-up found it running (longest wait 22-29 ms in 3 of 6 runs).
rmmod null_blk 2>/dev/null	# if another suite left it with other settings
if command -v chrt >/dev/null &&
	modprobe null_blk nr_devices=1 gb=1 queue_mode=2 irqmode=2 completion_nsec=20000000; then
	taskset -c 0 chrt -f 50 sh -c 'while :; do :; done' &
	hog=$!
	# The loop holds CPU 0 before the reader starts there: taskset and
	# chrt exec into it, and chrt sets SCHED_FIFO (policy 1, the 41st
	# field of /proc/PID/stat) before the exec. (Started at once, the
	# reader once did its 5 reads before the loop ran: 27 ms.)
	wait_for 30 eval '[ "$(sed "s/.*) //" /proc/$hog/stat | awk "{ print \$39 }")" = 1 ]' ||
		bail "the SCHED_FIFO loop did not start"
	taskset -c 0 sh -c 'while :; do :; done' &
	fair_hog=$!
	start_load /dev/nullb0 0 5 4096 0 0 0
	kill $hog $fair_hog
	wait $hog $fair_hog 2>/dev/null
	tasks_query rq "query the reader behind a SCHED_FIFO loop" -p $loadpid
	check_ops "reader behind a SCHED_FIFO loop" $T/rq.txt read 5 40
	check_cmp "run-queue delay counts: its longest wait >= 200 ms (device: 20 ms)" \
		-ge "$(field $T/rq.txt wait 7 | awk '{ printf "%d", $1 / 1000000 }')" 200
	stop_load
	rmmod null_blk
else
	fail "run-queue delay counts" "no chrt, or cannot load null_blk with timed completions"
fi
