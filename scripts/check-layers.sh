#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The layers of our kernel code, as Documentation/iotally-development.rst
# draws them (read from its diagram, the one place the order is written):
# in each stack, from the bottom up, an object may call only functions of
# the objects below it. The calls are read from the objects of the patched
# kernel (build/kernel): a call that runs back up a stack, or a circle,
# fails. One TAP line per object.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${KERNEL_OUT:-$top/build/kernel}
# shellcheck source=host-tap.sh
. "$top/scripts/host-tap.sh"

doc=$top/Documentation/iotally-development.rst
# The stacks, bottom up ("dir/object ..." a line), read from the layer
# diagram of the doc: a literal block whose header lines name two stacks
# and their folders ("dm-stats engine (drivers/md)   statistics layer
# (lib)"), each row a file of each, the top first.
mapfile -t stacks < <(awk '
function flush(   c, i, s) {
	for (c = 1; c <= 2; c++) {
		if (dir[c] == "" || n[c] == 0)
			continue
		s = ""
		for (i = n[c]; i >= 1; i--)
			s = s " " dir[c] "/" obj[c, i]
		print substr(s, 2)
	}
	dir[1] = dir[2] = ""; n[1] = n[2] = 0; inblock = 0
}
/^::$/ { literal = 1; next }
literal && /^[^ ]/ { flush(); literal = 0 }
!literal { next }
/\([a-z\/]+\) +[^ ].*\([a-z\/]+\)$/ {
	flush()
	match($0, /\) +[^ ]/); col2 = RSTART + RLENGTH - 1
	match($0, /\([a-z\/]+\)/); dir[1] = substr($0, RSTART + 1, RLENGTH - 2)
	rest = substr($0, col2); match(rest, /\([a-z\/]+\)/); dir[2] = substr(rest, RSTART + 1, RLENGTH - 2)
	inblock = 1
	next
}
inblock && /^ *-+ +-+ *$/ { next }
inblock && /^ *$/ { flush(); next }
inblock {
	left = substr($0, 1, col2 - 1); right = substr($0, col2)
	if (match(left, /[A-Za-z0-9_-]+\.c/)) obj[1, ++n[1]] = substr(left, RSTART, RLENGTH - 2)
	if (match(right, /^[A-Za-z0-9_-]+\.c/)) obj[2, ++n[2]] = substr(right, RSTART, RLENGTH - 2)
}
END { flush() }' "$doc")
# the doc draws the four stacks of our kernel code
check_eq "the layer diagram of ${doc#"$top"/} has our four stacks" \
	"drivers/md lib kernel block" "$(for st in "${stacks[@]}"; do o=${st%% *}; echo "${o%/*}"; done | xargs)"

# The texts that give the order for the kernel tree give the diagram's.
stack_of() { printf '%s\n' "${stacks[@]}" | grep "^$1/"; }
check_eq "the file list of Documentation/admin-guide/device-mapper/statistics-engine.rst is in the diagram's order" \
	"$(stack_of drivers/md)" \
	"$(sed -n 's/^- ``\(drivers\/md\/dm-stat[a-z-]*\)\.c``.*/\1/p' "$top/Documentation/admin-guide/device-mapper/statistics-engine.rst" | xargs)"
check_eq "the comment of lib/statistic-internal.h is in the diagram's order" \
	"$(stack_of lib)" \
	"$(sed -n '/^ \* The layer.s files, each calling only those listed before it:$/,/\*\//p' \
		"$top/lib/statistic-internal.h" | grep -o 'statistic-[a-z]*\.c' | sed 's/^/lib\//; s/\.c$//' | xargs)"

defined() { nm --defined-only "$out/$1.o" | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' | sort -u; }
undefined() { nm --undefined-only "$out/$1.o" | awk '{ print $2 }' | sort -u; }

for stack in "${stacks[@]}"; do
	read -ra objs <<<"$stack"
	for o in "${objs[@]}"; do
		if [[ ! -f $out/$o.o ]]; then
			echo "check-layers: $out/$o.o not built (make kernel first)" >&2
			exit 2
		fi
	done
	for i in "${!objs[@]}"; do
		ups=
		for ((j = i + 1; j < ${#objs[@]}; j++)); do
			calls=$(comm -12 <(undefined "${objs[i]}") <(defined "${objs[j]}"))
			[[ -n $calls ]] && ups+="${objs[j]}: $(tr '\n' ' ' <<<"$calls")"$'\n'
		done
		tap_result "$([[ -z $ups ]]; echo $?)" "${objs[i]} calls nothing above it in its stack" \
			"${ups%$'\n'}"
	done
done
tap_finish
