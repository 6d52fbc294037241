#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Our KUnit suites built as modules load on a kernel with everything of ours
# as modules: each links against what it calls (exported for KUnit, in the
# EXPORTED_FOR_KUNIT_TESTING namespace) and runs as it loads. Their KTAP
# goes to the console, where the host counts it (tests/vm/run.sh
# --kunit-suites); here, each module loads and its suite reports.
. ../lib.sh

for m in $(grep -v '^#' modules); do
	run modprobe "$m"
	check_eq "modprobe $m" "0" "$rc${err:+ $err}"
done
# KUnit keeps each suite's last results in debugfs.
for d in /sys/kernel/debug/kunit/*/; do
	[ -f "$d/results" ] || continue
	s=$(basename "$d")
	check_match "KUnit suite $s reported its results" '^(not )?ok [0-9]+ ' "$(tail -n 1 "$d/results")"
done
tap_finish
