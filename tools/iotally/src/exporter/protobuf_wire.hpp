// SPDX-License-Identifier: GPL-2.0-or-later
// The protobuf wire format, written and read by hand (no library: see
// Documentation/iotally-exporter.rst): what the Prometheus protobuf
// exposition (exposition_protobuf.cpp) and the OTLP request (otlp_*.cpp)
// are made of. Internal to libiotally_exporter.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace iotally::wire {

enum Wire { varint = 0, fixed64 = 1, length = 2 };

inline void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

inline void put_tag(std::string& out, int number, Wire wire) {
    put_varint(out, (static_cast<std::uint64_t>(number) << 3) | wire);
}

inline void put_uint(std::string& out, int number, std::uint64_t v) {
    put_tag(out, number, varint);
    put_varint(out, v);
}

inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

inline std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

inline void put_sint(std::string& out, int number, std::int64_t v) {
    put_uint(out, number, zigzag(v));
}

// The eight bytes of a fixed64, sfixed64 or double, little-endian.
inline void put_raw64(std::string& out, std::uint64_t bits) {
    for (int i = 0; i < 8; ++i, bits >>= 8)
        out += static_cast<char>(bits & 0xff);
}

inline void put_fixed64(std::string& out, int number, std::uint64_t v) {
    put_tag(out, number, fixed64);
    put_raw64(out, v);
}

inline void put_double(std::string& out, int number, double v) {
    put_fixed64(out, number, std::bit_cast<std::uint64_t>(v));
}

inline void put_bytes(std::string& out, int number, std::string_view bytes) {
    put_tag(out, number, length);
    put_varint(out, bytes.size());
    out += bytes;
}

// Reads one message's fields in order; malformed input throws
// Error(parse). A field's value is `v` (varint, fixed64) or `bytes`.
class Reader {
  public:
    explicit Reader(std::string_view in) : in_(in) {}
    bool next();  // false at the end
    int number() const { return number_; }
    Wire wire() const { return wire_; }
    std::uint64_t v() const { return v_; }
    std::string_view bytes() const { return bytes_; }
    double as_double() const { return std::bit_cast<double>(v_); }
    // A varint read from the front of `in` (a packed field's elements).
    static std::uint64_t read_varint(std::string_view& in);

  private:
    std::string_view in_, bytes_;
    int number_ = 0;
    Wire wire_ = varint;
    std::uint64_t v_ = 0;
};

}  // namespace iotally::wire
