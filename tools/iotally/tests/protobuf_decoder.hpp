// SPDX-License-Identifier: GPL-2.0-or-later
// A protobuf decoder for the tests and the fuzz target, written from the wire
// format's rules (varint, zigzag, fixed64, length-delimited, packed) and the
// field numbers of io.prometheus.client, independently of the encoder in
// src/exporter/exposition_protobuf.cpp. Throws std::runtime_error on bad input.
#pragma once

#include <bit>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iotally::test {
struct Field {
    int wire = 0;
    std::uint64_t v = 0;  // varint or fixed64
    std::string bytes;    // length-delimited
};
using Message = std::multimap<int, Field>;

inline std::uint64_t read_varint(std::string_view& in) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (in.empty())
            throw std::runtime_error("truncated varint");
        auto b = static_cast<unsigned char>(in.front());
        in.remove_prefix(1);
        v |= std::uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80))
            return v;
    }
    throw std::runtime_error("varint too long");
}

inline Message decode(std::string_view in) {
    Message m;
    while (!in.empty()) {
        const std::uint64_t key = read_varint(in);
        Field f;
        f.wire = static_cast<int>(key & 7);
        if (f.wire == 0) {
            f.v = read_varint(in);
        } else if (f.wire == 1) {
            if (in.size() < 8)
                throw std::runtime_error("truncated fixed64");
            for (int i = 7; i >= 0; --i)
                f.v = (f.v << 8) | static_cast<unsigned char>(in[static_cast<std::size_t>(i)]);
            in.remove_prefix(8);
        } else if (f.wire == 2) {
            const std::uint64_t n = read_varint(in);
            if (n > in.size())
                throw std::runtime_error("truncated bytes");
            f.bytes = std::string(in.substr(0, n));
            in.remove_prefix(n);
        } else {
            throw std::runtime_error("unexpected wire type");
        }
        m.emplace(static_cast<int>(key >> 3), f);
    }
    return m;
}

inline std::vector<Field> all(const Message& m, int n) {
    std::vector<Field> out;
    auto [a, b] = m.equal_range(n);
    for (; a != b; ++a)
        out.push_back(a->second);
    return out;
}
inline const Field& one(const Message& m, int n) {
    if (m.count(n) != 1)
        throw std::runtime_error("field " + std::to_string(n) + " not there once");
    return m.find(n)->second;
}
inline double as_double(const Field& f) {
    return std::bit_cast<double>(f.v);
}
inline std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// A delimited stream of MetricFamily messages, in order.
inline std::vector<Message> family_list(std::string_view in) {
    std::vector<Message> out;
    while (!in.empty()) {
        const std::uint64_t n = read_varint(in);
        if (n > in.size())
            throw std::runtime_error("truncated family");
        out.push_back(decode(in.substr(0, n)));
        in.remove_prefix(n);
    }
    return out;
}

// The same by family name; the metrics of messages of the same name merged.
inline std::map<std::string, Message> families(std::string_view in) {
    std::map<std::string, Message> out;
    for (auto& mf : family_list(in)) {
        auto [it, fresh] = out.emplace(one(mf, 1).bytes, mf);
        if (!fresh)
            for (const auto& m : all(mf, 4))
                it->second.emplace(4, m);
    }
    return out;
}

inline std::map<std::string, std::string> labels_of(const Message& metric) {
    std::map<std::string, std::string> l;
    for (const auto& f : all(metric, 1)) {
        Message pair = decode(f.bytes);
        l[one(pair, 1).bytes] = one(pair, 2).bytes;
    }
    return l;
}

// A native histogram as decoded: (index, count) of non-empty buckets.
struct Native {
    std::uint64_t count = 0;
    double sum = 0;
    std::int64_t schema = 0;
    double zero_threshold = 0;
    std::uint64_t zero_count = 0;
    std::vector<std::pair<std::int64_t, std::uint32_t>> spans;
    std::vector<std::int64_t> deltas;
    std::map<std::int64_t, std::int64_t> buckets;
};

inline Native native_of(const Message& h) {
    Native n;
    n.count = one(h, 1).v;
    n.sum = as_double(one(h, 2));
    n.schema = unzigzag(one(h, 5).v);
    n.zero_threshold = as_double(one(h, 6));
    n.zero_count = one(h, 7).v;
    for (const auto& f : all(h, 12)) {
        Message s = decode(f.bytes);
        n.spans.emplace_back(s.count(1) ? unzigzag(one(s, 1).v) : 0,
                             s.count(2) ? static_cast<std::uint32_t>(one(s, 2).v) : 0);
    }
    for (const auto& f : all(h, 13)) {
        if (f.wire == 2) {
            std::string_view p = f.bytes;
            while (!p.empty())
                n.deltas.push_back(unzigzag(read_varint(p)));
        } else {
            n.deltas.push_back(unzigzag(f.v));
        }
    }
    std::int64_t index = 0, count = 0;
    std::size_t d = 0;
    for (const auto& [offset, len] : n.spans) {
        index += offset;
        for (std::uint32_t i = 0; i < len; ++i, ++index) {
            count += n.deltas.at(d++);
            n.buckets[index] = count;
        }
    }
    if (d != n.deltas.size())
        throw std::runtime_error("more deltas than span lengths");
    return n;
}

}  // namespace iotally::test
