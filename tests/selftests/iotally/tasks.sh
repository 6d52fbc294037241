# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally tasks takes per-task I/O from taskstats where the kernel has it
# (the patched kernel), else from its BPF program (Debian's stock kernel):
# the suite asks the kernel which, never its name. --backend native without
# the attribute fails with one line and exit status 5, never an empty table.
# A kernel that counts per-task I/O only when asked (kernel.task_io_stats,
# off by default as delay accounting is) is asked for the suite's length.
TIS=/proc/sys/kernel/task_io_stats
tis_was=
if [ -w $TIS ]; then
	tis_was=$(cat $TIS)
	echo 1 >$TIS || fail "tasks: switch per-task I/O accounting on" "cannot write $TIS"
fi
if iotally --backend native tasks -t $$ >/dev/null 2>&1; then
	tasks_backend=native
	read_at 0 4096 4 &
	check_ok "tasks --top with per-task I/O" iotally tasks --top -i 1 -n 3
	wait
	check_match "tasks --top prints its table" "TGID +COMM " "$(printf '%s\n' "$out" | sed -n 1p)"
else
	tasks_backend=bpf
	check_error "tasks --backend native without per-task I/O: exit 5, one line" 5 \
		"per-task I/O in taskstats" iotally --backend native tasks --top -i 1 -n 3
fi

# tasks_attached ERRFILE: waits (up to 60 s) until iotally -v says that its
# BPF program counts, or returns at once on the native backend.
tasks_attached() {
	[ "$tasks_backend" = bpf ] || return 0
	_n=0
	until grep -q 'bpf program attached' "$1" 2>/dev/null || [ $_n -ge 600 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	grep -q 'bpf program attached' "$1"
}

# --top over an interval: a coreutils dd reading 256 x 4 KiB with O_DIRECT
# (256 bios, 1 MiB) and gone before the interval ends is in the table with
# exactly its bytes (an exited process's I/O is kept).
iotally -v -j tasks --top -i 8 -n 100 >/tmp/top.json 2>/tmp/top.err &
topper=$!
tasks_attached /tmp/top.err || fail "tasks --top: attached" "$(cat /tmp/top.err)"
/usr/bin/dd if=/dev/mapper/$VOL of=/dev/null bs=4096 count=256 iflag=direct 2>/dev/null &
ddpid=$!
wait $ddpid
wait $topper
check_eq "tasks --top -j: exit status 0" 0 "$?"
check_match "tasks --top -v: says its backend ($tasks_backend)" \
	"^iotally: tasks: backend $tasks_backend " "$(cat /tmp/top.err)"
check_match "tasks --top -j: carries the backend" "\"backend\":\"$tasks_backend\"" "$(cat /tmp/top.json)"
row=$(grep -o "{[^{}]*\"tgid\":$ddpid,[^{}]*}" /tmp/top.json)
if [ "$tasks_backend" = bpf ]; then
	check_match "tasks --top: the exited dd read 1 MiB in 256 ops ($row)" \
		"^\\{\"comm\":\"dd\",\"ops\":256,\"read_bytes\":1048576,\"tgid\":$ddpid," "$row"
else
	skip "tasks --top: the exited dd read 1 MiB in 256 ops" \
		"taskstats' --top compares the processes alive at both ends of its interval; an exited one's I/O is in tasks -m"
fi

if [ "$tasks_backend" = bpf ]; then
	# A full per-thread map (one entry, held by a shell that read the
	# device through the page cache and waits until the dd is done): the
	# dd's bios are dropped, counted and said, and its I/O is unaffected.
	# The dd starts only once the holder has read: under a loaded host
	# a fixed pause let the dd come first and take the entry.
	echo 3 >/proc/sys/vm/drop_caches
	rm -f /tmp/held /tmp/release
	IOTALLY_BPF_MAX_THREADS=1 iotally -v -j tasks --top -i 12 -n 100 >/tmp/top.json 2>/tmp/top.err &
	topper=$!
	tasks_attached /tmp/top.err || fail "tasks --top, full map: attached" "$(cat /tmp/top.err)"
	sh -c "read -r -n 1 x </dev/mapper/$VOL; : >/tmp/held
		n=0; while [ ! -e /tmp/release ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n + 1)); done" &
	holder=$!
	wait_for 60 test -e /tmp/held || fail "full map: the holder read the device" "no /tmp/held after 60 s"
	check_eq "full map: dd still reads its 1 MiB" "1048576 bytes" \
		"$(/usr/bin/dd if=/dev/mapper/$VOL of=/dev/null bs=4096 count=256 iflag=direct 2>&1 |
			grep -o '^[0-9]* bytes')"
	wait $topper
	check_eq "full map: tasks --top exit status 0" 0 "$?"
	: >/tmp/release
	wait $holder
	dropped=$(grep -o '"thread_map_full":[0-9]*' /tmp/top.json | cut -d: -f2)
	check_cmp "full map: the dd's 256 bios are counted as dropped (${dropped:-none})" \
		-ge "${dropped:-0}" 256
	check_match "full map: said on stderr" "bpf maps full: [0-9]+ bios/waits of threads" \
		"$(cat /tmp/top.err)"

	# Real sleeps: a null_blk disk completing each read after 3 ms
	# (irqmode=2: timer). A dd of 2000 direct reads (6 s at least) is asked for with
	# -t over an interval it does not outlive: the reads it did meanwhile
	# slept, about 3 ms each, in the log2 bucket [2^21, 2^22) ns (12), and
	# the record of its exit is the one printed.
	if modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=3000000; then
		/usr/bin/dd if=/dev/nullb0 of=/dev/null bs=4096 count=2000 iflag=direct 2>/dev/null &
		ddpid=$!
		run iotally -j tasks -t $ddpid -i 120
		wait $ddpid
		check_eq "tasks -t on bpf: exit status 0" 0 "$rc"
		reads=$(printf '%s\n' "$out" | grep -o '"read":{"ops":[0-9]*' | grep -o '[0-9]*$')
		sectors=$(printf '%s\n' "$out" | grep -o '"read":{"ops":[0-9]*,"sectors":[0-9]*' |
			grep -o '[0-9]*$')
		waits=$(printf '%s\n' "$out" | grep -o '"wait":{"count":[0-9]*' | grep -o '[0-9]*$')
		total=$(printf '%s\n' "$out" | grep -o '"total_ns":[0-9]*' | grep -o '[0-9]*$')
		b12=$(printf '%s\n' "$out" | grep -o '{"bucket":12,"count":[0-9]*' | grep -o '[0-9]*$')
		check_cmp "null_blk: the dd's reads were counted (${reads:-none})" -gt "${reads:-0}" 0
		check_eq "null_blk: 8 sectors per 4 KiB read" "$((${reads:-0} * 8))" "${sectors:-none}"
		# A read whose 3 ms passed before its task went to sleep (a vCPU
		# the host kept off its CPU that long, under TCG) has no wait:
		# measured 8 of 1727.
		check_cmp "null_blk: a wait for 95 % of the reads at least ($waits waits, $reads reads)" \
			-ge "$((${waits:-0} * 100))" "$((${reads:-1} * 95))"
		check_cmp "null_blk: waits of 3 ms or more each (total ${total:-none} ns)" \
			-ge "${total:-0}" "$((${waits:-1} * 3000000))"
		check_cmp "null_blk: most waits in bucket 12, [2^21, 2^22) ns (${b12:-none} of $waits)" \
			-ge "$((${b12:-0} * 2))" "${waits:-1}"
		check_match "null_blk: the record says it comes from bpf" '"source":"bpf"' "$out"
		rmmod null_blk
	else
		fail "null_blk with timed completions" "modprobe null_blk failed"
	fi
fi
rm -f /tmp/top.json /tmp/top.err

# The exit listener's JSON lines are documents as every other command's:
# schema, command and timestamp on each record and on the closing summary.
# (Exit records come from taskstats on both kernels.)
iotally -j tasks -m 0 --duration 4 >/tmp/exits.json 2>/tmp/exits.err &
listener=$!
n=0
until grep -q '^listening' /tmp/exits.err 2>/dev/null || [ $n -ge 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
# shellcheck disable=SC2034 # i only counts the three rounds
for i in 1 2 3; do taskset -c 0 true; done
# A dd's 16 direct reads of 4 KiB are in its exit record.
taskset -c 0 /usr/bin/dd if=/dev/mapper/$VOL of=/dev/null bs=4096 count=16 iflag=direct 2>/dev/null
wait "$listener"
check_eq "tasks -m -j: exit status 0" 0 "$?"
exits=$(wc -l </tmp/exits.json | tr -d ' ')
check_cmp "tasks -m -j: three exits and a summary, one document a line ($exits lines)" -ge "$exits" 4
check_eq "tasks -m -j: every line has schema 2, command and timestamp" "$exits" \
	"$(grep -c '^{"command":"tasks",.*"schema":2,.*"timestamp":"[0-9T:.-]*Z","timestamp_ns":[0-9]*}$' /tmp/exits.json)"
check_match "tasks -m -j: the dd's exit record has its 16 reads, 128 sectors" \
	'"read":\{"ops":16,"sectors":128\}' "$(grep '"pid":' /tmp/exits.json)"
check_match "tasks -m -j: the last line is the summary" '"summary":\{"lost_exact":(true|false),' \
	"$(tail -n 1 /tmp/exits.json)"
rm -f /tmp/exits.json /tmp/exits.err
[ -z "$tis_was" ] || echo "$tis_was" >$TIS
