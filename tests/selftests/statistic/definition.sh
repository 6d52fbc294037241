# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# The definition file: defaults, changing attributes, lines written back,
# type changes, invalid writes (refused, nothing changes), interface-wide
# on/off/reset, permissions.

I=deftest
ctl "interface $I" "create $I s1 bytes/incidents" "create $I s2 requests/incidents"

check_eq "permissions: data 0400, definition 0600" "400 600" \
	"$(stat -c %a $STATS/$I/data) $(stat -c %a $STATS/$I/definition)"
check_eq "interface directory holds data and definition" "data definition" \
	"$(ls $STATS/$I | tr '\n' ' ' | sed 's/ $//')"
expected_def="name=s1 on=0 type=value"
expected_def="$expected_def range_min=-9223372036854775808 range_max=9223372036854775807"
expected_def="$expected_def mode=increments hits_out_of_range=0 data=[T] started=[T] stopped=[T]"
check_eq "default definition: value, increments, full range, off" \
	"$expected_def units=bytes/incidents" \
	"$(untimed "$(def_line $I s1)")"

ctl "inc $I s1 5 3"
check_eq "off by default: nothing gathered" "s1 0
s2 0" "$(data $I)"

def $I "name=s1 on=1"
check_eq "on=1 starts one statistic" "1 0" "$(attr $I s1 on) $(attr $I s2 on)"
ctl "inc $I s1 5 3"
check_eq "a running value counts increments" "s1 3" "$(data $I | grep '^s1')"
def $I "name=s1 mode=products"
ctl "add $I s1 -5 3"
check_eq "mode=products counts X * Y, after discarding the data" "s1 -15" \
	"$(data $I | grep '^s1')"

# "echo name=foo range_min=3", "echo name=foo range_max=17"
def $I "name=s1 range_min=3"
check_eq "range_min alone" "0 3" "$rc $(attr $I s1 range_min)"
def $I "name=s1 range_max=17"
check_eq "range_max alone" "0 17" "$rc $(attr $I s1 range_max)"
ctl "add $I s1 2 1" "add $I s1 18 1" "add $I s1 3 1" "add $I s1 17 1"
check_eq "out of range: counted apart, not added" "s1 20 2" \
	"$(data $I | grep '^s1') $(attr $I s1 hits_out_of_range)"

# A line read can be written back: read-only attributes are ignored, and
# an unchanged definition keeps the data.
line=$(def_line $I s1)
def $I "$line"
check_eq "a line read back is accepted" 0 "$rc"
check_eq "... and keeps data and definition" "s1 20
$line" "$(data $I | grep '^s1')
$(def_line $I s1)"
def $I "name=s2 junk hello=world units=x started=[1.0] hits_missed=9 on=1"
check_eq "junk and read-only attributes are ignored" "0 1 requests/incidents" \
	"$rc $(attr $I s2 on) $(attr $I s2 units)"

# Invalid writes: -EINVAL, and nothing changes.
before=$(definition $I)
before_data=$(data $I)
for bad in "name=s1 on=2" "name=s1 type=bogus" "name=s1 range_min=abc" \
	"name=s1 range_min=" "name=s1 range_min=18" "name=s1 range_max=2" \
	"name=s1 range_min=5 range_max=4" "name=nosuch on=1" \
	"name=s1 type=list" "name=s1 type=array scale=log2" \
	"name=s1 type=array base_interval=1" \
	"name=s1 type=history mode=range entries_max=8" \
	"name=s1 type=history mode=range period=1000" \
	"name=s1 type=raw" "name=s1 scale=log2" "name=s1 entries_max=5" \
	"name=s1 mode=range" "name=s1 mode=sum" "name=s1 data=junk" \
	"name=s1 type=list entries_max=0" "name=s1 type=list entries_max=65537" \
	"name=s1 type=array base_interval=0 scale=lin" \
	"name=s1 type=array base_interval=1 scale=lin range_min=0 range_max=1000000" \
	"name=s1 type=history mode=range period=0 entries_max=8" \
	"name=s1 name=s2 on=0" "mode=products" "on=1 type=list"; do
	check_fails "invalid: $bad" "Invalid argument" sh -c "echo '$bad' >$STATS/$I/definition"
done
check_eq "invalid writes changed nothing" "$before
$before_data" "$(definition $I)
$(data $I)"

# All lines of a write are checked before any is applied.
run sh -c "printf 'name=s1 on=0\nname=s2 on=9\n' >$STATS/$I/definition"
check_eq "a multi-line write with one bad line changes nothing" "1 1 1" \
	"$([ "$rc" != 0 ] && echo 1) $(attr $I s1 on) $(attr $I s2 on)"
run sh -c "printf 'name=s1 on=0\nname=s2 on=0\n' >$STATS/$I/definition"
check_eq "a multi-line write applies every line" "0 0 0" "$rc $(attr $I s1 on) $(attr $I s2 on)"

# "echo name=foobar type=list entries_max=256": a type change discards data.
def $I "name=s1 type=list entries_max=256 on=1 range_min=-100 range_max=100"
check_eq "type change to list" "0 list 256 0" \
	"$rc $(attr $I s1 type) $(attr $I s1 entries_max) $(attr $I s1 hits_missed)"
check_eq "type change discards the data" "" "$(data $I | grep '^s1')"
ctl "inc $I s1 -16"
check_eq "list: negative X in hex" "s1 -0x10 1" "$(data $I | grep '^s1')"
def $I "name=s1 entries_max=2"
ctl "inc $I s1 1" "inc $I s1 2" "inc $I s1 3" "inc $I s1 2" "inc $I s1 3 4"
check_eq "list: entries_max reached, hits_missed counted" "s1 0x1 1
s1 0x2 2
5" "$(data $I | grep '^s1')
$(attr $I s1 hits_missed)"

# "echo name=foobar type=history mode=range period=1000000 entries_max=1024"
def $I "name=s1 type=history mode=range period=1000000 entries_max=1024"
check_eq "type change to history (spec example)" \
	"0 type=history range_min=-100 range_max=100 entries_max=1024 mode=range period=1000000" \
	"$rc $(def_line $I s1 | grep -o 'type=.*period=[0-9]*')"
def $I "name=s1 type=array base_interval=4 scale=lin range_min=0 range_max=10"
ctl "add $I s1 -3 1" "add $I s1 0 1" "add $I s1 1 2" "add $I s1 4 3" "add $I s1 5 4" \
	"add $I s1 9 5" "add $I s1 99 6"
# -3 and 99 are out of range (the spec: below range_min, above range_max);
# 0 is range_min itself, 9 lies in (8, 10]
check_eq "array lin: intervals and edges" "s1 <=0 1
s1 <=4 5
s1 <=8 4
s1 >8 5" "$(data $I | grep '^s1')"
check_eq "array lin: hits_out_of_range" 2 "$(attr $I s1 hits_out_of_range)"
def $I "name=s1 type=value mode=increments"
check_eq "type change to value" "0 value increments" \
	"$rc $(attr $I s1 type) $(attr $I s1 mode)"

# Interface-wide: on=0, on=1, data=reset, atomically for all statistics.
# "stopped" is when a statistic last stopped: stopping a stopped one again
# keeps it.
def $I "name=s1 on=1"
s2_stopped=$(attr $I s2 stopped)
def $I "on=0"
check_eq "interface-wide on=0" "0 0 0" "$rc $(attr $I s1 on) $(attr $I s2 on)"
check_eq "on=0 keeps the stop time of a statistic already stopped" \
	"$s2_stopped" "$(attr $I s2 stopped)"
def $I "on=1"
def $I "on=0"
check_eq "interface-wide on=0: one stop time" "$(attr $I s1 stopped)" "$(attr $I s2 stopped)"
check_eq "interface-wide on=0: a new stop time" 1 \
	"$(echo "$(attr $I s2 stopped) $s2_stopped" | tr -d '[]' | awk '{ print ($1 > $2) }')"
ctl "inc $I s1 5 2" "inc $I s2 5 3"
check_eq "stopped statistics gather nothing" "s1 0
s2 0" "$(data $I)"
def $I "on=1"
check_eq "interface-wide on=1" "0 1 1" "$rc $(attr $I s1 on) $(attr $I s2 on)"
check_eq "interface-wide on=1: one start time" "$(attr $I s1 started)" "$(attr $I s2 started)"
ctl "inc $I s1 5 2" "inc $I s2 5 3"
check_eq "running statistics gather" "s1 2
s2 3" "$(data $I)"
def $I "on=0"
ctl "inc $I s1 5 2" "inc $I s2 5 3"
check_eq "stopping keeps the data" "s1 2
s2 3" "$(data $I)"
def $I "data=reset"
check_eq "interface-wide data=reset" "s1 0
s2 0" "$(data $I)"
check_eq "interface-wide data=reset: one reset time, state kept" "$(attr $I s1 data) 0" \
	"$(attr $I s2 data) $(attr $I s1 on)"
