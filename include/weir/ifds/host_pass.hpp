#pragma once
/// \file weir/ifds/host_pass.hpp
/// Parallel pieces of the host work that follows a resident solve
/// (`resident_solver`): the fresh result bitset and the counts read from it.
/// On the benchmark problems this work is an eighth of a `cpu` solve's time,
/// so it runs on the solver's host threads like the op before it.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include <vyre/backend/parallel.hpp>
#include <vyre/core/huge_pages.hpp>
#include <vyre/core/popcount.hpp>

#include <weir/ifds/layout.hpp>

namespace weir::ifds::detail {

/// Storage from which `assign_zeroed` populates fresh pages on several
/// threads: below it one thread does (a fork costs more than it saves).
inline constexpr std::size_t parallel_populate_min_bytes = std::size_t{1} << 20;

/// `v.assign(n, 0)` as `vyre::detail::assign_huge` does it, but fresh
/// storage has its pages populated on up to `threads` threads, one block
/// each: page faults, not the writes, are what a fresh result costs (on the
/// benchmark VM 2 MiB take about 0.5 ms on one thread, and the kernel
/// serves two threads' faults at once). Storage whose pages are in memory
/// already (`vyre::detail::pages_resident`: the allocator reused what an
/// earlier result freed, as in a loop of solves) is only zeroed: populating
/// it would fault nothing and cost a system call and a fork (0.25–0.45 ms
/// against 0.14 ms for 2 MiB on the benchmark VM).
inline void assign_zeroed(std::vector<std::uint32_t>& v, std::size_t n, unsigned threads) {
    vyre::detail::assign_huge(v, n, 0u, vyre::detail::huge_blocks::as_asked, [threads](const void* p, std::size_t bytes) {
        if (vyre::detail::pages_resident(p, bytes)) return;
        const std::size_t page = vyre::detail::page_bytes(), pages = bytes / page;
        const auto* base = static_cast<const unsigned char*>(p);
        const unsigned blocks = bytes < parallel_populate_min_bytes ? 1u : std::max(1u, threads);
        vyre::parallel_blocks(pages, blocks, 1, [&](std::uint64_t b, std::uint64_t e) {
            const std::size_t end = e == pages ? bytes : e * page;
            vyre::detail::populate_for_write(base + b * page, end - b * page);
        });
    });
}

/// What `count_contexts_and_bits` counts.
struct bitset_totals {
    std::uint64_t contexts = 0;  ///< self-loop path edges <s_p, c> -> <s_p, c>
    std::uint64_t bits = 0;      ///< all set bits: the path edges
};

/// The contexts and the set bits of a complete path-edge bitset over `L`,
/// on up to `threads` threads (procedures and words in one block each).
inline bitset_totals count_contexts_and_bits(const layout& L, std::span<const std::uint32_t> pe, unsigned threads) {
    std::atomic<std::uint64_t> contexts{0}, bits{0};
    constexpr std::uint64_t grain = std::uint64_t{1} << 16;  // words a thread is worth
    const unsigned nt = pe.size() < 2 * grain ? 1u : std::max(1u, threads);
    vyre::parallel_region(nt, [&](unsigned t, unsigned running) {
        std::uint64_t mine_contexts = 0, mine_bits = 0;
        const std::uint64_t p0 = std::uint64_t(L.num_procs) * t / running, p1 = std::uint64_t(L.num_procs) * (t + 1) / running;
        for (std::uint64_t p = p0; p < p1; ++p) {
            const std::uint32_t s = L.proc_start[p], f = L.node_fact_count[s];
            for (std::uint32_t c = 0; c < f; ++c) {
                const std::uint64_t bit = std::uint64_t(c) * f + c;
                mine_contexts += pe[L.pe_word[s] + bit / 32] >> (bit % 32) & 1u;
            }
        }
        const std::uint64_t w0 = pe.size() * t / running, w1 = pe.size() * (t + 1) / running;
        mine_bits = vyre::popcount(pe.subspan(w0, w1 - w0));
        contexts.fetch_add(mine_contexts, std::memory_order_relaxed);
        bits.fetch_add(mine_bits, std::memory_order_relaxed);
    });
    return {contexts.load(), bits.load()};
}

} // namespace weir::ifds::detail
