// SPDX-License-Identifier: GPL-2.0-or-later
// snoop's events from iotally's BPF programs (bpf/snoop.bpf.c) on a
// kernel without the io trace events: each record of a completed bio
// becomes an io:io_start and io:io_done pair, each wait an io:io_wait_start and
// io:io_wait_done pair, with what the native events would say where BPF can
// know it (Documentation/iotally-bpf.rst, "snoop").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include "iotally/snoop/snoop.hpp"

namespace iotally {

// Turns the program's records (bpf/snoop_record.h) into IoEvents. Pure:
// the paths it learns are kept here, the disk's driver is the record's or
// derived from its name; tested with made-up records.
class BpfRecordDecoder {
  public:
    // Calls @fn with the events of one ring-buffer record (none for a path
    // record, which only teaches a path); false for a record it does not
    // know (too short, unknown type).
    bool decode(const void* data, std::size_t size, const std::function<void(const IoEvent&)>& fn);
    // The path in its file system of a file already described, or "".
    std::string path_of(std::uint32_t fsdev, std::uint64_t ino) const;
    std::size_t paths() const { return paths_.size(); }

  private:
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::string> paths_;
};

// -errno of a blk_status_t (the kernel's blk_status_to_errno()).
int blk_status_errno(unsigned status);
// The disk name as "%pg" prints it: "sda1", "nvme0n1p2", "dm-0".
std::string bpf_disk_name(const std::string& disk, unsigned partno);
// A driver name from a disk name, when the kernel gave none: without its
// instance number and a trailing '-' ("dm-3" -> "dm").
std::string driver_from_disk(const std::string& disk);

class BpfIoReader : public IoEventSource {
  public:
    struct Options {
        unsigned buffer_kb = 4096;    // per CPU, as tracefs's: the ring is ncpus times it
        bool waits = true;            // attach the io_schedule programs
        std::ostream* log = nullptr;  // libbpf's messages when loading fails (-v)
    };
    // Loads and attaches the programs. Throws Error: unsupported when the
    // kernel refuses them (no BTF, no capability, a missing attach point),
    // failed when a map cannot be made.
    explicit BpfIoReader(const Options& o);
    ~BpfIoReader() override;
    BpfIoReader(const BpfIoReader&) = delete;
    BpfIoReader& operator=(const BpfIoReader&) = delete;

    std::size_t read(const std::function<void(const IoEvent&)>& fn) override;
    std::uint64_t lost() const override;
    std::uint64_t unmatched() const override;
    // Kernel memory the programs' maps hold (their memlock), in bytes.
    std::uint64_t map_bytes() const;

  private:
    struct State;
    std::unique_ptr<State> st_;
};

}  // namespace iotally
