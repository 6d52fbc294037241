#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make patches: the tree as a git-am series against the pristine 6.12 tree.
#
#   build/mail/git       scratch bare repository; tag "base" is the pristine
#                        tree (imported once, again only when it changes)
#   build/patches/       0000-cover-letter.patch, 0001-... (git format-patch)
#
# Which file goes into which commit is data: patches/mail-series, commit
# messages in patches/mail/. Every file of ours must be assigned, or this
# fails (scripts/mail-series.py does the work). Needs build/src/linux-pristine
# and build/src/linux (make tree): get_maintainer.pl runs in the latter.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pristine=$top/build/src/linux-pristine
kernel=$top/build/src/linux
gitdir=$top/build/mail/git
out=$top/build/patches

[[ -e $pristine/.extracted && -d $kernel ]] || { echo "make-patches: run 'make tree' first" >&2; exit 1; }
mkdir -p "$top/build/mail"
# One scratch repository, several callers (make patches, check-patches.sh).
exec 7>"$top/build/mail/.lock"
flock 7
# The pristine tree must not change under us either.
exec 9>"$top/build/src/.lock"
flock -s 9

# The base commit, cached: keyed on the extracted tree's marker.
key="$(stat -c '%n %s %Y' "$pristine/.extracted" "$pristine/Makefile")"
if [[ ! -f $top/build/mail/base.key || $(cat "$top/build/mail/base.key") != "$key" ]] ||
	! git --git-dir="$gitdir" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	echo "  IMPORT  build/src/linux-pristine as the base commit (once)"
	rm -rf "$gitdir" "$top/build/mail/base.key"
	git init -q --bare "$gitdir"
	git --git-dir="$gitdir" config gc.auto 0
	git --git-dir="$gitdir" config core.autocrlf false
	idx=$top/build/mail/base.index
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git --git-dir="$gitdir" --work-tree="$pristine" \
		add -A -f -- . ':(exclude).extracted'
	tree=$(GIT_INDEX_FILE=$idx git --git-dir="$gitdir" write-tree)
	rm -f "$idx"
	# shellcheck source=versions.sh
	. "$top/scripts/versions.sh"
	base=$(GIT_AUTHOR_NAME=Debian GIT_AUTHOR_EMAIL=debian-kernel@lists.debian.org \
		GIT_COMMITTER_NAME=iotally GIT_COMMITTER_EMAIL=iotally@localhost \
		GIT_AUTHOR_DATE='2024-11-17 00:00:00 +0000' GIT_COMMITTER_DATE='2024-11-17 00:00:00 +0000' \
		git --git-dir="$gitdir" commit-tree "$tree" \
		-m "Linux 6.12: Debian $KERNEL_SOURCE_PKG $KERNEL_DEB_VERSION")
	git --git-dir="$gitdir" tag base "$base"
	echo "$key" >"$top/build/mail/base.key"
fi

python3 "$top/scripts/mail-series.py" build "$gitdir" refs/tags/base "$pristine" "$out" "$kernel"
n=$(find "$out" -name '0*.patch' ! -name '0000-*' | wc -l)
echo "  PATCHES build/patches: cover letter and $n patches on $(git --git-dir="$gitdir" rev-parse --short refs/tags/base) (pristine 6.12)"
