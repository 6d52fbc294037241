#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check: every test iotally has, ending with one line "N passed, N failed".
#
#   1. user space: ctest (GCC Release build, clang ASan+UBSan build, libFuzzer
#      runs), every build with warnings as errors; the docs name no build path
#   2. the patched kernel: KUnit at boot and the guest suites, and its
#      KASAN + lockdep build (in the background beside them): KUnit and
#      the concurrency suites, then the same at HZ=300 with everything of
#      ours as modules: KUnit as modules and the fuzzing with upstream's
#      dm-mod rebuilt for it and with ours, then our KUnit suites on a
#      32-bit kernel (ARCH=i386)
#   3. the stock Debian kernel: the guest suites
#   4. the stock kernel with our dm-mod.ko in place of Debian's, also with
#      255 possible CPUs (the dm-stats-targets suite)
#   5. make deb's packages in a real Debian 12 guest (tests/debian/run.sh)
#      (3, 4 and 5 need no kernel of ours: they run one after another in
#      the background from the start of 2, and their output is printed
#      when they are joined, before 6)
#   6. dm-stats differential fuzzing: the transcripts of 2-4 compared (at
#      HZ=300: ours against upstream's, on the HZ=300 kernel)
#
# A part that cannot build or run counts as a failure, and the remaining
# parts still run. Exit status: 0 only if nothing failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=versions.sh
. scripts/versions.sh
logs=$top/build/logs
mkdir -p "$logs"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}

# A cold run writes about 12 GiB under build/ and ~/.cache. Running out of
# disk midway fails every later part with "No space left on device"; say
# so once, up front, instead.
need_gib=${CHECK_FREE_GIB:-12}
free_gib=$(df -P -BG "$top/build" | awk 'NR == 2 { sub("G", "", $4); print $4 }')
if [[ -n $free_gib ]] && ((free_gib < need_gib)); then
	echo "make check: $free_gib GiB free for $top/build, a cold run needs about $need_gib GiB" \
		"(CHECK_FREE_GIB=N to change the bound)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1

total_pass=0 total_fail=0 total_skip=0

# The parts that run in the background (below) are joined before the end;
# make check interrupted takes them down with it.
stop_background() {
	local pid
	for pid in $(jobs -p); do
		pkill -TERM -P "$pid"
		kill -TERM "$pid"
	done 2>/dev/null
}
trap stop_background EXIT

# part NAME: a part's header, with the minutes since make check started, so
# that a CI log read afterwards shows where the time went.
part() {
	printf '=== %s (at %dm%02ds)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60))
}
summary=()
# Each failed test's line, repeated above the last line: a CI log shown
# only by its tail still names what failed.
failures=()

# failed LINE...: remember failed tests' lines for the summary
failed() {
	local line
	for line in "$@"; do
		[[ -n $line ]] && failures+=("$line")
	done
}

# record PART PASS FAIL SKIP
record() {
	total_pass=$((total_pass + $2)) total_fail=$((total_fail + $3)) total_skip=$((total_skip + $4))
	summary+=("$(printf '%-28s %5d passed, %d failed, %d skipped' "$1" "$2" "$3" "$4")")
}

# step NAME CMD...: a build step; its failure is one failed test.
step() {
	local name=$1
	shift
	part "$name"
	"$@" >"$logs/$name.log" 2>&1
	step_result "$name" $?
}

# step_result NAME RC: count a finished build step (its log build/logs/NAME.log).
step_result() {
	local name=$1
	(($2 == 0)) && return 0
	echo "not ok - $name failed; last lines of build/logs/$name.log:"
	failed "not ok - $name failed (build/logs/$name.log)"
	tail -n 30 "$logs/$name.log" | sed 's/^/    /'
	record "$name" 0 1 0
	return 1
}

# ctest_part NAME BUILD_DIR [CMAKE_ARGS...]
ctest_part() {
	local name=$1 dir=$2
	shift 2
	step "$name-build" bash -c 'cmake -S tools/iotally -B "$0" "$@" && cmake --build "$0" -j"$(nproc)"' \
		"$dir" -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache "$@" || return 0
	part "$name"
	ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" >"$logs/$name.log" 2>&1
	local rc=$? line p f lines
	line=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$logs/$name.log" | tail -n 1)
	if [[ -z $line ]]; then
		echo "not ok - $name: no ctest summary (rc=$rc)"
		failed "not ok - $name: no ctest summary (rc=$rc)"
		tail -n 20 "$logs/$name.log" | sed 's/^/    /'
		record "$name" 0 1 0
		return 0
	fi
	f=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")
	p=$(($(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line") - f))
	((f > 0 || rc != 0)) && grep -E '^\s*[0-9]+ - |Failed|\*\*\*' "$logs/$name.log" | tail -n 20
	mapfile -t lines < <(grep -E '^\s*[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)' \
		"$logs/$name.log" | sed -E "s/^\s*/not ok - $name: /")
	failed "${lines[@]}"
	((rc != 0 && f == 0)) && f=1
	record "$name" "$p" "$f" 0
}

# guest NAME ARGS...: one guest boot through tests/vm/run.sh
guest() {
	guest_with tests/vm/run.sh "$@"
}

# guest_with RUNNER NAME ARGS...: a guest runner that ends with "RESULT p f s".
guest_with() {
	local runner=$1 name=$2
	shift 2
	part "guest $name"
	"$runner" --name "$name" "$@" 2>&1 | tee "$logs/guest-$name.out" | grep -v '^RESULT '
	guest_account "$name"
}

# guest_account NAME: count a finished guest's result from its output file.
guest_account() {
	local name=$1 line lines
	line=$(grep '^RESULT ' "$logs/guest-$name.out" | tail -n 1)
	mapfile -t lines < <(grep -E '^(not ok |[^ ]+: not ok )' "$logs/guest-$name.out")
	failed "${lines[@]}"
	if [[ -z $line ]]; then
		failed "not ok - guest $name: no RESULT line"
		record "guest-$name" 0 1 0
	else
		read -r _ p f s <<<"$line"
		record "guest-$name" "$p" "$f" "$s"
	fi
}

# guest_quiet NAME ARGS...: one tests/vm/run.sh boot into its output file
# only, for a chain of guests in the background (background_guests).
guest_quiet() {
	local name=$1
	shift
	tests/vm/run.sh --name "$name" "$@" >"$logs/guest-$name.out" 2>&1
}

# tap_part NAME CMD...: a host command that prints TAP.
tap_part() {
	local name=$1 p f
	shift
	part "$name"
	"$@" >"$logs/$name.log" 2>&1
	local rc=$? lines
	p=$(grep -c '^ok ' "$logs/$name.log")
	f=$(grep -c '^not ok ' "$logs/$name.log")
	grep -A 40 '^not ok ' "$logs/$name.log" | head -n 80
	mapfile -t lines < <(grep '^not ok ' "$logs/$name.log" | sed "s/^/$name: /")
	failed "${lines[@]}"
	if ((rc != 0 && f == 0)); then
		f=1
		failed "not ok - $name: exited with rc=$rc"
		echo "not ok - $name: exited with rc=$rc; last lines of build/logs/$name.log:"
		tail -n 10 "$logs/$name.log" | sed 's/^/    /'
	fi
	record "$name" "$p" "$f" 0
}

# Differential fuzzing of the dm-stats engine: new seeds each run, replayed
# by the dm-stats-fuzz suite in the stock, stock + our dm-mod.ko and patched
# guests, compared after them (scripts/fuzz-dm.sh).
fuzz_steps=1000
fuzz_seeds=$(scripts/fuzz-dm.sh seeds 3)
fuzz_data=$top/build/fuzz-dm

# KUnit suites our kernel code registers: each must report at boot.
kunit_suites=$(scripts/kunit-suite-count.sh)

# 1. user space
if [[ -f tools/iotally/CMakeLists.txt ]]; then
	# Warnings are errors in every build of ours (a user's build has none):
	# GCC at -O3, as a distribution builds, whose binary the guests run;
	# clang with ASan and UBSan, which also builds and runs the libFuzzer
	# targets (one clang build: a second would only cost CI time).
	ctest_part ctest build/tools -DCMAKE_BUILD_TYPE=Release -DIOTALLY_WERROR=ON
	ctest_part ctest-asan build/tools-clang-asan -DCMAKE_BUILD_TYPE=Debug -DIOTALLY_FUZZ=ON \
		-DIOTALLY_WERROR=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
fi
# The documentation names no path of the machine it was written on.
tap_part doc-paths scripts/check-doc-paths.sh
# Every shell file is clean under shellcheck -S warning (one test per file).
tap_part shellcheck scripts/check-shell.sh

# 2. the patched kernel
# Test programs the guest suites run (user space, any kernel).
fuzz_args=() fuzz_guests=()
step test-helpers scripts/test-helpers.sh &&
	step fuzz-dm-gen scripts/fuzz-dm.sh gen "$fuzz_data" "$fuzz_steps" $fuzz_seeds &&
	fuzz_args=(--data "$fuzz_data")
echo "=== dm-stats fuzzing: seeds $fuzz_seeds, $fuzz_steps steps each (replay one: make fuzz-dm SEED=S STEPS=$fuzz_steps)"

# 3. the stock kernel: snoop, tasks and the cgroup families on iotally's
# BPF backend, and the suites of ours that need no kernel of ours; 4. the
# same kernel with our engine as a module. They need no kernel of ours, so
# they run in the background while ours build and boot: a TCG guest waits
# on its timers for much of its time (the stock guest took 568 s in CI and
# about as long beside a loaded host), which the builds fill. Their output
# is printed when they are joined, before the fuzzing comparison.

# The generic statistics layer and its sample, out of tree for the stock
# kernel: the statistic suite loads them there.
stock_modules=()
if [[ -x scripts/statistic-module.sh ]] && step statistic-modules-build scripts/statistic-module.sh; then
	stock_modules=(--extra-module build/modules/statistic.ko --extra-module build/modules/statistic_sample.ko)
fi
ourdm=0
[[ -x scripts/modules.sh ]] && step modules-build make -s modules && ourdm=1
# struct dm_io, stock against ours, with the stock kernel's headers: at most
# 8 bytes more per bio (pahole; 25 s). After make modules, which extracts
# the pristine drivers/md it compares with when the kernel tree is not
# there yet (a clean clone).
tap_part dm-io-size scripts/dm-io-size.sh
background_names=(stock)
((ourdm)) && background_names+=(stock-ourdm stock-ourdm-cpus255) && fuzz_guests+=("$logs/stock-ourdm")
part "guests ${background_names[*]} and make deb's: started in the background"
(
	# shellcheck disable=SC2046
	guest_quiet stock --kernel stock --timeout 2400 "${stock_modules[@]}" "${fuzz_args[@]}" \
		$(scripts/guest-suites.sh stock)
	((ourdm)) || exit 0
	# shellcheck disable=SC2046
	guest_quiet stock-ourdm --kernel stock --timeout 1800 --dm-mod build/modules/dm-mod.ko "${stock_modules[@]}" \
		"${fuzz_args[@]}" $(scripts/guest-suites.sh ourdm)
	# the same engine with 255 possible CPUs (2 online): every target's
	# counters and times with folds over 255 CPUs' blocks, and the engine's
	# memory per region at N = 255 (2 minutes, most of it the boot)
	guest_quiet stock-ourdm-cpus255 --kernel stock --dm-mod build/modules/dm-mod.ko --maxcpus 255 \
		--suite dm-stats-targets --suite dm-stats-engine
	# 5. Debian 12 as a server runs iotally: make deb's packages installed
	# with apt, DKMS building dm-mod for Debian's kernel, systemd, udev and
	# lvm2 in the mmdebstrap guest (its image is cached under
	# $HOME/.cache/iotally).
	make -s deb >"$logs/deb.log" 2>&1
	echo $? >"$logs/deb.rc"
	[[ $(<"$logs/deb.rc") == 0 ]] &&
		tests/debian/run.sh --name debian >"$logs/guest-debian.out" 2>&1
) &
background_guests=$!

# HZ=300, where jiffies_to_msecs() rounds (HZ=250 divides 1000): our
# kernel with everything of ours as modules (scripts/kernel-hz.sh); built
# before the patches part, whose modular build shares its objects.
hz300=0
step kernel-hz300-build scripts/kernel-hz.sh 300 && hz300=1
kernel_ok=0
step kernel-build make -s kernel && kernel_ok=1

# 2b. the same kernel with KASAN and lockdep (configs/debug.config): KUnit
# and the suites whose "kernels" file says debug (those that run our kernel
# code concurrently); any splat fails. Built and booted in the background
# while the patched kernel's guests run (they wait on timers much of the
# time); joined before the selftests-form part, which reads its .config.
part "kernel-debug-build, guests kasan kasan-cpus64: started in the background"
(
	make -s kernel DEBUG=1 >"$logs/kernel-debug-build.log" 2>&1
	echo $? >"$logs/kernel-debug-build.rc"
	[[ $(<"$logs/kernel-debug-build.rc") == 0 ]] || exit 0
	# shellcheck disable=SC2046
	# (a guest's time limit is for a hang: these share the CPUs with the
	# foreground, so they get more than alone)
	guest_quiet kasan --kernel patched --debug --timeout 3000 --kunit-suites "$kunit_suites" \
		$(scripts/guest-suites.sh debug)
	# with 64 possible CPUs (2 online): KUnit, and removing a device with
	# 1 GiB of counters in 64 per-CPU blocks raises no soft lockup or RCU
	# stall (1.5 minutes)
	guest_quiet kasan-cpus64 --kernel patched --debug --maxcpus 64 --kunit-suites "$kunit_suites" \
		--suite dm-stats-remove
) &
debug_guests=$!

if ((kernel_ok)); then
	tap_part kernel-lint scripts/lint-kernel.sh
	# no call runs back up a stack of our kernel files (iotally-development.rst)
	tap_part kernel-layers scripts/check-layers.sh
	# make patches signs as git config user.name/user.email and refuses
	# to run without them; a fresh CI clone may have neither, so the test
	# gets an identity of its own (environment only, nothing written).
	if [[ -z $(git config user.name) || -z $(git config user.email) ]]; then
		echo "=== patches: no git config user.name/user.email; testing as 'iotally check <check@iotally.invalid>'"
		patches_ident=(env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="iotally check"
			GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=check@iotally.invalid)
	else
		patches_ident=()
	fi
	tap_part patches "${patches_ident[@]}" scripts/check-patches.sh
	# shellcheck disable=SC2046
	guest patched --kernel patched --timeout 2400 --kunit-suites "$kunit_suites" "${fuzz_args[@]}" \
		$(scripts/guest-suites.sh patched)
	fuzz_guests+=("$logs/patched")
	# the same kernel without debugfs: the statistics layer stays silent
	# shellcheck disable=SC2046
	guest patched-nodebugfs --kernel patched --append debugfs=off $(scripts/guest-suites.sh nodebugfs)
	# locked down, as Secure Boot distributions boot: the layer stays closed
	# (KUnit ran in the patched guest: not again, so that the boot log the
	# suite reads holds what it looks for)
	# shellcheck disable=SC2046
	guest patched-lockdown --kernel patched --append "lockdown=integrity kunit.enable=0" \
		$(scripts/guest-suites.sh lockdown)
	# bpftrace and its 200 MiB of libraries: a guest of their own, which
	# also enables io events at boot by their names (io-trace-names) and
	# has a multipath NVMe namespace (io-trace-devices)
	# shellcheck disable=SC2046
	guest bpftrace --kernel patched --mem 2048 --append trace_event=io:io_start \
		--bootconfig tests/selftests/io-trace-names/bootconfig --nvme-multipath \
		$(scripts/guest-suites.sh bpftrace)
fi

# 2c. HZ=300: upstream's engine, rebuilt for that kernel, is the fuzzing
# oracle of ours on the same kernel (a guest each); our KUnit suites load as
# modules after our dm-mod.
if ((hz300)); then
	# and upstream's engine with the dm-rq fix that heads the mail series
	# times requests right (suite dm-rq-fixed, 5 s)
	guest hz300-stock --kernel patched --kernel-dir build/kernel-hz300 \
		--dm-mod build/kernel-hz300/dm-mod-stock.ko "${fuzz_args[@]}" --suite dm-stats-fuzz \
		--suite dm-rq-fixed
	# shellcheck disable=SC2046
	guest hz300 --kernel patched --kernel-dir build/kernel-hz300 --kunit-suites "$kunit_suites" \
		"${fuzz_args[@]}" $(scripts/guest-suites.sh modular)
fi

# 2d. our KUnit suites on a 32-bit SMP kernel in qemu-system-i386 (make
# check-i386): no torn 64-bit counter, no 64-bit division (about 15 s
# after a change with the build directory in place)
guest_with scripts/kunit-i386.sh kunit-i386

# 2b, started in the background above.
part "joining the KASAN + lockdep kernel's build and guests"
wait "$debug_guests"
if step_result kernel-debug-build "$(cat "$logs/kernel-debug-build.rc" 2>/dev/null || echo 1)"; then
	for name in kasan kasan-cpus64; do
		part "guest $name (ran in the background)"
		grep -v '^RESULT ' "$logs/guest-$name.out"
		guest_account "$name"
	done
fi

# The guest suites in kselftest's form: each one's Makefile, settings and
# config (set in every kernel built above that it runs on), and kselftest's
# own install of them all.
tap_part selftests-form scripts/check-selftests.sh

# 3, 4 and 5: the stock kernel's guests and the Debian guest, started in the
# background above.
if [[ -n $background_guests ]]; then
	part "joining the stock kernel's guests"
	wait "$background_guests"
	for name in "${background_names[@]}"; do
		part "guest $name (ran in the background)"
		grep -v '^RESULT ' "$logs/guest-$name.out"
		guest_account "$name"
	done
	part "deb (ran in the background)"
	if step_result deb "$(cat "$logs/deb.rc" 2>/dev/null || echo 1)"; then
		part "guest debian (ran in the background)"
		grep -v '^RESULT ' "$logs/guest-debian.out"
		guest_account debian
	fi
fi

# 6. the fuzzing transcripts: ours (stock + our dm-mod.ko, patched) against
# the stock engine's, one result per seed and guest.
tap_part fuzz-dm scripts/fuzz-dm.sh compare "$logs/stock" "${fuzz_guests[@]}"
((hz300)) && tap_part fuzz-dm-hz300 scripts/fuzz-dm.sh compare --hz 300 "$logs/hz300-stock" "$logs/hz300"


echo
part summary
printf '%s\n' "${summary[@]}"
if ((${#failures[@]} > 0)); then
	echo "=== failed tests (${#failures[@]}; details above and in build/logs)"
	printf '%s\n' "${failures[@]:0:12}" | cut -c1-160
	((${#failures[@]} > 12)) && echo "... and $((${#failures[@]} - 12)) more"
fi
if ((total_skip > 0)); then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
((total_fail == 0))
