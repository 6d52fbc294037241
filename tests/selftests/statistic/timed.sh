# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# History in modes increments and products, and raw, on the sample's clock:
# period roll-over, ring wrap-around, serial numbers, a stopped history.

T=timed
ctl "interface $T" "clock $T" "time 1000000000" \
	"create $T h_inc bytes/incidents" "create $T h_prod bytes/incidents" \
	"create $T rawstat bytes/incidents"
def $T "name=h_inc type=history mode=increments period=500000 entries_max=3"
check_eq "history: type change with entries_max, mode, period" 0 "$rc"
def $T "name=h_prod type=history mode=products period=500000 entries_max=3"
def $T "name=rawstat type=raw entries_max=4"
check_eq "raw: type change with entries_max" 0 "$rc"
def $T "on=1"
# period 0 [1.0, 1.5), 1 [1.5, 2.0), 2 [2.0, 2.5), 3 [2.5, 3.0)
ctl "time 1100000000" "add $T h_inc 10 2" "add $T h_prod -10 2" "add $T rawstat 10 2" \
	"time 1600000000" "add $T h_inc 7 1" "add $T h_prod 7 3" "add $T rawstat 7 3" \
	"time 2700000000" "add $T h_inc 1 5" "add $T h_prod 1 5" "add $T rawstat 1 5" \
	"time 2800000000" "add $T rawstat 2 1" "add $T rawstat 3 1" "add $T rawstat -4 1" \
	"time 2900000000"
check_eq "history/raw: roll-over, wrap-around, serials" "h_inc [2.000000] 1
h_inc [2.500000] 0
h_inc [3.000000] 5
h_prod [2.000000] 21
h_prod [2.500000] 0
h_prod [3.000000] 5
rawstat [2.700000] 2 1 5
rawstat [2.800000] 3 2 1
rawstat [2.800000] 4 3 1
rawstat [2.800000] 5 -4 1" "$(data $T)"
expected_def="name=h_inc on=1 type=history"
expected_def="$expected_def range_min=-9223372036854775808 range_max=9223372036854775807"
expected_def="$expected_def entries_max=3 mode=increments period=500000 hits_out_of_range=0"
expected_def="$expected_def data=[1.000000] started=[1.000000] stopped=[1.000000]"
check_eq "history definition line" "$expected_def units=bytes/incidents" \
	"$(def_line $T h_inc)"

# A stopped history shows the periods up to its stop; a running one moves on.
def $T "name=h_inc on=0"
ctl "time 10000000000" "add $T h_inc 1 100"
check_eq "history: stopped shows the periods up to the stop" "h_inc [2.000000] 1
h_inc [2.500000] 0
h_inc [3.000000] 5" "$(data $T | grep '^h_inc')"
check_eq "history: running shows the last entries_max periods" "h_prod [9.500000] 0
h_prod [10.000000] 0
h_prod [10.500000] 0" "$(data $T | grep '^h_prod')"

# Reset: serial numbers start over, history periods start at the reset.
def $T "name=rawstat data=reset"
ctl "add $T rawstat 9 9"
check_eq "raw: reset restarts serial numbers" "rawstat [10.000000] 0 9 9" \
	"$(data $T | grep '^rawstat')"
def $T "name=h_prod data=reset"
ctl "time 10200000000" "add $T h_prod 3 3"
check_eq "history: reset restarts periods" "h_prod [10.500000] 9" \
	"$(data $T | grep '^h_prod')"
check_eq "history: reset sets data=" "[10.000000]" "$(attr $T h_prod data)"

# Mode range on a history, with values out of range.
h_range="name=h_inc type=history mode=range period=1000000 entries_max=2"
def $T "$h_range range_min=0 range_max=10 on=1"
ctl "add $T h_inc 11 1" "add $T h_inc -1 1" "add $T h_inc 4 3" "add $T h_inc 10 1"
check_eq "history mode=range: number min avg max" "h_inc [11.200000] 4 4 5.500 10" \
	"$(data $T | grep '^h_inc')"
check_eq "history mode=range: hits_out_of_range" 2 "$(attr $T h_inc hits_out_of_range)"
