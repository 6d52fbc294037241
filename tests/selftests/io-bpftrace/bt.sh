# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# bpftrace in the background for a guest suite or benchmark (POSIX sh):
#
#   bt_start SCRIPT OUT ERR   bpftrace SCRIPT, stdout to OUT, stderr to ERR,
#                             as $btpid, once it has attached and its BEGIN
#                             has printed ("Attaching N probes..." and a line)
#   bt_stop OUT ERR           Ctrl-C, as the spec's runs end; returns once
#                             bpftrace has printed its maps and exited, and
#                             fails (1) if it would not
#
# Debian 12's bpftrace 0.17 looks at its exit signal only when epoll_wait()
# fails with EINTR. A SIGINT that lands while it is not asleep there (on
# its way back from the 100 ms timeout of its poll loop, or reading events)
# sets its flag, and nothing looks at the flag again: bpftrace polls on,
# forever, and a suite that waits for it hangs its guest. Under TCG on a
# loaded host that window is wide: 1 SIGINT in 10 was lost. A bpftrace
# that is asleep in epoll_wait() 5 s after the signal, without a byte of
# new output, has lost it and gets another; a second signal while it
# drains its last events or prints its maps is harmless, and never sent:
# it is not asleep in epoll_wait() then, or its output grows.

bt_start() {
	bpftrace "$1" >"$2" 2>"$3" &
	btpid=$!
	_bt_i=0
	while [ "$(grep -c . "$2" 2>/dev/null)" -lt 2 ]; do
		_bt_i=$((_bt_i + 1))
		kill -0 $btpid 2>/dev/null || { cat "$3"; bail "bpftrace $1 died"; }
		[ $_bt_i -le 1200 ] || bail "bpftrace $1 did not attach in 120 s"
		sleep 0.1
	done
}

bt_stop() {
	_bt_size=$(wc -c <"$1")
	kill -INT $btpid
	_bt_i=0
	_bt_again=0
	while kill -0 $btpid 2>/dev/null; do
		_bt_i=$((_bt_i + 1))
		if [ $((_bt_i % 50)) = 0 ]; then
			if [ "$(cat /proc/$btpid/wchan 2>/dev/null)" = do_epoll_wait ] &&
				[ "$(wc -c <"$1")" = "$_bt_size" ]; then
				[ $_bt_again -lt 5 ] || break
				_bt_again=$((_bt_again + 1))
				echo "# bpftrace $btpid lost its SIGINT (asleep in epoll_wait, no output): sent again"
				kill -INT $btpid
			elif [ $_bt_i -ge 3000 ]; then
				break
			fi
		fi
		sleep 0.1
	done
	if kill -0 $btpid 2>/dev/null; then
		echo "# bpftrace $btpid did not exit after $_bt_again more SIGINTs:"
		for _bt_t in /proc/$btpid/task/*; do
			echo "# thread ${_bt_t##*/}: $(grep State "$_bt_t/status") wchan $(cat "$_bt_t/wchan")"
			sed 's/^/#   /' "$_bt_t/stack"
		done
		kill -KILL $btpid
		wait $btpid
		btpid=
		return 1
	fi
	wait $btpid
	btpid=
	return 0
}
