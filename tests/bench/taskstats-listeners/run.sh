#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Legacy taskstats exit listeners, guest part (tests/bench/taskstats-listeners/
# host.sh boots the patched and the stock kernel): forkexit's fork-and-exit
# rate with 0, 1 and 8 upstream `getdelays -l` listeners registered for
# every CPU, none of which asks for TASKSTATS_TYPE_IO. Each round measures
# 0 1 8 8 1 0 listeners (8 1 0 0 1 8 every other round), so that drift
# weighs on every count alike. One line per measurement:
#   # BENCH kind=listeners n=N round=R rate=X
. ../lib.sh

ROUNDS=${BENCH_ROUNDS:-4}
FORK_SECONDS=${BENCH_FORK_SECONDS:-2}
CPUS=0-$(($(nproc) - 1))

for p in forkexit getdelays; do
	command -v $p >/dev/null || bail "$p is not in the guest"
done

# measure N ROUND: forkexit with N listeners, each printing every record
# it gets to /dev/null as upstream getdelays -l does to its terminal
measure() {
	_pids=
	_i=0
	while [ $_i -lt "$1" ]; do
		getdelays -l -m $CPUS >/dev/null 2>&1 &
		_pids="$_pids $!"
		_i=$((_i + 1))
	done
	# getdelays registers its cpumask at once; a second lets all of them
	sleep 1
	for _p in $_pids; do
		kill -0 "$_p" 2>/dev/null || bail "getdelays -l exited (round $2, $1 listeners)"
	done
	_rate=$(forkexit "$FORK_SECONDS" | awk '$1 == "forks" { print $6 }')
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$_pids" ] || { kill $_pids; wait $_pids 2>/dev/null; }
	if [ -n "$_rate" ]; then
		echo "# BENCH kind=listeners n=$1 round=$2 rate=$_rate"
		pass "fork+exit, $1 listeners, round $2: $_rate per second"
	else
		fail "fork+exit, $1 listeners, round $2" "forkexit printed no rate"
	fi
}

r=1
while [ $r -le "$ROUNDS" ]; do
	order="0 1 8 8 1 0"
	[ $((r % 2)) = 0 ] && order="8 1 0 0 1 8"
	for n in $order; do
		measure "$n" $r
	done
	r=$((r + 1))
done
tap_finish
