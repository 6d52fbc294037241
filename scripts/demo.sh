#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: boot the patched kernel and show iotally on a device with known
# latency (tests/selftests/demo). The guest's output is shown as it comes,
# without the harness: TAP result lines, the plan and the boot markers stay
# in build/logs/demo.out; a failed check and the closing count are shown.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=build/logs/demo/tap.log
rm -rf build/logs/demo
mkdir -p build/logs/demo
: >"$log"
tail -n +1 -F "$log" 2>/dev/null | sed -u -e 's/\r$//' -e '/^# iotally-/d' \
	-e '/^ok [0-9]* - /d' -e '/^1\.\.[0-9]*$/d' &
tailer=$!
trap 'kill $tailer 2>/dev/null' EXIT
set +e
tests/vm/run.sh --kernel patched --name demo --suite demo --timeout 400 >build/logs/demo.out 2>&1
rc=$?
set -e
sleep 1
kill $tailer 2>/dev/null || true
echo
grep -E '^not ok' build/logs/demo.out build/logs/demo/tap.log 2>/dev/null | sed 's/^[^:]*://' || true
# The counts of tests/vm/run.sh: the checks the guest ran, and its own
# (guest finished, no kernel splat).
read -r passed failed skipped <build/logs/demo/results 2>/dev/null || passed='?' failed='?' skipped='?'
echo "demo: $passed checks passed, $failed failed, $skipped skipped (log: build/logs/demo.out)"
exit $rc
