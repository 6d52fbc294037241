#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Source me: the one reader of versions.mk for shell.
#
# Exports the plain "NAME := value" settings of versions.mk (the kernel
# release, the source tarball, ...), and defines versions_var NAME
# [VAR=VALUE...]: any variable of versions.mk as make expands it, with the
# given variables set (e.g. SUITE=trixie for $(SUITE).KERNEL_RELEASE).
_versions_mk=$(dirname "${BASH_SOURCE[0]}")/../versions.mk
_versions_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
while IFS= read -r _line; do
	if [[ $_line =~ ^([A-Z_]+)[[:space:]]*:=[[:space:]]*([^$]*)$ ]]; then
		export "${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
	fi
done <"$_versions_mk"
unset _line _versions_mk

versions_var() {
	local name=$1
	shift
	make -s -C "$_versions_top" -f versions.mk --no-print-directory "$@" \
		--eval 'print-var-%: ; @echo $($*)' "print-var-$name"
}
