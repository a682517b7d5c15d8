#pragma once
/// \file weir/ifds/ops/cpu.hpp
/// The native implementation of `ifds_rows_solve` on `vyre::cpu`
/// (`vyre::ops::native_op<vyre::cpu, weir::ops::rows_solve_op>`): a stack
/// per thread, shared through `shared_worklist` when a thread runs dry;
/// small graphs on one thread. It computes exactly the op's reference
/// (weir/ifds/ops/solve.hpp explains why concurrent expansion is exact).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>
#include <optional>
#include <span>
#include <vector>

#include <vyre/backend/cpu.hpp>
#include <vyre/backend/parallel.hpp>
#include <vyre/ops/extension.hpp>
#include <weir/ifds/ops/rows.hpp>
#include <weir/ifds/ops/shared_worklist.hpp>
#include <weir/ifds/ops/solve.hpp>
#include <weir/ifds/ops/tables.hpp>

namespace weir::ops::ifds_solve {

/// `ifds_rows_solve` runs on one thread below this many path-edge bitset
/// words (starting threads would cost more than it saves); the resident
/// solver's bitset is packed, the solved nodes' blocks only: about a
/// quarter of the layout's on the benchmark problems.
inline constexpr std::uint64_t parallel_words = std::uint64_t{1} << 13;

/// The whole fixed point on up to `t` threads (see the file comment).
inline result<void> solve_on_threads(std::span<op_arg> a, unsigned t) {
    namespace fr = ifds_rows;
    ifds::tables T(a, a[arg_pe].bytes.size() / 4);
    fr::rows R(a);
    ifds::words pe(a[arg_pe]), seeds(a[arg_seeds]), counters(a[arg_counters]);
    VYRE_TRY(check_counters(counters));
    const unsigned threads = pe.n < parallel_words ? 1u : t;
    auto out_of_host_memory = [] {
        return fail(error_code::out_of_memory, "ifds_rows_solve: the worklist ran out of host memory",
                    "free memory or solve fewer seeds at once");
    };
    if (threads == 1) {  // the reference's loop: plain (not atomic) bit updates
        try {
            solve_on_one_thread(T, R, pe, seeds, counters);
            return {};
        } catch (const std::bad_alloc&) {
            return out_of_host_memory();
        }
    }
    std::optional<entered_contexts> entered;
    try {
        entered.emplace(T, entered_max_words(pe));
    } catch (const std::bad_alloc&) {
        return out_of_host_memory();
    }
    detail::shared_worklist<entry> pool(threads);
    std::atomic<std::uint64_t> expanded{0};
    std::atomic<bool> out_of_memory{false};
    vyre::parallel_region(threads, [&](unsigned me, unsigned running) {
        std::vector<entry> stack;
        stack_sink<true> sink{T, R, pe, &stack, &*entered};
        fr::scratch sc;
        entry e{};
        std::uint64_t mine = 0;
        try {
            if (me == 0)
                for (std::uint64_t i = 0, n = seed_count(seeds, counters); i < n; ++i) {
                    const std::uint32_t* s = seeds.p + i * entry_words;
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

} // namespace weir::ops::ifds_solve

/// `ifds_rows_solve` on `vyre::cpu`.
template <>
struct vyre::ops::native_op<vyre::cpu, weir::ops::rows_solve_op> {
    static vyre::result<void> run(std::span<vyre::ops::op_arg> args, unsigned threads) {
        return weir::ops::ifds_solve::solve_on_threads(args, threads);
    }
};
