#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Lay kselftest's frame (scripts/kselftest-frame.sh) and our suites out in
# build/kselftest as the kernel tree has them (tools/testing/selftests/
# iotally/SUITE), with the files patches/mail-series ships there from
# elsewhere (libiotally's headers the helpers share: map lines of one file),
# and build what the named suites' Makefiles build (their helper programs)
# with kselftest's own make, which sees nothing of libiotally but those
# copies. Incremental: files keep their times, so only a changed helper is
# built again. Prints the stage's root.
#
#   scripts/kselftest-stage.sh [SUITE...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
frame=$("$top/scripts/kselftest-frame.sh")
stage=$top/build/kselftest
selftests=$stage/tools/testing/selftests

mkdir -p "$selftests/iotally"
exec 9>"$top/build/.kselftest-stage.lock"
flock 9
rsync -a --exclude=.extracted "$frame/" "$stage/"
# A file gone from tests/selftests goes from the stage, but not what the
# suites' Makefiles built there.
protect=()
while read -r mk progs; do
	d=$(basename "$(dirname "$mk")")
	for p in $progs; do protect+=(--filter="protect /$d/$p"); done
done < <(grep -H '^TEST_GEN_PROGS_EXTENDED :=' "$top"/tests/selftests/*/Makefile |
	sed 's/:TEST_GEN_PROGS_EXTENDED := / /')
# What patches/mail-series ships into our folder from elsewhere, one file
# a map line, as "SOURCE<TAB>KERNEL_PATH".
maps=$(python3 "$top/scripts/mail-series.py" file-maps)
ours=tools/testing/selftests/iotally/
from=() to=()
while IFS=$'\t' read -r src dst; do
	[[ $dst == "$ours"* ]] || continue
	from+=("$top/$src") to+=("${dst#"$ours"}")
	protect+=(--filter="protect /${dst#"$ours"}")
done <<<"$maps"
rsync -a --delete "${protect[@]}" "$top/tests/selftests/" "$selftests/iotally/"
for i in "${!from[@]}"; do
	rsync -a "${from[i]}" "$selftests/iotally/${to[i]}"
done
targets=()
for s in "$@"; do
	[[ -f $top/tests/selftests/$s/Makefile ]] && targets+=("iotally/$s")
done
if ((${#targets[@]})); then
	make -s -C "$selftests" TARGETS="${targets[*]}" all >&2
fi
echo "$stage"
