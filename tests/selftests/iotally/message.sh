# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally message: byte for byte what dmsetup message prints, failures included.

delete_all_regions
tmp=$(mktemp -d)

# same_as_dmsetup NAME WORDS...: iotally message $VOL WORDS and dmsetup
# message $VOL 0 WORDS print the same bytes and both succeed.
same_as_dmsetup() {
	_name=$1
	shift
	iotally message "$VOL" "$@" >"$tmp/iotally" 2>"$tmp/iotally.err"
	_irc=$?
	dmsetup message "$VOL" 0 "$@" >"$tmp/dmsetup" 2>/dev/null
	_drc=$?
	if [ "$_irc" = 0 ] && [ "$_drc" = 0 ] && cmp -s "$tmp/iotally" "$tmp/dmsetup"; then
		pass "$_name"
	else
		fail "$_name" "iotally (exit $_irc): $(cat "$tmp/iotally" "$tmp/iotally.err")
dmsetup (exit $_drc): $(cat "$tmp/dmsetup")"
	fi
}

# The create replies are the region ids 0 and 1: compared by the next list.
check_ok "message @stats_create" iotally message "$VOL" @stats_create - /2 iotst a\\ b
check_eq "message @stats_create prints the id as dmsetup would" "0" "$out"
dmsetup message "$VOL" 0 @stats_create 0+1024 /1 2 precise_timestamps histogram:1000,2000 iotst - >/dev/null
same_as_dmsetup "message @stats_list is byte-identical" @stats_list
same_as_dmsetup "message @stats_list PROGRAM is byte-identical" @stats_list iotst
same_as_dmsetup "message @stats_list of another program (empty) is byte-identical" @stats_list nobody
write_at 0 4096 2
same_as_dmsetup "message @stats_print is byte-identical" @stats_print 0
same_as_dmsetup "message @stats_print with a histogram is byte-identical" @stats_print 1
same_as_dmsetup "message @stats_print with a line range is byte-identical" @stats_print 0 1 1
same_as_dmsetup "message @stats_set_aux (no reply) is byte-identical" @stats_set_aux 0 x
check_eq "message @stats_set_aux changed aux_data" "0: 0+$DEV_SECTORS 65536 iotst x" "$(stats_list | sed -n 1p)"
check_ok "message --json" iotally message --json "$VOL" @stats_list
check_match "message --json carries the reply" '"reply":"0: 0\+131072 65536 iotst x\\n1: ' "$out"

before=$(stats_list)
check_error "message: a region the kernel does not know (ENOENT, exit 6)" 6 \
	"No such file or directory" iotally message "$VOL" @stats_delete 99
check_fails "dmsetup fails on it too" "No such file or directory" dmsetup message "$VOL" 0 @stats_delete 99
check_error "message: arguments the kernel rejects (EINVAL, exit 2)" 2 "Invalid argument" \
	iotally message "$VOL" @stats_list a b
check_error "message: an unknown device" 3 "nosuchdev" iotally message nosuchdev @stats_list
check_eq "failed messages changed nothing" "$before" "$(stats_list)"
rm -rf "$tmp"
delete_all_regions
