# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Big statistics stream through the data file; statistics and interfaces
# go away with their exploiter.

B=big
ctl "interface $B" "create $B sizes bytes/incidents" \
	"define $B sizes list 0 0x7fffffff 65536" "start $B sizes" \
	"sweep $B sizes 4096 4096 20000"
lines=$(data $B | wc -l)
check_eq "list of 20000 entries: one line each" 20000 "$lines"
check_eq "list of 20000 entries: first and last" "sizes 0x1000 1
sizes 0x4e20000 1" "$(data $B | sed -n '1p;$p')"
check_eq "small reads see the same text as one big read" "$(data $B | md5sum)" \
	"$(dd if=$STATS/$B/data bs=77 2>/dev/null | md5sum)"
ctl "define $B sizes raw 0 0x7fffffff 65536" "sweep $B sizes 1 1 70000"
check_eq "raw ring of 65536: the newest pairs, serials 4464 to 69999" \
	"65536 sizes 4464 4465 1
sizes 69999 70000 1" \
	"$(data $B | wc -l) $(data $B | head -n 1 | cut -d' ' -f1,3-)
$(data $B | tail -n 1 | cut -d' ' -f1,3-)"

ctl "remove deftest s2"
check_eq "statistic_remove: its lines go" "s1 0" "$(data deftest)"
ctl "interface_remove deftest"
check_eq "statistic_interface_remove: the directory goes" "no" \
	"$([ -e $STATS/deftest ] && echo yes || echo no)"
rmmod statistic_sample
check_eq "unloading the exploiter removes its interfaces" "" "$(ls $STATS)"
