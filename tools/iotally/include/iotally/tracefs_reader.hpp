// SPDX-License-Identifier: GPL-2.0-or-later
// Reads the io trace events from a tracefs instance of our own, so that
// other tracers (ftrace users, perf, bpftrace, another iotally) are never
// disturbed: the instance is made, its io events enabled, and everything
// is removed again when the reader goes away.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "iotally/iotrace.hpp"

struct tracefs_instance;
struct tep_handle;

namespace iotally {

class TraceReader {
  public:
    // Throws Error: unsupported without tracefs or without the io events,
    // permission when the instance cannot be made.
    explicit TraceReader(const std::string& instance_name, unsigned buffer_kb = 4096);
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    // Calls @fn for every io event buffered now, oldest first; returns how many.
    std::size_t read(const std::function<void(const IoEvent&)>& fn);
    // Events the kernel dropped because the buffer was full.
    std::uint64_t overruns() const;

  private:
    struct Instance;
    std::unique_ptr<Instance> inst_;
};

}  // namespace iotally
