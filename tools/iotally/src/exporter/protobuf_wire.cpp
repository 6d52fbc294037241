// SPDX-License-Identifier: GPL-2.0-or-later
#include "protobuf_wire.hpp"

#include "iotally/util/error.hpp"

namespace iotally::wire {

std::uint64_t Reader::read_varint(std::string_view& in) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (in.empty())
            throw Error(ErrorKind::parse, "protobuf: truncated varint");
        auto b = static_cast<unsigned char>(in.front());
        in.remove_prefix(1);
        v |= std::uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80))
            return v;
    }
    throw Error(ErrorKind::parse, "protobuf: varint longer than 10 bytes");
}

bool Reader::next() {
    if (in_.empty())
        return false;
    const std::uint64_t key = read_varint(in_);
    number_ = static_cast<int>(key >> 3);
    v_ = 0;
    bytes_ = {};
    switch (key & 7) {
        case varint:
            wire_ = varint;
            v_ = read_varint(in_);
            break;
        case fixed64:
            wire_ = fixed64;
            if (in_.size() < 8)
                throw Error(ErrorKind::parse, "protobuf: truncated fixed64");
            for (int i = 7; i >= 0; --i)
                v_ = (v_ << 8) | static_cast<unsigned char>(in_[static_cast<std::size_t>(i)]);
            in_.remove_prefix(8);
            break;
        case length: {
            wire_ = length;
            const std::uint64_t n = read_varint(in_);
            if (n > in_.size())
                throw Error(ErrorKind::parse, "protobuf: truncated length-delimited field");
            bytes_ = in_.substr(0, n);
            in_.remove_prefix(n);
            break;
        }
        default:
            throw Error(ErrorKind::parse, "protobuf: unexpected wire type");
    }
    return true;
}

}  // namespace iotally::wire
