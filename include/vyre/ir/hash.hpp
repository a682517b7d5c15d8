#pragma once
/// \file vyre/ir/hash.hpp
/// `structural_hash(program)`: a 64-bit FNV-1a hash over a canonical
/// serialisation of every field of the program (names, buffers, workgroup
/// size, every node field including unused ones). Stable across runs,
/// compilers and platforms; equal programs hash equal. Used as a cache key
/// (e.g. compiled kernels), so it never uses `std::hash`.

#include <cstdint>
#include <string_view>
#include <vector>

#include <vyre/ir/program.hpp>

namespace vyre::ir {

namespace detail {

/// FNV-1a 64 over bytes fed in a fixed, platform-independent order.
class fnv1a64 {
public:
    void byte(std::uint8_t b) {
        h_ ^= b;
        h_ *= 0x100000001b3ull;
    }
    /// Little-endian, whatever the host.
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    /// Length-prefixed, so adjacent strings cannot blur into each other.
    void str(std::string_view s) {
        u64(s.size());
        for (char c : s) byte(static_cast<std::uint8_t>(c));
    }
    std::uint64_t value() const { return h_; }

    void node(const expr& e) {
        byte(0xE1);
        byte(static_cast<std::uint8_t>(e.kind));
        byte(static_cast<std::uint8_t>(e.op));
        byte(static_cast<std::uint8_t>(e.type));
        byte(static_cast<std::uint8_t>(e.bi));
        byte(static_cast<std::uint8_t>(e.ax));
        u64(e.bits);
        str(e.name);
        u64(e.args.size());
        for (const auto& a : e.args) node(a);
    }
    void node(const stmt& s) {
        byte(0x51);
        byte(static_cast<std::uint8_t>(s.kind));
        str(s.name);
        u64(s.args.size());
        for (const auto& a : s.args) node(a);
        list(s.body);
        list(s.else_body);
    }
    void list(const std::vector<stmt>& ss) {
        u64(ss.size());
        for (const auto& s : ss) node(s);
    }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

} // namespace detail

/// Stable 64-bit structural hash of `p`: equal programs give equal hashes,
/// and any changed field (a literal bit, a count, a name) changes it with
/// overwhelming probability. Version 1 of the serialisation.
inline std::uint64_t structural_hash(const program& p) {
    detail::fnv1a64 h;
    h.str("vyre-ir-1");
    h.str(p.name);
    for (auto w : p.workgroup_size) h.u64(w);
    h.u64(p.buffers.size());
    for (const auto& b : p.buffers) {
        h.str(b.name);
        h.u64(b.binding);
        h.byte(static_cast<std::uint8_t>(b.acc));
        h.byte(static_cast<std::uint8_t>(b.type));
        h.u64(b.count);
    }
    h.list(p.body);
    return h.value();
}

} // namespace vyre::ir
