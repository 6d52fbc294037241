#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: boot a kernel and show iotally on a device with known latency
# (tests/selftests/demo). The guest's output is shown as it comes, without
# the harness: TAP result lines, the plan and the boot markers stay in
# build/logs/demo.out; a failed check and the closing count are shown.
#
#   scripts/demo.sh [stock|patched]
#
#   stock    (the default) Debian's stock kernel with our out-of-tree
#            modules: build/modules/dm-mod.ko (our dm-stats engine) in place
#            of Debian's, and statistic.ko (make modules)
#   patched  our patched kernel, build/kernel (make kernel)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=${1:-stock}
case $kernel in
stock)
	for ko in build/modules/dm-mod.ko build/modules/statistic.ko; do
		[[ -f $ko ]] || { echo "demo: no $ko (make modules)" >&2; exit 2; }
	done
	guest=(--kernel stock --dm-mod build/modules/dm-mod.ko --extra-module build/modules/statistic.ko)
	kunit=''
	;;
patched) guest=(--kernel patched) kunit=', KUnit included' ;;
*) echo "usage: demo.sh [stock|patched]" >&2; exit 2 ;;
esac
log=build/logs/demo/tap.log
rm -rf build/logs/demo
mkdir -p build/logs/demo
: >"$log"
# The suite runs under kselftest's runner, which prefixes its lines with
# "# ": the runner's own lines go, the suite's lose the prefix.
tail -n +1 -F "$log" 2>/dev/null | sed -u -e 's/\r$//' -e '/^# iotally-/d' \
	-e '/^TAP version /d' -e '/^1\.\.1$/d' -e '/^# timeout set to /d' -e '/^# selftests: /d' \
	-e '/^ok [0-9]* selftests: /d' -e 's/^# \{0,1\}//' \
	-e '/^TAP version /d' -e '/^ok [0-9]* - /d' -e '/^1\.\.[0-9]*$/d' -e '/^# Totals: /d' &
tailer=$!
trap 'kill $tailer 2>/dev/null' EXIT
set +e
tests/vm/run.sh "${guest[@]}" --name demo --suite demo --timeout 400 >build/logs/demo.out 2>&1
rc=$?
sleep 1
kill $tailer 2>/dev/null || true
echo
grep -E '^(# )?not ok' build/logs/demo.out build/logs/demo/tap.log 2>/dev/null | sed 's/^[^:]*://' || true
# The demo's own checks (the patched guest also ran the KUnit suites at
# boot; the whole count is in the log), and whether the run as a whole passed.
tap=build/logs/demo/tap.log
passed=$(grep -E '^# ok [0-9]+ - ' "$tap" 2>/dev/null | grep -vc '# SKIP' || true)
failed=$(grep -Ec '^# not ok [0-9]+ - ' "$tap" 2>/dev/null || true)
plan=$(sed -n 's/^# 1\.\.\([0-9]*\)$/\1/p' "$tap" 2>/dev/null | tail -n 1)
# No plan: the guest did not get to the suite; say why (the runner's last words).
[[ -n $plan ]] || tail -n 5 build/logs/demo.out >&2
echo "demo: ${passed:-0} of ${plan:-?} checks passed, ${failed:-0} failed" \
	"(the whole boot${kunit}: $(tail -n 2 build/logs/demo.out | sed -n 's/^# demo: //p'))"
exit $rc
