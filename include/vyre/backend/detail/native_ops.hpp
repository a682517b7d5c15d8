#pragma once
/// \file vyre/backend/detail/native_ops.hpp
/// Native parallel implementations of catalogue ops for the `cpu` backend.
/// Each computes exactly what the op's reference implementation computes.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <vyre/backend/detail/parallel.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ops/catalogue.hpp>
#include <vyre/ops/ifds.hpp>
#include <vyre/ops/ifds_rows.hpp>

namespace vyre::detail {

/// A native op: the bound arguments and the thread count.
using native_op_fn = result<void> (*)(std::span<ops::op_arg>, unsigned);

namespace native {
inline constexpr std::uint64_t grain = 1 << 14;  // elements per thread below which splitting does not pay

inline std::uint32_t* u32(const ops::op_arg& a) { return reinterpret_cast<std::uint32_t*>(a.bytes.data()); }
inline std::uint64_t n32(const ops::op_arg& a) { return a.bytes.size() / 4; }

inline result<void> fill(std::span<ops::op_arg> a, unsigned t) {
    std::uint32_t* d = u32(a[0]);
    const std::uint32_t v = a[1].literal;
    parallel_blocks(n32(a[0]), t, grain, [&](std::uint64_t b, std::uint64_t e) { std::fill(d + b, d + e, v); });
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
    parallel_blocks(n, t, grain * 4, [&](std::uint64_t b, std::uint64_t e) { std::memcpy(d + b, s + b, e - b); });
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

/// IFDS rounds: frontier entries handed out in chunks; path-edge bits set with
/// atomic or; new edges gathered per thread and appended with one atomic add
/// per batch.
struct ifds_parallel_sink {
    const ops::ifds::tables& T;
    ops::ifds::words pe, fout, counters;
    std::vector<std::uint32_t> local;

    void propagate(std::uint32_t node, std::uint32_t bit) {
        const std::uint64_t w = std::uint64_t(T(ops::ifds::pe_word, node)) + (bit >> 5);
        const std::uint32_t m = 1u << (bit & 31);
        if (w >= pe.n) return;
        std::atomic_ref<std::uint32_t> word(pe.p[w]);
        // Most derived edges are already known: a plain load avoids the locked or.
        if (word.load(std::memory_order_relaxed) & m) return;
        if (word.fetch_or(m, std::memory_order_relaxed) & m) return;
        local.push_back(node);
        local.push_back(bit);
        if (local.size() >= 1024) flush();
    }
    void flush() {
        const std::uint32_t k = static_cast<std::uint32_t>(local.size() / 2);
        if (!k) return;
        const std::uint32_t base = std::atomic_ref<std::uint32_t>(counters.p[1]).fetch_add(k, std::memory_order_relaxed);
        const std::uint32_t cap = counters.p[2];
        for (std::uint32_t i = 0; i < k; ++i) {
            const std::uint64_t slot = std::uint64_t(base) + i;
            const std::uint32_t node = local[2 * i], bit = local[2 * i + 1];
            if (slot < cap && 2 * slot + 1 < fout.n) {
                fout.p[2 * slot] = node;
                fout.p[2 * slot + 1] = bit;
            } else {  // does not fit: undo, the solver grows fout and re-runs the round
                const std::uint64_t w = std::uint64_t(T(ops::ifds::pe_word, node)) + (bit >> 5);
                std::atomic_ref<std::uint32_t>(pe.p[w]).fetch_and(~(1u << (bit & 31)), std::memory_order_relaxed);
            }
        }
        local.clear();
    }
};

template <bool Seed>
result<void> ifds_round(std::span<ops::op_arg> a, unsigned t) {
    namespace fi = ops::ifds;
    fi::tables T(a);
    fi::words pe(a[fi::arg_pe]), fin(a[fi::arg_fin]), fout(a[fi::arg_fout]), counters(a[fi::arg_counters]);
    if (counters.n < 3)
        return fail(error_code::invalid_argument, "ifds op: counters must hold at least 3 u32 (in, out, capacity)",
                    "allocate 16 bytes for counters");
    const std::uint64_t n_in = std::min<std::uint64_t>(counters.p[0], fin.n / 2);
    const std::uint64_t chunk = 64;
    std::atomic<std::uint64_t> next{0};
    // A thread per 2048 entries at most: small rounds are not worth a fork-join
    // (on a loaded machine a join waits for every thread to be scheduled).
    const unsigned threads = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(t, n_in / 2048)));
    parallel_region(threads, [&](unsigned, unsigned) {
        ifds_parallel_sink sink{T, pe, fout, counters, {}};
        sink.local.reserve(1024);
        for (;;) {
            const std::uint64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
            if (b >= n_in) break;
            const std::uint64_t e = std::min(n_in, b + chunk);
            for (std::uint64_t i = b; i < e; ++i) {
                if constexpr (Seed) sink.propagate(fin.p[2 * i], fin.p[2 * i + 1]);
                else fi::expand_entry(T, pe, fin.p[2 * i], fin.p[2 * i + 1], sink);
            }
        }
        sink.flush();
    });
    return {};
}

/// Row-wise IFDS rounds: like `ifds_round`, with 4-word entries that carry up
/// to 32 facts of a row.
struct ifds_rows_parallel_sink {
    const ops::ifds::tables& T;
    ops::ifds::words pe, fout, counters;
    std::vector<std::uint32_t> local;

    void add(std::uint32_t node, std::uint32_t ctx, std::uint32_t k, std::uint32_t mask) {
        namespace fr = ops::ifds_rows;
        const std::uint32_t F = T(ops::ifds::node_fc, node);
        if (ctx >= F || 32ull * k >= F) return;
        const std::uint32_t len = fr::chunk_len(F, k);
        const std::uint32_t fresh = fr::or_bits<true>(pe, fr::row_pos(T, node, ctx, k), mask & (len == 32 ? ~0u : ((1u << len) - 1)));
        if (!fresh) return;
        local.insert(local.end(), {node, ctx, k, fresh});
        if (local.size() >= 2048) flush();
    }
    void flush() {
        namespace fr = ops::ifds_rows;
        const std::uint32_t k = static_cast<std::uint32_t>(local.size() / fr::entry_words);
        if (!k) return;
        const std::uint32_t base = std::atomic_ref<std::uint32_t>(counters.p[1]).fetch_add(k, std::memory_order_relaxed);
        const std::uint32_t cap = counters.p[2];
        for (std::uint32_t i = 0; i < k; ++i) {
            const std::uint64_t slot = std::uint64_t(base) + i;
            const std::uint32_t* e = local.data() + std::uint64_t(i) * fr::entry_words;
            if (slot < cap && (slot + 1) * fr::entry_words <= fout.n) {
                std::copy(e, e + fr::entry_words, fout.p + slot * fr::entry_words);
            } else {  // does not fit: undo, the solver grows fout and re-runs the round
                fr::clear_bits(pe, fr::row_pos(T, e[0], e[1], e[2]), e[3]);
            }
        }
        local.clear();
    }
};

template <bool Seed>
result<void> ifds_rows_round(std::span<ops::op_arg> a, unsigned t) {
    namespace fr = ops::ifds_rows;
    ops::ifds::tables T(a);
    fr::rows R(a);
    ops::ifds::words pe(a[fr::arg_pe]), fin(a[fr::arg_fin]), fout(a[fr::arg_fout]), counters(a[fr::arg_counters]);
    if (counters.n < 3)
        return fail(error_code::invalid_argument, "ifds_rows op: counters must hold at least 3 u32 (in, out, capacity)",
                    "allocate 16 bytes for counters");
    const std::uint64_t n_in = std::min<std::uint64_t>(counters.p[0], fin.n / fr::entry_words);
    const std::uint64_t chunk = 32;
    std::atomic<std::uint64_t> next{0};
    const unsigned threads = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(t, n_in / 1024)));
    parallel_region(threads, [&](unsigned, unsigned) {
        ifds_rows_parallel_sink sink{T, pe, fout, counters, {}};
        sink.local.reserve(2048 + 8);
        fr::scratch sc;
        for (;;) {
            const std::uint64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
            if (b >= n_in) break;
            const std::uint64_t e = std::min(n_in, b + chunk);
            for (std::uint64_t i = b; i < e; ++i) {
                const std::uint32_t* en = fin.p + i * fr::entry_words;
                if constexpr (Seed) sink.add(en[0], en[1], en[2], en[3]);
                else fr::expand_entry(T, R, pe, en, sink, sc);
            }
        }
        sink.flush();
    });
    return {};
}
} // namespace native

/// The native implementation of op `name`, or nullptr (then the reference runs).
inline native_op_fn find_native_op(std::string_view name) {
    if (name == "fill") return &native::fill;
    if (name == "copy") return &native::copy;
    if (name == "gather") return &native::gather;
    if (name == "bitset_union") return &native::bitset_union;
    if (name == "exclusive_scan") return &native::exclusive_scan;
    if (name == "ifds_seed") return &native::ifds_round<true>;
    if (name == "ifds_expand") return &native::ifds_round<false>;
    if (name == "ifds_rows_seed") return &native::ifds_rows_round<true>;
    if (name == "ifds_rows_expand") return &native::ifds_rows_round<false>;
    return nullptr;
}

} // namespace vyre::detail
