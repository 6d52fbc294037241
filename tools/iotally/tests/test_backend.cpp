// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>
#include <unistd.h>

#include "bpf_memory.hpp"
#include "error_text.hpp"
#include "iotally/util/backend.hpp"
#include "iotally/util/error.hpp"
#include "tempdir.hpp"

namespace iotally {
namespace {

using test::error_text;

TEST(Backend, ParsesTheThreeNamesAndNothingElse) {
    EXPECT_EQ(parse_backend("auto"), Backend::automatic);
    EXPECT_EQ(parse_backend("native"), Backend::native);
    EXPECT_EQ(parse_backend("bpf"), Backend::bpf);
    for (Backend b : {Backend::automatic, Backend::native, Backend::bpf})
        EXPECT_EQ(parse_backend(backend_name(b)), b);
    EXPECT_EQ(error_text([] { parse_backend("BPF"); }),
              "--backend 'BPF': expected auto, native or bpf");
    EXPECT_EQ(error_text([] { parse_backend(""); }), "--backend '': expected auto, native or bpf");
}

TEST(Backend, AutoPrefersNativeThenBpf) {
    EXPECT_EQ(resolve_backend(Backend::automatic, "", "", "snoop"), Backend::native);
    EXPECT_EQ(resolve_backend(Backend::automatic, "", "no BTF", "snoop"), Backend::native);
    EXPECT_EQ(resolve_backend(Backend::automatic, "the io trace events", "", "snoop"),
              Backend::bpf);
}

TEST(Backend, WhatCannotRunIsUnsupportedAndSaysWhatIsMissing) {
    auto kind = [](auto call) {
        try {
            call();
        } catch (const Error& e) {
            return e.kind();
        }
        return ErrorKind::failed;
    };
    EXPECT_EQ(kind([] { resolve_backend(Backend::automatic, "X", "Y", "snoop"); }),
              ErrorKind::unsupported);
    EXPECT_EQ(error_text([] { resolve_backend(Backend::automatic, "X", "Y", "snoop"); }),
              "snoop: neither backend can run: X; Y");
    EXPECT_EQ(
        error_text([] { resolve_backend(Backend::native, "the io trace events", "", "snoop"); }),
        "snoop: the native backend needs the io trace events");
    EXPECT_EQ(error_text([] { resolve_backend(Backend::bpf, "", "no BTF", "tasks"); }),
              "tasks: the bpf backend cannot load: no BTF");
    // Asked for by name, a backend that can run is taken even if the other could too.
    EXPECT_EQ(resolve_backend(Backend::bpf, "", "", "snoop"), Backend::bpf);
    EXPECT_EQ(resolve_backend(Backend::native, "", "", "snoop"), Backend::native);
}

TEST(Backend, NoBtfIsNamedWithItsPath) {
    test::TempDir sys;  // no kernel/btf/vmlinux under it
    EXPECT_EQ(
        bpf_missing(sys.path()),
        "no BTF (" + sys.path() + "/kernel/btf/vmlinux: a kernel without CONFIG_DEBUG_INFO_BTF)");
}

TEST(Backend, WithBtfOnlyCapabilitiesCanBeMissing) {
    test::TempDir sys;
    sys.write("kernel/btf/vmlinux", "BTF");
    std::string missing = bpf_missing(sys.path());
    if (::geteuid() == 0)
        EXPECT_EQ(missing, "") << "root has CAP_SYS_ADMIN";
    else
        EXPECT_EQ(missing, "no CAP_BPF and CAP_PERFMON (run as root, or grant both)");
}

TEST(BpfMemory, MemlockIsReadFromAMapsFdinfo) {
    // As /proc/PID/fdinfo/FD shows a BPF map (Linux 6.12).
    EXPECT_EQ(fdinfo_memlock("pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1052\n"
                             "map_type:\t1\nkey_size:\t8\nvalue_size:\t64\n"
                             "max_entries:\t10240\nmap_flags:\t0x0\nmap_extra:\t0x0\n"
                             "memlock:\t1003520\nmap_id:\t7\nfrozen:\t0\n"),
              1003520u);
    EXPECT_EQ(fdinfo_memlock("pos:\t0\nflags:\t02\n"), 0u) << "not a BPF map";
    EXPECT_EQ(fdinfo_memlock("memlock:\tlots\n"), 0u);
    EXPECT_EQ(fdinfo_memlock(""), 0u);
}

}  // namespace
}  // namespace iotally
