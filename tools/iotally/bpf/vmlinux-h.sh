#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vmlinux.h for iotally's CO-RE BPF programs, generated from the BTF of a
# kernel image: the pinned Debian kernel's (versions.mk KERNEL_RELEASE) by
# default, so that every build dumps the same types. The programs only
# name types and fields; libbpf relocates each access against the running
# kernel's own BTF at load time.
#
#   vmlinux-h.sh IMAGE OUT
#
# IMAGE is a bzImage (Debian's /boot/vmlinuz-*: its zstd, xz or gzip
# payload is the ELF vmlinux) or an ELF vmlinux with a .BTF section.
set -eu
image=${1:?usage: vmlinux-h.sh IMAGE OUT}
out=${2:?usage: vmlinux-h.sh IMAGE OUT}
[ -r "$image" ] || { echo "vmlinux-h.sh: cannot read $image (install the kernel image named in versions.mk)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The offset of the first occurrence of a byte string (printf escapes) in
# the image, or nothing.
offset_of() {
	LC_ALL=C grep -obUaP "$1" "$image" 2>/dev/null | head -n 1 | cut -d: -f1
}

if [ "$(head -c 4 "$image" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
	elf=$image
else
	elf=$tmp/vmlinux
	for codec in zstd xz gzip; do
		case $codec in
		zstd) magic='\x28\xb5\x2f\xfd' ;;
		xz) magic='\xfd\x37\x7a\x58\x5a\x00' ;;
		gzip) magic='\x1f\x8b\x08' ;;
		esac
		off=$(offset_of "$magic")
		[ -n "$off" ] || continue
		# The payload is followed by the rest of the bzImage: the
		# decompressor stops at the end of its frame and complains.
		tail -c +"$((off + 1))" "$image" | $codec -dc 2>/dev/null >"$elf" || true
		[ "$(head -c 4 "$elf" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && break
	done
fi
[ -s "$elf" ] && [ "$(head -c 4 "$elf" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
	{ echo "vmlinux-h.sh: no ELF vmlinux in $image" >&2; exit 1; }
bpftool btf dump file "$elf" format c >"$tmp/vmlinux.h" ||
	{ echo "vmlinux-h.sh: $image has no BTF (CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
mv "$tmp/vmlinux.h" "$out"
