// SPDX-License-Identifier: GPL-2.0-or-later
// The device layer over libdevmapper. Every dm_task is owned by a unique_ptr;
// libdevmapper's own log output is captured and turned into exceptions.
#include <fcntl.h>
#include <fmt/format.h>
#include <libdevmapper.h>
#include <linux/capability.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "dm_message.hpp"
#include "fd.hpp"
#include "iotally/dm-stats/device.hpp"
#include "iotally/util/backend.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

struct TaskDeleter {
    void operator()(dm_task* t) const noexcept { dm_task_destroy(t); }
};
using Task = std::unique_ptr<dm_task, TaskDeleter>;

constexpr std::size_t dm_name_len = 128;  // DM_NAME_LEN of linux/dm-ioctl.h

// The last error libdevmapper logged, instead of printing it.
thread_local std::string last_dm_error;

extern "C" void capture_dm_log(int level, const char* /*file*/, int /*line*/, int /*dm_errno*/,
                               const char* f, ...) {
    if ((level & 7) > 3)  // keep errors (_LOG_ERR = 3) and worse
        return;
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    last_dm_error = buf;
}

bool proc_misc_has_device_mapper() {
    std::ifstream misc("/proc/misc");
    std::string line;
    while (std::getline(misc, line))
        if (line.find("device-mapper") != std::string::npos)
            return true;
    return false;
}

// libdevmapper checks the kernel's dm version at its first dm_task_create()
// and remembers a failure for the life of the process: a server that asked
// before dm_mod was loaded would never see device-mapper. So nothing reaches
// libdevmapper until /proc/misc lists device-mapper. Opening the control
// node first lets the kernel load dm_mod on demand (its misc minor alias),
// as libdevmapper's own open would.
std::atomic<bool> device_mapper_seen{false};

bool device_mapper_present() {
    if (device_mapper_seen.load(std::memory_order_relaxed))
        return true;
    if (!proc_misc_has_device_mapper()) {
        const detail::FileDescriptor control(open("/dev/mapper/control", O_RDWR | O_CLOEXEC));
        if (!proc_misc_has_device_mapper())
            return false;
    }
    device_mapper_seen.store(true, std::memory_order_relaxed);
    return true;
}

// Why a dm ioctl could not even be attempted.
[[noreturn]] void throw_control_error() {
    const std::string unavailable =
        "device-mapper is not available in this kernel (no device-mapper in /proc/misc; "
        "is dm_mod loaded?)";
    if (!proc_misc_has_device_mapper())
        throw Error(ErrorKind::unsupported, unavailable);
    int fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err == EACCES || err == EPERM)
            throw Error(ErrorKind::permission,
                        "permission denied opening /dev/mapper/control: device-mapper needs root "
                        "(CAP_SYS_ADMIN)");
        if (err == ENODEV || err == ENXIO || err == ENOENT)
            throw Error(ErrorKind::unsupported, unavailable);
        throw Error(ErrorKind::failed,
                    fmt::format("cannot open /dev/mapper/control: {}", std::strerror(err)));
    }
    close(fd);
    // The node is open to this process (a group given it by udev) but
    // every ioctl checks CAP_SYS_ADMIN: libdevmapper's version check then
    // fails first and says "Incompatible libdevmapper ... (unknown version)".
    if (!has_effective_capability(CAP_SYS_ADMIN))
        throw Error(ErrorKind::permission,
                    "permission denied: device-mapper needs root (CAP_SYS_ADMIN)");
    throw Error(ErrorKind::failed,
                last_dm_error.empty() ? "device-mapper request failed" : last_dm_error);
}

class DevmapperLayer final : public DeviceLayer {
  public:
    DevmapperLayer() { dm_log_with_errno_init(capture_dm_log); }
    ~DevmapperLayer() override {
        dm_log_with_errno_init(nullptr);
        dm_lib_release();
    }

    std::vector<DeviceId> list_devices() override {
        Task t = make(DM_DEVICE_LIST);
        run(t, "", "list devices");
        std::vector<std::string> names;
        dm_names* n = dm_task_get_names(t.get());
        if (n && n->dev) {
            while (true) {
                names.emplace_back(n->name);
                if (!n->next)
                    break;
                n = reinterpret_cast<dm_names*>(reinterpret_cast<char*>(n) + n->next);
            }
        }
        std::sort(names.begin(), names.end());
        std::vector<DeviceId> out;
        for (const auto& name : names) {
            try {
                out.push_back(device(name));
            } catch (const Error& e) {
                if (e.kind() != ErrorKind::no_device)  // removed meanwhile
                    throw;
            }
        }
        return out;
    }

    DeviceId device(const std::string& name) override {
        DeviceId d;
        {
            Task t = make(DM_DEVICE_INFO);
            set_name(t, name);
            run(t, name, "get device info");
            dm_info info{};
            if (!dm_task_get_info(t.get(), &info) || !info.exists)
                throw Error(ErrorKind::no_device, fmt::format("{}: no such device", name));
            d.dm_name = name;
            const char* uuid = dm_task_get_uuid(t.get());
            d.dm_uuid = uuid ? uuid : "";
            d.major = info.major;
            d.minor = info.minor;
            d.kernel_name = dm_kernel_name(d.minor);
        }
        Task t = make(DM_DEVICE_TABLE);
        set_name(t, name);
        run(t, name, "read the table");
        void* next = nullptr;
        do {
            std::uint64_t start = 0, length = 0;
            char* type = nullptr;
            char* params = nullptr;
            next = dm_get_next_target(t.get(), next, &start, &length, &type, &params);
            if (type) {
                d.targets.emplace_back(type);
                d.size_sectors = std::max(d.size_sectors, start + length);
            }
        } while (next);
        return d;
    }

    std::string message(const std::string& device, const std::string& text) override {
        if (channel_.open()) {
            if (device.empty() || device.size() >= dm_name_len)
                throw Error(ErrorKind::usage, fmt::format("invalid device name '{}'", device));
            auto r = channel_.send(device, text);
            if (r.error)
                throw_errno(r.error, device, text);
            return r.reply;
        }
        // No control node to open (libdevmapper may still make one).
        Task t = make(DM_DEVICE_TARGET_MSG);
        set_name(t, device);
        if (!dm_task_set_sector(t.get(), 0) || !dm_task_set_message(t.get(), text.c_str()))
            throw Error(ErrorKind::failed, "out of memory preparing a dm message");
        run(t, device, text);
        const char* reply = dm_task_get_message_response(t.get());
        return reply ? reply : "";
    }

  private:
    detail::MessageChannel channel_;

    static Task make(int type) {
        last_dm_error.clear();
        if (!device_mapper_present())
            throw_control_error();
        Task t(dm_task_create(type));
        if (!t)
            throw_control_error();  // libdevmapper checks the driver here
        return t;
    }

    static void set_name(const Task& t, const std::string& name) {
        if (name.empty() || name.size() >= dm_name_len)
            throw Error(ErrorKind::usage, fmt::format("invalid device name '{}'", name));
        if (!dm_task_set_name(t.get(), name.c_str()))
            throw Error(ErrorKind::usage, fmt::format("invalid device name '{}'", name));
    }

    static void run(const Task& t, const std::string& device, std::string_view what) {
        last_dm_error.clear();
        if (dm_task_run(t.get()))
            return;
        throw_errno(dm_task_get_errno(t.get()), device, what);
    }

    [[noreturn]] static void throw_errno(int err, const std::string& device,
                                         std::string_view what) {
        if (err == 0 || err == ENOTTY)
            throw_control_error();
        ErrorKind kind = kind_from_errno(err);
        std::string who = device.empty() ? std::string() : device + ": ";
        if (err == ENXIO || err == ENODEV)
            throw Error(ErrorKind::no_device, fmt::format("{}no such device", who));
        if (err == EPERM || err == EACCES)
            throw Error(ErrorKind::permission,
                        fmt::format("{}permission denied: device-mapper needs root "
                                    "(CAP_SYS_ADMIN)",
                                    who));
        throw Error(kind, fmt::format("{}'{}' failed: {}", who, what, std::strerror(err)));
    }
};

}  // namespace

std::unique_ptr<DeviceLayer> make_devmapper_layer() {
    return std::make_unique<DevmapperLayer>();
}

}  // namespace iotally
