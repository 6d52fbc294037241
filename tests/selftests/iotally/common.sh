# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# Helpers of the iotally suite (on top of ../dm-stats/common.sh).

# json_num FIELD TEXT: the first number given to "FIELD" in a JSON text.
json_num() {
	printf '%s\n' "$2" | grep -o "\"$1\":[-0-9.e+]*" | head -n 1 | cut -d: -f2
}

# json_int FIELD TEXT: json_num as an integer (3.0 -> 3).
json_int() {
	json_num "$1" "$2" | awk '{ printf "%d\n", $1 }'
}

# lines TEXT: the number of lines of TEXT (0 for none).
lines() {
	if [ -z "$1" ]; then
		echo 0
	else
		printf '%s\n' "$1" | wc -l | tr -d ' '
	fi
}

# check_error NAME EXIT_CODE TEXT CMD...: the command fails with EXIT_CODE
# and exactly one line on stderr that starts with "iotally: " and contains TEXT.
check_error() {
	_name=$1
	_code=$2
	_want=$3
	shift 3
	run "$@"
	if [ "$rc" = "$_code" ] && [ "$(lines "$err")" = 1 ] &&
		case $err in "iotally: "*"$_want"*) true ;; *) false ;; esac; then
		pass "$_name"
	else
		fail "$_name" "command: $*
expected: exit $_code, one line 'iotally: ...$_want...'
actual:   exit $rc, stderr: $err"
	fi
}

# json_rows LEVEL TEXT: the rows of a JSON report at LEVEL (device, region,
# area, group), one per line (JSON keys are sorted: every row starts "area").
json_rows() {
	printf '%s\n' "$2" | sed -e 's/\],"sample":.*$//' -e 's/},{"area"/}\n{"area"/g' |
		grep "\"level\":\"$1\""
}

# kname DMNAME: the kernel name of a device-mapper device (dm-0).
kname() {
	echo "dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"
}
