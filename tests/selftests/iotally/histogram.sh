# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally histogram on I/O of a known latency: dm-delay holds each I/O for
# 100 ms, and the regions sit on the delay device itself (dm-stats times an
# I/O from its arrival on every target), so every accounted I/O takes about
# 100 ms (dm-delay's timer may end it up to a jiffy early: 96 ms at HZ=250).

SLOW=islow
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync "$SLOW" --table "0 $DEV_SECTORS delay /dev/ram0 0 100" ||
	bail "cannot create a dm-delay device"

check_ok "create a region with bounds 10ms,50ms,2s" iotally create "$SLOW" --histogram 10ms,50ms,2s
h=$out
# dm-delay releases by jiffies, which a busy host makes lag and leap: a read
# may end a few ticks early in real time, never 40 ms.
check_ok "create a precise region with bounds 60ms,500ms" iotally create "$SLOW" --histogram 60ms,500ms --precise
hp=$out
# Four 100 ms reads at spaced sectors.
for s in 0 64 128 192; do read_at "$s" 4096 1 "$SLOW"; done

check_ok "iotally histogram $SLOW $h --json" iotally histogram --json "$SLOW" "$h"
check_eq "histogram: 4 I/Os" 4 "$(json_int total "$out")"
check_eq "histogram: every 100 ms read is in [50ms, 2s)" "0 0 4 0" \
	"$(printf '%s\n' "$out" | grep -o '"count":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
check_eq "histogram: the counts are the kernel's" \
	"$(dmsetup message "$SLOW" 0 @stats_print "$h" | awk '{ print $15 }' | tr ':' ' ')" \
	"$(printf '%s\n' "$out" | grep -o '"count":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
check_match "histogram: p50 lies in [50ms, 2s)" '"p50":\{"estimate_ns":[0-9.e+]*,"lower_ns":50000000,"upper_ns":2000000000\}' "$out"

check_ok "iotally histogram $SLOW $h (text)" iotally histogram "$SLOW" "$h"
check_match "text: the header counts 4 I/Os" "^$SLOW region $h: 4 I/Os\$" "$out"
check_match "text: the 50ms row has the whole bar and the count" '^ +50ms \|@{40} 4$' "$out"
check_match "text: the 0 row is empty" '^ +0 \| +0$' "$out"
check_match "text: the open bucket is labelled >= 2s" '^ +>= 2s \| +0$' "$out"
check_match "text: p99 is within its bucket's bounds" '^  p99 .* in \[50ms, 2s\)$' "$out"

check_ok "iotally histogram on the precise region" iotally histogram --json "$SLOW" "$hp"
check_eq "precise: every read is in [60ms, 500ms)" "0 4 0" \
	"$(printf '%s\n' "$out" | grep -o '"count":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"

# --interval: only what completes during the interval.
iotally histogram --json --interval 5 "$SLOW" "$h" >/tmp/hist 2>&1 &
hpid=$!
sleep 2
read_at 512 4096 1 "$SLOW"
wait "$hpid"
check_eq "histogram --interval counts only the read made during it" "0 0 1 0" \
	"$(grep -o '"count":[0-9]*' /tmp/hist | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
rm -f /tmp/hist

check_error "histogram of a region without one" 2 "has no histogram" \
	sh -c "iotally histogram $SLOW \$(iotally create $SLOW --length 8)"
check_error "histogram of a region that does not exist" 6 "region 77 does not exist on $SLOW" iotally histogram "$SLOW" 77

dmsetup remove --noudevsync "$SLOW"
