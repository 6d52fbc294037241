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
. scripts/tap.sh

if ! command -v shellcheck >/dev/null; then
	echo "1..1"
	echo "not ok 1 - shellcheck is installed # make deps installs it (versions.mk DEB_PACKAGES)"
	exit 1
fi

files=("$@")
if ((${#files[@]} == 0)); then
	mapfile -t tracked < <(git ls-files)
	if ((${#tracked[@]} == 0)); then
		echo "1..1"
		echo "not ok 1 - the repository's files are listed # git ls-files gave none"
		exit 1
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

echo "1..${#files[@]}"
n=0 failed=0
for f in "${files[@]}"; do
	n=$((n + 1))
	hits=$(awk -v f="$f:" 'index($0, f) == 1' "$report")
	tap_result "$n" "$f is shellcheck clean" "$hits" || failed=1
done
# A shellcheck that fails without a finding (cannot run, bad option) fails too.
if ((rc != 0 && failed == 0)); then
	echo "# shellcheck exited with $rc and reported no finding:"
	sed 's/^/#   /' "$report"
	failed=1
fi
exit $failed
