#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Block I/O per cgroup (Documentation/iotally.rst, "tasks --cgroup";
# Documentation/iotally-exporter.rst, "serve --cgroups").
#
# Two cgroups each run an fio job on their own dm-delay device over brd:
# /fast on a 5 ms delay (reads), /slow on a 20 ms one (writes). brd never
# makes a task wait; dm-delay does, so every I/O is one wait of about the
# delay. `iotally serve --cgroups` is scraped over HTTP:
#   - each cgroup's bytes agree with what fio says it moved, within 2 %;
#   - each cgroup's median wait is in its delay's log2 bucket;
#   - a dd in a third cgroup, started after one scrape and gone before the
#     next, is in the next (its exit record names its cgroup);
#   - the kernel's io.stat of each cgroup is beside it, per device;
#   - the exit listener lost nothing, and says so;
#   - a process moved to another cgroup leaves what it did with the one it
#     left (no counter goes down), and a zombie is counted once.
# Then `iotally tasks --cgroup` over an interval, the depth limit and the
# cardinality cap, and bad options.
. ../lib.sh

require_cmd iotally fio wget ./ioload

PORT=9864
SECTORS=65536 # 32 MiB per device
CG=/sys/fs/cgroup
T=/tmp/cgroup-io
mkdir -p $T

mounted_cg=
if ! grep -q " $CG cgroup2 " /proc/mounts; then
	mount -t cgroup2 none $CG || bail "cannot mount cgroup2"
	mounted_cg=1
fi
echo +io >$CG/cgroup.subtree_control || bail "cannot enable the io controller"
for g in fast slow short burst movea moveb zombie; do
	mkdir -p $CG/$g || bail "mkdir $CG/$g"
done
# Per-task I/O accounting in the kernel (the patched kernel's taskstats
# attribute) is off by default, behind kernel.task_io_stats; iotally says so
# in one line. A kernel without that switch (Debian's: iotally counts
# through its BPF program) has nothing to switch, and nothing to warn of.
S=/proc/sys/kernel/task_io_stats
was=
if [ -e $S ]; then
	was=$(cat $S) || bail "no $S"
	echo 0 >$S || bail "cannot switch per-task I/O accounting off"
	run iotally tasks --cgroup -i 0.1
	check_eq "accounting off: tasks --cgroup warns in one line" \
		"0:iotally: warning: per-task I/O accounting is off (kernel.task_io_stats = 0): I/O counters stay at zero until 'sysctl -w kernel.task_io_stats=1'" \
		"$rc:$err"
	echo 1 >$S || bail "cannot switch per-task I/O accounting on"
	run iotally tasks --cgroup -i 0.1
	check_eq "accounting on: no warning" "0:" "$rc:$err"
else
	run iotally -v tasks --cgroup -i 0.1
	check_match "no kernel.task_io_stats: tasks --cgroup runs on the bpf backend, says so" \
		"^0:iotally: tasks: backend bpf \\(no per-task I/O in taskstats" "$rc:$err"
	run iotally tasks --cgroup -i 0.1
	check_eq "no kernel.task_io_stats: no warning" "0:" "$rc:$err"
fi
ip link set lo up || bail "cannot bring up loopback"
modprobe brd rd_nr=2 rd_size=$((SECTORS / 2)) max_part=0 || bail "modprobe brd"
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync cgfast --table "0 $SECTORS delay /dev/ram0 0 5" ||
	bail "cannot create the 5 ms device"
dmsetup create --noudevsync cgslow --table "0 $SECTORS delay /dev/ram1 0 20" ||
	bail "cannot create the 20 ms device"
# kernel_name DM_NAME: the device's kernel name (dm-N), as io.stat's device
# label has it.
kernel_name() {
	for _d in /sys/block/dm-*; do
		[ "$(cat "$_d/dm/name")" = "$1" ] && basename "$_d"
	done
}
fastdev=$(kernel_name cgfast)
slowdev=$(kernel_name cgslow)
{ [ -n "$fastdev" ] && [ -n "$slowdev" ]; } || bail "no kernel names for the dm devices"

# in_cgroup NAME CMD...: CMD in cgroup NAME (it moves itself, then execs).
in_cgroup() {
	_g=$1
	shift
	sh -c 'echo $$ >'"$CG/$_g"'/cgroup.procs && exec "$@"' sh "$@"
}

# scrape FILE [PORT]: one GET /metrics.
scrape() { wget -q -O "$1" "http://127.0.0.1:${2:-$PORT}/metrics"; }
# scrape_all N: scrape N of each serve: sN.txt, capN.txt, depthN.txt.
scrape_all() {
	scrape "$T/s$1.txt"
	scrape "$T/cap$1.txt" $CAP_PORT
	scrape "$T/depth$1.txt" $DEPTH_PORT
}

# value FILE METRIC LABELS: the sample's value ("" if absent).
value() {
	if [ -n "$3" ]; then _want="$2{$3}"; else _want=$2; fi
	awk -v want="$_want" '$1 == want { print $2 }' "$1"
}

# p50_le FILE CGROUP: the upper bound of the bucket holding the median wait.
p50_le() {
	awk -v cg="$2" '
		index($0, "iotally_cgroup_io_wait_seconds_bucket{cgroup=\"" cg "\",le=\"") == 1 {
			le = $1; sub(/.*le="/, "", le); sub(/".*/, "", le)
			n++; les[n] = le; cum[n] = $2
		}
		END {
			if (!n) exit
			total = cum[n]
			for (i = 1; i <= n; i++)
				if (cum[i] * 2 >= total) { print les[i]; exit }
		}' "$1"
}

# within_2pct A B: |A - B| <= 2 % of B
within_2pct() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 50 <= b) }'
}

# fio_p50_ns JSONFILE read|write: fio's median completion latency (ns) of
# the direction (the first "50.000000" percentile after it: clat_ns').
fio_p50_ns() {
	awk -v dir="\"$2\"" '
		index($0, dir " : {") { on = 1; next }
		on && /"(read|write|trim|sync)" : \{/ { exit }
		on && /"50\.000000"/ { v = $NF; gsub(/[^0-9]/, "", v); print v; exit }' "$1"
}

# in_bucket LE NS: "in" if NS lies in the bucket (LE/2, LE] seconds, each
# edge widened by 10 %.
in_bucket() {
	awk -v le="$1" -v ns="$2" 'BEGIN {
		u = le * 1e9
		if (le == "" || ns == "") { print "no value: le " le ", ns " ns; exit }
		print (ns * 0.9 <= u && ns * 1.1 > u / 2) ? "in" : "out: le " le " s, fio " ns " ns"
	}'
}

# fio_bytes JSONFILE read|write: io_bytes fio reports for the direction.
fio_bytes() {
	tr -d '\n' <"$1" | sed -n 's/.*"'"$2"'" *: *{ *"io_bytes" *: *\([0-9]*\).*/\1/p'
}

# Three exporters side by side: every cgroup of its own; a cap of 2 series
# (the root, then /short are admitted at the scrapes that first see them, so
# /fast and /slow come in the overflow series); depth 0 (all in /).
CAP_PORT=$((PORT + 1))
DEPTH_PORT=$((PORT + 2))
iotally serve --cgroups --listen 127.0.0.1:$PORT 2>$T/serve.err &
serve_pid=$!
iotally serve --cgroups --cgroup-max 2 --listen 127.0.0.1:$CAP_PORT 2>$T/serve-cap.err &
cap_pid=$!
iotally serve --cgroups --cgroup-depth 0 --listen 127.0.0.1:$DEPTH_PORT 2>$T/serve-depth.err &
depth_pid=$!
for _p in $PORT $CAP_PORT $DEPTH_PORT; do
	wait_for 60 scrape $T/s0.txt $_p ||
		bail "iotally serve --cgroups (port $_p) did not answer: $(cat $T/serve*.err)"
done
pass "serve --cgroups answers"

# --- a short-lived dd between two scrapes ---------------------------------
scrape_all 1
in_cgroup short /usr/bin/dd if=/dev/zero of=/dev/mapper/cgfast bs=64k count=16 \
	oflag=direct status=none || fail "dd in /short"
scrape_all 2
check_eq "no /short series before its dd" "" "$(value $T/s1.txt iotally_cgroup_written_bytes_total 'cgroup="/short"')"
check_eq "dd that exited between scrapes: its bytes in /short" 1048576 \
	"$(value $T/s2.txt iotally_cgroup_written_bytes_total 'cgroup="/short"')"
check_eq "dd: its 16 writes in /short" 16 \
	"$(value $T/s2.txt iotally_cgroup_writes_total 'cgroup="/short"')"
check_cmp "exits counted" -ge "$(value $T/s2.txt iotally_cgroup_exits_total '')" 1

# --- two fio jobs, two cgroups, two delays --------------------------------
fio_args="--ioengine=psync --direct=1 --bs=64k --size=8m --output-format=json"
# shellcheck disable=SC2086 # $fio_args is a list of words
in_cgroup fast fio --name=fast --filename=/dev/mapper/cgfast --rw=read $fio_args \
	>$T/fio-fast.json 2>$T/fio-fast.err &
fast_pid=$!
# shellcheck disable=SC2086
in_cgroup slow fio --name=slow --filename=/dev/mapper/cgslow --rw=write $fio_args \
	>$T/fio-slow.json 2>$T/fio-slow.err &
slow_pid=$!
wait $fast_pid || fail "fio in /fast: $(cat $T/fio-fast.err)"
wait $slow_pid || fail "fio in /slow: $(cat $T/fio-slow.err)"
scrape_all 3

fast_fio=$(fio_bytes $T/fio-fast.json read)
slow_fio=$(fio_bytes $T/fio-slow.json write)
fast_read=$(value $T/s3.txt iotally_cgroup_read_bytes_total 'cgroup="/fast"')
slow_written=$(value $T/s3.txt iotally_cgroup_written_bytes_total 'cgroup="/slow"')
echo "# fio: /fast read $fast_fio, /slow wrote $slow_fio; iotally: $fast_read, $slow_written"
if within_2pct "${fast_read:-0}" "${fast_fio:-0}"; then pass "/fast: read bytes agree with fio's within 2 %"
else fail "/fast: read bytes agree with fio's within 2 % (iotally ${fast_read:-none}, fio ${fast_fio:-none})"; fi
if within_2pct "${slow_written:-0}" "${slow_fio:-0}"; then pass "/slow: written bytes agree with fio's within 2 %"
else fail "/slow: written bytes agree with fio's within 2 % (iotally ${slow_written:-none}, fio ${slow_fio:-none})"; fi
check_eq "/fast wrote nothing" 0 "$(value $T/s3.txt iotally_cgroup_written_bytes_total 'cgroup="/fast"')"
check_eq "/slow read nothing" 0 "$(value $T/s3.txt iotally_cgroup_read_bytes_total 'cgroup="/slow"')"

# Each cgroup's median wait is in the log2 bucket (le/2, le] where its
# device's median latency is, as fio measured it (its completion latency,
# from submission to the end of the pread or pwrite that waited). dm-delay
# rounds its delay up to whole jiffies (4 ms at HZ=250) and under TCG adds
# to it, so the bucket is where the I/O really took, not where 5 or 20 ms
# would be: 5 ms has been measured at 8 ms. fio's percentiles are its own
# buckets, and its latency includes the system call around the wait, so a
# median within 10 % of a bucket's edge may be in the next one.
grep '^iotally_cgroup_io_wait_seconds_bucket{cgroup="/\(fast\|slow\)"' $T/s3.txt | sed 's/^/# /'
fast_p50=$(p50_le $T/s3.txt /fast)
slow_p50=$(p50_le $T/s3.txt /slow)
fast_clat=$(fio_p50_ns $T/fio-fast.json read)
slow_clat=$(fio_p50_ns $T/fio-slow.json write)
echo "# p50 wait bucket (le, s): /fast $fast_p50, /slow $slow_p50; fio's p50 latency (ns): /fast $fast_clat, /slow $slow_clat"
check_eq "/fast: p50 wait in the bucket of the 5 ms device's p50 latency (fio)" in \
	"$(in_bucket "$fast_p50" "$fast_clat")"
check_eq "/slow: p50 wait in the bucket of the 20 ms device's p50 latency (fio)" in \
	"$(in_bucket "$slow_p50" "$slow_clat")"
check_cmp "/slow's p50 bucket is above /fast's" -gt \
	"$(echo "${slow_p50:-0}" | awk '{ printf "%d", $1 * 1e9 }')" \
	"$(echo "${fast_p50:-0}" | awk '{ printf "%d", $1 * 1e9 }')"

# The kernel's io.stat beside it, per device.
sed 's/^/# fast io.stat: /' $CG/fast/io.stat
io_fast=$(value $T/s3.txt iotally_cgroup_device_read_bytes_total "cgroup=\"/fast\",device=\"$fastdev\"")
if within_2pct "${io_fast:-0}" "${fast_fio:-0}"; then pass "/fast: io.stat of $fastdev beside it, agreeing with fio"
else fail "/fast: io.stat of $fastdev beside it, agreeing with fio (${io_fast:-none})"; fi
io_slow=$(value $T/s3.txt iotally_cgroup_device_written_bytes_total "cgroup=\"/slow\",device=\"$slowdev\"")
if within_2pct "${io_slow:-0}" "${slow_fio:-0}"; then pass "/slow: io.stat of $slowdev beside it, agreeing with fio"
else fail "/slow: io.stat of $slowdev beside it, agreeing with fio (${io_slow:-none})"; fi
check_eq "/slow: io.stat has no $fastdev line" "" \
	"$(value $T/s3.txt iotally_cgroup_device_read_bytes_total "cgroup=\"/slow\",device=\"$fastdev\"")"

check_eq "exit messages lost" 0 "$(value $T/s3.txt iotally_cgroup_exit_messages_lost_total '')"
check_eq "exits without a record" 0 "$(value $T/s3.txt iotally_cgroup_exits_unaccounted_total '')"
# Counters never go back, from one scrape to the next.
check_cmp "/short still counted later" -eq \
	"$(value $T/s3.txt iotally_cgroup_written_bytes_total 'cgroup="/short"')" 1048576

# --- a burst of exits between two scrapes ----------------------------------
# 3000 processes exit in /burst within a few seconds, between two scrapes
# (each exit message is about 1 KiB; each listener has a 1 MiB buffer): the
# exporter reads its listeners as messages arrive, so none is lost and every
# exit is counted. ioload runs on CPU 0, the exporter may run on CPU 1.
BURST=3000
scrape $T/s4.txt
in_cgroup burst taskset -c 0 ./ioload burst $BURST $T/burst.pids || fail "ioload burst"
sleep 1
scrape $T/s5.txt
exits=$(($(value $T/s5.txt iotally_cgroup_exits_total '') - $(value $T/s4.txt iotally_cgroup_exits_total '')))
lost=$(($(value $T/s5.txt iotally_cgroup_exit_messages_lost_total '') - $(value $T/s4.txt iotally_cgroup_exit_messages_lost_total '')))
overflows=$(($(value $T/s5.txt iotally_cgroup_exit_overflows_total '') - $(value $T/s4.txt iotally_cgroup_exit_overflows_total '')))
echo "# burst of $BURST exits in /burst between two scrapes: $exits exits counted, $lost messages lost, $overflows overflows"
check_eq "burst: no receive buffer overflow" 0 "$overflows"
check_eq "burst: no exit message lost between two scrapes" 0 "$lost"
check_cmp "burst: every exit counted" -ge "$exits" $BURST

# --- the cardinality cap and the depth limit of serve --cgroups ------------
# series FILE: the cgroup labels of the byte counters, sorted, on one line.
series() {
	sed -n 's/^iotally_cgroup_written_bytes_total{cgroup="\([^"]*\)"}.*/\1/p' "$1" |
		sort | tr '\n' ' ' | sed 's/ $//'
}
# sum FILE METRIC CGROUP...: the sum of the cgroups' samples of METRIC
# ("none" if one has none).
sum() {
	_f=$1 _m=$2
	shift 2
	_s=0
	for _g; do
		_v=$(value "$_f" "$_m" "cgroup=\"$_g\"")
		case $_v in
		'' | *[!0-9]*)
			echo none
			return
			;;
		esac
		_s=$((_s + _v))
	done
	echo $_s
}
echo "# --cgroup-max 2: $(series $T/cap3.txt); --cgroup-depth 0: $(series $T/depth3.txt)"
check_eq "--cgroup-max 2: /, /short, and the rest in __overflow__" "/ /short __overflow__" \
	"$(series $T/cap3.txt)"
check_eq "--cgroup-max 2: /short as without the cap" 1048576 \
	"$(value $T/cap3.txt iotally_cgroup_written_bytes_total 'cgroup="/short"')"
for m in iotally_cgroup_read_bytes_total iotally_cgroup_written_bytes_total \
	iotally_cgroup_reads_total iotally_cgroup_writes_total iotally_cgroup_io_wait_seconds_count; do
	check_eq "--cgroup-max 2: __overflow__'s ${m#iotally_cgroup_} is /fast + /slow" \
		"$(sum $T/s3.txt $m /fast /slow)" "$(sum $T/cap3.txt $m __overflow__)"
done
check_eq "--cgroup-max 2: __overflow__'s 20 ms bucket is /fast's + /slow's" \
	"$(sum $T/s3.txt 'iotally_cgroup_io_wait_seconds_bucket' '/fast",le="0.033554432' '/slow",le="0.033554432')" \
	"$(sum $T/cap3.txt 'iotally_cgroup_io_wait_seconds_bucket' '__overflow__",le="0.033554432')"
check_cmp "--cgroup-max 2: __overflow__ holds /fast's reads" -ge \
	"$(sum $T/cap3.txt iotally_cgroup_read_bytes_total __overflow__)" 8388608
check_eq "--cgroup-depth 0: one series, /" "/" "$(series $T/depth3.txt)"
# / holds the guest's other processes too (none of them writes to a disk).
check_cmp "--cgroup-depth 0: / has at least the bytes of /fast, /slow and /short" -ge \
	"$(sum $T/depth3.txt iotally_cgroup_written_bytes_total /)" \
	"$(sum $T/s3.txt iotally_cgroup_written_bytes_total /fast /slow /short)"
check_cmp "--cgroup-depth 0: / has at least the reads of /fast" -ge \
	"$(sum $T/depth3.txt iotally_cgroup_read_bytes_total /)" \
	"$(sum $T/s3.txt iotally_cgroup_read_bytes_total /fast)"
check_cmp "--cgroup-depth 0: / has at least every cgroup's waits" -ge \
	"$(sum $T/depth3.txt iotally_cgroup_io_wait_seconds_count /)" \
	"$(sum $T/s3.txt iotally_cgroup_io_wait_seconds_count /fast /slow /short)"

# --- a process moved between two scrapes ----------------------------------
# ioload writes 1 MiB in /movea and waits; it is sampled there, moved to
# /moveb, and writes 1 MiB more: /movea keeps its MiB, /moveb gets one.
written() { value "$1" iotally_cgroup_written_bytes_total "cgroup=\"/$2\""; }
rm -f $T/move.ctl $T/move.out
mkfifo $T/move.ctl
in_cgroup movea ./ioload /dev/mapper/cgfast 0 0 0 16 65536 0 <$T/move.ctl >$T/move.out &
movejob=$!
exec 6>$T/move.ctl
# ready_lines N: wait until ioload printed N "ready" lines
ready_lines() {
	wait_for 30 eval "[ \"\$(grep -c '^ready' $T/move.out)\" -ge $1 ]" || bail "ioload did not get ready ($1)"
}
ready_lines 1
movepid=$(awk '{ print $2; exit }' $T/move.out)
scrape $T/m1.txt
echo "$movepid" >$CG/moveb/cgroup.procs || fail "cannot move ioload to /moveb"
echo again >&6
ready_lines 2
scrape $T/m2.txt
exec 6>&-
wait $movejob
scrape $T/m3.txt
echo "# moved process: /movea $(written $T/m1.txt movea) $(written $T/m2.txt movea) $(written $T/m3.txt movea)," \
	"/moveb $(written $T/m2.txt moveb) $(written $T/m3.txt moveb)"
check_eq "moved: /movea had its MiB before the move" 1048576 "$(written $T/m1.txt movea)"
check_eq "moved: /movea keeps it after the move" 1048576 "$(written $T/m2.txt movea)"
check_eq "moved: /moveb has only the MiB written there" 1048576 "$(written $T/m2.txt moveb)"
check_eq "moved and exited: /movea, /moveb unchanged" "1048576 1048576" \
	"$(written $T/m3.txt movea) $(written $T/m3.txt moveb)"

# --- a zombie -------------------------------------------------------------
# dd's parent execs sleep, which never reaps it: dd stays a zombie, listed
# in /proc, after its exit record was sent. It is counted once.
rm -f $T/zombie.pid $T/zombie-parent.pid
in_cgroup zombie sh -c '/usr/bin/dd if=/dev/zero of=/dev/mapper/cgfast bs=64k count=16 \
	oflag=direct status=none & echo $! >'"$T"'/zombie.pid; echo $$ >'"$T"'/zombie-parent.pid
	exec sleep 30' &
zjob=$!
# state_of PID: the state letter in /proc/PID/stat (dd's name has no blank)
state_of() { awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null; }
wait_for 30 eval '[ -s $T/zombie.pid ] && [ "$(state_of "$(cat $T/zombie.pid)")" = Z ]' ||
	bail "dd did not become a zombie"
scrape $T/z1.txt
sleep 1
scrape $T/z2.txt
echo "# zombie dd: /zombie $(written $T/z1.txt zombie), then $(written $T/z2.txt zombie)"
check_eq "zombie: its MiB counted once" "1048576 1048576" \
	"$(written $T/z1.txt zombie) $(written $T/z2.txt zombie)"
# its parent gone, init reaps it; the cgroup empties for the rmdir below
kill "$(cat $T/zombie-parent.pid)"
wait $zjob 2>/dev/null

kill $serve_pid $cap_pid $depth_pid
rcs=
for p in $serve_pid $cap_pid $depth_pid; do
	wait $p
	rcs="$rcs $?"
done
check_eq "SIGTERM stops the three exporters (exit 0)" " 0 0 0" "$rcs"

# --- iotally tasks --cgroup -----------------------------------------------
# cgroup_interval ARGS...: `iotally -v --json tasks --cgroup ARGS` in the
# background; returns once its interval has begun (-v says "counting": on
# the BPF backend, loading the program takes a while under TCG). Then
# cgroup_done waits for it: $out, $err and $rc as run() sets them.
cgroup_interval() {
	rm -f $T/cgi.out $T/cgi.err
	iotally -v --json tasks --cgroup "$@" >$T/cgi.out 2>$T/cgi.err &
	cgi_pid=$!
	wait_for 60 grep -q '^iotally: tasks: counting' $T/cgi.err ||
		fail "tasks --cgroup $*: counting" "$(cat $T/cgi.err)"
}
cgroup_done() {
	wait $cgi_pid
	rc=$?
	out=$(cat $T/cgi.out)
	err=$(grep -v '^iotally: tasks: \(backend\|counting\)' $T/cgi.err)
}

cgroup_interval -i 3
in_cgroup short /usr/bin/dd if=/dev/zero of=/dev/mapper/cgfast bs=64k count=8 \
	oflag=direct status=none
cgroup_done
check_eq "tasks --cgroup runs" 0 "$rc"
echo "$out" >$T/tasks.json
check_match "tasks --cgroup: the dd's 512 KiB in /short" \
	'"cgroup":"/short"[^]]*\][^}]*"write_bytes":524288' "$out"

cgroup_interval --cgroup-depth 0 -i 3
in_cgroup short /usr/bin/dd if=/dev/zero of=/dev/mapper/cgfast bs=64k count=4 \
	oflag=direct status=none
cgroup_done
check_eq "tasks --cgroup --cgroup-depth 0" 0 "$rc"
check_eq "depth 0: one series, /" '"cgroup":"/"' \
	"$(echo "$out" | grep -o '"cgroup":"[^"]*"' | sort -u | tr '\n' ' ' | sed 's/ $//')"

cgroup_interval --cgroup-max 1 -i 4
in_cgroup short /usr/bin/dd if=/dev/zero of=/dev/mapper/cgfast bs=64k count=4 \
	oflag=direct status=none && in_cgroup slow /usr/bin/dd if=/dev/zero \
	of=/dev/mapper/cgslow bs=64k count=2 oflag=direct status=none
cgroup_done
check_eq "tasks --cgroup --cgroup-max 1" 0 "$rc"
echo "$out" >$T/tasks-max.json
check_match "cap of 1: the rest is summed in __overflow__" '"cgroup":"__overflow__"' "$out"

check_fails "--cgroup-max 0 is refused" "--cgroup-max 0" iotally tasks --cgroup --cgroup-max 0 -i 1
check_fails "--cgroup-depth 65 is refused" "--cgroup-depth 65" iotally tasks --cgroup --cgroup-depth 65 -i 1
check_fails "a root that is not cgroup2 is refused" "not a cgroup2 mount" \
	iotally tasks --cgroup --cgroup-root /tmp -i 1

# Leave the guest as the next suite expects it.
dmsetup remove cgfast
dmsetup remove cgslow
rmmod brd
for g in fast slow short burst movea moveb zombie; do
	rmdir $CG/$g
done
echo -io >$CG/cgroup.subtree_control
[ -z "$was" ] || echo "$was" >$S
[ -z "$mounted_cg" ] || umount $CG
tap_finish
