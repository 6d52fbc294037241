# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally tasks --top needs per-task I/O in taskstats, which only the patched
# kernel has: there it lists the tasks; on the stock kernel (Debian's release
# ends in -amd64) it fails with one line and exit status 5, never an empty
# table with status 0. The exit listener (-m) works on both kernels.

case $(uname -r) in
*-amd64)
	check_error "tasks --top without per-task I/O: exit 5, one line" 5 "no per-task I/O" \
		iotally tasks --top -i 1 -n 3
	;;
*)
	read_at 0 4096 4 &
	check_ok "tasks --top with per-task I/O" iotally tasks --top -i 1 -n 3
	wait
	check_match "tasks --top prints its table" "TGID +COMM " "$(printf '%s\n' "$out" | sed -n 1p)"
	;;
esac

# The exit listener's JSON lines are documents as every other command's:
# schema, command and timestamp on each record and on the closing summary.
# (Exit records come from taskstats on both kernels.)
iotally -j tasks -m 0 --duration 4 >/tmp/exits.json 2>/tmp/exits.err &
listener=$!
n=0
until grep -q '^listening' /tmp/exits.err 2>/dev/null || [ $n -ge 200 ]; do
	sleep 0.1
	n=$((n + 1))
done
# shellcheck disable=SC2034 # i only counts the three rounds
for i in 1 2 3; do taskset -c 0 true; done
wait "$listener"
check_eq "tasks -m -j: exit status 0" 0 "$?"
exits=$(wc -l </tmp/exits.json | tr -d ' ')
check_cmp "tasks -m -j: three exits and a summary, one document a line ($exits lines)" -ge "$exits" 4
check_eq "tasks -m -j: every line has schema 2, command and timestamp" "$exits" \
	"$(grep -c '^{"command":"tasks",.*"schema":2,.*"timestamp":"[0-9T:.-]*Z","timestamp_ns":[0-9]*}$' /tmp/exits.json)"
check_match "tasks -m -j: the last line is the summary" '"summary":\{"lost_exact":(true|false),' \
	"$(tail -n 1 /tmp/exits.json)"
rm -f /tmp/exits.json /tmp/exits.err
