#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iotally serve benchmark, host part (run by scripts/bench.sh): on each
# kernel, one boot (tests/bench/serve/run.sh) that times one scrape of every
# region against `dmstats report` of the same regions, at 1,000 and 10,000
# one-area regions, in interleaved rounds; medians and ratios.
# The stock kernel's guest has TCP/IP, so it also times GET /metrics of a
# running server; the patched guest kernel has none.
#
# Environment: BENCH_KERNELS ("patched stock"), BENCH_ROUNDS (5),
# BENCH_SIZES ("1000 10000"), BENCH_RUNTIME (1), BENCH_MEM (guest MB: 3072
# patched, 6144 stock, whose engine needs about 650 MB for 10,000 regions).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
rounds=${BENCH_ROUNDS:-5}
read -ra kernels <<<"${BENCH_KERNELS:-patched stock}"
stage=$top/build/bench/serve
mkdir -p "$stage"

make -C "$top" --no-print-directory tools >/dev/null
"$top/scripts/test-helpers.sh"
printf 'BENCH_ROUNDS=%s\nBENCH_SIZES="%s"\nBENCH_RUNTIME=%s\n' "$rounds" \
	"${BENCH_SIZES:-1000 10000}" "${BENCH_RUNTIME:-1}" >"$stage/guest.conf"

status=0
for kernel in "${kernels[@]}"; do
	case $kernel in
	patched) make -C "$top" --no-print-directory kernel >/dev/null; mem=${BENCH_MEM:-3072} ;;
	stock) mem=${BENCH_MEM:-6144} ;;
	*) echo "bench serve: unknown kernel '$kernel' (patched or stock)" >&2; exit 1 ;;
	esac
	"$top/tests/vm/run.sh" --kernel "$kernel" --name "bench-serve-$kernel" --mem "$mem" \
		--timeout 2400 --guest-config "$stage/guest.conf" --suite bench/serve || status=$?
done

{
	for kernel in "${kernels[@]}"; do
		awk -v rounds="$rounds" -v kernel="$kernel" -f "$top/tests/bench/lib.awk" \
			-f "$top/tests/bench/serve/report.awk" "$top/build/logs/bench-serve-$kernel/tap.log"
		echo
	done
} | tee "$stage/report.txt"
exit $status
