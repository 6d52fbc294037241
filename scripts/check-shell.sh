#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every shell file of the repository is clean under shellcheck -S warning.
# A shell file is a tracked file named *.sh or *.bash, or whose first line
# is a #! of sh, bash or dash (tests/vm/init, .ci/run, debian/*.postinst).
# .shellcheckrc makes shellcheck follow each script's sources from its own
# directory; a sourced fragment says its shell (# shellcheck shell=sh).
#
# TAP, one test per file; a failure lists shellcheck's findings for it.
# One shellcheck run for all of them (about 15 seconds on 2 cores).
#
#   scripts/check-shell.sh [FILE...]   (default: every shell file)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=host-tap.sh
. scripts/host-tap.sh

if ! command -v shellcheck >/dev/null; then
	fail "shellcheck is installed" "make deps installs it (versions.mk DEB_PACKAGES)"
	tap_finish
	exit
fi

files=("$@")
if ((${#files[@]} == 0)); then
	mapfile -t tracked < <(git ls-files)
	if ((${#tracked[@]} == 0)); then
		fail "the repository's files are listed" "git ls-files gave none"
		tap_finish
		exit
	fi
	for f in "${tracked[@]}"; do
		[[ -f $f && ! -L $f ]] || continue
		case $f in
		*.sh | *.bash) files+=("$f") ;;
		*) head -n 1 "$f" 2>/dev/null | grep -qE '^#!.*/(env +)?(ba|da)?sh( |$)' && files+=("$f") ;;
		esac
	done
fi

report=$(mktemp)
trap 'rm -f "$report"' EXIT
shellcheck -S warning -f gcc "${files[@]}" >"$report" 2>&1
rc=$?

for f in "${files[@]}"; do
	hits=$(awk -v f="$f:" 'index($0, f) == 1' "$report")
	[[ -z $hits ]]
	tap_result $? "$f is shellcheck clean" "$hits"
done
# A shellcheck that fails without a finding (cannot run, bad option) fails too.
if ((rc != 0 && $(tap_failures) == 0)); then
	fail "shellcheck ran" "shellcheck exited with $rc and reported no finding:
$(cat "$report")"
fi
tap_finish
