#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Source me: export the plain "NAME := value" settings of versions.mk to shell.
_versions_mk=$(dirname "${BASH_SOURCE[0]}")/../versions.mk
while IFS= read -r _line; do
	if [[ $_line =~ ^([A-Z_]+)[[:space:]]*:=[[:space:]]*([^$]*)$ ]]; then
		export "${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
	fi
done <"$_versions_mk"
unset _line _versions_mk
