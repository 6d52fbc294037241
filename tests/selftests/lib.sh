# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# The checks of the guest suites (POSIX sh, runs under busybox ash), on top
# of the kernel's KTAP helpers (tools/testing/selftests/kselftest/
# ktap_helpers.sh), which print the lines and keep the counts. The host-side
# checks that print TAP source it too (bash, through scripts/host-tap.sh).
#
# A suite runs from its own folder, as kselftest runs it: in the kernel tree
# that is tools/testing/selftests/iotally/NAME, and the KTAP helpers are two
# levels up. A shell cannot find the folder of a file it sources, so another
# layout says where they are in KTAP_HELPERS (tests/vm/init, the Debian
# guest, scripts/host-tap.sh).
#
# Each check prints one "ok N - name" or "not ok N - name" line; a failure
# is followed by "#" lines with the command, the expected and the actual
# value. The version line comes first. tap_finish prints the plan (last: how
# many checks a suite makes depends on the kernel it runs on) and the
# totals, and returns non-zero if anything failed. A suite whose
# prerequisite is missing skips as a whole: skip_all (exit 4, KSFT_SKIP).

# shellcheck disable=SC1090,SC1091 # the kernel's, found at run time
. "${KTAP_HELPERS:-../../kselftest/ktap_helpers.sh}" || {
	echo "Bail out! no ktap_helpers.sh at ${KTAP_HELPERS:-../../kselftest/ktap_helpers.sh}"
	exit 1
}
ktap_print_header

# The KTAP helpers echo names and messages unquoted: no pathname expansion
# of them.
_tap_noglob() { # function args...
	case $- in
	*f*) "$@" ;;
	*)
		set -f
		"$@"
		set +f
		;;
	esac
}

_tap_result() { # status name
	if [ "$1" = 0 ]; then
		_tap_noglob ktap_test_pass "- $2"
	else
		_tap_noglob ktap_test_fail "- $2"
	fi
}

_tap_diag() { # prefix text (multi-line safe)
	printf '%s\n' "$2" | sed "s/^/#   $1/"
}

# tap_result STATUS NAME [DIAGNOSTICS]: "ok" when STATUS is 0; otherwise
# "not ok" with each line of DIAGNOSTICS below it as a TAP comment. Returns
# 0 or 1 with the result, so a caller can stop at a failed step.
tap_result() {
	if [ "$1" = 0 ]; then
		_tap_result 0 "$2"
		return 0
	fi
	_tap_result 1 "$2"
	[ -z "${3:-}" ] || _tap_diag "" "$3"
	return 1
}

# ok NAME: a passing result for a check made by hand.
pass() { _tap_result 0 "$1"; }

# fail NAME WHY: a failing result for a check made by hand.
fail() {
	_tap_result 1 "$1"
	_tap_diag "" "$2"
}

# skip NAME REASON: not a pass. Reported with a SKIP directive.
skip() {
	_tap_noglob ktap_print_msg "$1: $2"
	_tap_noglob ktap_test_skip "- $1"
}

# skip_all REASON: a prerequisite of the whole suite is missing (a program,
# a kernel option, a boot parameter). Says why and exits 4, as kselftest
# expects; only before the first check.
skip_all() {
	_tap_noglob ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# require_cmd PROGRAM...: each program is on PATH, or the suite skips.
require_cmd() {
	for _req in "$@"; do
		command -v "$_req" >/dev/null || skip_all "$_req is not installed"
	done
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		_tap_result 0 "$1"
	else
		_tap_result 1 "$1"
		_tap_diag "expected: " "$2"
		_tap_diag "actual:   " "$3"
	fi
}

# check_match NAME EXTENDED_REGEX ACTUAL
check_match() {
	# grep reads all of it (no -q): under pipefail, a grep that stopped at the
	# first match would fail a long printf with EPIPE, and the check with it.
	if printf '%s\n' "$3" | grep -E -- "$2" >/dev/null; then
		_tap_result 0 "$1"
	else
		_tap_result 1 "$1"
		_tap_diag "expected to match: " "$2"
		_tap_diag "actual: " "$3"
	fi
}

# check_cmp NAME OP A B: numeric comparison (OP is -eq -ge -le -gt -lt).
check_cmp() {
	if test "$3" "$2" "$4" 2>/dev/null; then
		_tap_result 0 "$1"
	else
		_tap_result 1 "$1"
		_tap_diag "" "expected: $3 $2 $4"
	fi
}

# run CMD...: run a command, keeping its stdout in $out, its stderr in $err
# and its exit status in $rc. Never fails.
run() {
	_run_err=$(mktemp)
	out=$("$@" 2>"$_run_err")
	rc=$?
	err=$(cat "$_run_err")
	rm -f "$_run_err"
	_last_cmd="$*"
	return 0
}

# check_ok NAME CMD...: the command succeeds; its output is left in $out.
check_ok() {
	_name=$1
	shift
	run "$@"
	if [ "$rc" = 0 ]; then
		_tap_result 0 "$_name"
	else
		_tap_result 1 "$_name"
		_tap_diag "command: " "$_last_cmd"
		_tap_diag "exit status: " "$rc"
		_tap_diag "stderr: " "$err"
	fi
}

# check_fails NAME ERROR_TEXT CMD...: the command fails and its stderr
# contains ERROR_TEXT (e.g. the strerror of the errno the kernel returned).
check_fails() {
	_name=$1
	_want=$2
	shift 2
	run "$@"
	case $rc:$err in
	0:*)
		_tap_result 1 "$_name"
		_tap_diag "command: " "$_last_cmd"
		_tap_diag "" "expected failure with \"$_want\", but it succeeded: $out"
		;;
	*"$_want"*) _tap_result 0 "$_name" ;;
	*)
		_tap_result 1 "$_name"
		_tap_diag "command: " "$_last_cmd"
		_tap_diag "" "expected an error containing \"$_want\""
		_tap_diag "stderr: " "$err"
		;;
	esac
}

# wait_for SECONDS CMD...: run CMD (its output dropped) every 0.1 s until it
# succeeds, for at most SECONDS; status 1 if it never did. A condition with
# expansions to redo each time goes through eval:
#   wait_for 60 eval '[ "$(cat $F)" = 0 ]' || bail "..."
wait_for() {
	_wait_n=$(($1 * 10))
	shift
	while [ "$_wait_n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_wait_n=$((_wait_n - 1))
	done
	return 1
}

# keep_comm_probes NAME / release_comm_probes NAME: one event kept on in
# a tracefs instance NAME of its own, which records nothing. Tracing
# records the comms of tasks through probes on sched_switch and
# sched_wakeup, registered while any event is enabled: each first enable
# after none would patch those jump labels in the scheduler again. Under
# TCG guests crashed while that was patched ("Oops: int3" at sched_switch's
# label in __schedule, and at sched_wakeup's in ttwu_do_activate, the label
# already restored: a vCPU ran the removed breakpoint), cause not
# established. Kept registered, they are not patched again.
keep_comm_probes() {
	mkdir -p "/sys/kernel/tracing/instances/$1" &&
		echo 0 >"/sys/kernel/tracing/instances/$1/tracing_on" &&
		echo 1 >"/sys/kernel/tracing/instances/$1/events/sched/sched_process_exec/enable"
}
release_comm_probes() {
	echo 0 >"/sys/kernel/tracing/instances/$1/events/sched/sched_process_exec/enable"
	rmdir "/sys/kernel/tracing/instances/$1"
}

# possible_cpus: how many CPUs the kernel counts as possible (the CPUs
# per-CPU memory is kept for), from /sys/devices/system/cpu/possible.
possible_cpus() {
	tr ',' '\n' </sys/devices/system/cpu/possible |
		awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }'
}

# kasan_kernel: whether the running kernel was built with KASAN (slower
# code, and freed memory held in a quarantine)
kasan_kernel() { dmesg | grep -q KernelAddressSanitizer; }

# bail REASON: the suite cannot go on.
bail() {
	set -f
	ktap_exit_fail_msg "$*"
}

# tap_failures: how many checks failed so far.
tap_failures() { echo "$KTAP_CNT_FAIL"; }

tap_finish() {
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ]
}
