#pragma once
/// \file vyre/backend/detail/native_ops.hpp
/// Native parallel implementations of catalogue ops for the `cpu` backend.
/// Each computes exactly what the op's reference implementation computes.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <vyre/backend/detail/parallel.hpp>
#include <vyre/backend/detail/shared_worklist.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ops/catalogue.hpp>
#include <vyre/ops/ifds.hpp>
#include <vyre/ops/ifds_rows.hpp>
#include <vyre/ops/ifds_solve.hpp>

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

/// New frontier entries of `W` words gathered by one thread and appended to
/// `fout` with one atomic add per batch; `flush(undo)` hands each entry that
/// does not fit (slot ≥ capacity) to `undo`, which clears its bits so the
/// solver can grow `fout` and re-run the round.
template <std::uint32_t W>
struct frontier_batch {
    ops::ifds::words fout, counters;
    std::vector<std::uint32_t> local;

    /// Appends one entry; true when the batch is due for a flush.
    bool push(std::initializer_list<std::uint32_t> e) {
        local.insert(local.end(), e);
        return local.size() >= 256 * W;
    }
    template <class Undo>
    void flush(Undo&& undo) {
        const auto k = static_cast<std::uint32_t>(local.size() / W);
        if (!k) return;
        const std::uint32_t base = std::atomic_ref<std::uint32_t>(counters.p[1]).fetch_add(k, std::memory_order_relaxed);
        const std::uint32_t cap = counters.p[2];
        for (std::uint32_t i = 0; i < k; ++i) {
            const std::uint64_t slot = std::uint64_t(base) + i;
            const std::uint32_t* e = local.data() + std::uint64_t(i) * W;
            if (slot < cap && (slot + 1) * W <= fout.n) std::copy(e, e + W, fout.p + slot * W);
            else undo(e);
        }
        local.clear();
    }
};

/// Hands the `counters[0]` entries of `fin` (W words each) out in chunks to
/// up to `t` threads, one per `per_thread` entries at most: small rounds are
/// not worth a fork-join (on a loaded machine a join waits for every thread to
/// be scheduled). Each thread makes its sink with `make()`, feeds it
/// `step(sink, entry)`, and flushes it at the end.
template <std::uint32_t W, class Make, class Step>
void for_each_entry(const ops::ifds::words& fin, const ops::ifds::words& counters, unsigned t,
                    std::uint64_t per_thread, Make make, Step step) {
    const std::uint64_t n_in = std::min<std::uint64_t>(counters.p[0], fin.n / W);
    const std::uint64_t chunk = 32;
    std::atomic<std::uint64_t> next{0};
    const auto threads = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(t, n_in / per_thread)));
    parallel_region(threads, [&](unsigned, unsigned) {
        auto sink = make();
        for (;;) {
            const std::uint64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
            if (b >= n_in) break;
            for (std::uint64_t i = b; i < std::min(n_in, b + chunk); ++i) step(sink, fin.p + i * W);
        }
        sink.flush();
    });
}

/// IFDS rounds, one path edge per entry: bits set with an atomic or (after a
/// plain test: most derived edges are already known).
struct ifds_parallel_sink {
    const ops::ifds::tables& T;
    ops::ifds::words pe;
    frontier_batch<2> out;

    std::uint64_t word_of(std::uint32_t node, std::uint32_t bit) const {
        return std::uint64_t(T(ops::ifds::pe_word, node)) + (bit >> 5);
    }
    void propagate(std::uint32_t node, std::uint32_t bit) {
        const std::uint32_t m = 1u << (bit & 31);
        if (ops::ifds::or_word<true>(pe, word_of(node, bit), m) & m) return;
        if (out.push({node, bit})) flush();
    }
    void flush() {
        out.flush([&](const std::uint32_t* e) {
            std::atomic_ref<std::uint32_t>(pe.p[word_of(e[0], e[1])])
                .fetch_and(~(1u << (e[1] & 31)), std::memory_order_relaxed);
        });
    }
};

template <bool Seed>
result<void> ifds_round(std::span<ops::op_arg> a, unsigned t) {
    namespace fi = ops::ifds;
    fi::tables T(a, a[fi::arg_pe].bytes.size() / 4);
    fi::words pe(a[fi::arg_pe]), fin(a[fi::arg_fin]), fout(a[fi::arg_fout]), counters(a[fi::arg_counters]);
    VYRE_TRY(fi::check_counters(counters, "ifds"));
    for_each_entry<2>(
        fin, counters, t, 2048, [&] { return ifds_parallel_sink{T, pe, {fout, counters, {}}}; },
        [&](ifds_parallel_sink& sink, const std::uint32_t* e) {
            if constexpr (Seed) sink.propagate(e[0], e[1]);
            else fi::expand_entry(T, pe, e[0], e[1], sink);
        });
    return {};
}

/// Row-wise IFDS rounds: entries of 4 words carry up to 32 facts of a row.
struct ifds_rows_parallel_sink {
    const ops::ifds::tables& T;
    ops::ifds::words pe;
    frontier_batch<ops::ifds_rows::entry_words> out;
    ops::ifds_rows::scratch sc;

    void add(std::uint32_t node, std::uint32_t ctx, std::uint32_t k, std::uint32_t mask) {
        namespace fr = ops::ifds_rows;
        const std::uint32_t F = T.facts(node);
        if (ctx >= F || 32ull * k >= F) return;
        const std::uint32_t fresh = fr::or_bits<true>(pe, fr::row_pos(T, node, F, ctx, k), mask & fr::chunk_mask(F, k));
        if (fresh && out.push({node, ctx, k, fresh})) flush();
    }
    void flush() {
        out.flush([&](const std::uint32_t* e) { ops::ifds_rows::clear_bits(pe, ops::ifds_rows::row_pos(T, e[0], e[1], e[2]), e[3]); });
    }
};

template <bool Seed>
result<void> ifds_rows_round(std::span<ops::op_arg> a, unsigned t) {
    namespace fr = ops::ifds_rows;
    ops::ifds::tables T(a, a[fr::arg_pe].bytes.size() / 4);
    fr::rows R(a);
    ops::ifds::words pe(a[fr::arg_pe]), fin(a[fr::arg_fin]), fout(a[fr::arg_fout]), counters(a[fr::arg_counters]);
    VYRE_TRY(ops::ifds::check_counters(counters, "ifds_rows"));
    for_each_entry<fr::entry_words>(
        fin, counters, t, 1024, [&] { return ifds_rows_parallel_sink{T, pe, {fout, counters, {}}, {}}; },
        [&](ifds_rows_parallel_sink& sink, const std::uint32_t* e) {
            if constexpr (Seed) sink.add(e[0], e[1], e[2], e[3]);
            else fr::expand_entry(T, R, pe, e, sink, sink.sc);
        });
    return {};
}
/// `ifds_rows_solve` runs on one thread below this many path-edge bitset
/// words (starting threads would cost more than it saves); the resident
/// solver's bitset is packed, the solved nodes' blocks only: about a
/// quarter of the layout's on the benchmark problems.
inline constexpr std::uint64_t rows_solve_parallel_words = std::uint64_t{1} << 13;
/// The whole IFDS fixed point in one call (`ifds_rows_solve`): a stack per
/// thread, shared through `shared_worklist` when a thread runs dry; small
/// graphs on one thread (`rows_solve_parallel_words`).
inline result<void> ifds_rows_solve(std::span<ops::op_arg> a, unsigned t) {
    namespace fs = ops::ifds_solve;
    namespace fr = ops::ifds_rows;
    ops::ifds::tables T(a, a[fs::arg_pe].bytes.size() / 4);
    fr::rows R(a);
    ops::ifds::words pe(a[fs::arg_pe]), seeds(a[fs::arg_seeds]), counters(a[fs::arg_counters]);
    VYRE_TRY(fs::check_counters(counters));
    const unsigned threads = pe.n < rows_solve_parallel_words ? 1u : t;
    auto out_of_host_memory = [] {
        return fail(error_code::out_of_memory, "ifds_rows_solve: the worklist ran out of host memory",
                    "free memory or solve fewer seeds at once");
    };
    if (threads == 1) {  // the reference's loop: plain (not atomic) bit updates
        try {
            fs::solve_on_one_thread(T, R, pe, seeds, counters);
            return {};
        } catch (const std::bad_alloc&) {
            return out_of_host_memory();
        }
    }
    std::optional<fs::entered_contexts> entered;
    try {
        entered.emplace(T, fs::entered_max_words(pe));
    } catch (const std::bad_alloc&) {
        return out_of_host_memory();
    }
    shared_worklist<fs::entry> pool(threads);
    std::atomic<std::uint64_t> expanded{0};
    std::atomic<bool> out_of_memory{false};
    parallel_region(threads, [&](unsigned me, unsigned running) {
        std::vector<fs::entry> stack;
        fs::stack_sink<true> sink{T, R, pe, &stack, &*entered};
        fr::scratch sc;
        fs::entry e{};
        std::uint64_t mine = 0;
        try {
            if (me == 0)
                for (std::uint64_t i = 0, n = fs::seed_count(seeds, counters); i < n; ++i) {
                    const std::uint32_t* s = seeds.p + i * fs::entry_words;
                    sink.add(s[0], s[1], s[2], s[3]);
                }
            if (running < threads && me == 0) {
                // OpenMP granted fewer threads: work alone (no one would take from the pool).
                while (sink.pop(e)) fr::expand_entry(T, R, pe, e.data(), sink, sc), ++mine;
            } else if (running == threads) {
                do {
                    while (sink.pop(e)) {
                        fr::expand_entry(T, R, pe, e.data(), sink, sc);
                        if ((++mine & 31) == 0) pool.share(stack);
                    }
                } while (pool.refill(stack));
            }
        } catch (const std::bad_alloc&) {
            out_of_memory = true;
            pool.stop();
        }
        expanded.fetch_add(mine, std::memory_order_relaxed);
    });
    if (out_of_memory) return out_of_host_memory();
    counters.p[1] = static_cast<std::uint32_t>(std::min<std::uint64_t>(expanded.load(), ~0u));
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
    if (name == "ifds_rows_solve") return &native::ifds_rows_solve;
    return nullptr;
}

} // namespace vyre::detail
