#pragma once
/// \file vyre/backend/detail/native_ops.hpp
/// Native parallel implementations of catalogue ops for the `cpu` backend.
/// Each computes exactly what the op's reference implementation computes.
/// (Extension ops bring their own: `vyre::ops::native_op<vyre::cpu, Op>`.)

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <vyre/backend/parallel.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ops/catalogue.hpp>

namespace vyre::detail {

/// A native op: the bound arguments and the thread count.
using native_op_fn = result<void> (*)(std::span<ops::op_arg>, unsigned);

namespace native {
inline constexpr std::uint64_t grain = 1 << 14;  // elements per thread below which splitting does not pay
/// Bytes per thread below which `fill` and `copy` stay on one thread: they
/// are bound by memory, which one core nearly saturates, while waking a
/// sleeping pool thread costs up to 0.3 ms on the benchmark VM (clearing the
/// 0.5 MiB path-edge bitset of a 2000-procedure solve took 0.08–0.3 ms on
/// two threads right after `create`, 0.015 ms on one).
inline constexpr std::uint64_t memory_grain_bytes = std::uint64_t{1} << 20;

inline std::uint32_t* u32(const ops::op_arg& a) { return reinterpret_cast<std::uint32_t*>(a.bytes.data()); }
inline std::uint64_t n32(const ops::op_arg& a) { return a.bytes.size() / 4; }

inline result<void> fill(std::span<ops::op_arg> a, unsigned t) {
    std::uint32_t* d = u32(a[0]);
    const std::uint32_t v = a[1].literal;
    parallel_blocks(n32(a[0]), t, memory_grain_bytes / 4, [&](std::uint64_t b, std::uint64_t e) { std::fill(d + b, d + e, v); });
    return {};
}
inline result<void> copy(std::span<ops::op_arg> a, unsigned t) {
    const std::uint64_t n = std::min(a[0].bytes.size(), a[1].bytes.size());
    const std::uint8_t* s = a[0].bytes.data();
    std::uint8_t* d = a[1].bytes.data();
    if (s == d || n == 0) return {};
    if (s < d + n && d < s + n) {  // overlapping views of one resource: keep memmove's meaning
        std::memmove(d, s, n);
        return {};
    }
    parallel_blocks(n, t, memory_grain_bytes, [&](std::uint64_t b, std::uint64_t e) { std::memcpy(d + b, s + b, e - b); });
    return {};
}
inline result<void> gather(std::span<ops::op_arg> a, unsigned t) {
    const std::uint32_t *src = u32(a[0]), *idx = u32(a[1]);
    std::uint32_t* dst = u32(a[2]);
    const std::uint64_t ns = n32(a[0]), n = std::min(n32(a[1]), n32(a[2]));
    parallel_blocks(n, t, grain, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) dst[i] = idx[i] < ns ? src[idx[i]] : 0u;
    });
    return {};
}
inline result<void> bitset_union(std::span<ops::op_arg> a, unsigned t) {
    std::uint32_t* d = u32(a[0]);
    const std::uint32_t* s = u32(a[1]);
    parallel_blocks(std::min(n32(a[0]), n32(a[1])), t, grain, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) d[i] |= s[i];
    });
    return {};
}
inline result<void> exclusive_scan(std::span<ops::op_arg> a, unsigned t) {
    const std::uint32_t* s = u32(a[0]);
    std::uint32_t* d = u32(a[1]);
    const std::uint64_t n = std::min(n32(a[0]), n32(a[1]));
    const std::uint64_t blocks = std::max<std::uint64_t>(1, std::min<std::uint64_t>(t, n / grain));
    std::vector<std::uint32_t> part(blocks + 1, 0);
    auto lo = [&](std::uint64_t k) { return n * k / blocks; };
    // pass 1: block sums; pass 2: scan each block from its offset (u32 wraps as in the reference)
    parallel_region(static_cast<unsigned>(blocks), [&](unsigned tid, unsigned nt) {
        for (std::uint64_t k = tid; k < blocks; k += nt) {
            std::uint32_t acc = 0;
            for (std::uint64_t i = lo(k); i < lo(k + 1); ++i) acc += s[i];
            part[k + 1] = acc;
        }
    });
    for (std::uint64_t k = 0; k < blocks; ++k) part[k + 1] += part[k];
    parallel_region(static_cast<unsigned>(blocks), [&](unsigned tid, unsigned nt) {
        for (std::uint64_t k = tid; k < blocks; k += nt) {
            std::uint32_t acc = part[k];
            for (std::uint64_t i = lo(k); i < lo(k + 1); ++i) {
                std::uint32_t v = s[i];
                d[i] = acc;
                acc += v;
            }
        }
    });
    return {};
}

} // namespace native

/// The native implementation of catalogue op `name`, or nullptr (then the reference runs).
inline native_op_fn find_native_op(std::string_view name) {
    if (name == "fill") return &native::fill;
    if (name == "copy") return &native::copy;
    if (name == "gather") return &native::gather;
    if (name == "bitset_union") return &native::bitset_union;
    if (name == "exclusive_scan") return &native::exclusive_scan;
    return nullptr;
}

} // namespace vyre::detail
