# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# What CONFIG_DM_STATISTIC costs per mapped device while every statistic is
# stopped, measured in one boot: N dm-linear devices created with the
# exploiter off (dm_mod.statistic=0), removed, then N with it on; the
# difference of the Slab and Percpu lines of /proc/meminfo and of the
# layer's own current_allocated_bytes, per device and per possible CPU.
# Sourced by statistic-limits/run.sh and bench/statistic-memory/run.sh.
#
# Percpu in /proc/meminfo counts populated pages of every possible CPU at
# once: with 64 of them it moves in steps of 256 KiB, more than 1,000
# devices at 200 bytes each. The per-CPU memory the devices allocate is
# therefore also summed exactly, from the percpu tracepoints.

STATISTIC_PARAMS=/sys/module/statistic/parameters

# settle() drops slab caches again and again; each write to drop_caches
# logs a line ("drop_caches: 2") until a write with bit 4 has silenced it.
# Silence it now, so that a suite that counts the kernel's log lines
# around device_cost() (statistic-lockdown) sees only lines of its own.
echo 4 >/proc/sys/vm/drop_caches 2>/dev/null
DM_STATISTIC_PARAM=/sys/module/dm_mod/parameters/statistic

meminfo_bytes() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' /proc/meminfo; }
# What the statistics' data takes: the layer's own counter, and dm-stats'
# (stats_current_allocated_bytes), which the dm interfaces charge.
own_bytes() { cat "$STATISTIC_PARAMS/current_allocated_bytes" 2>/dev/null || echo 0; }
dm_bytes() {
	cat /sys/module/dm_mod/parameters/stats_current_allocated_bytes 2>/dev/null || echo 0
}
layer_bytes() { echo $(($(own_bytes) + $(dm_bytes))); }

# pcpu_trace_setup: a tracing instance of our own for the per-CPU
# allocations and frees, made before anything is measured (it allocates);
# fails if the kernel has no percpu tracepoints.
PCPU_TRACE=/sys/kernel/tracing/instances/iotally-percpu
pcpu_trace_setup() {
	[ -d /sys/kernel/tracing/instances ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d $PCPU_TRACE ] || mkdir $PCPU_TRACE 2>/dev/null || return 1
	[ -e $PCPU_TRACE/events/percpu/percpu_alloc_percpu/enable ] || return 1
	echo 0 >$PCPU_TRACE/tracing_on
	echo 1024 >$PCPU_TRACE/buffer_size_kb
	echo 1 >$PCPU_TRACE/events/percpu/percpu_alloc_percpu/enable
	echo 1 >$PCPU_TRACE/events/percpu/percpu_free_percpu/enable
}

# pcpu_trace_begin: start recording into the empty buffer.
pcpu_trace_begin() {
	echo >$PCPU_TRACE/trace
	echo 1 >$PCPU_TRACE/tracing_on
}

# pcpu_trace_end: the per-CPU bytes (all possible CPUs) allocated since
# pcpu_trace_begin and not freed again, or "lost" if the buffer overflowed.
pcpu_trace_end() {
	echo 0 >$PCPU_TRACE/tracing_on
	awk '/entries-in-buffer/ { split($3, n, "/"); if (n[1] != n[2]) lost = 1 }
		/percpu_(alloc|free)_percpu:/ {
			p = ""; b = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^ptr=/)
					p = substr($i, 5)
				else if ($i ~ /^bytes_alloc=/)
					b = substr($i, 13) + 0
			}
		}
		/percpu_alloc_percpu:/ { a[p] = b; s += b }
		/percpu_free_percpu:/ && (p in a) { s -= a[p]; delete a[p] }
		END { if (lost) print "lost"; else print s + 0 }' $PCPU_TRACE/trace
}

# Wait until retired blocks are freed (RCU and RCU Tasks grace periods)
# and the slab and layer counters hold still.
settle() {
	_last='' _same=0 _i=0
	while [ $_i -lt 50 ]; do
		echo 2 >/proc/sys/vm/drop_caches 2>/dev/null
		_now="$(layer_bytes) $(meminfo_bytes Slab) $(meminfo_bytes Percpu)"
		if [ "$_now" = "$_last" ]; then
			_same=$((_same + 1))
			[ $_same -ge 2 ] && return 0
		else
			_same=0
		fi
		_last=$_now
		sleep 0.2
		_i=$((_i + 1))
	done
}

# make_devices PREFIX N: N dm-linear devices (8 sectors each, over the
# dm-zero device mem-base) in one dmsetup process.
make_devices() {
	[ -b /dev/mapper/mem-base ] ||
		dmsetup create --noudevsync mem-base --table "0 8 zero" || return 1
	_i=0 _t=
	while [ $_i -lt "$2" ]; do
		_t="$_t$1$_i,,,rw,0 8 linear /dev/mapper/mem-base 0;"
		_i=$((_i + 1))
	done
	dmsetup create --noudevsync --concise "${_t%;}"
}

# remove_devices PREFIX N
remove_devices() {
	_i=0 _names=
	while [ $_i -lt "$2" ]; do
		_names="$_names $1$_i"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086
	dmsetup remove --noudevsync $_names
}

# slab_bytes FILE: "cache bytes" per slab cache, from /proc/slabinfo
slab_bytes() {
	awk 'NR > 2 { print $1, $3 * $4 }' /proc/slabinfo 2>/dev/null | sort >"$1"
}

# slab_growth BEFORE AFTER N: the caches that grew most, in bytes per device
slab_growth() {
	awk -v n="$3" 'NR == FNR { was[$1] = $2; next }
		{ d = ($2 - was[$1]) / n; if (d >= 16) printf "%s=%d\n", $1, d }' "$1" "$2" |
		sort -t= -k2 -rn | head -n 8 | tr '\n' ' '
}

# snapshot: "slab percpu layer"
snapshot() { echo "$(meminfo_bytes Slab) $(meminfo_bytes Percpu) $(layer_bytes)"; }

# device_cost N: sets cost_slab, cost_percpu, cost_layer (bytes per device,
# exploiter on minus off), cost_cpus (possible CPUs) and prints one line.
# The devices are created in 10 rounds, each a batch of N/10 without
# statistics then N/10 with them (alternating which comes first), all kept
# until the end: both sets meet the same allocator states (Percpu counts
# whole populated pages), and each batch's growth counts for its set.
device_cost() {
	_count=$1
	cost_cpus=$(possible_cpus)
	_batch=$((_count / 10))
	_off_slab=0 _off_pcpu=0 _on_slab=0 _on_pcpu=0 _on_layer=0 _mode=ab
	_off_alloc=0 _on_alloc=0 _traced=yes
	pcpu_trace_setup || _traced=no
	[ -w "$DM_STATISTIC_PARAM" ] || _mode=absolute	# a kernel without the switch
	# The statistic directories are named by the kernel (dm-N, no blank): ls |
	# grep -c counts them exactly, and an absent debugfs counts 0.
	# shellcheck disable=SC2010
	_dirs0=$(ls /sys/kernel/debug/statistics 2>/dev/null | grep -c '^dm-')
	slab_bytes /tmp/slab.before
	_r=0
	while [ $_r -lt 10 ]; do
		for _set in $([ $((_r % 2)) = 0 ] && echo off on || echo on off); do
			[ $_mode = absolute ] && [ $_set = off ] && continue
			[ $_mode = ab ] &&
				{ [ $_set = on ] && echo 1 || echo 0; } >"$DM_STATISTIC_PARAM"
			settle
			# snapshot prints three numbers, meant to split into $1 $2 $3.
			# shellcheck disable=SC2046
			set -- $(snapshot)
			_s0=$1 _p0=$2 _l0=$3
			[ $_traced = yes ] && pcpu_trace_begin
			make_devices "mem-$_set-$_r-" $_batch || return 1
			settle
			_a=0
			[ $_traced = yes ] && _a=$(pcpu_trace_end)
			[ "$_a" = lost ] && _traced=lost _a=0
			# snapshot prints three numbers, meant to split into $1 $2 $3.
			# shellcheck disable=SC2046
			set -- $(snapshot)
			if [ $_set = on ]; then
				_on_alloc=$((_on_alloc + _a))
				_on_slab=$((_on_slab + $1 - _s0))
				_on_pcpu=$((_on_pcpu + $2 - _p0))
				_on_layer=$((_on_layer + $3 - _l0))
			else
				_off_alloc=$((_off_alloc + _a))
				_off_slab=$((_off_slab + $1 - _s0))
				_off_pcpu=$((_off_pcpu + $2 - _p0))
			fi
		done
		_r=$((_r + 1))
	done
	[ $_mode = ab ] && echo 0 >"$DM_STATISTIC_PARAM"	# the default
	slab_bytes /tmp/slab.after
	# shellcheck disable=SC2010 # as for _dirs0
	_dirs=$(($(ls /sys/kernel/debug/statistics 2>/dev/null | grep -c '^dm-') - _dirs0))
	_r=0
	while [ $_r -lt 10 ]; do
		remove_devices "mem-on-$_r-" $_batch || return 1
		[ $_mode = absolute ] || remove_devices "mem-off-$_r-" $_batch || return 1
		_r=$((_r + 1))
	done
	dmsetup remove --noudevsync mem-base
	_count=$((_batch * 10))
	cost_slab=$(((_on_slab - _off_slab) / _count))
	cost_percpu=$(((_on_pcpu - _off_pcpu) / _count))
	# exact, from the tracepoints ("-" if they were not there or lost events)
	cost_percpu_alloc=-
	[ $_traced = yes ] && [ $_mode = ab ] &&
		cost_percpu_alloc=$(((_on_alloc - _off_alloc) / _count))
	cost_layer=$((_on_layer / _count))
	cost_total=$((cost_slab + cost_percpu))
	[ $_mode = ab ] && _grew=$(slab_growth /tmp/slab.before /tmp/slab.after $((_count * 2)))
	echo "# slab caches that grew most, bytes per device (both sets): $_grew"
	echo "# BENCH mode=$_mode devices=$_count possible_cpus=$cost_cpus interfaces=$_dirs" \
		"off_slab=$_off_slab off_percpu=$_off_pcpu on_slab=$_on_slab on_percpu=$_on_pcpu" \
		"per_device_slab=$cost_slab per_device_percpu=$cost_percpu" \
		"off_percpu_alloc=$_off_alloc on_percpu_alloc=$_on_alloc" \
		"per_device_percpu_alloc=$cost_percpu_alloc" \
		"per_device_layer=$cost_layer" \
		"per_device=$cost_total per_device_per_cpu=$((cost_total / cost_cpus))"
}
