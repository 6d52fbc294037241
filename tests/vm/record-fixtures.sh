#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Record real dm-stats replies from both kernels as parser fixtures:
# tools/iotally/tests/fixtures/recorded/<kernel>-<name>.{list,print}
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$top/tools/iotally/tests/fixtures/recorded
mkdir -p "$dest"
for kernel in stock patched; do
	"$top/tests/vm/run.sh" --kernel "$kernel" --name "fixtures-$kernel" --suite fixtures
	awk -v dir="$dest" -v k="$kernel" '
		{ sub(/\r$/, ""); sub(/^# /, "") } # kselftest runner prefix
		/^# fixture-begin / { file = dir "/" k "-" $3; printf "" > file; next }
		/^# fixture-end/ { close(file); file = ""; next }
		file != "" && /^#\| / { print substr($0, 4) >> file }
		file != "" && /^#\|$/ { print "" >> file }
	' "$top/build/logs/fixtures-$kernel/tap.log"
done
ls -l "$dest"
