#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The layers of our kernel code, as Documentation/iotally-development.rst
# draws them: in each stack below, listed from the bottom up, an object may
# call only functions of the objects listed before it. Read from the
# objects of the patched kernel (build/kernel): a call that runs back up a
# stack, or a circle, fails. One TAP line per object.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${KERNEL_OUT:-$top/build/kernel}
# shellcheck source=host-tap.sh
. "$top/scripts/host-tap.sh"

stacks=(
	"drivers/md/dm-stats-mem drivers/md/dm-stats-index drivers/md/dm-stats-io drivers/md/dm-statistic drivers/md/dm-stats drivers/md/dm-stats-message"
	"lib/statistic-mem lib/statistic-types lib/statistic-data lib/statistic-core lib/statistic-definition lib/statistic-debugfs"
)

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
