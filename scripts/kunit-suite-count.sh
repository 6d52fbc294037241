#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# How many KUnit suites our kernel code registers (a kunit_test_suites()
# call may list several and span lines): each must report at boot.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC2046 # one word per folder
find $(grep -v '^#' scripts/kernel-dirs) -name '*.c' -print0 2>/dev/null |
	xargs -0r perl -0777 -ne '$n += 1 + tr/,// for /\bkunit_test_suites?\(([^)]*)\)/g;
		END { print $n + 0, "\n" }'
