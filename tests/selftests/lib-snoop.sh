# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# iotally snoop in the background of a suite, on either backend (the io
# trace events or BPF). Source it after lib.sh; $T is the suite's scratch
# directory.
#
#   snoop_start OUT ARGS...  run "iotally -v ARGS" in the background, its
#                            stdout in $T/OUT and stderr in $T/OUT.err,
#                            and return once it records: both backends
#                            print "iotally: snoop: tracing" on stderr
#                            then (at most 60 s; a snoop that exits
#                            earlier returns at once). Its pid is $snpid.
#   snoop_stop SIGNAL        send SIGNAL to the snoop started last and
#                            wait for it; its exit status is in $rc

snoop_start() {
	_o=$1
	shift
	iotally -v "$@" >"$T/$_o" 2>"$T/$_o.err" &
	snpid=$!
	_i=0
	until grep -q '^iotally: snoop: tracing$' "$T/$_o.err" 2>/dev/null; do
		_i=$((_i + 1))
		kill -0 "$snpid" 2>/dev/null || break
		[ $_i -le 600 ] || break
		sleep 0.1
	done
	# the marker is printed just before the first read of the events
	sleep 0.2
}

snoop_stop() {
	kill -"$1" "$snpid"
	wait "$snpid"
	# read by the suite that sourced this file
	# shellcheck disable=SC2034
	rc=$?
}
