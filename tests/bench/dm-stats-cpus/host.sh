#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dm-stats benchmark with many possible CPUs (run by scripts/bench.sh): the
# guest part of the dm-stats benchmark (tests/bench/dm-stats/run.sh), its
# one-region rows with and without precise_timestamps, in one boot per
# number of possible CPUs (-smp 2,maxcpus=N; 2 of them online), on QEMU's
# instruction clock. What a per-I/O loop over possible CPUs would cost
# shows as IOPS falling with N; the goal is that each engine's rows stay
# within 5 % of their value at N=2.
#
# Environment: BENCH_MAXCPUS (default "2 64 255"; i440fx stops at 255),
# BENCH_ROUNDS (2), BENCH_RUNTIME (fio seconds, 2), BENCH_ICOUNT (QEMU
# -icount options, "shift=3,sleep=on").
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
rounds=${BENCH_ROUNDS:-2}
runtime=${BENCH_RUNTIME:-2}
maxcpus_list=${BENCH_MAXCPUS:-2 64 255}
icount_opts=${BENCH_ICOUNT-shift=3,sleep=on}

"$top/scripts/modules.sh"
"$top/scripts/test-helpers.sh"
stage=$top/build/bench/dm-stats-cpus
mkdir -p "$stage"
cp "$top/build/modules/dm-mod.ko" "$stage/dm-mod-iotally.ko"
printf 'BENCH_ROUNDS=%s\nBENCH_RUNTIME=%s\nBENCH_BIG_ROUNDS=0\nBENCH_ROWS="whole1 whole1-hist16-precise"\n' \
	"$rounds" "$runtime" >"$stage/guest.conf"

icount=()
[[ -n $icount_opts ]] && icount=(--icount "$icount_opts")
status=0
logs=()
for n in $maxcpus_list; do
	name=bench-dm-stats-cpus$n
	"$top/tests/vm/run.sh" --kernel stock --name "$name" --maxcpus "$n" --timeout 3600 \
		"${icount[@]}" --extra-module "$stage/dm-mod-iotally.ko" \
		--guest-config "$stage/guest.conf" --suite bench/dm-stats || status=$?
	logs+=("$top/build/logs/$name/tap.log")
done

awk -v icount="$icount_opts" -v rounds="$rounds" -v load="$(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs" \
	-v cpus="$maxcpus_list" -f "$top/tests/bench/lib.awk" \
	-f "$top/tests/bench/dm-stats-cpus/report.awk" "${logs[@]}" | tee "$stage/report.txt"
exit $status
