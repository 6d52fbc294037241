#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest suites are in kselftest's form (tests/selftests/SUITE, in the
# kernel tree tools/testing/selftests/iotally/SUITE). For each suite:
#   - its Makefile runs run.sh and names every other file of the folder
#     (TEST_FILES), every file it sources from outside (TEST_INCLUDES) and
#     every program it runs from its folder (TEST_GEN_PROGS_EXTENDED, built
#     from tests/selftests/helpers by helpers.mk);
#   - its settings give a timeout;
#   - each symbol of its config is set in a kernel it runs on (the patched
#     kernel's .config for a suite of the patched guests, Debian's for one
#     of the stock guests);
#   - kselftest's own "make install" of all of them into one folder builds
#     their programs, gives each suite its files, programs and includes
#     where run.sh sources them, and lists it in kselftest-list.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
# shellcheck source=versions.sh
. scripts/versions.sh
# shellcheck source=host-tap.sh
. scripts/host-tap.sh

# kernel_config GUEST: the .config of the kernel a guest of
# scripts/guest-suites.sh boots.
kernel_config() {
	case $1 in
	patched | lockdown | nodebugfs | demo | bpftrace) echo "$top/build/kernel/.config" ;;
	debug) echo "$top/build/kernel-debug/.config" ;;
	modular | rqfix) echo "$top/build/kernel-hz300/.config" ;;
	*) echo "/boot/config-$KERNEL_RELEASE" ;;
	esac
}

# Debian's kernel gets the statistics layer and its sample exploiter as
# modules built out of tree (scripts/statistic-module.sh).
out_of_tree="CONFIG_STATISTICS CONFIG_SAMPLE_STATISTIC"

# sourced FILE: the files FILE sources from another folder (". ../x"), and
# the awk programs it runs from one ("awk -f ../x").
sourced() {
	sed -n 's/^[[:space:]]*\. \(\.\.\/[A-Za-z0-9_./-]*\).*/\1/p' "$1"
	grep -o 'awk -f \.\./[A-Za-z0-9_./-]*' "$1" | sed 's/^awk -f //'
}

suites=()
declare -A gen_of=() includes_of=() # per suite, read from its Makefile below
for d in tests/selftests/*/; do
	[[ -f $d/run.sh ]] && suites+=("$(basename "$d")")
done

for s in "${suites[@]}"; do
	dir=tests/selftests/$s
	mk=$dir/Makefile
	if [[ ! -f $mk ]]; then
		fail "$s: a Makefile" "no $mk"
		continue
	fi
	# The Makefile includes ../../lib.mk, which is kselftest's: read its
	# variables without it.
	vars=$(sed '/^include /d' "$mk" | make -s --no-print-directory -f - \
		-E 'print: ; @echo "$(TEST_PROGS)|$(TEST_FILES)|$(TEST_INCLUDES)|$(TEST_GEN_PROGS_EXTENDED)"' print)
	IFS='|' read -r progs files includes gen <<<"$vars"
	gen_of[$s]=$gen includes_of[$s]=$includes
	check_eq "$s: the Makefile runs run.sh" "run.sh" "$progs"
	grep -qx 'include ../../lib.mk' "$mk" || fail "$s: the Makefile includes kselftest's lib.mk" "no 'include ../../lib.mk' in $mk"
	want_files=$(find "$dir" -maxdepth 1 -type f ! -name run.sh ! -name Makefile ! -name settings \
		! -name config ! -name kernels -printf '%f\n' | sort | xargs)
	check_eq "$s: TEST_FILES are the folder's other files" "$want_files" "$(printf '%s\n' $files | sort | xargs)"
	want_inc="../lib.sh ../../kselftest/ktap_helpers.sh"
	for f in "$dir"/*.sh; do
		for inc in $(sourced "$f"); do
			[[ $inc == ../lib.sh ]] && continue
			want_inc+=" $inc"
			# what a sourced file of another folder sources in turn
			for inc2 in $(sourced "$dir/$inc"); do
				[[ $inc2 == ../lib.sh ]] || want_inc+=" $inc2"
			done
		done
	done
	check_eq "$s: TEST_INCLUDES are what it sources from outside" \
		"$(printf '%s\n' $want_inc | sort -u | xargs)" "$(printf '%s\n' $includes | sort -u | xargs)"
	# the programs it runs from its folder (./PROG) are the ones its
	# Makefile builds there, each from a source in ../helpers
	used=$(cat "$dir"/*.sh | grep -oE '(^|[[:space:]|;(])\./[A-Za-z0-9_-]+([[:space:]"]|$)' |
		sed -E 's/^[^.]*\.\///; s/[[:space:]"]*$//' | sort -u | while read -r p; do
			[[ -e $dir/$p ]] || echo "$p"
		done | xargs)
	check_eq "$s: the Makefile builds the programs it runs" "$used" "$(printf '%s\n' $gen | sort -u | xargs)"
	if [[ -n $gen ]]; then
		grep -qx 'include ../helpers/helpers.mk' "$mk" ||
			fail "$s: the Makefile includes ../helpers/helpers.mk" "no such line in $mk"
		for p in $gen; do
			[[ -f tests/selftests/helpers/$p.cpp || -f tests/selftests/helpers/$p.c ]] ||
				fail "$s: $p has a source in tests/selftests/helpers" "no $p.cpp or $p.c"
		done
	fi
	check_match "$s: settings give a timeout" '^timeout=[1-9][0-9]+$' "$(cat "$dir/settings" 2>/dev/null)"
	if [[ ! -s $dir/config ]]; then
		fail "$s: a config" "no $dir/config"
		continue
	fi
	# every kernel the suite runs on (its "kernels" file, as
	# scripts/guest-suites.sh reads it; none: the patched one)
	kernels=$(grep -v '^#' "$dir/kernels" 2>/dev/null | xargs)
	configs=$(for k in ${kernels:-patched}; do kernel_config "$k"; done | sort -u)
	for config in $configs; do
		if [[ ! -f $config ]]; then
			fail "$s: its config is set in ${config#"$top"/}" "${config#"$top"/} is missing (make check builds it)"
			continue
		fi
		unset_syms=$(grep -v '^#' "$dir/config" | sed 's/=.*//' | while read -r sym; do
			grep -qE "^$sym=(y|m)$" "$config" && continue
			[[ $config == /boot/* && " $out_of_tree " == *" $sym "* ]] && continue
			echo "$sym"
		done | xargs)
		check_eq "$s: its config is set in ${config#"$top"/}" "" "$unset_syms"
	done
done

# kselftest's install, as a distribution or a CI packs the suites, from
# the suites laid out in kselftest's frame (scripts/kselftest-stage.sh).
stage=$(scripts/kselftest-stage.sh) || bail "no kselftest stage"
inst=$(mktemp -d "${TMPDIR:-/tmp}/check-selftests.XXXXXX")
trap 'rm -rf "$inst"' EXIT
targets=$(printf 'iotally/%s ' "${suites[@]}")
check_ok "kselftest's make install of every suite" \
	make -s -C "$stage/tools/testing/selftests" TARGETS="$targets" INSTALL_PATH="$inst" install
for s in "${suites[@]}"; do
	missing=
	for f in run.sh $(cd "tests/selftests/$s" && ls) ${gen_of[$s]:-}; do
		[[ $f == kernels || $f == Makefile ]] && continue
		[[ -e $inst/iotally/$s/$f ]] || missing+=" $f"
	done
	for inc in ${includes_of[$s]:-}; do
		[[ -e $inst/iotally/$s/$inc ]] || missing+=" $inc"
	done
	check_eq "installed: $s has its files and includes" "" "${missing# }"
	check_eq "installed: kselftest-list.txt lists $s" "iotally/$s:run.sh" \
		"$(grep -x "iotally/$s:run.sh" "$inst/kselftest-list.txt" 2>/dev/null)"
done
tap_finish
