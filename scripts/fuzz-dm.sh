#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Differential fuzzing of the dm-stats engine: the same seeded scripts of
# @stats_* messages (valid and malformed) and direct I/O, replayed on the
# stock engine (the oracle) and on ours; their transcripts, time fields
# masked, must be the same (tests/selftests/helpers/dm-stats-fuzz.cpp).
#
#   scripts/fuzz-dm.sh seeds N                  N new seeds, from /dev/urandom
#   scripts/fuzz-dm.sh gen DIR STEPS SEED...    DIR/dm-stats-fuzz/seed-SEED.script
#   scripts/fuzz-dm.sh compare [--hz HZ] ORACLE OTHER...
#       compare the transcripts in the guests' logs (build/logs/NAME): TAP;
#       with the guests' HZ, every time field must also be a value upstream
#       prints at that HZ (dm-stats-fuzz compare --hz)
#   scripts/fuzz-dm.sh run SEEDS STEPS [HZ]     make fuzz-dm: generate, boot the
#       stock kernel, the stock kernel with our dm-mod.ko and (when built) the
#       patched kernel, compare. SEEDS: one seed or several, space-separated.
#       With HZ (make fuzz-dm HZ=100|250|300|1000): build the kernels of
#       scripts/kernel-hz.sh instead, our kernel at that HZ with dm-mod as a
#       module and upstream's dm-mod rebuilt for it, boot it with each
#       dm-mod and compare ours against upstream's.
#
# make check runs 3 new seeds x 1000 steps in the guests it boots anyway
# (HZ=250, and HZ=300 where jiffies_to_msecs() rounds) and prints the seeds;
# replay one with: make fuzz-dm SEED=S STEPS=1000 [HZ=300]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fuzz=$top/build/tests/bin/dm-stats-fuzz

# transcript LOGDIR SEED: the transcript of SEED in a guest's tap.log, kept
# beside it as dm-stats-fuzz-SEED.transcript; prints its path. The suite's
# lines carry kselftest's runner's "# " in front (tests/vm/init).
transcript() {
	local out=$1/dm-stats-fuzz-$2.transcript
	sed -n "/^\(# \)\{0,1\}# dm-stats-fuzz-transcript-begin $2\$/,/^\(# \)\{0,1\}# dm-stats-fuzz-transcript-end $2\$/p" \
		"$1/tap.log" 2>/dev/null | sed -n 's/^\(# \)\{0,1\}fuzz| //p' >"$out"
	echo "$out"
}

seeds_in() { # LOGDIR: the seeds whose transcripts a guest printed
	sed -n 's/^\(# \)\{0,1\}# dm-stats-fuzz-transcript-begin \([0-9]*\)$/\2/p' "$1/tap.log" 2>/dev/null
}

# judge WANT NAME ARGS...: a TAP line, ok when `dm-stats-fuzz compare ARGS`
# finds the transcripts the same (WANT 0) or different (WANT 1).
judge() {
	local want=$1 name=$2 got=0
	shift 2
	"$fuzz" compare "$@" >/dev/null || got=1
	[[ $got == "$want" ]]
	tap_result $? "$name" || true
}

# selftest: the comparison itself, on made-up transcripts: time fields and
# the spread of a histogram are masked, nothing else is.
selftest() {
	local t
	t=$(mktemp -d)
	printf '%s\n' '#1 M fz_linear 16384 @stats_print 0' '= 0' '> 0+8 1 0 8 5 0 0 0 0 0 3 3 5 0 1:0' \
		'#2 R fz_linear 0 4096' '= 4096' >"$t/a"
	printf '%s\n' '#1 M fz_linear 16384 @stats_print 0' '= 0' '> 0+8 1 0 8 9 0 0 0 7 0 6 6 9 7 0:1' \
		'#2 R fz_linear 0 4096' '= 4096' >"$t/time"
	sed 's/^> 0+8 1 0 8/> 0+8 1 1 8/' "$t/a" >"$t/merge"
	sed 's/^= 4096/= EIO/' "$t/a" >"$t/io"
	sed 's/ 1:0$/ 2:0/' "$t/a" >"$t/hist"
	judge 0 "compare: transcripts differing only in time fields are the same" "$t/a" "$t/time"
	for c in merge:"merge count" io:"I/O result" hist:"histogram total"; do
		judge 1 "compare: a different ${c#*:} is a difference" "$t/a" "$t/${c%%:*}"
	done
	# At HZ=300 a jiffy prints as 4 ms (rounded up), 2 as 7, 3 as 10: 3, 6
	# or 13 ms are no count of jiffies; at HZ=250 every multiple of 4 is one.
	# Only a region the transcript created is judged: its unit is known.
	printf '%s\n' '#1 M fz_linear 16384 @stats_create - /1' '= 0' '> 0' \
		'#2 M fz_linear 16384 @stats_print 0' '= 0' '> 0+8 1 0 8 4 0 0 0 7 0 10 14 4 0' >"$t/hz-up"
	sed 's/ 4 0$/ 3 0/' "$t/hz-up" >"$t/hz-down"
	judge 0 "compare --hz 300: 4, 7, 10 and 14 ms are times upstream prints" --hz 300 "$t/hz-up" "$t/hz-up"
	judge 1 "compare --hz 300: 3 ms (a jiffy rounded down) is a difference" --hz 300 "$t/hz-up" "$t/hz-down"
	judge 1 "compare --hz 250: 7 ms is a difference" --hz 250 "$t/hz-up" "$t/hz-up"
	rm -rf "$t"
}

compare() {
	local hzopt=()
	if [[ $1 == --hz ]]; then
		hzopt=(--hz "$2")
		shift 2
	fi
	local oracle=$1 other seed a b
	shift
	selftest
	local seeds
	seeds=$(seeds_in "$oracle")
	if [[ -z $seeds ]]; then
		tap_result 1 "no dm-stats-fuzz transcript in $oracle/tap.log" || true
	fi
	for other in "$@"; do
		for seed in $seeds; do
			a=$(transcript "$oracle" "$seed")
			b=$(transcript "$other" "$seed")
			local name
			name="seed $seed: $(basename "$other") and $(basename "$oracle") give the same transcript"
			if [[ ! -s $b ]]; then
				fail "$name" "no transcript of seed $seed in $other/tap.log"
			elif "$fuzz" compare "${hzopt[@]}" "$a" "$b" >"$b.diff" 2>&1; then
				pass "$name ($(tail -n 1 "$b.diff"))"
			else
				fail "$name" "$(cat "$b.diff")
replay: make fuzz-dm SEED=$seed STEPS=$(grep -c '^#' "$a")${hzopt[1]:+ HZ=${hzopt[1]}}"
			fi
		done
	done
	tap_finish
}

case ${1:-} in
seeds)
	for ((i = 0; i < ${2:?}; i++)); do od -An -N4 -tu4 /dev/urandom | tr -d ' '; done | tr '\n' ' ' | sed 's/ $//'
	echo
	;;
gen)
	dir=$2/dm-stats-fuzz steps=$3
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir"
	for seed in "$@"; do "$fuzz" gen "$seed" "$steps" >"$dir/seed-$seed.script"; done
	;;
compare)
	shift
	# TAP from here only: seeds and gen print what their callers read
	# shellcheck source=host-tap.sh
	. "$top/scripts/host-tap.sh"
	out=$(compare "$@") || true
	echo "$out"
	! grep -q '^not ok' <<<"$out"
	;;
run)
	seeds=$2 steps=$3 hz=${4:-}
	cd "$top"
	"$top/scripts/test-helpers.sh"
	echo "dm-stats fuzz: seeds $seeds, $steps steps each${hz:+, HZ=$hz}"
	data=$top/build/fuzz-dm
	# shellcheck disable=SC2086 # one word per seed
	"$0" gen "$data" "$steps" $seeds
	if [[ -n $hz ]]; then
		scripts/kernel-hz.sh "$hz"
		kdir=build/kernel-hz$hz
		tests/vm/run.sh --kernel patched --kernel-dir "$kdir" --dm-mod "$kdir/dm-mod-stock.ko" \
			--name "fuzz-hz$hz-stock" --suite dm-stats-fuzz --data "$data" | grep -v '^RESULT' || true
		tests/vm/run.sh --kernel patched --kernel-dir "$kdir" --name "fuzz-hz$hz" --suite dm-stats-fuzz \
			--data "$data" | grep -v '^RESULT' || true
		exec "$0" compare --hz "$hz" "build/logs/fuzz-hz$hz-stock" "build/logs/fuzz-hz$hz"
	fi
	guests=()
	tests/vm/run.sh --kernel stock --name fuzz-stock --suite dm-stats-fuzz --data "$data" | grep -v '^RESULT' || true
	[[ -f build/modules/dm-mod.ko ]] || make -s modules
	tests/vm/run.sh --kernel stock --name fuzz-ourdm --dm-mod build/modules/dm-mod.ko --suite dm-stats-fuzz \
		--data "$data" | grep -v '^RESULT' || true
	guests+=(build/logs/fuzz-ourdm)
	if [[ -f build/kernel/arch/x86/boot/bzImage ]]; then
		tests/vm/run.sh --kernel patched --name fuzz-patched --suite dm-stats-fuzz --data "$data" |
			grep -v '^RESULT' || true
		guests+=(build/logs/fuzz-patched)
	fi
	"$0" compare build/logs/fuzz-stock "${guests[@]}"
	;;
*)
	sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
