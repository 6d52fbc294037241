#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-task block I/O in taskstats (Documentation/accounting/taskstats-io.rst).
#
# ioload (this directory) issues a known number of direct reads and writes of
# known sizes, and an fsync, on a dm-delay device over brd whose every I/O
# is held $HOLD_MIN_MS ms or more, so every I/O is one wait of known minimum
# length. `iotally tasks` answers per pid, per tgid (threads that exited
# included) and in exit messages; counts and sectors are asserted exactly,
# wait times as lower bounds and by histogram bucket. Upstream getdelays,
# built unmodified, must still work.
. ../lib.sh

DELAY_MS=20
# dm-delay releases an I/O once jiffies reach its arrival's jiffies plus
# msecs_to_jiffies($DELAY_MS): the hold is $DELAY_MS ms less up to one
# jiffy (16 ms at HZ=250, 10 ms at HZ=100). The submitter's wait
# begins a little after the I/O arrived. So waits are bounded below by
# half the delay, and by histogram bucket at half that again: a 5 ms delay
# (2 jiffies, held 4 to 8 ms) once put 2 of 16 waits under the bucket.
HOLD_MIN_MS=$((DELAY_MS / 2))
SECTORS=131072          # 64 MiB
DEV=/dev/mapper/tsdelay
# [2^22, 2^23) ns, from 4.2 ms, is bucket 13.
MIN_BUCKET=13
T=/tmp/taskstats
mkdir -p $T

modprobe brd rd_nr=1 rd_size=$((SECTORS / 2)) max_part=0 || bail "modprobe brd"
dmsetup create --noudevsync tsdelay --table "0 $SECTORS delay /dev/ram0 0 $DELAY_MS" ||
	bail "cannot create the dm-delay device"
[ -b $DEV ] || bail "$DEV is missing"
echo 1 >/proc/sys/kernel/task_delayacct || bail "cannot enable delay accounting"
# Per-task I/O accounting is off by default, as delay accounting is.
S=/proc/sys/kernel/task_io_stats
check_eq "switch: accounting off by default (kernel.task_io_stats)" 0 "$(cat $S 2>&1)"
echo 1 >$S || bail "cannot enable per-task I/O accounting"

# field FILE NAME N: the Nth word of the line of `iotally tasks -p/-t`
# whose first word is NAME.
field() { awk -v k="$2" -v n="$3" '$1 == k { print $n }' "$1"; }

# start_load ARGS...: ioload in the background, pinned to CPU 0, its stdin a
# FIFO we hold open; $loadpid once it has done its I/O.
start_load() {
	rm -f $T/ctl $T/load.out
	mkfifo $T/ctl
	taskset -c 0 ./ioload "$@" <$T/ctl >$T/load.out &
	exec 5>$T/ctl
	wait_for 30 grep -q '^ready' $T/load.out || bail "ioload $* did not get ready"
	loadpid=$(awk '{ print $2 }' $T/load.out)
}

stop_load() {
	exec 5>&-
	wait "$loadpid" 2>/dev/null
}

# proc_io PID KEY: a line of /proc/PID/io
proc_io() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/io"; }

# start_writer: a buffered writer, $ddpid, pinned to CPU 0: dd to $DEV
# through the page cache, under a 1 MiB dirty limit, its input a FIFO we
# hold open as fd 7. 9 blocks asked, 8 given (feed_writer): dd stays
# alive, blocked on its input, to be queried; seek=32 MiB keeps it clear
# of what the other sections read.
start_writer() {
	ratio=$(cat /proc/sys/vm/dirty_ratio)
	bg_ratio=$(cat /proc/sys/vm/dirty_background_ratio)
	echo 524288 >/proc/sys/vm/dirty_background_bytes
	echo 1048576 >/proc/sys/vm/dirty_bytes
	rm -f $T/wfifo
	mkfifo $T/wfifo
	taskset -c 0 /usr/bin/dd if=$T/wfifo of=$DEV bs=1M seek=32 count=9 \
		iflag=fullblock status=none &
	ddpid=$!
	exec 7>$T/wfifo
}

# feed_writer: 8 MiB for it to write, then sync.
feed_writer() {
	head -c 8388608 /dev/zero >&7
	wait_for 60 eval '[ "$(proc_io $ddpid wchar)" = 8388608 ]' || bail "dd did not write 8 MiB"
	sync
}

stop_writer() {
	exec 7>&-
	wait $ddpid
	echo "$ratio" >/proc/sys/vm/dirty_ratio
	echo "$bg_ratio" >/proc/sys/vm/dirty_background_ratio
}

# start_listener NAME ARGS...: `iotally tasks -m` in the background.
start_listener() {
	_name=$1
	shift
	iotally tasks "$@" >$T/$_name.out 2>$T/$_name.err &
	listener=$!
	# listening, or no longer running
	if ! wait_for 30 eval "grep -q '^listening' $T/$_name.err || ! kill -0 $listener" ||
		! grep -q '^listening' $T/$_name.err; then
		cat $T/$_name.err
		bail "listener $* did not start"
	fi
}

stop_listener() {
	sleep 1
	kill -TERM $listener
	wait $listener
}

# near N COUNT: whether COUNT waits are what N delayed I/Os make. Each I/O
# normally makes its submitter sleep once; under a loaded TCG host a
# spurious wake-up splits a sleep in two, and a task preempted past the
# delay between submitting and sleeping does not sleep at all. Allow a
# quarter of the I/Os to be off either way: double counting (2N) or losing
# waits (0) still fails.
near() { [ "$2" -ge $(($1 - $1 / 4)) ] 2>/dev/null && [ "$2" -le $(($1 + $1 / 4)) ]; }

# check_waits NAME FILE N: N I/Os each held $HOLD_MIN_MS ms or more: their
# waits counted as near() says, the histogram holding every one of them,
# three quarters or more in bucket $MIN_BUCKET or above, total and maximum
# bounded below by the hold and above by a generous 2 s each. Compared in
# microseconds. Sets $wait_count and $wait_total (ns) for later checks.
check_waits() {
	wait_count=$(field "$2" wait 3)
	wait_total=$(field "$2" wait 5)
	_total=$(echo "${wait_total:-0}" | awk '{ printf "%d", $1 / 1000 }')
	_max=$(field "$2" wait 7 | awk '{ printf "%d", $1 / 1000 }')
	_hist=$(field "$2" wait_hist 2 | tr ',' '\n')
	check_ok "$1: wait count near $3" near "$3" "${wait_count:-none}"
	check_eq "$1: histogram holds every wait" "${wait_count:-0}" \
		"$(echo "$_hist" | awk -F: '{ s += $2 } END { print s + 0 }')"
	check_cmp "$1: wait total >= $3 x 3/4 x ${HOLD_MIN_MS} ms" -ge "$_total" \
		$(($3 * 3 / 4 * HOLD_MIN_MS * 1000))
	check_cmp "$1: wait total <= $3 x 2 s" -le "$_total" $(($3 * 2000000))
	check_cmp "$1: wait max >= ${HOLD_MIN_MS} ms" -ge "${_max:-0}" $((HOLD_MIN_MS * 1000))
	check_cmp "$1: wait max <= total" -le "${_max:-0}" "$_total"
	check_cmp "$1: waits in bucket >= $MIN_BUCKET: 3/4 of $3 or more" -ge \
		"$(echo "$_hist" | awk -F: -v b=$MIN_BUCKET '$1 >= b { s += $2 }
			END { print s + 0 }')" \
		$(($3 * 3 / 4))
}

# tasks_query NAME CHECK ARGS...: `iotally tasks ARGS` succeeds (the check
# CHECK); its reply is kept in $T/NAME.txt.
tasks_query() {
	_q=$1 _check=$2
	shift 2
	check_ok "$_check" iotally tasks "$@"
	echo "$out" >$T/$_q.txt
}

check_ops() {
	check_eq "$1: $3 ops and sectors" "$4 $5" "$(field "$2" "$3" 3) $(field "$2" "$3" 5)"
}

start_listener exits -m 0-1

# ---------------------------------------------------------------- one task
# 10 reads of 4 KiB, 6 writes of 8 KiB, one fsync: 16 waits on dm-delay.
start_load $DEV 0 10 4096 6 8192 1
single=$loadpid
tasks_query pid "query pid $single" -p $single
check_ops "pid" $T/pid.txt read 10 80
check_ops "pid" $T/pid.txt write 6 96
check_ops "pid" $T/pid.txt discard 0 0
check_ops "pid" $T/pid.txt flush 1 0
check_waits "pid" $T/pid.txt 16
single_waits="${wait_count:-0} ${wait_total:-0}"
check_eq "pid: classic read_bytes still there" 40960 "$(field $T/pid.txt read_bytes 2)"
tasks_query tgid1 "query tgid $single" -t $single
check_ops "single-threaded tgid" $T/tgid1.txt read 10 80
check_ops "single-threaded tgid" $T/tgid1.txt write 6 96

# Upstream getdelays against the patched kernel.
check_ok "getdelays -d -i -p runs" getdelays -d -i -p $single
echo "$out" >$T/getdelays.txt
check_match "getdelays: prints the PID" "^PID[[:space:]]+$single\$" "$out"
check_match "getdelays: prints the CPU delay line" "^CPU +count +real total" "$out"
check_match "getdelays: prints the IO delay header" "^IO +count +delay total +delay average" "$out"
gd_io=$(awk '/^IO / { getline; print $1, $2 }' $T/getdelays.txt)
gd_count=${gd_io% *}
gd_total=${gd_io#* }
check_cmp "getdelays: blkio count >= 1" -ge "${gd_count:-0}" 1
check_cmp "getdelays: blkio count <= waits measured" -le "${gd_count:-99}" "${single_waits% *}"
check_cmp "getdelays: blkio delay total > 0" -gt "${gd_total:-0}" 0
check_match "getdelays: I/O accounting line" \
	"^ioload: read=40960, write=49152, cancelled_write=0\$" "$out"
stop_load

# ---------------------------------------------------------------- brd: no waits
start_load /dev/ram0 0 5 4096 0 0 0
tasks_query brd "query pid on brd" -p $loadpid
check_ops "brd" $T/brd.txt read 5 40
check_eq "brd: synchronous device, no waits" 0 "$(field $T/brd.txt wait 3)"
stop_load

# ---------------------------------------------------------------- semantics
. ./semantics.sh

# ---------------------------------------------------------------- the switch
# kernel.task_io_stats turns the accounting off and on at run time (a
# static key): I/O done while it is off is not counted, a bad value is
# refused and changes nothing.
#
# ram_reads NAME N OPS SECTORS: one task's N reads of 4 KiB from /dev/ram0,
# queried by pid while it lives: it counts OPS reads and SECTORS sectors.
ram_reads() {
	start_load /dev/ram0 0 "$2" 4096 0 0 0
	tasks_query reads "query pid, $1" -p $loadpid
	check_ops "$1" $T/reads.txt read "$3" "$4"
	stop_load
}
echo 0 >$S
check_eq "switch: off at run time" 0 "$(cat $S)"
ram_reads "accounting off" 5 0 0
for bad in maybe 2; do
	if echo $bad >$S 2>/dev/null; then
		fail "switch: '$bad' is refused" "the write succeeded"
	else
		pass "switch: '$bad' is refused"
	fi
done
check_eq "switch: a refused value changes nothing" 0 "$(cat $S)"
echo 1 >$S
check_eq "switch: back on" 1 "$(cat $S)"
ram_reads "accounting back on" 3 3 24

# Tasks forked while the accounting was off are counted once it is
# switched on: the switch gives every thread its counters, so they count
# what they do from then on. ioload, started while off, does its reads
# again after the switch. A buffered writer, started while off, submits
# no bio at all (its writeback goes to sync), yet its sleeps in dirty
# throttling are I/O waits from the switch on. (Each is started alone:
# the other would inherit its FIFO and keep it from seeing end of file.)
echo 0 >$S
start_load $DEV 0 4 4096 0 0 0
echo 1 >$S
echo again >&5
wait_for 30 eval '[ "$(grep -c "^ready" $T/load.out)" = 2 ]' ||
	bail "ioload did not read again"
tasks_query early "query pid, started while off" -p $loadpid
check_ops "started while off, read after the switch" $T/early.txt read 4 32
check_ok "started while off: its waits counted, near 4" near 4 \
	"$(field $T/early.txt wait 3)"
stop_load
echo 0 >$S
start_writer
echo 1 >$S
feed_writer
tasks_query early_dd "query the buffered writer started while off" -p $ddpid
check_ops "buffered writer started while off: no bio of its own" $T/early_dd.txt write 0 0
check_cmp "buffered writer started while off: its throttling waits counted" \
	-ge "$(field $T/early_dd.txt wait 3)" 1
stop_writer

# ---------------------------------------------------------------- threads
# 3 threads, each 4 reads of 4 KiB and 2 writes of 4 KiB, all exited.
start_load $DEV 3 4 4096 2 4096 0
multi=$loadpid
tasks_query tgid "query tgid $multi" -t $multi
check_ops "tgid, threads exited" $T/tgid.txt read 12 96
check_ops "tgid, threads exited" $T/tgid.txt write 6 48
check_waits "tgid, threads exited" $T/tgid.txt 18
multi_waits="${wait_count:-0} ${wait_total:-0}"
tasks_query main "query pid of the main thread" -p $multi
check_ops "main thread alone" $T/main.txt read 0 0
stop_load

# ---------------------------------------------------------------- exit messages
stop_listener
rec() { awk -v k="$1" -v id="$2" '$1 == k && $2 == id' $T/exits.out; }
r=$(rec pid $single)
check_match "exit: single pid record" \
	"^pid $single ioload read 10 80 write 6 96 discard 0 0 flush 1 wait $single_waits " "$r"
r=$(rec pid $multi)
check_match "exit: main thread record" "^pid $multi ioload read 0 0 write 0 0 .* wait 0 " "$r"
r=$(rec tgid $multi)
check_match "exit: last thread carries the tgid record" \
	"^tgid $multi [^ ]+ read 12 96 write 6 48 discard 0 0 flush 0 wait $multi_waits " "$r"
n=$(grep "^pid [0-9]* ioload read 4 32 write 2 16 discard 0 0 flush 0 wait " $T/exits.out |
	awk '{ print $16 }' | while read -r count; do near 6 "$count" && echo; done | wc -l)
check_eq "exit: one record per worker thread" 3 "$n"
check_match "exit: listener summary, nothing lost" "^summary .* lost 0 overflows 0 exact yes" \
	"$(tail -n 1 $T/exits.out)"

# ---------------------------------------------------------------- bad requests
check_fails "unknown pid" "No such process" iotally tasks -p 999999
check_fails "unknown tgid" "No such process" iotally tasks -t 999999
check_fails "malformed cpumask" "Invalid argument" iotally tasks -m abc --duration 1
# The kernel parses the list into a mask of nr_cpu_ids bits: ERANGE.
check_fails "cpumask beyond possible cpus" "out of range" iotally tasks -m 7 --duration 1
# The kernel takes a mask of at most 100 + 6 x NR_CPUS characters
# (TASKSTATS_CPUMASK_MAXLEN); kernel_max is NR_CPUS - 1.
maxlen=$((100 + 6 * ($(cat /sys/devices/system/cpu/kernel_max) + 1)))
long=$(printf '0,%.0s' $(seq 1 $((maxlen / 2 + 1))))0
check_fails "oversized cpumask" "Argument list too long" iotally tasks -m "$long" --duration 1

# ---------------------------------------------------------------- burst
# 10,000 short-lived tasks against a small receive buffer: every exit record
# is either received or counted as lost, never both, never neither.
N=10000
start_listener burst -m 0-1 -r 16384
taskset -c 0 ./ioload burst $N $T/burst.pids || bail "ioload burst failed"
stop_listener
summary=$(tail -n 1 $T/burst.out)
lost=$(echo "$summary" | awk '{ for (i = 1; i < NF; i++) if ($i == "lost") print $(i + 1) }')
exact=$(echo "$summary" | awk '{ print $NF }')
awk '$1 == "pid" { print $2 }' $T/burst.out | sort >$T/burst.got
sort $T/burst.pids >$T/burst.want
# (busybox has no comm)
got=$(grep -Fxf $T/burst.want $T/burst.got | wc -l)
dups=$(sort $T/burst.got | uniq -d | wc -l)
check_eq "burst: sequence numbers give an exact loss count" yes "$exact"
check_eq "burst: no record received twice" 0 "$dups"
check_cmp "burst: received + lost >= $N" -ge $((got + ${lost:-0})) $N
check_cmp "burst: received + lost <= $N + 20 other exits" -le $((got + ${lost:-0})) $((N + 20))
echo "# burst: $got received, ${lost:-?} lost, $summary"

dmsetup remove tsdelay
rmmod brd
tap_finish
