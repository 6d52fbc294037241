# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Source me: what make check-debug and make check-kmsan share, each a
# kernel flavour built and booted on its own, ending with one line
# "N passed, N failed" as make check does.

# flavour_build LOG MAKE_ARGS...: `make -s kernel MAKE_ARGS` with its output
# in build/logs/LOG; if it fails, its last lines, "0 passed, 1 failed" and
# exit 1.
flavour_build() {
	local log=build/logs/$1
	shift
	mkdir -p build/logs
	make -s kernel "$@" >"$log" 2>&1 && return 0
	tail -n 20 "$log"
	echo "0 passed, 1 failed"
	exit 1
}

# flavour_result OUT [EXTRA_FAILURES]: "P passed, F failed" from the last
# RESULT line of tests/vm/run.sh's output OUT (a missing line is a failure),
# plus EXTRA_FAILURES; status 0 when nothing failed.
flavour_result() {
	local p f
	read -r _ p f _ < <(grep '^RESULT ' "$1" | tail -n 1)
	f=$((${f:-1} + ${2:-0}))
	echo "${p:-0} passed, $f failed"
	((f == 0))
}
