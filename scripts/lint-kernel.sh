#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Style and static checks of our kernel C, one TAP line per file and check:
#   checkpatch.pl --strict on every .c/.h we ship and every patch in series,
#   sparse (make C=2) on every object of ours the patched kernel builds.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src/linux
out=$top/build/kernel
cd "$top" || exit
# The sparse runs build objects in build/kernel: not beside another build.
exec 8>"$out/.lock"
flock 8

# shellcheck source=host-tap.sh
. scripts/host-tap.sh
result() { # status name [details file]: its first 40 lines below a failure
	tap_result "$1" "$2" "$([[ $1 != 0 && -n ${3:-} ]] && head -n 40 "$3")"
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
checkpatch=(perl "$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types
	--ignore 'FILE_PATH_CHANGES,SPDX_LICENSE_TAG')

mapfile -t dirs < <(grep -v '^#' scripts/kernel-dirs)
mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
for f in "${files[@]}"; do
	"${checkpatch[@]}" -f "$f" >"$tmp" 2>&1
	result $? "checkpatch --strict $f" "$tmp"
done
if [[ -f patches/series ]]; then
	while read -r p _; do
		[[ -z $p || $p == \#* ]] && continue
		# on stdin: checkpatch reads a file git tracks as source, not as a
		# patch; the commits a Fixes: tag names are mainline's, which this
		# repository does not have (UNKNOWN_COMMIT_ID)
		perl "$src/scripts/checkpatch.pl" --strict --no-tree --quiet --no-signoff \
			--ignore UNKNOWN_COMMIT_ID - <"patches/$p" >"$tmp" 2>&1
		result $? "checkpatch --strict patches/$p" "$tmp"
	done <patches/series
fi

# sparse: only objects the kernel configuration builds.
for f in "${files[@]}"; do
	[[ $f == *.c ]] || continue
	obj=${f%.c}.o
	[[ -f $out/$obj ]] || continue
	# The same CC and HOSTCC as make kernel: another command line would
	# make kbuild rebuild the host tools and the whole kernel next time.
	make -s -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" C=2 \
		CHECK="sparse -Wsparse-error" "$obj" >"$tmp" 2>&1
	result $? "sparse $f" "$tmp"
done

tap_finish
