# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally top in a real terminal (tmux): the busiest region with its heat
# strip, where the one hot area of 16 shows as the only mark at its place,
# and 'q' quits.

delete_all_regions
command -v tmux >/dev/null || bail "tmux is not in the guest"
region=$(iotally create "$VOL" --areas 16 --program-id topt) || bail "iotally create failed"
cold=$(iotally create "$VOL" --length 8 --program-id topt) || bail "iotally create failed"

run tmux new-session -d -s itop -x 150 -y 20 "iotally top --interval 1 $VOL"
[ "$rc" = 0 ] || bail "cannot start tmux: $err"
# Once top has drawn its first frame, area 5 of 16 (sectors 40960-49151)
# becomes the hot spot: writes for about 6 s, while the screen is read until
# a frame shows them.
n=0
until tmux capture-pane -p -t itop | grep -q '^iotally top - '; do
	n=$((n + 1))
	[ $n -gt 150 ] && break
	sleep 0.2
done
(
	i=0
	while [ $i -lt 15 ]; do
		write_at 40960 4096 32
		sleep 0.2
		i=$((i + 1))
	done
) &
writer=$!
n=0
while :; do
	screen=$(tmux capture-pane -p -t itop)
	row=$(printf '%s\n' "$screen" | grep -E "^$VOL +$region\+? ")
	printf '%s\n' "$row" | grep -qE "^$VOL +$region\+? +[0-9.]+ +[1-9][0-9]*\.[0-9]+ " && break
	n=$((n + 1))
	[ $n -gt 40 ] && break
	sleep 0.25
done
wait "$writer"
check_match "top shows a title with the interval" "^iotally top - .*interval 1s" "$screen"
check_match "top has the table header with the heat strip" "^Device +Region .*HEAT" "$screen"
check_eq "the hot region is the first row" "$region" \
	"$(printf '%s\n' "$screen" | grep -E "^$VOL " | head -n 1 | awk '{ print $2 }' | tr -d '+')"
strip=$(printf '%s\n' "$row" | sed -n 's/.*|\(.*\)|.*/\1/p')
check_eq "the heat strip has one column per area" 16 "${#strip}"
check_eq "the heat strip marks area 5 as the hottest, and nothing else" "     @          " "$strip"
check_match "the busy region shows a write rate" "^$VOL +$region\+? +[0-9.]+ +[1-9][0-9]*\.[0-9]+ " "$row"
check_match "the idle region is listed too, with no writes" "^$VOL +$cold\+? +0\.00 +0\.00 " "$screen"

tmux send-keys -t itop q
n=0
while tmux has-session -t itop 2>/dev/null && [ $n -lt 50 ]; do
	sleep 0.2
	n=$((n + 1))
done
tmux has-session -t itop 2>/dev/null && fail "q quits top" "the tmux session is still there" ||
	pass "q quits top"
tmux kill-server 2>/dev/null
delete_all_regions
