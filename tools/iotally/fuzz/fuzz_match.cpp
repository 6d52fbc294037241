// SPDX-License-Identifier: GPL-2.0-or-later
#include <cstdint>
#include <string_view>

#include "iotally/metrics/selection.hpp"
#include "iotally/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    static const iotally::DeviceId dev{
        "dm-0", 254, 0, 100, "vg0-lv1", "LVM-abc", {"linear", "striped"}, ""};
    try {
        auto m = iotally::build_match(text);
        (void)iotally::matches(m, dev);
    } catch (const iotally::Error&) {
    }
    return 0;
}
