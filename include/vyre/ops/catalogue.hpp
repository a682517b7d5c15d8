#pragma once
/// \file vyre/ops/catalogue.hpp
/// The standard-operation catalogue (spec: vyre-ir.md, "Standard operations").
/// Each entry has a name, a buffer signature and a reference implementation
/// that *defines* it; backends list the ops they run natively in
/// `supported_ops()`. A program uses an op as its whole body: `(op NAME ARG...)`.
/// Other libraries add ops of their own (vyre/ops/extension.hpp); programs
/// find both kinds by name through vyre/ops/registry.hpp (`find_op`).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ir/types.hpp>
#include <vyre/ops/op_info.hpp>

namespace vyre::ops {

namespace detail {

template <class T>
struct view {
    std::uint8_t* p;
    std::size_t n;
    explicit view(const op_arg& a) : p(a.bytes.data()), n(a.bytes.size() / sizeof(T)) {}
    T get(std::size_t i) const {
        T v;
        std::memcpy(&v, p + i * sizeof(T), sizeof(T));
        return v;
    }
    void put(std::size_t i, T v) const { std::memcpy(p + i * sizeof(T), &v, sizeof(T)); }
    std::size_t size() const { return n; }
};
using u32v = view<std::uint32_t>;

inline result<void> fill(std::span<op_arg> a) {
    u32v dst(a[0]);
    for (std::size_t i = 0; i < dst.size(); ++i) dst.put(i, a[1].literal);
    return {};
}
inline result<void> copy(std::span<op_arg> a) {
    std::size_t n = std::min(a[0].bytes.size(), a[1].bytes.size());
    if (n) std::memmove(a[1].bytes.data(), a[0].bytes.data(), n);
    return {};
}
inline result<void> gather(std::span<op_arg> a) {
    u32v src(a[0]), idx(a[1]), dst(a[2]);
    std::size_t n = std::min(idx.size(), dst.size());
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t j = idx.get(i);
        dst.put(i, j < src.size() ? src.get(j) : 0u);
    }
    return {};
}
inline result<void> scatter(std::span<op_arg> a) {
    u32v src(a[0]), idx(a[1]), dst(a[2]);
    std::size_t n = std::min(src.size(), idx.size());
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t j = idx.get(i);
        if (j < dst.size()) dst.put(j, src.get(i));
    }
    return {};
}
inline result<void> exclusive_scan(std::span<op_arg> a) {
    u32v src(a[0]), dst(a[1]);
    std::size_t n = std::min(src.size(), dst.size());
    std::uint32_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t v = src.get(i);
        dst.put(i, acc);
        acc += v;
    }
    return {};
}
inline result<void> compact(std::span<op_arg> a) {
    u32v src(a[0]), flags(a[1]), dst(a[2]), count(a[3]);
    std::size_t n = std::min(src.size(), flags.size());
    std::uint32_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (flags.get(i) != 0) {
            if (k < dst.size()) dst.put(k, src.get(i));
            ++k;
        }
    if (count.size() > 0) count.put(0, k);
    return {};
}
template <class T>
inline result<void> sort_keys(std::span<op_arg> a) {
    view<T> k(a[0]);
    std::vector<T> v(k.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = k.get(i);
    std::sort(v.begin(), v.end());
    for (std::size_t i = 0; i < v.size(); ++i) k.put(i, v[i]);
    return {};
}
template <class T>
inline result<void> unique_keys(std::span<op_arg> a) {
    view<T> k(a[0]);
    u32v count(a[1]);
    std::size_t w = 0;
    for (std::size_t i = 0; i < k.size(); ++i) {
        T v = k.get(i);
        if (w == 0 || k.get(w - 1) != v) k.put(w++, v);
    }
    for (std::size_t i = w; i < k.size(); ++i) k.put(i, T{});
    if (count.size() > 0) count.put(0, static_cast<std::uint32_t>(w));
    return {};
}
inline result<void> bitset_union(std::span<op_arg> a) {
    u32v dst(a[0]), src(a[1]);
    std::size_t n = std::min(dst.size(), src.size());
    for (std::size_t i = 0; i < n; ++i) dst.put(i, dst.get(i) | src.get(i));
    return {};
}
inline result<void> bitset_test_and_set(std::span<op_arg> a) {
    u32v bits(a[0]), idx(a[1]), was(a[2]);
    for (std::size_t i = 0; i < idx.size(); ++i) {
        std::uint32_t b = idx.get(i);
        std::uint32_t w = b / 32, m = 1u << (b % 32);
        std::uint32_t old = 0;
        if (w < bits.size()) {
            std::uint32_t x = bits.get(w);
            old = (x & m) ? 1u : 0u;
            bits.put(w, x | m);
        }
        if (i < was.size()) was.put(i, old);
    }
    return {};
}
inline result<void> csr_expand(std::span<op_arg> a) {
    u32v off(a[0]), tgt(a[1]), frontier(a[2]), out(a[3]), count(a[4]);
    std::uint32_t k = 0;
    for (std::size_t i = 0; i < frontier.size(); ++i) {
        std::uint32_t f = frontier.get(i);
        if (std::uint64_t{f} + 1 >= off.size()) continue;  // (64-bit: f = 2^32-1 must not wrap to 0)
        for (std::uint32_t e = off.get(f); e < off.get(f + 1) && e < tgt.size(); ++e) {
            if (k < out.size()) out.put(k, tgt.get(e));
            ++k;
        }
    }
    if (count.size() > 0) count.put(0, k);
    return {};
}

inline param in(std::string_view n, ir::scalar_type t = ir::scalar_type::u32) {
    return {param_kind::buffer, n, false, t};
}
inline param out(std::string_view n, ir::scalar_type t = ir::scalar_type::u32) {
    return {param_kind::buffer, n, true, t};
}
inline param literal(std::string_view n) { return {param_kind::u32_literal, n, false, ir::scalar_type::u32}; }

} // namespace detail

/// The whole catalogue, in a fixed order.
inline const std::vector<op_info>& catalogue() {
    using namespace detail;
    using ir::scalar_type;
    static const std::vector<op_info> ops = {
        {"fill", {out("dst"), literal("value")}, "dst[i] = value for every i", &fill},
        {"copy", {in("src"), out("dst")}, "dst[i] = src[i] for i < min(len src, len dst)", &copy},
        {"gather", {in("src"), in("idx"), out("dst")},
         "dst[i] = src[idx[i]] (0 when idx[i] >= len src) for i < min(len idx, len dst)", &gather},
        {"scatter", {in("src"), in("idx"), out("dst")},
         "dst[idx[i]] = src[i] in ascending i (later writes win; idx >= len dst skipped)", &scatter},
        {"exclusive_scan", {in("src"), out("dst")}, "dst[i] = src[0] + ... + src[i-1] (wrapping u32)",
         &exclusive_scan},
        {"compact", {in("src"), in("flags"), out("dst"), out("count")},
         "dst = src[i] where flags[i] != 0, in order (extra dropped); count[0] = number selected", &compact},
        {"sort_u32", {out("keys")}, "sorts keys ascending in place", &sort_keys<std::uint32_t>},
        {"sort_u64", {out("keys", scalar_type::u64)}, "sorts u64 keys ascending in place",
         &sort_keys<std::uint64_t>},
        {"unique_u32", {out("keys"), out("count")},
         "removes consecutive duplicates in place, zero-fills the tail; count[0] = kept", &unique_keys<std::uint32_t>},
        {"unique_u64", {out("keys", scalar_type::u64), out("count")},
         "u64 form of unique_u32", &unique_keys<std::uint64_t>},
        {"bitset_union", {out("dst"), in("src")}, "dst[i] |= src[i] for i < min lengths", &bitset_union},
        {"bitset_test_and_set", {out("bits"), in("idx"), out("was_set")},
         "for each i in order: was_set[i] = bit idx[i] of bits (0 if out of range); set that bit",
         &bitset_test_and_set},
        {"csr_expand", {in("offsets"), in("targets"), in("frontier"), out("out"), out("count")},
         "out = concat of targets[offsets[f] .. offsets[f+1]) for f in frontier (extra dropped); count[0] = total",
         &csr_expand},
    };
    return ops;
}

} // namespace vyre::ops
