# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# What every guest runner shares (tests/vm/run.sh, tests/debian/run.sh):
# the QEMU machine, its serial ports and the checks of its logs. Source me
# after scripts/versions.sh; set $logs (the run's log directory) first.
#
#   qemu_boot TIMEOUT MEM QEMU_ARGS...
#       boot under TCG with $QEMU_CPUS vCPUs (or -smp $qemu_smp): kernel messages to the first
#       serial port ($logs/console.log), TAP to the second ($logs/tap.log);
#       no network device, no display, no monitor, no reboot. Sets qemu_rc.
#   qemu_check_exit NAME        a "not ok" line for a timeout or a QEMU
#                               failure; returns 1 then
#   qemu_check_cpus NAME        the guest's "# iotally-guest ... cpus=N"
#                               line must name $QEMU_CPUS
#   qemu_check_splats NAME LOG  any kernel WARNING/BUG/lockdep/KASAN/...
#                               in LOG fails; returns 1 then

qemu_boot() {
	local timeout=$1 mem=$2
	shift 2
	set +e
	# shellcheck disable=SC2154 # $logs is set by the runner that sources this file
	timeout -k 10 "$timeout" qemu-system-x86_64 -accel "${qemu_accel:-tcg}" -cpu max -smp "${qemu_smp:-$QEMU_CPUS}" -m "$mem" \
		-nodefaults -display none -no-reboot -monitor none \
		-serial "file:$logs/console.log" -serial "file:$logs/tap.log" \
		"$@" </dev/null >"$logs/qemu.log" 2>&1
	qemu_rc=$?
	set -e
}

qemu_check_exit() {
	if ((qemu_rc == 124 || qemu_rc == 137)); then
		echo "not ok - $1: guest timed out"
		return 1
	elif ((qemu_rc != 0)); then
		echo "not ok - $1: qemu failed (rc=$qemu_rc): $(tail -n 3 "$logs/qemu.log" | tr '\n' ' ')"
		return 1
	fi
}

qemu_check_cpus() {
	local cpus
	cpus=$(sed -n 's/^# iotally-guest .*cpus=\([0-9]*\).*/\1/p' "$logs/tap.log" | head -n 1)
	if [[ -n $cpus && $cpus != "$QEMU_CPUS" ]]; then
		echo "not ok - $1: the guest sees $cpus CPUs, not $QEMU_CPUS"
		return 1
	fi
}

qemu_splats='WARNING:|BUG:|Call Trace:|INFO: possible|INFO: task .* blocked|DEBUG_LOCKS_WARN_ON|KASAN:|UBSAN:|Oops|general protection fault|Kernel panic|kernel BUG|lockdep is turned off|RCU stall|detected (expedited )?stall|soft lockup|hard LOCKUP'

qemu_check_splats() {
	local name=$1 log=$2 out
	out=${log%.log}.splats.txt
	[[ $log == "$logs/console.log" ]] && out=$logs/splats.txt
	if grep -nE "$qemu_splats" "$log" >"$out"; then
		echo "not ok - $name: kernel splat in $(basename "$log"):"
		head -n 20 "$out" | sed 's/^/    /'
		return 1
	fi
}
