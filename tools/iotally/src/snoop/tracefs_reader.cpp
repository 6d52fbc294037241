// SPDX-License-Identifier: GPL-2.0-or-later
// The io trace events from a tracefs instance of our own (libtracefs,
// libtraceevent).
#include "iotally/snoop/tracefs_reader.hpp"

#include <event-parse.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "iotally/util/error.hpp"

// libtracefs 1.6's <tracefs.h> is not valid C++ (an inline function
// passes an int for an enum), so the few functions used here are declared
// as that header declares them.
extern "C" {
struct tracefs_instance;
const char* tracefs_tracing_dir(void);
struct tracefs_instance* tracefs_instance_create(const char* name);
int tracefs_instance_destroy(struct tracefs_instance* instance);
void tracefs_instance_free(struct tracefs_instance* instance);
int tracefs_instance_file_write(struct tracefs_instance* instance, const char* file,
                                const char* str);
char* tracefs_instance_file_read(struct tracefs_instance* instance, const char* file, int* psize);
int tracefs_event_enable(struct tracefs_instance* instance, const char* system, const char* event);
int tracefs_event_disable(struct tracefs_instance* instance, const char* system, const char* event);
int tracefs_trace_on(struct tracefs_instance* instance);
int tracefs_trace_off(struct tracefs_instance* instance);
bool tracefs_event_file_exists(struct tracefs_instance* instance, const char* system,
                               const char* event, const char* file);
struct tep_handle* tracefs_local_events_system(const char* tracing_dir,
                                               const char* const* sys_names);
int tracefs_load_cmdlines(const char* tracing_dir, struct tep_handle* tep);
int tracefs_iterate_raw_events(struct tep_handle* tep, struct tracefs_instance* instance,
                               cpu_set_t* cpus, int cpu_size,
                               int (*callback)(struct tep_event*, struct tep_record*, int, void*),
                               void* callback_context);
}

namespace iotally {

namespace {

// The kernel's names of the io events: the tracepoints' own (io_start...),
// under which tracefs, perf, BPF and the command line all find them. The
// DTrace probes they stand for (io:::start...) are the kinds.
struct EventName {
    const char* name;
    IoEvent::Kind kind;
};
constexpr EventName io_events[] = {
    {"io_start", IoEvent::Kind::start},
    {"io_done", IoEvent::Kind::done},
    {"io_wait_start", IoEvent::Kind::wait_start},
    {"io_wait_done", IoEvent::Kind::wait_done},
};

struct TepFree {
    void operator()(tep_handle* t) const { tep_free(t); }
};

// How one event's fields are read: found once per event id.
struct Decoder {
    IoEvent::Kind kind;
    std::map<std::string, tep_format_field*> fields;

    std::uint64_t num(tep_record* rec, const char* name) const {
        auto it = fields.find(name);
        unsigned long long v = 0;
        if (it == fields.end() || tep_read_number_field(it->second, rec->data, &v) != 0)
            return 0;
        return v;
    }
    std::string str(tep_record* rec, const char* name) const {
        auto it = fields.find(name);
        if (it == fields.end())
            return {};
        tep_format_field* f = it->second;
        unsigned int offset = f->offset, size = f->size;
        if (f->flags & TEP_FIELD_IS_DYNAMIC) {
            // __data_loc: the low 16 bits are the offset, the high 16 the length
            unsigned long long loc = 0;
            if (tep_read_number_field(f, rec->data, &loc) != 0)
                return {};
            offset = loc & 0xffff;
            size = (loc >> 16) & 0xffff;
        }
        if (offset + size > static_cast<unsigned>(rec->size))
            return {};
        const char* p = static_cast<const char*>(rec->data) + offset;
        return std::string(p, strnlen(p, size));
    }
};

}  // namespace

struct TraceReader::Instance {
    tracefs_instance* inst = nullptr;
    std::unique_ptr<tep_handle, TepFree> tep;
    std::map<int, Decoder> decoders;
    std::map<int, std::string> comms;

    ~Instance() {
        if (inst) {
            tracefs_trace_off(inst);
            tracefs_event_disable(inst, "io", nullptr);
            tracefs_instance_destroy(inst);
            tracefs_instance_free(inst);
        }
    }

    std::string comm_of(tep_handle* t, int pid) {
        const char* c = tep_data_comm_from_pid(t, pid);
        if (c && std::strcmp(c, "<...>") != 0)
            return c;
        if (auto it = comms.find(pid); it != comms.end())
            return it->second;
        // A task that started after the handle was made: the kernel has
        // saved its name if it ran while tracing, even if it has exited.
        if (tracefs_load_cmdlines(nullptr, t) == 0) {
            c = tep_data_comm_from_pid(t, pid);
            if (c && std::strcmp(c, "<...>") != 0)
                return comms[pid] = c;
        }
        std::ifstream f(fmt::format("/proc/{}/comm", pid));
        std::string name;
        if (!std::getline(f, name))
            name.assign(1, '?');  // not = "?": GCC 12's -Wrestrict false positive
        comms[pid] = name;
        return name;
    }
};

std::string TraceReader::events_missing() {
    const char* dir = tracefs_tracing_dir();
    if (dir && tracefs_event_file_exists(nullptr, "io", io_events[0].name, "format"))
        return {};
    return "the io trace events (CONFIG_IO_TRACE_EVENTS)";
}

TraceReader::TraceReader(const std::string& instance_name, unsigned buffer_kb, bool waits)
    : inst_(std::make_unique<Instance>()) {
    const char* dir = tracefs_tracing_dir();
    if (!dir || access(fmt::format("{}/instances", dir).c_str(), F_OK) != 0)
        throw Error(ErrorKind::unsupported,
                    "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
    if (!tracefs_event_file_exists(nullptr, "io", io_events[0].name, "format"))
        throw Error(ErrorKind::unsupported,
                    "the kernel has no io trace events (CONFIG_IO_TRACE_EVENTS)");
    const char* systems[] = {"io", nullptr};
    inst_->tep.reset(tracefs_local_events_system(dir, systems));
    if (!inst_->tep)
        throw Error(ErrorKind::parse, "cannot parse the formats of the io trace events");
    for (const auto& [name, kind] : io_events) {
        tep_event* ev = tep_find_event_by_name(inst_->tep.get(), "io", name);
        if (!ev)
            throw Error(ErrorKind::unsupported,
                        fmt::format("the kernel has no io:{} trace event", name));
        Decoder d{kind, {}};
        for (tep_format_field* f = ev->format.fields; f; f = f->next)
            d.fields[f->name] = f;
        inst_->decoders.emplace(ev->id, std::move(d));
    }
    errno = 0;
    inst_->inst = tracefs_instance_create(instance_name.c_str());
    if (!inst_->inst) {
        int err = errno;
        throw Error(err == EACCES || err == EPERM ? ErrorKind::permission : ErrorKind::failed,
                    fmt::format("cannot make tracefs instance {}: {}", instance_name,
                                std::strerror(err ? err : EIO)));
    }
    std::string kb = std::to_string(buffer_kb);
    tracefs_instance_file_write(inst_->inst, "buffer_size_kb", kb.c_str());
    // io_start first: an io_done enabled alone could fire for a bio whose
    // io_start was not recorded
    for (const EventName& e : io_events) {
        bool wait = e.kind == IoEvent::Kind::wait_start || e.kind == IoEvent::Kind::wait_done;
        if ((waits || !wait) && tracefs_event_enable(inst_->inst, "io", e.name) != 0)
            throw Error(ErrorKind::failed, fmt::format("cannot enable io:{}", e.name));
    }
    tracefs_trace_on(inst_->inst);
}

TraceReader::~TraceReader() = default;

std::size_t TraceReader::read(const std::function<void(const IoEvent&)>& fn) {
    struct Ctx {
        Instance* inst;
        const std::function<void(const IoEvent&)>* fn;
        std::size_t n;
    } ctx{inst_.get(), &fn, 0};
    tracefs_load_cmdlines(nullptr, inst_->tep.get());
    auto cb = [](tep_event* ev, tep_record* rec, int cpu, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        auto it = c->inst->decoders.find(ev->id);
        if (it == c->inst->decoders.end())
            return 0;
        const Decoder& d = it->second;
        IoEvent e;
        e.kind = d.kind;
        e.ts_ns = rec->ts;
        e.cpu = cpu;
        e.pid = tep_data_pid(c->inst->tep.get(), rec);
        e.comm = c->inst->comm_of(c->inst->tep.get(), e.pid);
        e.dev = static_cast<std::uint32_t>(d.num(rec, "dev"));
        e.sector = d.num(rec, "sector");
        e.lsector = d.num(rec, "lsector");
        e.bytes = static_cast<std::uint32_t>(d.num(rec, "bytes"));
        e.flags = static_cast<std::uint32_t>(d.num(rec, "flags"));
        e.opf = static_cast<std::uint32_t>(d.num(rec, "opf"));
        e.rwbs = d.str(rec, "rwbs");
        e.error = static_cast<int>(d.num(rec, "error"));
        e.resid = static_cast<std::uint32_t>(d.num(rec, "resid"));
        e.disk = d.str(rec, "disk");
        e.driver = d.str(rec, "driver");
        e.fsdev = static_cast<std::uint32_t>(d.num(rec, "fsdev"));
        e.ino = d.num(rec, "ino");
        e.offset = static_cast<std::int64_t>(d.num(rec, "offset"));
        e.fstype = d.str(rec, "fstype");
        e.oflags = static_cast<std::int32_t>(d.num(rec, "oflags"));
        e.path = d.str(rec, "path");
        e.fspath = d.str(rec, "fspath");
        (*c->fn)(e);
        ++c->n;
        return 0;
    };
    tracefs_iterate_raw_events(inst_->tep.get(), inst_->inst, nullptr, 0, cb, &ctx);
    return ctx.n;
}

std::uint64_t TraceReader::overruns() const {
    std::uint64_t total = 0;
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    for (long cpu = 0; cpu < cpus; cpu++) {
        int size = 0;
        char* text = tracefs_instance_file_read(
            inst_->inst, fmt::format("per_cpu/cpu{}/stats", cpu).c_str(), &size);
        if (!text)
            continue;
        if (const char* p = std::strstr(text, "overrun:"))
            total += std::strtoull(p + 8, nullptr, 10);
        free(text);
    }
    return total;
}

}  // namespace iotally
