// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/dm-stats/stats_client.hpp"

#include <fmt/format.h>

#include "iotally/util/error.hpp"

namespace iotally {

std::string StatsClient::send(const std::string& text) {
    return layer_.message(device_, text);
}

std::string StatsClient::message(const std::string& text) {
    return send(text);
}

std::uint64_t StatsClient::create(const CreateRequest& request) {
    std::string msg = build_create(request);
    std::string reply;
    try {
        reply = send(msg);
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::usage)
            throw Error(ErrorKind::failed,
                        fmt::format("{}: the kernel rejected '{}' (invalid range or options; "
                                    "histograms and precise_timestamps need Linux 4.2)",
                                    device_, msg));
        throw;
    }
    return parse_create_reply(reply);
}

namespace {

[[noreturn]] void rethrow_region_error(const Error& e, const std::string& device,
                                       std::uint64_t id) {
    if (e.kind() == ErrorKind::no_region)
        throw Error(ErrorKind::no_region,
                    fmt::format("region {} does not exist on {}", id, device));
    throw e;
}

}  // namespace

void StatsClient::remove(std::uint64_t region_id) {
    try {
        send(build_delete(region_id));
    } catch (const Error& e) {
        rethrow_region_error(e, device_, region_id);
    }
}

void StatsClient::clear(std::uint64_t region_id) {
    try {
        send(build_clear(region_id));
    } catch (const Error& e) {
        rethrow_region_error(e, device_, region_id);
    }
}

std::vector<ListEntry> StatsClient::list(const std::optional<std::string>& program_id) {
    std::string reply;
    try {
        reply = send(build_list(program_id));
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::usage)
            throw Error(ErrorKind::unsupported,
                        fmt::format("{}: the kernel does not support dm statistics "
                                    "(@stats_list was rejected)",
                                    device_));
        throw;
    }
    return parse_list_reply(reply);
}

std::vector<PrintLine> StatsClient::print(std::uint64_t region_id, bool clear,
                                          std::optional<LineRange> lines) {
    std::string reply;
    try {
        reply = send(build_print(region_id, lines, clear));
    } catch (const Error& e) {
        rethrow_region_error(e, device_, region_id);
    }
    return parse_print_reply(reply);
}

void StatsClient::set_aux(std::uint64_t region_id, const std::string& aux_data) {
    try {
        send(build_set_aux(region_id, aux_data));
    } catch (const Error& e) {
        rethrow_region_error(e, device_, region_id);
    }
}

RegionTransaction::~RegionTransaction() {
    // Undo in reverse order; a failure here cannot be reported any better
    // than the error that is already unwinding.
    for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) {
        try {
            client_.remove(*it);
        } catch (const Error&) {
        }
    }
}

std::uint64_t RegionTransaction::create(const CreateRequest& request) {
    ids_.reserve(ids_.size() + 1);
    std::uint64_t id = client_.create(request);
    ids_.push_back(id);
    return id;
}

}  // namespace iotally
