#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Our KUnit suites built as modules load on a kernel with everything of ours
# as modules: each links against what it calls (exported for KUnit, in the
# EXPORTED_FOR_KUNIT_TESTING namespace) and runs as it loads. Their KTAP
# goes to the console, where the host counts it (tests/vm/run.sh
# --kunit-suites, every suite and case); here, each module loads. (The
# modular kernel has no KUnit debugfs: a loop over its results checked
# nothing and is gone.)
. ../lib.sh

for m in $(grep -v '^#' modules); do
	run modprobe "$m"
	check_eq "modprobe $m" "0" "$rc${err:+ $err}"
done
tap_finish
