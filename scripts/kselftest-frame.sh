#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Print the root of kselftest's frame, taken from Debian's linux-source-6.12
# into build/src/kselftest once: tools/testing/selftests/{Makefile,lib.mk,
# run_kselftest.sh}, its kselftest/ folder (the runner, ktap_helpers.sh) and
# the one file of scripts/ its Makefile includes. Our suites
# (tests/selftests) go into its iotally/ folder, in a guest
# (scripts/kselftest-stage.sh, tests/vm/mkinitramfs.sh) or in the kernel
# tree (the mail series), and run with
#   make -C tools/testing/selftests TARGETS=iotally/SUITE run_tests
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
. "$top/scripts/versions.sh"
frame=$top/build/src/kselftest
members=(tools/testing/selftests/Makefile tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest tools/testing/selftests/run_kselftest.sh
	scripts/subarch.include)

mkdir -p "$top/build/src"
exec 9>"$top/build/src/.kselftest.lock"
flock 9
# (.extracted names what was taken: a longer list extracts again)
if [[ "$(cat "$frame/.extracted" 2>/dev/null)" != "${members[*]}" ]]; then
	tmp=$top/build/src/.kselftest.tmp
	rm -rf "$frame" "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$KERNEL_SOURCE_TAR" "${members[@]/#/$KERNEL_SOURCE_DIR/}" ||
		{ echo "kselftest-frame.sh: cannot extract kselftest from $KERNEL_SOURCE_TAR" >&2; exit 1; }
	mv "$tmp/$KERNEL_SOURCE_DIR" "$frame"
	rm -rf "$tmp"
	echo "${members[*]}" >"$frame/.extracted"
fi
echo "$frame"
