// SPDX-License-Identifier: GPL-2.0-or-later
// iotally's metric families (Documentation/iotally-exporter.rst) and the
// scrapes of `iotally serve` and `iotally export`: dm-stats regions read with
// @stats_print (never a clear), each device on its own so that one device
// that fails is left out of the scrape and counted, not fatal.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "iotally/dm-stats/device.hpp"
#include "iotally/dm-stats/snapshot.hpp"
#include "iotally/exporter/exporter_sources.hpp"
#include "iotally/exporter/exposition.hpp"
#include "iotally/exporter/queue_depth.hpp"
#include "iotally/metrics/device_join.hpp"
#include "iotally/metrics/selection.hpp"

namespace iotally {

// lvm2's names of a dm device: its uuid starts with "LVM-" and its name is
// VG-LV[-LAYER] with each '-' inside a name doubled. Absent otherwise.
struct LvmName {
    std::string vg, lv, layer;
};
std::optional<LvmName> decode_lvm_name(const DeviceId& id);

// The labels every series of a device carries: device (kernel name),
// dm_name, dm_uuid, major, minor, and vg/lv when lvm2 named the device.
Labels device_labels(const DeviceId& id);
// A region's: its device's, region_id, program_id, and group_id and
// group_alias when it is in a dmstats group.
Labels region_labels(const DeviceSnapshot& device, const Region& region);

struct ExportOptions {
    ExpositionFormat format = ExpositionFormat::openmetrics;
    bool areas = false;  // one series per area instead of per region (cardinality!)
};

// The region families of a snapshot, written into `w` (no # EOF).
void write_region_families(ExpositionWriter& w, const Snapshot& snapshot, bool areas);

// The iotally_device_* families: the kernel's per-device counters
// (/sys/block/*/stat) of the given devices that have a /sys/block entry,
// labelled as the regions are.
void write_device_families(ExpositionWriter& w, std::span<const JoinedDevice> devices);

// A snapshot as a whole exposition (region families only, with # EOF in
// OpenMetrics): what `iotally export` writes.
std::string render_exposition(const Snapshot& snapshot, const ExportOptions& options = {});

// Extra families a scrape may add (per-task I/O, generic statistics layer):
// each writes its families and returns the number of errors it met.
class Collector {
  public:
    virtual ~Collector() = default;
    // Called once at start: throws Error (one line) if it cannot work at all.
    virtual void check() = 0;
    virtual std::uint64_t collect(ExpositionWriter& w) = 0;
    // Its name in iotally_source_up (up: collect() threw nothing and counted
    // no error); "" for none.
    virtual std::string source() const { return {}; }
};

struct ScrapeOptions {
    std::vector<std::string> devices;  // empty: every dm device (or `select`)
    // devstat's selection, instead of `devices`, over what report and top
    // select from: <sysfs_root>/block's devices joined to device-mapper's
    // list at each scrape (join_device_ids()). check() throws Error when a
    // name or an expression matches nothing; at a scrape a named device that
    // is gone is a scrape error and the others are read.
    std::optional<SelectArgs> select;
    std::optional<std::string> program_id;  // only these regions
    bool areas = false;
    // The kernel's own counters (iotally_device_*) from
    // <sysfs_root>/block/*/stat: of every block device, or of the chosen
    // devices when `devices` or `select` is given (the dm devices scraped,
    // then the others).
    bool device_stats = true;
    std::string sysfs_root = "/sys";
};

// One scrape at a time (a mutex serializes concurrent requests: each would
// only read the same counters again).
class Exporter {
  public:
    Exporter(DeviceLayer& layer, ScrapeOptions options,
             std::function<double()> clock = monotonic_seconds);
    void add_collector(std::unique_ptr<Collector> c) { collectors_.push_back(std::move(c)); }
    // serve --qd-sample: the queue depth families of the devices each scrape
    // shows (iotally_device_*), sampled by the monitor's own thread.
    void set_queue_depth(std::shared_ptr<QueueDepthMonitor> monitor) {
        queue_depth_ = std::move(monitor);
    }

    // At start: device-mapper usable (permission), every named device
    // present, every collector able to work. Throws Error. A kernel without
    // device-mapper (dm_mod not loaded yet) is not an error: the scrapes
    // serve the other sources, and dm's regions once it appears.
    void check();

    // Never throws for a device that fails: it is left out, counted in
    // iotally_scrape_errors_total and its message is passed to `on_error`.
    std::string scrape(ExpositionFormat format);

    std::function<void(const std::string&)> on_error;
    // A source went missing or came back (SourceStates::on_change).
    std::function<void(const std::string&)> on_source;

  private:
    DeviceLayer& layer_;
    ScrapeOptions options_;
    std::function<double()> clock_;
    std::vector<std::unique_ptr<Collector>> collectors_;
    std::shared_ptr<QueueDepthMonitor> queue_depth_;
    std::mutex mutex_;
    std::optional<DeviceSelector> selector_;  // of options_.select
    std::uint64_t errors_ = 0;
    std::uint64_t scrapes_ = 0;
    SourceStates sources_;
    void error(const std::string& message);
    void source(const std::string& name, bool up, const std::string& why = {});
    // The steps of a scrape, in order.
    struct DmSource;
    struct BlockSource;
    struct Chosen;
    BlockSource read_blocks() const;
    Chosen choose_devices(const std::vector<BlockDevice>& blocks, DmSource& dm);
    Snapshot read_regions(const std::vector<std::string>& names, DmSource& dm);
    void write_block_devices(ExpositionWriter& w, const BlockSource& blocks, const Snapshot& snap,
                             const Chosen& chosen);
    void write_queue_depth(ExpositionWriter& w, std::span<const JoinedDevice> shown);
    void collect(ExpositionWriter& w);
    void write_scrape_families(ExpositionWriter& w, const Snapshot& snap, double start);
};

}  // namespace iotally

namespace iotally {

// Opt-in families. Per-task I/O (taskstats TASKSTATS_TYPE_IO): the `top`
// processes by bytes or by I/O wait over the time since the previous scrape.
enum class TaskRank { bytes, wait };
inline constexpr std::size_t max_top_tasks = 100;
std::unique_ptr<Collector> make_task_collector(std::size_t top, TaskRank rank);

// The generic statistics layer: the data of the named debugfs interfaces
// under `root` (statistics of type value, range, array and list).
std::unique_ptr<Collector> make_statistics_collector(std::string root,
                                                     std::vector<std::string> interfaces);

}  // namespace iotally
