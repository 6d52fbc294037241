#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Lay out the patched kernel source tree, incrementally.
#
#   build/src/linux-pristine  Debian's linux-source-6.12, untouched (extracted once)
#   build/src/linux           pristine + patches/series + our own kernel files
#
# The working tree is brought to "pristine, then every patch in series applied
# with no fuzz, then our files copied over", touching only files whose content
# changes, so kbuild rebuilds only what really changed.
#
# Usage: scripts/kernel-tree.sh SOURCE_TARBALL SOURCE_DIR_NAME
set -euo pipefail

tarball=$1
srcname=$2
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build/src
pristine=$build/linux-pristine
work=$build/linux
state=$work/.iotally
# Our kernel files: everything under the folders scripts/kernel-dirs lists.
mapfile -t overlay_dirs < <(grep -v '^#' "$top/scripts/kernel-dirs")

mkdir -p "$build"
# One tree, several builders: serialise.
exec 9>"$build/.lock"
flock 9
if [[ ! -e $pristine/.extracted ]]; then
	echo "  EXTRACT $tarball"
	rm -rf "$pristine" "${build:?}/$srcname"
	tar -C "$build" -xf "$tarball"
	mv "$build/$srcname" "$pristine"
	touch "$pristine/.extracted"
fi
if [[ ! -e $work/.iotally/copied ]]; then
	echo "  COPY    pristine tree to build/src/linux"
	rm -rf "$work"
	cp -a "$pristine" "$work"
	mkdir -p "$state"
	: >"$state/touched"
	touch "$state/copied"
fi

# Files we provide, relative to the tree.
mapfile -t ours < <(cd "$top" && for d in "${overlay_dirs[@]}"; do
	[[ -d $d ]] && find "$d" -type f ! -name '*.o' ! -name '.*' ! -name '*.ko' \
		! -name '*.mod*' ! -name '*.cmd'
done | sort)

# Patches, in series order.
patches=()
if [[ -f $top/patches/series ]]; then
	while read -r p _; do
		[[ -z $p || $p == \#* ]] && continue
		patches+=("$p")
	done <"$top/patches/series"
fi

# Files the patches touch.
patched=()
for p in "${patches[@]}"; do
	[[ -f $top/patches/$p ]] || { echo "kernel-tree: patches/$p is in series but missing" >&2; exit 1; }
	while read -r f; do patched+=("$f"); done < <(
		sed -n -e 's|^+++ b/\([^\t ]*\).*|\1|p' -e 's|^--- a/\([^\t ]*\).*|\1|p' "$top/patches/$p" |
		grep -v '^/dev/null$' | sort -u)
done

# Every file whose content we may have to decide: what we touch now, and what
# we touched last time (so that dropping a patch or a file restores upstream).
mapfile -t universe < <(printf '%s\n' "${ours[@]}" "${patched[@]}" | sed '/^$/d' |
	cat - "$state/touched" | sort -u)

stage=$(mktemp -d "$build/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
for f in "${universe[@]}"; do
	if [[ -f $pristine/$f ]]; then
		mkdir -p "$stage/$(dirname "$f")"
		cp -p "$pristine/$f" "$stage/$f"
	fi
done
for p in "${patches[@]}"; do
	if ! out=$(cd "$stage" && patch -p1 -F0 -N --batch --no-backup-if-mismatch \
		-r - <"$top/patches/$p" 2>&1); then
		echo "$out" >&2
		echo "kernel-tree: patches/$p does not apply to $srcname" >&2
		exit 1
	fi
	if grep -q -e 'with fuzz' -e 'offset' <<<"$out"; then
		echo "$out" >&2
		echo "kernel-tree: patches/$p applies only with fuzz or offset: refresh it" >&2
		exit 1
	fi
done
for f in "${ours[@]}"; do
	mkdir -p "$stage/$(dirname "$f")"
	cp "$top/$f" "$stage/$f"
done

changed=0
for f in "${universe[@]}"; do
	if [[ -f $stage/$f ]]; then
		if ! cmp -s "$stage/$f" "$work/$f"; then
			mkdir -p "$work/$(dirname "$f")"
			cp "$stage/$f" "$work/$f"
			echo "  UPDATE  $f"
			changed=$((changed + 1))
		fi
	elif [[ -e $work/$f ]]; then
		rm -f "$work/$f"
		echo "  REMOVE  $f"
		changed=$((changed + 1))
	fi
done
printf '%s\n' "${ours[@]}" "${patched[@]}" | sed '/^$/d' | sort -u >"$state/touched"
echo "  TREE    build/src/linux: ${#patches[@]} patches, ${#ours[@]} files of ours, $changed updated"
