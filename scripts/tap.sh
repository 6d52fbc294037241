# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# TAP lines for the host-side checks that test one thing per item
# (scripts/check-doc-paths.sh, scripts/check-shell.sh).

# tap_result N DESCRIPTION FINDINGS: "ok N - DESCRIPTION" when FINDINGS is
# empty; otherwise "not ok N - DESCRIPTION" with each line of FINDINGS
# below it as a TAP comment, and status 1.
tap_result() {
	if [[ -z $3 ]]; then
		echo "ok $1 - $2"
		return 0
	fi
	echo "not ok $1 - $2"
	printf '%s\n' "$3" | sed 's/^/#   /'
	return 1
}
