# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ./common.sh, whose create_region() sets $region: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# Every error path: the exact status (the errno dmsetup reports) and no state
# changed by a failed message.

EINVAL="Invalid argument"
ENOENT="No such file or directory"
EOVERFLOW="Value too large for defined data type"
ENOMEM="Cannot allocate memory"

delete_all_regions
create_region 0+1000 100 keeper keeper_aux
before=$(stats_list)

# bad_create NAME ERROR ARGS...: @stats_create fails with ERROR, list unchanged.
bad_create() {
	_n=$1
	_e=$2
	shift 2
	check_fails "create $_n: fails" "$_e" dmsetup message "$VOL" 0 @stats_create "$@"
}

check_fails "create with no arguments" "$EINVAL" dmsetup message "$VOL" 0 @stats_create
bad_create "with a range only" "$EINVAL" -
bad_create "range 'abc'" "$EINVAL" abc /1
bad_create "range with zero length" "$EINVAL" 10+0 /1
bad_create "range 'start+' with no length" "$EINVAL" 10+ /1
bad_create "range without '+'" "$EINVAL" 10 /1
bad_create "range with trailing junk" "$EINVAL" 0+10x /1
# dmsetup would take a leading '-' for an option of its own: stop its option
# parsing at the command (POSIXLY_CORRECT) so the kernel sees the argument.
check_fails "create range with a negative start: fails" "$EINVAL" \
	env POSIXLY_CORRECT=1 dmsetup message "$VOL" 0 @stats_create -5+10 /1
bad_create "range that wraps around 2^64" "$EINVAL" 18446744073709551615+2 /1
bad_create "step 0" "$EINVAL" - 0
bad_create "step /0" "$EINVAL" - /0
bad_create "step 'abc'" "$EINVAL" - abc
bad_create "step '/abc'" "$EINVAL" - /abc
bad_create "step with trailing junk" "$EINVAL" - 10x
bad_create "step '/' with a negative count" "$EINVAL" - /-1
bad_create "an argument count larger than the arguments" "$EINVAL" - /1 2 precise_timestamps
bad_create "an unknown optional argument" "$EINVAL" - /1 1 no_such_option
bad_create "two histograms" "$EINVAL" - /1 2 histogram:1 histogram:2
bad_create "an empty histogram" "$EINVAL" - /1 1 histogram:
bad_create "a histogram boundary of 0" "$EINVAL" - /1 1 histogram:0,10
bad_create "equal histogram boundaries" "$EINVAL" - /1 1 histogram:10,10
bad_create "decreasing histogram boundaries" "$EINVAL" - /1 1 histogram:20,10
bad_create "a trailing comma in the histogram" "$EINVAL" - /1 1 histogram:10,
bad_create "junk in the histogram" "$EINVAL" - /1 1 histogram:10,20x
bad_create "a histogram boundary past 2^64" "$EINVAL" - /1 1 histogram:18446744073709551616
bad_create "an all-digit program_id without a count" "$EINVAL" - /1 12345
bad_create "too many arguments" "$EINVAL" - /1 prog aux extra
bad_create "too many arguments after options" "$EINVAL" - /1 1 precise_timestamps prog aux extra
bad_create "more than 2^23 areas" "$EOVERFLOW" 0+8388609 1
bad_create "more than 2^27 histogram counters" "$EOVERFLOW" \
	0+8388608 1 1 histogram:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
bad_create "more memory than allowed" "$ENOMEM" 0+8388608 1
check_eq "failed creates leave the regions as they were" "$before" "$(stats_list)"
check_eq "failed creates allocate nothing" "1" \
	"$(dmsetup message "$VOL" 0 @stats_list | wc -l)"

# Region-id messages ---------------------------------------------------------------
for m in @stats_delete @stats_clear @stats_print @stats_print_clear; do
	check_fails "$m of an unknown region" "$ENOENT" dmsetup message "$VOL" 0 $m 7
	check_fails "$m with no region id" "$EINVAL" dmsetup message "$VOL" 0 $m
	check_fails "$m with a negative id" "$EINVAL" \
		env POSIXLY_CORRECT=1 dmsetup message "$VOL" 0 $m -1
	check_fails "$m with a non-numeric id" "$EINVAL" dmsetup message "$VOL" 0 $m abc
	check_fails "$m with junk after the id" "$EINVAL" dmsetup message "$VOL" 0 $m "${region}x"
done
check_fails "@stats_delete with two arguments" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_delete "$region" 1
check_fails "@stats_clear with two arguments" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_clear "$region" 1
check_fails "@stats_print with one line argument" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_print "$region" 1
check_fails "@stats_print with four arguments" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_print "$region" 1 1 1
check_fails "@stats_print with a bad start line" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_print "$region" x 1
check_fails "@stats_print with a bad line count" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_print "$region" 1 x
check_fails "@stats_print_clear with a negative line count" "$EINVAL" \
	env POSIXLY_CORRECT=1 dmsetup message "$VOL" 0 @stats_print_clear "$region" 0 -1
check_fails "@stats_set_aux of an unknown region" "$ENOENT" \
	dmsetup message "$VOL" 0 @stats_set_aux 7 x
check_fails "@stats_set_aux without aux_data" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_set_aux "$region"
check_fails "@stats_set_aux with two words" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_set_aux "$region" a b
check_fails "@stats_set_aux with a bad id" "$EINVAL" dmsetup message "$VOL" 0 @stats_set_aux x a
check_fails "@stats_list with two program ids" "$EINVAL" dmsetup message "$VOL" 0 @stats_list a b
check_fails "an unknown @stats message goes to the target, which refuses it" "$EINVAL" \
	dmsetup message "$VOL" 0 @stats_nosuch 0
check_eq "failed messages leave the regions as they were" "$before" "$(stats_list)"

dmesg | grep -q 'device-mapper: stats: Invalid parameters for message @stats_create' &&
	pass "EINVAL from a message is reported in the kernel log" ||
	fail "EINVAL from a message is reported in the kernel log" \
		"no 'Invalid parameters' line in dmesg"
delete_all_regions
