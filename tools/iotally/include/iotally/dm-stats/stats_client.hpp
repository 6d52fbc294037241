// SPDX-License-Identifier: GPL-2.0-or-later
// Typed dm statistics operations on one device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iotally/dm-stats/device.hpp"
#include "iotally/dm-stats/message.hpp"

namespace iotally {

inline constexpr std::string_view default_program_id = "iotally";

class StatsClient {
  public:
    StatsClient(DeviceLayer& layer, std::string device)
        : layer_(layer), device_(std::move(device)) {}

    const std::string& device() const { return device_; }
    std::uint64_t create(const CreateRequest& request);
    void remove(std::uint64_t region_id);
    void clear(std::uint64_t region_id);
    std::vector<ListEntry> list(const std::optional<std::string>& program_id = std::nullopt);
    std::vector<PrintLine> print(std::uint64_t region_id, bool clear = false,
                                 std::optional<LineRange> lines = std::nullopt);
    void set_aux(std::uint64_t region_id, const std::string& aux_data);
    // Raw passthrough.
    std::string message(const std::string& text);

  private:
    std::string send(const std::string& text);
    DeviceLayer& layer_;
    std::string device_;
};

// Deletes the regions it holds when destroyed unless released: creating
// several regions is all or nothing.
class RegionTransaction {
  public:
    explicit RegionTransaction(StatsClient& client) : client_(client) {}
    RegionTransaction(const RegionTransaction&) = delete;
    RegionTransaction& operator=(const RegionTransaction&) = delete;
    ~RegionTransaction();
    std::uint64_t create(const CreateRequest& request);
    const std::vector<std::uint64_t>& ids() const { return ids_; }
    void commit() { ids_.clear(); }

  private:
    StatsClient& client_;
    std::vector<std::uint64_t> ids_;
};

}  // namespace iotally
