# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally report -x against iostat -x (sysstat) on the same idle device: the
# first report of both is since boot, from the same kernel counters, so the
# per-I/O averages (await, request size) agree to the printed digit and the
# field names are iostat's own, in iostat's order.

delete_all_regions
k=$(kname "$VOL")
read_at 0 4096 12
write_at 8192 16384 5

check_ok "iostat -x $k" iostat -x "$k"
ios=$(printf '%s\n' "$out" | grep -E "^$k ")
ihead=$(printf '%s\n' "$out" | grep -E '^Device ')
check_ok "iotally report -x --level device $k" iotally report -x --level device "$k"
our=$(printf '%s\n' "$out" | grep -E "^$k ")
ohead=$(printf '%s\n' "$out" | sed -n 1p)
check_match "iostat has a row for $k" "^$k " "$ios"
check_match "iotally has a row for $k" "^$k " "$our"
check_eq "report -x has iostat -x's columns, in its order" \
	"$(echo "$ihead" | awk '{ $1 = ""; print }')" "$(echo "$ohead" | awk '{ $1 = ""; print }')"
# Columns of iostat -x: 5 r_await, 6 rareq-sz, 11 w_await, 12 wareq-sz (after the name).
for c in 6:rareq-sz 12:wareq-sz 5:r_await 11:w_await; do
	n=${c%%:*}
	check_eq "$c: iotally and iostat agree since boot" \
		"$(echo "$ios" | awk -v n="$n" '{ print $(n + 1) }')" \
		"$(echo "$our" | awk -v n="$n" '{ print $(n + 1) }')"
done

# report -c is iostat -c: the same two lines, the values since boot within
# the few ticks that pass between the two commands.
check_ok "iostat -c" iostat -c
icpu=$(printf '%s\n' "$out" | grep -A1 '^avg-cpu:')
check_ok "iotally report -c" iotally report -c
check_eq "report -c prints iostat -c's header" "$(echo "$icpu" | sed -n 1p)" \
	"$(echo "$out" | sed -n 1p)"
# iostat's layout: 7 spaces, then each value as %8.2f.
check_match "iostat -c's values are 7 spaces and 6 x %8.2f" '^ {7}([ 0-9]{5}[.][0-9]{2}){6}$' \
	"$(echo "$icpu" | sed -n 2p)"
check_match "report -c's values are laid out as iostat's" '^ {7}([ 0-9]{5}[.][0-9]{2}){6}$' \
	"$(echo "$out" | sed -n 2p)"
check_eq "report -c and iostat -c agree since boot within 0.5 points" 0 \
	"$(printf '%s\n%s\n' "$(echo "$icpu" | sed -n 2p)" "$(echo "$out" | sed -n 2p)" |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) a[i] = $i; next }
		     { for (i = 1; i <= NF; i++) { d = $i - a[i]; if (d < -0.5 || d > 0.5) bad++ } }
		     END { print bad + 0 }')"
