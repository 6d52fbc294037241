#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# statistic_add() microbenchmark, guest part (run by
# tests/bench/statistic/host.sh): statistic_bench.ko times statistic_add()
# per type, running and stopped, next to a bare this_cpu_add(), on one CPU
# and on every CPU at once. Its table goes onto the TAP stream as
# "# BENCH " lines; TAP checks that the run happened and that the
# statistics took exactly the calls the benchmark made.
#
# Settings (from /etc/iotally.conf, written by host.sh): BENCH_OPS (calls
# per timed batch, a multiple of 1024, default 1024), BENCH_BATCHES (batches
# per case and CPU, 101).
# shellcheck source=../lib.sh
. ../lib.sh

OPS=${BENCH_OPS:-1024}
BATCHES=${BENCH_BATCHES:-101}
RUN=/sys/kernel/debug/statistic_bench/run
PARAMS=/sys/module/statistic_bench/parameters
DATA=/sys/kernel/debug/statistics/statistic_bench/data
CPUS=$(grep -c ^processor /proc/cpuinfo)

modprobe statistic_bench || bail "cannot load statistic_bench"
[ -w "$RUN" ] || bail "no $RUN"
# X cycles through 0..1023 in every batch: the checks below need whole cycles.
[ $((OPS % 1024)) = 0 ] || bail "BENCH_OPS=$OPS is not a multiple of 1024"

# A bad setting is refused and runs nothing.
echo 5 >"$PARAMS/ops"
if echo 1 2>/dev/null >"$RUN"; then
	fail "ops=5 is refused" "the write succeeded"
else
	pass "ops=5 is refused"
fi
check_eq "no table after a refused run" "" "$(cat "$RUN" 2>/dev/null)"

echo "$OPS" >"$PARAMS/ops"
echo "$BATCHES" >"$PARAMS/batches"
if echo 1 >"$RUN"; then
	pass "benchmark ran: $BATCHES batches of $OPS calls per case, 1 and $CPUS CPUs"
else
	bail "the benchmark failed"
fi
cat "$RUN" >/tmp/table
sed 's/^/# BENCH /' /tmp/table

# 2 header lines, a column line, the empty loop, this_cpu_add() inline and
# in a function of its own, six types and a full list (listfull: 16 entries,
# 1024 X values) running and stopped, and value and array running under
# guard(rcu) and under guard(preempt).
check_eq "table rows" 24 "$(wc -l </tmp/table)"
for t in value range list array history raw listfull; do
	check_eq "table has $t running and stopped" 2 "$(grep -cE "^$t +(running|stopped) " /tmp/table)"
done
for t in value array; do
	check_eq "table has $t under guard(rcu) and guard(preempt)" 2 \
		"$(grep -cE "^$t +(rcu|preempt) " /tmp/table)"
done

# Each case ran BATCHES batches of OPS calls on 1 CPU, then on each CPU;
# run_value and run_array took three cases: plain and under either guard.
calls=$((OPS * BATCHES * (1 + CPUS)))
data=$(cat "$DATA")
check_eq "run_value counted every call" "run_value $((3 * calls))" "$(echo "$data" | grep '^run_value ')"
check_eq "stop_value counted nothing" "stop_value 0" "$(echo "$data" | grep '^stop_value ')"
# X cycles through 0..1023, each value calls/1024 times
check_eq "run_range: number min avg max" "run_range $calls 0 511.500 1023" \
	"$(echo "$data" | grep '^run_range ')"
check_eq "run_list has 1024 X values" 1024 "$(echo "$data" | grep -c '^run_list ')"
check_eq "run_list totals" "$calls" "$(echo "$data" | awk '$1 == "run_list" { s += $3 } END { print s }')"
# the full list took its first 16 X values; every other add was missed
check_eq "run_listfull has 16 X values" 16 "$(echo "$data" | grep -c '^run_listfull ')"
check_eq "run_listfull totals: 16 of every 1024 calls" "$((calls / 64))" \
	"$(echo "$data" | awk '$1 == "run_listfull" { s += $3 } END { print s }')"
check_eq "run_array totals" "$((3 * calls))" \
	"$(echo "$data" | awk '$1 == "run_array" { s += $3 } END { print s }')"
check_eq "run_array <=512 interval: X 257..512" "run_array <=512 $((3 * calls / 4))" \
	"$(echo "$data" | grep '^run_array <=512 ')"
check_eq "run_history totals" "$calls" "$(echo "$data" | awk '$1 == "run_history" { s += $3 } END { print s }')"
check_eq "run_raw: newest serial" "$((calls - 1))" "$(echo "$data" | awk '$1 == "run_raw" { s = $3 } END { print s }')"
check_eq "stopped statistics took nothing" "" \
	"$(echo "$data" | awk '$1 ~ /^stop_/ && $NF != 0')"

rmmod statistic_bench || fail "rmmod statistic_bench" "rc=$?"
tap_finish
