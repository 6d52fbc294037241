#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest suites that apply to one guest, as tests/vm/run.sh options
# ("--suite NAME ..."): every tests/selftests/NAME/ with a run.sh whose
# optional "kernels" file names GUEST among its words (lines starting with
# # are comments); a suite without that file applies to every guest but
# nodebugfs, lockdown and modular.
#
#   scripts/guest-suites.sh patched|stock|ourdm|debug|nodebugfs|lockdown|modular
#
# modular: the kernel of scripts/kernel-hz.sh, everything of ours as modules.
set -euo pipefail
cd "$(dirname "$0")/.."
guest=${1:?usage: guest-suites.sh patched|stock|ourdm|debug|nodebugfs|lockdown|modular}
for d in tests/selftests/*/; do
	[[ -f $d/run.sh ]] || continue
	if [[ -f $d/kernels ]] && ! grep -v '^#' "$d/kernels" | tr -s ' \t' '\n' | grep -qxF -- "$guest"; then
		continue
	fi
	# the guests without debugfs, locked down or modular run only the
	# suites that name them
	[[ ($guest == nodebugfs || $guest == lockdown || $guest == modular) && ! -f $d/kernels ]] && continue
	printf -- '--suite %s ' "$(basename "$d")"
done
