# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # $status, $stage, ... are for the host.sh
#
# What the benches that boot one guest per kernel share (tests/bench/iotally
# and tests/bench/serve host.sh): the same guest part on the patched and the
# stock kernel, one boot each, and one table per kernel. Source me from a
# host.sh after `set -euo pipefail`.
#
#   bench_kernels_setup NAME SETTINGS
#       sets $top, $rounds (BENCH_ROUNDS, 5), $kernels (BENCH_KERNELS,
#       "patched stock") and $stage (build/bench/NAME); builds the tools and
#       the guest helpers; writes BENCH_ROUNDS and SETTINGS (more
#       KEY=VALUE lines) into the guest's /etc/iotally.conf
#   bench_kernels_boot NAME TIMEOUT
#       boots tests/bench/NAME/run.sh once per kernel, as bench-NAME-KERNEL,
#       in BENCH_MEM MB (3072 patched; 6144 stock, whose engine needs about
#       650 MB for 10,000 regions); sets $status non-zero if a boot failed
#   bench_kernels_report NAME
#       each kernel's table (tests/bench/NAME/report.awk over its tap.log)

bench_kernels_setup() {
	local name=$1 settings=$2
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	rounds=${BENCH_ROUNDS:-5}
	read -ra kernels <<<"${BENCH_KERNELS:-patched stock}"
	stage=$top/build/bench/$name
	mkdir -p "$stage"

	make -C "$top" --no-print-directory tools >/dev/null
	"$top/scripts/test-helpers.sh"
	printf 'BENCH_ROUNDS=%s\n%s\n' "$rounds" "$settings" >"$stage/guest.conf"
	status=0
}

bench_kernels_boot() {
	local name=$1 timeout=$2 kernel mem
	for kernel in "${kernels[@]}"; do
		case $kernel in
		patched) make -C "$top" --no-print-directory kernel >/dev/null; mem=${BENCH_MEM:-3072} ;;
		stock) mem=${BENCH_MEM:-6144} ;;
		*) echo "bench $name: unknown kernel '$kernel' (patched or stock)" >&2; exit 1 ;;
		esac
		"$top/tests/vm/run.sh" --kernel "$kernel" --name "bench-$name-$kernel" --mem "$mem" \
			--timeout "$timeout" --guest-config "$stage/guest.conf" --suite "bench/$name" ||
			status=$?
	done
}

bench_kernels_report() {
	local name=$1 kernel
	for kernel in "${kernels[@]}"; do
		awk -v rounds="$rounds" -v kernel="$kernel" -f "$top/tests/bench/lib.awk" \
			-f "$top/tests/bench/$name/report.awk" "$top/build/logs/bench-$name-$kernel/tap.log"
		echo
	done
}
