#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: boot the patched kernel and show iotally reporting live I/O on a
# DM device. The guest's output is shown as it comes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=build/logs/demo/tap.log
rm -rf build/logs/demo
mkdir -p build/logs/demo
: >"$log"
tail -n +1 -F "$log" 2>/dev/null | sed -u -e 's/\r$//' -e '/^# iotally-/d' &
tailer=$!
trap 'kill $tailer 2>/dev/null' EXIT
set +e
tests/vm/run.sh --kernel patched --name demo --suite demo --timeout 300 >build/logs/demo.out 2>&1
rc=$?
set -e
sleep 1
echo
grep -E '^(not ok|# demo)' build/logs/demo.out || true
exit $rc
