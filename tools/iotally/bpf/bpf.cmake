# SPDX-License-Identifier: GPL-2.0-or-later
#
# iotally's CO-RE BPF programs, built from source with Debian's clang, libbpf
# and bpftool: bpf/NAME.bpf.c -> NAME.bpf.o -> NAME.skel.h (bpftool gen
# skeleton), which embeds the object in the program that includes it. The
# types come from vmlinux.h, dumped from the BTF of the kernel image that
# versions.mk pins (bpf/vmlinux-h.sh), so every build sees the same types;
# libbpf relocates each field access against the running kernel at load.

find_program(BPFTOOL bpftool PATHS /usr/sbin /sbin REQUIRED)
find_program(BPF_CLANG NAMES clang clang-14 REQUIRED)
pkg_check_modules(LIBBPF REQUIRED IMPORTED_TARGET libbpf)

set(IOTALLY_VMLINUX_IMAGE "" CACHE FILEPATH
    "Kernel image (bzImage or ELF) whose BTF vmlinux.h is dumped from; default: versions.mk's")
if(NOT IOTALLY_VMLINUX_IMAGE)
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/../../versions.mk kernel_release_line
       REGEX "^KERNEL_RELEASE[ \t]*:=")
  string(REGEX REPLACE "^KERNEL_RELEASE[ \t]*:=[ \t]*" "" kernel_release "${kernel_release_line}")
  if(NOT kernel_release)
    message(FATAL_ERROR "versions.mk names no KERNEL_RELEASE: set IOTALLY_VMLINUX_IMAGE")
  endif()
  set(IOTALLY_VMLINUX_IMAGE /boot/vmlinuz-${kernel_release})
endif()

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
  set(bpf_target_arch x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(bpf_target_arch arm64)
else()
  set(bpf_target_arch ${CMAKE_SYSTEM_PROCESSOR})
endif()

set(IOTALLY_BPF_OUT ${CMAKE_CURRENT_BINARY_DIR}/bpf)
file(MAKE_DIRECTORY ${IOTALLY_BPF_OUT})
add_custom_command(
  OUTPUT ${IOTALLY_BPF_OUT}/vmlinux.h
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bpf/vmlinux-h.sh ${IOTALLY_VMLINUX_IMAGE}
          ${IOTALLY_BPF_OUT}/vmlinux.h
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bpf/vmlinux-h.sh ${IOTALLY_VMLINUX_IMAGE}
  COMMENT "vmlinux.h from the BTF of ${IOTALLY_VMLINUX_IMAGE}"
  VERBATIM)

file(GLOB iotally_bpf_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bpf/*.h)

# iotally_bpf_skeleton(NAME): ${IOTALLY_BPF_OUT}/NAME.skel.h from
# bpf/NAME.bpf.c; appends it to the list iotally_bpf_skeletons.
function(iotally_bpf_skeleton name)
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/bpf/${name}.bpf.c)
  set(obj ${IOTALLY_BPF_OUT}/${name}.bpf.o)
  set(skel ${IOTALLY_BPF_OUT}/${name}.skel.h)
  # -g: the BTF that CO-RE relocations and the skeleton need; no sanitizer,
  # fuzzer or host flags reach a BPF object. The BTF's line information
  # names the sources relative to the tree, not where it was built (a
  # reproducible package).
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_${bpf_target_arch}
            -fdebug-prefix-map=${CMAKE_CURRENT_SOURCE_DIR}=tools/iotally
            -fdebug-prefix-map=${IOTALLY_BPF_OUT}=bpf -fdebug-compilation-dir=.
            -Wall -Werror -I${IOTALLY_BPF_OUT} -I${CMAKE_CURRENT_SOURCE_DIR}/bpf
            -c ${src} -o ${obj}.tmp
    COMMAND ${BPFTOOL} gen object ${obj} ${obj}.tmp
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name}_bpf > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${src} ${iotally_bpf_headers} ${IOTALLY_BPF_OUT}/vmlinux.h
    COMMENT "BPF skeleton ${name}"
    VERBATIM)
  set(iotally_bpf_skeletons ${iotally_bpf_skeletons} ${skel} PARENT_SCOPE)
endfunction()
