#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Verify the mail series of `make patches`, one TAP line per check:
#
#   - make patches succeeds (every file of ours is in a step);
#   - each patch applies with git am on the pristine base, in order, in a
#     scratch clone (build/check-patches/src/linux);
#   - after each patch, the directories the series has touched so far build
#     (and drivers/md/ lib/ kernel/ block/ once an upstream header changed)
#     with the project's configuration (allnoconfig + configs/iotally.config,
#     as scripts/kernel-build.sh), without a compiler warning, in
#     build/check-patches/kernel with ccache: every prefix is bisectable;
#   - after the last patch, the whole kernel and its modules build, modpost
#     included, without a warning, with everything of ours that can be a
#     module as one (configs/modular.config: dm-mod, the statistics layer,
#     KUnit and every KUnit suite, the statistic_add() benchmark sample on
#     its own) at HZ=300, in build/check-patches/kernel-modular: the
#     configuration of build/kernel-hz300 (scripts/kernel-hz.sh), whose
#     objects ccache shares;
#   - the tree after the last patch equals build/src/linux, as make kernel
#     assembles it, on every file either of them changed; files only the
#     series has (documentation, selftests) equal their sources;
#   - the selftest helpers include nothing from outside their folder, and
#     the libiotally headers shipped there are libiotally's as they are;
#   - checkpatch.pl --strict reports nothing on every patch but
#     FILE_PATH_CHANGES (the MAINTAINERS reminder), and that only if the
#     commit message justifies it on a line "checkpatch TYPE: reason"; a
#     justification of any other type, or of a type checkpatch does not
#     report, fails;
#   - the first patch is the dm-rq fix for stable: drivers/md/dm-rq.c only,
#     with Fixes: and Cc: stable, applied to the pristine base first;
#   - every patch is from and signed off by git config user.name and
#     user.email; no patch names a path of the build machine;
#   - kernel-doc -Wall and, after each patch's build, sparse report nothing
#     on the lines the series adds to the C files that patch changes;
#   - after the last patch, every page the series adds is in a toctree and
#     every Documentation/ page its files name exists;
#   - the cover letter is filled in, describes every patch and lists the
#     maintainers.
#
# Needs build/src/linux (make tree). NOBUILD=1 skips the builds.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit
# shellcheck source=versions.sh
. scripts/versions.sh
kernel=$top/build/src/linux
work=$top/build/check-patches
# The same relative layout as build/kernel and build/src/linux, so that
# ccache (CCACHE_BASEDIR) shares objects with make kernel.
src=$work/src/linux
obj=$work/kernel
patches=$top/build/patches
jobs=${JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP='2024-11-17 00:00:00 UTC'
export KBUILD_BUILD_USER=iotally KBUILD_BUILD_HOST=iotally KBUILD_BUILD_VERSION=1
export GIT_AUTHOR_NAME=iotally GIT_AUTHOR_EMAIL=iotally@localhost
export GIT_COMMITTER_NAME=iotally GIT_COMMITTER_EMAIL=iotally@localhost

# shellcheck source=host-tap.sh
. scripts/host-tap.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
names=()
result() { # status name [details file]: its last 40 lines below a failure
	names+=("$2")
	tap_result "$1" "$2" "$([[ $1 != 0 && -n ${3:-} ]] && tail -n 40 "$3")" || return 1
	echo "#   at ${SECONDS}s"
}
finish() {
	wait
	if (($(tap_failures) == 0)) && [[ -n ${key:-} && ${NOBUILD:-0} != 1 ]]; then
		{
			echo "$key $(date -u +%FT%TZ)"
			printf '%s\n' "${names[@]:2}"
		} >"$verified"
	fi
	tap_finish
	exit
}

mkdir -p "$work"
exec 8>"$work/.lock"
flock 8

scripts/make-patches.sh >"$log" 2>&1
result $? "make patches" "$log" || finish
# The patches are named NNNN-subject.patch by make-patches.sh (no newline in a
# name), and ls keeps them in series order:
# shellcheck disable=SC2010
mapfile -t series < <(cd "$patches" && ls 0*.patch | grep -v '^0000-')
((${#series[@]} > 0))
result $? "the series has patches (${#series[@]})" || finish

# Whoever makes the series signs it: git config user.name and user.email
# (as git commit would), never a placeholder.
: >"$log"
me_name=$(git config user.name) me_mail=$(git config user.email)
for p in "${series[@]}"; do
	info=$(cd "$work" && git mailinfo /dev/null /dev/null <"$patches/$p")
	if ! grep -qxF "Author: $me_name" <<<"$info" || ! grep -qxF "Email: $me_mail" <<<"$info"; then
		echo "$p: From: is not $me_name <$me_mail>: $(grep -E '^(Author|Email):' <<<"$info" | paste -sd' ')" >>"$log"
	fi
	grep -qxF "Signed-off-by: $me_name <$me_mail>" "$patches/$p" ||
		echo "$p: no Signed-off-by: $me_name <$me_mail>" >>"$log"
done
# Nor do the quilt patches the tree is built from carry a made-up author:
# quilt needs none, and whoever mails them is the author.
grep -l 'iotally@localhost' "$patches"/*.patch "$top"/patches/*.patch "$top"/patches/mail/*.patch |
	sed 's/$/: names iotally@localhost/' >>"$log"
[[ -n $me_name && -n $me_mail && ! -s $log ]]
result $? "every patch is from and signed off by git config user.name <user.email> ($me_name <$me_mail>)" "$log"

# The dm-rq fix goes first, alone, for stable: the fix of a bug of the
# pristine tree, applied to it before anything else (git am below).
first=${series[0]}
: >"$log"
touched=$(grep '^diff --git ' "$patches/$first" | awk '{ print substr($3, 3) }' | sort -u | paste -sd' ')
[[ $touched == drivers/md/dm-rq.c ]] || echo "$first changes '$touched', not drivers/md/dm-rq.c alone" >>"$log"
msg=$(sed '/^---$/q' "$patches/$first")
grep -qE '^Fixes: [0-9a-f]{12,40} \(".+"\)$' <<<"$msg" ||
	echo "$first: no 'Fixes: <at least 12 hex digits> (\"subject\")'" >>"$log"
grep -qx 'Cc: stable@vger.kernel.org' <<<"$msg" || echo "$first: no 'Cc: stable@vger.kernel.org'" >>"$log"
grep -q '^Subject: \[PATCH 0*1/[0-9]*\] dm-rq: ' "$patches/$first" || echo "$first: not the dm-rq fix" >>"$log"
[[ ! -s $log ]]
result $? "patch 1 is the dm-rq fix for stable: drivers/md/dm-rq.c only, Fixes: and Cc: stable ($first)" "$log"


# The bisect builds take minutes: a series identical to one that passed
# every check before (same patches, our sources, config, pinned versions
# and checking scripts) is not built again, and its checks are reported as
# verified then. IOTALLY_RECHECK=1 checks it anyway.
verified=$work/verified
key=$({
	cat "$patches"/*.patch configs/*.config versions.mk scripts/check-patches.sh \
		scripts/make-patches.sh scripts/mail-series.py scripts/kernel-tree.sh \
		scripts/kernel-build.sh scripts/series-lint.py scripts/check-doc-paths.sh scripts/kernel-dirs
	# shellcheck disable=SC2046 # one word per folder
	find $(grep -v '^#' scripts/kernel-dirs) patches -type f 2>/dev/null |
		sort | xargs -r sha256sum
} | sha256sum | cut -d' ' -f1)
if [[ -z ${IOTALLY_RECHECK:-} && -f $verified ]] && read -r vkey vwhen <"$verified" &&
	[[ $vkey == "$key" ]]; then
	mapfile -t done_checks < <(tail -n +2 "$verified")
	key=
	for c in "${done_checks[@]}"; do
		result 0 "$c (identical series, verified $vwhen)"
	done
	finish
fi
rm -f "$verified"

# The scratch clone, at the base. A new base (new pristine tree) re-clones.
base=$(git --git-dir=build/mail/git rev-parse refs/tags/base)
if [[ ! -d $src/.git || $(git -C "$src" rev-parse -q --verify refs/tags/base 2>/dev/null) != "$base" ]]; then
	rm -rf "$src"
	mkdir -p "$work/src"
	git clone -q --no-checkout "$top/build/mail/git" "$src" >"$log" 2>&1 &&
		git -C "$src" checkout -q -f --detach "$base" >>"$log" 2>&1
	result $? "clone of the pristine base" "$log" || finish
fi
git -C "$src" am --abort >/dev/null 2>&1
# Untracked files can only be in directories the series touches (the
# builds are out of tree): clean those, not the whole 1.5 GB tree.
mapfile -t dirty < <(git -C "$src" diff --name-only "$base" HEAD 2>/dev/null | xargs -r -n1 dirname | grep -vx '\.' | sort -u)
git -C "$src" checkout -q -f --detach "$base" >"$log" 2>&1 &&
	git -C "$src" clean -q -fdx -- "${dirty[@]:-MAINTAINERS}" >>"$log" 2>&1
result $? "scratch tree reset to the pristine base" "$log" || finish

# checkpatch --strict, every type reported; it runs beside the builds and
# is judged after them against what each commit message justifies.
cpdir=$(mktemp -d)
trap 'rm -rf "$log" "$cpdir"' EXIT
for p in "${series[@]}"; do
	sed -n '/^---$/q; s/^checkpatch \([A-Z_]*\): ..*/\1/p' "$patches/$p" | sort -u >"$cpdir/$p.justified"
	# UNKNOWN_COMMIT_ID: the commits Fixes: names are mainline's, and the
	# pristine tree is Debian's source, not a clone that has them; the
	# first check above requires their form.
	(cd "$kernel" && perl scripts/checkpatch.pl --strict --quiet --show-types \
		--ignore UNKNOWN_COMMIT_ID "$patches/$p" >"$cpdir/$p.log" 2>&1
	echo $? >"$cpdir/$p.rc") &
done
# checkpatch_verdict PATCH: 0 if checkpatch reported only justified
# FILE_PATH_CHANGES, every justification is of a type it reported, and it
# ran; the reasons otherwise, appended to its log.
justifiable=FILE_PATH_CHANGES
checkpatch_verdict() {
	local p=$1 reported bad=0
	reported=$(grep -oE '^(WARNING|ERROR|CHECK):[A-Z_]+:' "$cpdir/$p.log" | cut -d: -f2 | sort -u)
	while read -r t; do
		[[ -z $t ]] && continue
		grep -qx "$t" "$cpdir/$p.justified" && continue
		echo "checkpatch $t: reported, not justified" >>"$cpdir/$p.log"
		bad=1
	done <<<"$reported"
	while read -r t; do
		[[ -z $t ]] && continue
		if [[ $t != "$justifiable" ]]; then
			echo "checkpatch $t: justified, but only $justifiable may be" >>"$cpdir/$p.log"
			bad=1
		elif ! grep -qx "$t" <<<"$reported"; then
			echo "checkpatch $t: justified, but checkpatch does not report it" >>"$cpdir/$p.log"
			bad=1
		fi
	done <"$cpdir/$p.justified"
	if [[ -z $reported && $(cat "$cpdir/$p.rc") != 0 ]]; then
		echo "checkpatch failed without a report" >>"$cpdir/$p.log"
		bad=1
	fi
	return $bad
}

frag=$work/iotally-fragment.config
cp configs/iotally.config "$frag"
kmake() { # in $obj, or in $kobj when set
	make -C "$src" O="${kobj:-$obj}" CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" "$@"
}

# build_dirs: the kbuild directories to build for the files changed so far.
# A changed upstream header can break any user: it builds drivers/md/, lib/,
# kernel/ and block/. A new header has only new users, built in their own
# directories.
build_dirs() {
	git -C "$src" diff --name-only --diff-filter=M "$base" HEAD -- include/ | grep -q . && upstream_header=1
	git -C "$src" diff --name-only "$base" HEAD | awk -v broad="${upstream_header:-0}" '
		/^(Documentation|tools)\// { next }
		/^include\// { if (broad) { d["drivers/md"]; d["lib"]; d["kernel"]; d["block"] } next }
		{ n = split($0, p, "/"); if (n > 1) { s = p[1]; for (i = 2; i < n; i++) s = s "/" p[i]; d[s] } }
		END { for (x in d) print x }' | sort -u |
		awk '{ for (i = 1; i <= k; i++) if (index($0 "/", kept[i] "/") == 1) next; kept[++k] = $0; print $0 "/" }'
}

# lint_new TOOL: keep the warnings (stdin) on lines the series added; 0 if none.
lint_new() {
	python3 scripts/series-lint.py added-only "$src" "$base"
}

for p in "${series[@]}"; do
	git -C "$src" am -q "$patches/$p" >"$log" 2>&1
	if ! result $? "git am $p" "$log"; then
		git -C "$src" am --abort >/dev/null 2>&1
		finish
	fi
	# kernel-doc -Wall on the C files this patch adds or changes
	mapfile -t cfiles < <(git -C "$src" diff --name-only --diff-filter=AM HEAD~1 HEAD -- '*.c' '*.h')
	if ((${#cfiles[@]})); then
		{ (cd "$src" && perl scripts/kernel-doc -Wall -none "${cfiles[@]}") 2>&1 || true; } | lint_new >"$log"
		result $? "kernel-doc -Wall $p (${#cfiles[@]} C files)" "$log"
	fi
	[[ ${NOBUILD:-0} == 1 ]] && continue
	if ! git -C "$src" diff --name-only HEAD~1 HEAD | grep -qvE '^(Documentation|tools)/'; then
		result 0 "$p builds # nothing to build: documentation and tools only"
		continue
	fi
	mapfile -t dirs < <(build_dirs)
	{
		kmake -s KCONFIG_ALLCONFIG="$frag" allnoconfig &&
			kmake "${dirs[@]}"
	} >"$log" 2>&1
	rc=$?
	if ((rc == 0)) && grep -E '(warning|error):' "$log" >"$log.w"; then
		cat "$log.w" >"$log"
		rc=1
	fi
	rm -f "$log.w"
	result $rc "$p builds: ${dirs[*]}" "$log"
	# sparse on the objects of the .c files this patch adds or changes
	# that the configuration builds
	mapfile -t objs < <(for f in "${cfiles[@]}"; do
		[[ $f == *.c && -f $obj/${f%.c}.o ]] && echo "${f%.c}.o"
	done)
	if ((rc == 0 && ${#objs[@]})); then
		{ kmake C=2 CHECK=sparse "${objs[@]}" 2>&1 || true; } | lint_new >"$log"
		result $? "sparse $p (${#objs[@]} objects)" "$log"
	fi
done

# Every page the series adds is in a toctree; every page it names exists.
python3 scripts/series-lint.py toctree "$src" "$base" >"$log" 2>&1
result $? "every page the series adds is in a toctree, every page it names exists" "$log"

# No page of the series, commit message or cover letter names a path of
# this machine (the selftests' own /tmp files are the guest's, not ours).
# A page the series adds is checked whole; of an upstream page it changes,
# only the lines it adds (upstream's own examples name /tmp files).
words=$work/messages.txt
for p in 0000-cover-letter.patch "${series[@]}"; do
	sed '/^---$/q' "$patches/$p"
done >"$words"
mapfile -t pages < <(git -C "$src" diff --name-only --diff-filter=A "$base" HEAD -- Documentation/ |
	sed "s|^|$src/|")
added=$work/added-lines
rm -rf "$added"
while read -r f; do
	mkdir -p "$added/$(dirname "$f")"
	git -C "$src" diff -U0 "$base" HEAD -- "$f" | sed -n '/^+++ /d; s/^+//p' >"$added/$f"
	pages+=("$added/$f")
done < <(git -C "$src" diff --name-only --diff-filter=M "$base" HEAD -- Documentation/)
scripts/check-doc-paths.sh "$words" "${pages[@]}" >"$log" 2>&1
result $? "no page or message of the series names a path of the build machine (${#pages[@]} pages)" "$log"

# The last step's configuration: every symbol of the fragment as written.
if [[ ${NOBUILD:-0} != 1 ]]; then
	: >"$log"
	while IFS= read -r line; do
		[[ $line =~ ^CONFIG_ ]] || continue
		grep -qxF "$line" "$obj/.config" || echo "wanted $line, Kconfig gave: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo absent)" >>"$log"
	done <configs/iotally.config
	[[ ! -s $log ]]
	result $? "after the series, Kconfig gives every symbol of configs/iotally.config" "$log"
fi

# After the series, everything that can be a module as one: modpost sees
# every call from a test module into code it does not export.
if [[ ${NOBUILD:-0} != 1 ]]; then
	mobj=$work/kernel-modular
	mfrag=$mobj/iotally-fragment.config
	mkdir -p "$mobj"
	cat configs/iotally.config configs/modular.config >"$mfrag"
	printf '# CONFIG_HZ_250 is not set\nCONFIG_HZ_300=y\n' >>"$mfrag"
	missing=
	{
		kobj=$mobj kmake -s KCONFIG_ALLCONFIG="$mfrag" allnoconfig &&
			kobj=$mobj kmake -s
	} >"$log" 2>&1
	rc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Z0-9_]+)= ]] && ! grep -qxF "$line" "$mobj/.config"; then
			missing+=" $line"
		elif [[ $line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]] &&
			grep -q "^${BASH_REMATCH[1]}=" "$mobj/.config"; then
			missing+=" ${BASH_REMATCH[1]}-unset"
		fi
	done < <(grep -v '^# CONFIG_HZ_250' configs/modular.config; echo CONFIG_HZ=300)
	for ko in drivers/md/dm-mod drivers/md/dm-stats-test lib/statistic lib/statistic-test \
		kernel/task_io_stats_test block/io-trace-test samples/statistic/statistic_bench; do
		[[ -f $mobj/$ko.ko ]] || missing+=" $ko.ko"
	done
	if ((rc == 0)) && [[ -n $missing ]]; then
		echo "Kconfig or the build did not give:$missing" >>"$log"
		rc=1
	fi
	# Kconfig says where modular.config overrides iotally.config: not a warning of the build.
	if ((rc == 0)) && grep -E '(warning|error|WARNING|ERROR):' "$log" |
		grep -v 'warning: override: reassigning to symbol' >"$log.w"; then
		cat "$log.w" >"$log"
		rc=1
	fi
	rm -f "$log.w"
	result $rc "after the series, the kernel builds with everything of ours as modules (configs/modular.config, HZ=300)" "$log"
fi

# Same sources as make kernel: every file make kernel changed or the series changed.
: >"$log"
mapfile -t series_files < <(git -C "$src" diff --name-only "$base" HEAD)
mapfile -t tree_files < <(cat "$kernel/.iotally/touched")
declare -A mailonly=()
while IFS=$'\t' read -r kind path from; do
	[[ $kind == file && ! -e $top/build/src/linux/$path ]] && mailonly[$path]=$from
	[[ $kind == patch && $from == patches/mail/* ]] && mailonly[$path]='patch'
done < <(python3 scripts/mail-series.py targets 2>/dev/null)
checked=0
for f in $(printf '%s\n' "${series_files[@]}" "${tree_files[@]}" | sort -u); do
	[[ -n ${mailonly[$f]:-} ]] && continue
	checked=$((checked + 1))
	if [[ -e $src/$f || -e $kernel/$f ]] && ! cmp -s "$src/$f" "$kernel/$f"; then
		echo "$f differs from build/src/linux/$f" >>"$log"
	fi
done
[[ ! -s $log ]]
result $? "the series gives the sources of make kernel ($checked files)" "$log"
: >"$log"
for f in "${!mailonly[@]}"; do
	from=${mailonly[$f]}
	if [[ ! -e $src/$f ]]; then
		echo "$f: not in the series" >>"$log"
	elif [[ $from != patch ]] && ! cmp -s "$src/$f" "$from"; then
		echo "$f differs from $from" >>"$log"
	fi
done
[[ ! -s $log ]]
result $? "files only the series has equal their sources (${#mailonly[@]} files)" "$log"

# The selftest helpers build with the kernel tree and libc alone: each file
# they include in quotes is in their folder, and those that are libiotally's
# (the one-file maps of patches/mail-series) are its own, unchanged.
: >"$log"
helpers=tools/testing/selftests/iotally/helpers
shared=()
while IFS=$'\t' read -r from to; do
	[[ $to == "$helpers"/* ]] || continue
	shared+=("${to##*/}")
	cmp -s "$src/$to" "$from" || echo "$to: not $from as it is" >>"$log"
done < <(python3 scripts/mail-series.py file-maps)
for f in "$src/$helpers"/*; do
	sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		[[ -f $src/$helpers/$inc ]] || echo "${f#"$src"/}: includes $inc, not in its folder"
	done
done >>"$log"
((${#shared[@]})) && [[ ! -s $log ]]
result $? "the selftest helpers need only their folder, with libiotally's ${shared[*]} as they are" "$log"

wait
for p in "${series[@]}"; do
	justified=$(paste -sd, "$cpdir/$p.justified")
	checkpatch_verdict "$p"
	result $? "checkpatch --strict $p${justified:+ (justified: $justified)}" "$cpdir/$p.log"
done

cover=$patches/0000-cover-letter.patch
! grep -q '\*\*\*\|@RESULTS@\|@MAINTAINERS@\|@PATCHES@' "$cover" && grep -q '(maintainer:' "$cover"
result $? "cover letter filled in, with get_maintainer.pl output"

# The cover letter describes every patch: "[N/M] subject", then its text.
: >"$log"
for p in "${series[@]}"; do
	head=$(cd "$work" && git mailinfo -k /dev/null /dev/null <"$patches/$p" |
		sed -n 's/^Subject: \[PATCH \([0-9]*\/[0-9]*\)\] /[\1] /p')
	awk -v h="$head" 'found { ok = ($0 ~ /^  [^ ]/); exit } $0 == h { found = 1 } END { exit !ok }' "$cover" ||
		echo "no description of: ${head:-$p}" >>"$log"
done
[[ ! -s $log ]]
result $? "the cover letter describes every patch (${#series[@]})" "$log"

# Every benchmark's table, fresh or recorded, with its ratios.
missing=()
for host in tests/bench/*/host.sh; do
	name=$(basename "$(dirname "$host")")
	grep -q "^\`make bench\`, $name:\$" "$cover" || missing+=("$name")
done
echo "no table in the cover letter for: ${missing[*]}" >"$log"
((${#missing[@]} == 0)) && grep -qi 'ratio' "$cover"
result $? "cover letter quotes every make bench table" "$log"

finish
