#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What each source of `iotally serve` needs on Debian's stock 6.12 kernel
# (Documentation/iotally-deploy.rst, "Privileges"), measured: serve runs as
# uid and gid 65534 holding exactly the capabilities each case names
# (setpriv: effective, permitted, inheritable, ambient and bounding sets),
# with /dev/mapper/control given to its group as the package's udev rule
# gives it to the group iotally. Each case checks the process's CapEff, its
# iotally_source_up values, that a source without its privilege is said
# once in the log (not at every scrape) and counts no scrape error, and that
# the other sources are served:
#   - none: block only; dm refused (CAP_SYS_ADMIN), cgroups refused
#     (neither taskstats nor BPF);
#   - CAP_SYS_ADMIN: dm; and cgroups too (CAP_SYS_ADMIN loads BPF as well);
#   - CAP_BPF + CAP_PERFMON: cgroups through BPF, counting a dd's 1 MiB in a
#     cgroup; dm refused;
#   - taskstats (--tasks): refused without CAP_NET_ADMIN (TASKSTATS_CMD_GET
#     is GENL_ADMIN_PERM); with it the query passes and the stock kernel's
#     missing per-task I/O is what stops it (exit 5);
#   - the unit's set, CAP_SYS_ADMIN + CAP_BPF + CAP_PERFMON: every source;
#   - /dev/mapper/control closed to the group, then opened: dm comes back
#     at the next scrape without a restart.
. ../lib.sh
# fetch
. ../lib-http.sh

require_cmd iotally /usr/bin/setpriv /usr/bin/dd timeout

PORT=9870
CG=/sys/fs/cgroup
DEV=priv
T=/tmp/serve-privilege
mkdir -p $T

ip link set lo up || bail "cannot bring up loopback"
modprobe brd rd_nr=1 rd_size=8192 max_part=0 || bail "cannot load brd"
dmsetup create --noudevsync "$DEV" --table "0 16384 linear /dev/ram0 0" ||
	bail "cannot create the device"
iotally create "$DEV" >/dev/null || bail "iotally create failed"
ctl_mode=$(stat -c %a /dev/mapper/control)
ctl_group=$(stat -c %g /dev/mapper/control)
{ chgrp 65534 /dev/mapper/control && chmod 0660 /dev/mapper/control; } ||
	bail "cannot give /dev/mapper/control to the group 65534"
mounted_cg=
if ! grep -q " $CG cgroup2 " /proc/mounts; then
	mount -t cgroup2 none $CG || bail "cannot mount cgroup2"
	mounted_cg=1
fi
mkdir -p $CG/priv || bail "cannot make a cgroup"
pid=
# Whatever happens (a bail too): the next suites find the guest as it was.
cleanup() {
	[ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null
	wait 2>/dev/null
	chgrp "$ctl_group" /dev/mapper/control
	chmod "$ctl_mode" /dev/mapper/control
	rmdir $CG/priv
	[ -z "$mounted_cg" ] || umount $CG
	dmsetup remove --noudevsync "$DEV"
	rmmod brd
}
trap cleanup EXIT

# as_nobody CAPS CMD...: becomes CMD as uid and gid 65534 with exactly CAPS
# (setpriv's "-all,+cap,...") in every capability set (exec: in the
# background, $! is CMD's own process).
as_nobody() {
	_caps=$1
	shift
	exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps="$_caps" \
		--ambient-caps="$_caps" --bounding-set="$_caps" "$@"
}

# serve_as NAME CAPS [ARG...]: iotally serve as nobody with CAPS on a port of
# its own ($PORT), in the background ($pid), its stderr in $T/NAME.err.
serve_as() {
	_name=$1 _caps=$2
	shift 2
	PORT=$((PORT + 1))
	as_nobody "$_caps" iotally serve --listen 127.0.0.1:$PORT "$@" 2>$T/"$_name".err &
	pid=$!
	wait_for 60 fetch /-/healthy || bail "$_name: serve did not answer: $(cat $T/"$_name".err)"
}

stop() {
	kill -TERM "$pid"
	wait "$pid"
	_rc=$?
	pid=
	return $_rc
}

# up TEXT SOURCE: the value of iotally_source_up{source="SOURCE"} in TEXT.
up() { printf '%s\n' "$1" | sed -n "s/^iotally_source_up{source=\"$2\"} //p"; }
# sources TEXT: "name=value ..." of every iotally_source_up sample.
sources() {
	printf '%s\n' "$1" | sed -n 's/^iotally_source_up{source="\([^"]*\)"} \(.*\)/\1=\2/p' | tr '\n' ' ' |
		sed 's/ $//'
}
capeff() { sed -n 's/^CapEff:[[:space:]]*//p' /proc/"$1"/status; }
capbnd() { sed -n 's/^CapBnd:[[:space:]]*//p' /proc/"$1"/status; }
# lines NAME: the log lines of serve NAME but where it listens.
lines() { grep -v ': listening on ' $T/"$1".err; }
cgroups_up() { fetch /metrics | grep -q '^iotally_source_up{source="cgroups"} 1'; }
written() { fetch /metrics | sed -n 's/^iotally_cgroup_written_bytes_total{cgroup="\/priv"} //p'; }
wrote_1mib() { [ "$(written)" -ge 1048576 ]; }

# CapEff bits: CAP_NET_ADMIN 12, CAP_SYS_ADMIN 21, CAP_PERFMON 38, CAP_BPF 39.
NONE=0000000000000000
SYS_ADMIN=0000000000200000
BPF_PERFMON=000000c000000000
UNIT=000000c000200000

# --- no capability at all ---------------------------------------------------
serve_as none -all --cgroups
check_eq "none: CapEff" $NONE "$(capeff $pid)"
for _ in 1 2 3; do s=$(fetch /metrics); done
echo "# none: $(sources "$s")"
lines none | sed 's/^/# none: /'
check_eq "none: dm and cgroups down, block served" "block=1 cgroups=0 dm=0" "$(sources "$s")"
check_match "none: the block devices' counters are served" \
	'^iotally_device_reads_completed_total\{device="ram0",' "$s"
check_eq "none: no scrape error counted" "iotally_scrape_errors_total 0" \
	"$(printf '%s\n' "$s" | grep '^iotally_scrape_errors_total')"
check_eq "none: two lines in the log, said once over three scrapes" 2 "$(lines none | wc -l)"
check_match "none: dm's reason names CAP_SYS_ADMIN" \
	'^iotally serve: dm: permission denied: device-mapper needs root \(CAP_SYS_ADMIN\); serving without it' \
	"$(lines none | grep 'serve: dm:')"
check_match "none: cgroups' reason names CAP_BPF and CAP_PERFMON" \
	'^iotally serve: cgroups: serve --cgroups: neither backend can run: .*no CAP_BPF and CAP_PERFMON' \
	"$(lines none | grep 'serve: cgroups:')"
stop
check_eq "none: SIGTERM stops it (exit 0)" 0 "$?"

# --- CAP_SYS_ADMIN -------------------------------------------------------------
serve_as sys_admin -all,+sys_admin --cgroups
check_eq "CAP_SYS_ADMIN: CapEff" $SYS_ADMIN "$(capeff $pid)"
wait_for 60 cgroups_up
s=$(fetch /metrics)
echo "# CAP_SYS_ADMIN: $(sources "$s")"
check_eq "CAP_SYS_ADMIN: every source (it loads BPF too)" "block=1 cgroups=1 dm=1" "$(sources "$s")"
check_match "CAP_SYS_ADMIN: the region of $DEV is served" \
	"^iotally_region_info\\{device=\"dm-[0-9]+\",dm_name=\"$DEV\"" "$s"
stop

# --- CAP_BPF + CAP_PERFMON ---------------------------------------------------
serve_as bpf -all,+bpf,+perfmon --cgroups
check_eq "CAP_BPF + CAP_PERFMON: CapEff" $BPF_PERFMON "$(capeff $pid)"
wait_for 60 cgroups_up
sh -c "echo \$\$ >$CG/priv/cgroup.procs && exec /usr/bin/dd if=/dev/zero of=/dev/mapper/$DEV bs=64k count=16 oflag=direct" 2>/dev/null
wait_for 20 wrote_1mib
s=$(fetch /metrics)
echo "# CAP_BPF + CAP_PERFMON: $(sources "$s"); /priv wrote $(written) bytes"
check_eq "CAP_BPF + CAP_PERFMON: cgroups served, dm down" "block=1 cgroups=1 dm=0" "$(sources "$s")"
check_cmp "CAP_BPF + CAP_PERFMON: the dd's 1 MiB in /priv is counted" -ge "$(written)" 1048576
check_eq "CAP_BPF + CAP_PERFMON: one line in the log, dm's" 1 "$(lines bpf | wc -l)"
stop

# --- taskstats (--tasks) -----------------------------------------------------
serve_as tasks -all --tasks 1
for _ in 1 2 3; do s=$(fetch /metrics); done
lines tasks | sed 's/^/# --tasks without CAP_NET_ADMIN: /'
check_eq "--tasks without CAP_NET_ADMIN: tasks down, the rest served" "block=1 dm=0 tasks=0" \
	"$(sources "$s")"
check_match "--tasks without CAP_NET_ADMIN: taskstats refuses the query, said once" \
	'^iotally serve: tasks: taskstats: .*Operation not permitted; serving without it' \
	"$(lines tasks | grep 'serve: tasks:')"
check_eq "--tasks without CAP_NET_ADMIN: one line each for dm and tasks" 2 "$(lines tasks | wc -l)"
stop
run timeout 30 /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_admin \
	--ambient-caps=-all,+net_admin --bounding-set=-all,+net_admin \
	iotally serve --tasks 1 --listen 127.0.0.1:$((PORT + 1))
echo "# --tasks with CAP_NET_ADMIN: exit $rc: $err"
# (its first line: dm without CAP_SYS_ADMIN, down as above)
check_eq "--tasks with CAP_NET_ADMIN: the query passes; this kernel has no per-task I/O (exit 5)" \
	"5:iotally: --tasks: this kernel's taskstats carry no per-task I/O (TASKSTATS_TYPE_IO, Documentation/accounting/taskstats-io.rst)" \
	"$rc:$(printf '%s\n' "$err" | tail -n 1)"

# --- the unit's capabilities -------------------------------------------------
serve_as unit -all,+sys_admin,+bpf,+perfmon --cgroups
check_eq "the unit's set: CapEff" $UNIT "$(capeff $pid)"
check_eq "the unit's set: CapBnd" $UNIT "$(capbnd $pid)"
wait_for 60 cgroups_up
s=$(fetch /metrics)
check_eq "the unit's set: every source" "block=1 cgroups=1 dm=1" "$(sources "$s")"
check_eq "the unit's set: nothing in the log but where it listens" 0 "$(lines unit | wc -l)"
stop

# --- /dev/mapper/control closed, then opened -----------------------------------
chmod 0600 /dev/mapper/control
serve_as control -all,+sys_admin
s=$(fetch /metrics)
check_eq "control closed to the group: dm down" 0 "$(up "$s" dm)"
check_match "control closed to the group: said so" \
	'^iotally serve: dm: permission denied opening /dev/mapper/control' "$(lines control)"
chmod 0660 /dev/mapper/control
s=$(fetch /metrics)
check_eq "control opened: dm up at the next scrape" 1 "$(up "$s" dm)"
check_eq "control opened: said so" "iotally serve: dm: available again" "$(lines control | tail -n 1)"
stop

tap_finish
