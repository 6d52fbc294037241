// SPDX-License-Identifier: GPL-2.0-or-later
// Reads the io trace events from a tracefs instance of our own, so that
// other tracers (ftrace users, perf, bpftrace, another iotally) are never
// disturbed: the instance is made, its io events enabled, and everything
// is removed again when the reader goes away.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "iotally/snoop/snoop.hpp"

struct tracefs_instance;
struct tep_handle;

namespace iotally {

class TraceReader : public IoEventSource {
  public:
    // Throws Error: unsupported without tracefs or without the io events,
    // permission when the instance cannot be made. Without @waits only
    // io_start and io_done are enabled: the wait events, which name the
    // file again in the waiting task, cost the kernel for nothing then.
    explicit TraceReader(const std::string& instance_name, unsigned buffer_kb = 4096,
                         bool waits = true);
    ~TraceReader() override;
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    // What the native backend lacks here, as resolve_backend() takes it:
    // "" when tracefs has the io events.
    static std::string events_missing();

    // Calls @fn for every io event buffered now, oldest first; returns how many.
    std::size_t read(const std::function<void(const IoEvent&)>& fn) override;
    // Events the kernel dropped because the buffer was full.
    std::uint64_t overruns() const;
    std::uint64_t lost() const override { return overruns(); }

  private:
    struct Instance;
    std::unique_ptr<Instance> inst_;
};

}  // namespace iotally
