#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The documentation names no path of the machine it was written on: a
# reader's machine has no /work/wt-x/build/kernel, no /root/... or
# /home/NAME/..., no /tmp/tmp.XXXX. Paths in the docs are relative to the
# checkout (build/kernel, tests/vm/run.sh), a system path (/sys/block,
# /usr/sbin/iotally), or start with the placeholder /path/to/.
#
# TAP, one test per place checked; a failure lists each offending line.
#
#   scripts/check-doc-paths.sh [PLACE...]   (default: the documentation)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=host-tap.sh
. scripts/host-tap.sh

places=("$@")
((${#places[@]})) || places=(Documentation README.md patches tools/iotally/iotally.8)

# An absolute path under a home or scratch directory, or any absolute path
# with a build/ directory in it (a build tree, ours or the kernel's):
# "/path/to/..." is the placeholder and allowed.
machine='(^|[^[:alnum:]_.~/-])/(work|root|home|tmp|var/tmp|builds?)/[[:alnum:]_]'
build_tree='(^|[^[:alnum:]_.~/-])/[[:alnum:]_.+-]+(/[[:alnum:]_.+-]+)*/build/'

for place in "${places[@]}"; do
	if [[ ! -e $place ]]; then
		fail "$place names no build-machine path" "$place does not exist"
		continue
	fi
	hits=$(grep -rnE "$machine|$build_tree" "$place" | grep -vE '/path/to/' || true)
	[[ -z $hits ]]
	tap_result $? "$place names no build-machine path" "$hits"
done
tap_finish
