#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Source me: the guest suites' checks (tests/selftests/lib.sh) for a host
# script that prints TAP, on the kernel's KTAP helpers from kselftest's
# frame (scripts/kselftest-frame.sh). Prints the version line.
KTAP_HELPERS=$("$(dirname "${BASH_SOURCE[0]}")/kselftest-frame.sh")/tools/testing/selftests/kselftest/ktap_helpers.sh ||
	exit 1
export KTAP_HELPERS
# shellcheck source=tests/selftests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tests/selftests/lib.sh"
