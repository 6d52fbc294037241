#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally's two backends watch one workload at the same time, on the
# patched kernel, which has both: the io trace events and the taskstats
# I/O attribute (native), and BTF for iotally's BPF programs (bpf). They
# must agree (Documentation/iotally-bpf.rst, "The two backends side by
# side"):
#   - bytes per file, device and direction (snoop): equal;
#   - per task, each workload process's exit record (tasks -m): read and
#     write operations and sectors equal; waits within max(2, 10 %);
#   - per cgroup (tasks --cgroup): read and write bytes equal; waits
#     within max(2, 10 %).
# Both count a wait by the same test, at different points: the kernel
# just around schedule(), BPF at fentry and fexit of io_schedule(), which
# also span its plug flush; a wakeup in between tells them apart (rare,
# and never a bio).
#
# The workload, in cgroup /cross, on ext4 on dm-linear on a null_blk disk
# (completions 1 ms after submission): an O_DIRECT read of 1 MiB, a
# buffered write of 1 MiB with fsync, and a cold read of 2 MiB through
# readahead, each a dd of its own.
. ../lib.sh

T=/tmp/backend-cross
CG=/sys/fs/cgroup
TR=/sys/kernel/tracing
TIS=/proc/sys/kernel/task_io_stats
DD=/usr/bin/dd
mkdir -p $T /mnt/x

command -v iotally >/dev/null || bail "iotally is not in the initramfs (make tools)"
[ -d $TR/events/io ] || skip_all "no io trace events: the native backend is missing"
[ -w $TIS ] || skip_all "no $TIS: the native per-task backend is missing"
[ -e /sys/kernel/btf/vmlinux ] || bail "the kernel has no BTF (CONFIG_DEBUG_INFO_BTF)"
tis_was=$(cat $TIS)
echo 1 >$TIS
modprobe null_blk nr_devices=1 queue_mode=2 gb=1 memory_backed=1 irqmode=2 \
	completion_nsec=1000000 submit_queues=1 || bail "modprobe null_blk"
dmsetup create --noudevsync crossfs --table "0 262144 linear /dev/nullb0 0" || bail "dm-linear"
/sbin/mke2fs -q -F -t ext4 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
	/dev/mapper/crossfs || bail "mkfs.ext4"
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
mount -t ext4 -o commit=600,no_prefetch_block_bitmaps /dev/mapper/crossfs /mnt/x || bail "mount"
$DD if=/dev/urandom of=/mnt/x/direct.bin bs=64k count=16 status=none || bail "direct.bin"
$DD if=/dev/urandom of=/mnt/x/cold.bin bs=64k count=32 status=none || bail "cold.bin"
sync
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG || bail "cannot mount cgroup2"
mkdir -p $CG/cross || bail "mkdir $CG/cross"

. ../lib-snoop.sh
# started FILE MARKER: wait (60 s at most) until FILE has a line matching MARKER
started() { wait_for 60 grep -q "$2" "$1" || fail "started: $1" "$(cat "$1")"; }

# --- both backends, all three views, at once ---
for b in native bpf; do
	snoop_start snoop.$b --backend $b -j snoop --file /mnt/x/
	eval "snoop_$b=\$snpid"
	iotally -v --backend $b -j tasks -m 0-1 --duration 40 >$T/exits.$b 2>$T/exits.$b.err &
	eval "exits_$b=\$!"
	iotally -v --backend $b -j tasks --cgroup -i 40 >$T/cgroup.$b 2>$T/cgroup.$b.err &
	eval "cgroup_$b=\$!"
done
for b in native bpf; do
	started $T/exits.$b.err '^listening'
	started $T/cgroup.$b.err '^iotally: tasks: counting'
done

echo 3 >/proc/sys/vm/drop_caches
workload() {
	sh -c 'echo $$ >'"$CG"'/cross/cgroup.procs && exec "$@"' sh "$@" &
	wait $!
	echo $! >>$T/pids
}
: >$T/pids
workload $DD if=/mnt/x/direct.bin of=/dev/null bs=4096 iflag=direct status=none
workload $DD if=/dev/urandom of=/mnt/x/written.bin bs=64k count=16 conv=fsync status=none
workload $DD if=/mnt/x/cold.bin of=/dev/null bs=64k status=none

for b in native bpf; do
	snpid=$(eval "echo \$snoop_$b")
	snoop_stop INT
	check_eq "snoop --backend $b: ends cleanly on SIGINT" 0 "$rc"
done
for b in native bpf; do
	wait "$(eval "echo \$exits_$b")"
	check_eq "tasks -m --backend $b: exit status 0" 0 "$?"
	wait "$(eval "echo \$cgroup_$b")"
	check_eq "tasks --cgroup --backend $b: exit status 0" 0 "$?"
done

# --- per file: bytes by device, direction and file ---
# files FILE: "disk rw file bytes" summed over snoop --json's records
files() {
	sed -n 's/.*"bytes":\([0-9]*\).*"disk":"\([^"]*\)".*"file":"\([^"]*\)".*"rw":"\([^"]*\)".*/\2 \4 \3 \1/p' "$1" |
		awk '{ s[$1 " " $2 " " $3] += $4 } END { for (k in s) print k, s[k] }' | sort
}
files $T/snoop.native >$T/files.native
files $T/snoop.bpf >$T/files.bpf
echo "# bytes per device, direction and file (native):"
sed 's/^/#   /' $T/files.native
check_cmp "snoop: the native backend saw the workload's files" -ge "$(wc -l <$T/files.native)" 4
check_eq "snoop: bytes per file, device and direction are equal on both backends" \
	"$(cat $T/files.native)" "$(cat $T/files.bpf)"

# --- per task: each workload process's exit record ---
# rec FILE PID: "read_ops read_sectors write_ops write_sectors waits" of PID
rec() {
	grep "\"pid\":$2[,}]" "$1" | sed -n 1p |
		sed -n 's/.*"read":{"ops":\([0-9]*\),"sectors":\([0-9]*\)}.*"write":{"ops":\([0-9]*\),"sectors":\([0-9]*\)}.*"wait":{"count":\([0-9]*\),.*/\1 \2 \3 \4 \5/p'
}
# near A B: A and B within max(2, 10 %) of the larger
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d
	m = (a > b ? a : b) / 10; exit !(d <= (m > 2 ? m : 2)) }'; }
while read -r pid; do
	n=$(rec $T/exits.native "$pid")
	b=$(rec $T/exits.bpf "$pid")
	echo "# pid $pid: native $n; bpf $b (read ops, sectors, write ops, sectors, waits)"
	check_cmp "tasks -m: process $pid has an exit record on both backends" \
		-eq "$(printf '%s\n%s\n' "$n" "$b" | grep -c '[0-9]')" 2
	check_eq "tasks -m: process $pid's operations and sectors are equal" \
		"$(echo "$n" | cut -d' ' -f1-4)" "$(echo "$b" | cut -d' ' -f1-4)"
	near "$(echo "$n" | cut -d' ' -f5)" "$(echo "$b" | cut -d' ' -f5)"
	check_eq "tasks -m: process $pid's waits within max(2, 10 %)" 0 "$?"
done <$T/pids

# --- per cgroup ---
# cg FILE: "read_bytes write_bytes waits" of /cross
cg() {
	grep -o '"cgroup":"/cross","ops":[0-9]*,"read_bytes":[0-9]*,"wait_histogram":\[[^]]*\],"wait_ns":[0-9]*,"waits":[0-9]*,"write_bytes":[0-9]*' "$1" |
		sed -n '1s/.*"read_bytes":\([0-9]*\).*"waits":\([0-9]*\),"write_bytes":\([0-9]*\)$/\1 \3 \2/p'
}
n=$(cg $T/cgroup.native)
b=$(cg $T/cgroup.bpf)
echo "# cgroup /cross: native $n; bpf $b (read bytes, write bytes, waits)"
check_match "tasks --cgroup: /cross read at least the 3 MiB read on both backends" \
	'^(3[0-9]{6}|[4-9][0-9]{6}|[0-9]{8,}) ' "$n"
check_eq "tasks --cgroup: /cross read and write bytes are equal" \
	"$(echo "$n" | cut -d' ' -f1-2)" "$(echo "$b" | cut -d' ' -f1-2)"
near "$(echo "$n" | cut -d' ' -f3)" "$(echo "$b" | cut -d' ' -f3)"
check_eq "tasks --cgroup: /cross waits within max(2, 10 %)" 0 "$?"

# The suites after this one load null_blk with their own parameters.
umount /mnt/x
dmsetup remove crossfs
rmmod null_blk
rmdir $CG/cross
echo "$tis_was" >$TIS
tap_finish
