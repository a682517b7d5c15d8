#pragma once
/// \file weir/ifds/ops/solve.hpp
/// `ifds_rows_solve`, weir's extension op (vyre/ops/extension.hpp): the
/// whole exact IFDS fixed point in one dispatch. Row chunks
/// (weir/ifds/ops/rows.hpp) wait on a worklist inside the op (a stack per
/// thread on `cpu`, weir/ifds/ops/cpu.hpp), so no frontier is written out,
/// no round waits for its slowest entry, and the solver makes one call per
/// solve. (Bulk-synchronous round ops, one path edge or one row chunk per
/// frontier entry, were measured slower on every host backend and removed;
/// backends without a native implementation run the portable IR kernels of
/// weir/ifds/kernels.hpp.)
///
/// Arguments (all u32): the 25 graph tables (tables.hpp), the 10 row tables of
/// `weir::ifds::row_tables`, then `pe` (path-edge bitset, read_write),
/// `seeds` (entries of 4 words: node, context, chunk, mask; read) and
/// `counters` = [seed_count, expanded, 0, 0] (read_write): the op reads
/// seed_count and writes in `expanded` how many row chunks it expanded.
///
/// Semantics: every path edge reachable from the seeds over the row tables'
/// edges is set in `pe` (weir's default tables leave the derived nodes out;
/// `weir::ifds::derive_rows` sets their bits afterwards). Bits already set
/// count as known and are not expanded again, so `pe` starts cleared. Why it
/// is exact although entries are expanded in any order and, on `cpu`,
/// concurrently: a return needs a call-site path edge and an exit path edge;
/// each sets its bit (an atomic read-modify-write) before it is expanded, and
/// the one expanded second reads the other's bit (sequentially consistent
/// loads), so at least one of the two expansions makes the return. An exit
/// finds its callers' contexts in `entered_contexts`, which a call site's
/// expansion writes before it reads the exit's row: the same argument holds.

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ops/op_info.hpp>
#include <weir/ifds/ops/rows.hpp>
#include <weir/ifds/ops/tables.hpp>

namespace weir::ops::ifds_solve {

/// Argument positions (after the 25 + 10 tables).
inline constexpr std::uint32_t arg_pe = ifds_rows::arg_pe, arg_seeds = arg_pe + 1, arg_counters = arg_pe + 2,
                               arg_count = arg_pe + 3;
/// Words per seed and worklist entry (as `ifds_rows`).
inline constexpr std::uint32_t entry_words = ifds_rows::entry_words;
/// A worklist entry: node, context, chunk, mask of new facts.
using entry = std::array<std::uint32_t, entry_words>;

/// How many of a stack's newest entries `stack_sink::add` looks through for
/// the same row chunk. On the benchmark problems one expansion in seven adds
/// bits to a chunk that is still waiting within the newest four; looking
/// further finds few more (2000 procedures: 207,740 expansions without the
/// merge, 178,766 with 4, 176,053 with 16).
inline constexpr std::size_t merge_window = 4;

/// The caller contexts that have entered each callee context, per call
/// edge: bit d0 of row (ce, d3) is set when the call site's row (site, d0) is
/// expanded with a fact whose call flow yields d3 at the callee's start. An
/// exit with context d3 then returns to exactly those caller contexts,
/// instead of testing every context of the call site against the facts that
/// enter d3. Exact as the op is (see the file comment): a call site's row
/// records its context here (a sequentially consistent OR) before it reads
/// the callee's exit row, and an exit's bits are set before it reads here,
/// so the second of the two makes the return.
struct entered_contexts {
    /// Where a call edge's rows lie, in one record (one cache line read per lookup).
    struct edge_rows {
        std::uint64_t first = 0;        ///< its first word in `bits`
        std::uint32_t row_words = 0;    ///< words of a row, (site facts + 31) / 32
        std::uint32_t callee_facts = 0; ///< rows (the callee start's facts)
    };
    std::vector<std::uint32_t> bits;  ///< the rows
    std::vector<edge_rows> edges;     ///< per call edge

    /// Sized for the call edges of `T`, all rows empty; left without rows
    /// (`row` finds none, so the op tests contexts as the round ops do) when
    /// the index would take more than `max_words` words.
    entered_contexts(const ifds::tables& T, std::uint64_t max_words) {
        const std::uint64_t n = std::min({T.n[ifds::ce_site], T.n[ifds::ce_callee], T.n[ifds::ce_retsite]});
        std::vector<edge_rows> e(n);
        std::uint64_t words = 0;
        for (std::uint64_t ce = 0; ce < n; ++ce) {
            e[ce] = {words, (T.facts(T(ifds::ce_site, ce)) + 31) / 32, T.facts(T(ifds::proc_start, T(ifds::ce_callee, ce)))};
            words += std::uint64_t(e[ce].row_words) * e[ce].callee_facts;
            if (words > max_words) return;
        }
        edges = std::move(e);
        bits.assign(words, 0);
    }
    /// Row (ce, d3) and its words, or {nullptr, 0} when there is none.
    WEIR_INLINE std::pair<std::uint32_t*, std::uint32_t> row(std::uint32_t ce, std::uint32_t d3) {
        if (ce >= edges.size()) return {nullptr, 0};
        const edge_rows& e = edges[ce];
        if (d3 >= e.callee_facts) return {nullptr, 0};
        return {bits.data() + e.first + std::uint64_t(d3) * e.row_words, e.row_words};
    }
};

/// The most words `entered_contexts` may take for a bitset `pe`: as many as
/// `pe` itself (far more than the benchmark problems need: 0.1 MiB against
/// 2 MiB at 2000 procedures), so that malformed tables cannot make it huge.
inline std::uint64_t entered_max_words(const ifds::words& pe) { return pe.n; }

/// A sink for `ifds_rows::expand_entry` that sets the new bits and pushes
/// every chunk that had new ones onto a worklist stack, or ORs them into the
/// entry of the same chunk when one waits near the top (`merge_window`): it
/// is then expanded once with the union of its bits. The stack belongs to one
/// thread, so the merge needs no synchronisation; the bits themselves are set
/// in `pe` before, as without it. With `entered`, it also keeps the
/// caller contexts of each callee context (`enter`, `entered_row`).
template <bool Atomic>
struct stack_sink {
    const ifds::tables& T;
    const ifds_rows::rows& R;
    ifds::words pe;
    std::vector<entry>* stack;
    entered_contexts* entered = nullptr;

    WEIR_INLINE void add(std::uint32_t node, std::uint32_t ctx, std::uint32_t k, std::uint32_t mask) {
        const std::uint32_t* info = R.node(node);
        if (info == nullptr) return;
        const std::uint32_t F = ifds_rows::node_facts(T, info);
        if (ctx >= F || 32ull * k >= F) return;
        const std::uint32_t fresh =
            ifds_rows::or_bits<Atomic>(pe, ifds_rows::row_pos(info, F, ctx, k), mask & ifds_rows::chunk_mask(F, k));
        if (!fresh) return;
        const std::size_t n = stack->size();
        for (std::size_t i = 1; i <= std::min(n, merge_window); ++i) {
            entry& w = (*stack)[n - i];
            if (w[0] == node && w[1] == ctx && w[2] == k) {
                w[3] |= fresh;
                return;
            }
        }
        stack->push_back({node, ctx, k, fresh});
    }
    /// Records that caller context `ctx` at call edge `ce`'s site enters callee context `d3`.
    WEIR_INLINE void enter(std::uint32_t ce, std::uint32_t d3, std::uint32_t ctx) {
        if (entered == nullptr) return;
        if (const auto [r, words] = entered->row(ce, d3); r && ctx / 32 < words)
            ifds::or_into<Atomic>(r[ctx / 32], 1u << (ctx % 32));
    }
    /// The caller contexts that entered callee context `d3` through `ce`, as
    /// `words` words copied into `out` (sequentially consistent loads); false
    /// when the index has no such row (the caller then tests the contexts itself).
    WEIR_INLINE bool entered_row(std::uint32_t ce, std::uint32_t d3, std::uint32_t* out, std::uint32_t words) {
        if (entered == nullptr) return false;
        const auto [r, row_words] = entered->row(ce, d3);
        if (r == nullptr || words != row_words) return false;
        for (std::uint32_t j = 0; j < words; ++j)
            out[j] = std::atomic_ref<const std::uint32_t>(r[j]).load(std::memory_order_seq_cst);
        return true;
    }
    /// Pops the newest entry into `e`; false when the stack is empty.
    bool pop(entry& e) {
        if (stack->empty()) return false;
        e = stack->back();
        stack->pop_back();
        return true;
    }
};

/// Checks the counters argument.
inline result<void> check_counters(const ifds::words& counters) {
    if (counters.n < 2)
        return fail(error_code::invalid_argument,
                    "ifds_rows_solve: counters has " + std::to_string(counters.n) + " words, needs 2 (seed_count, expanded)",
                    "bind a counters buffer of at least 2 u32");
    return {};
}

/// Number of seed entries to read: seed_count, capped by the seeds buffer.
inline std::uint64_t seed_count(const ifds::words& seeds, const ifds::words& counters) {
    return std::min<std::uint64_t>(counters.p[0], seeds.n / entry_words);
}

/// The whole fixed point on one thread: one stack, newest entry first, plain
/// (not atomic) bit updates; writes the expanded count into counters[1]
/// (checked by the caller).
inline void solve_on_one_thread(const ifds::tables& T, const ifds_rows::rows& R, const ifds::words& pe,
                                const ifds::words& seeds, const ifds::words& counters) {
    std::vector<entry> stack;
    entered_contexts entered(T, entered_max_words(pe));
    stack_sink<false> sink{T, R, pe, &stack, &entered};
    for (std::uint64_t i = 0, n = seed_count(seeds, counters); i < n; ++i) {
        const std::uint32_t* s = seeds.p + i * entry_words;
        sink.add(s[0], s[1], s[2], s[3]);
    }
    ifds_rows::scratch sc;
    entry e{};
    std::uint32_t expanded = 0;
    while (sink.pop(e)) {
        ifds_rows::expand_entry(T, R, pe, e.data(), sink, sc);
        if (expanded != ~0u) ++expanded;  // a statistic: saturates
    }
    counters.p[1] = expanded;
}

/// Reference implementation: `solve_on_one_thread` after the counters check.
inline result<void> reference(std::span<op_arg> a) {
    ifds::tables T(a, a[arg_pe].bytes.size() / 4);
    ifds_rows::rows R(a);
    ifds::words pe(a[arg_pe]), seeds(a[arg_seeds]), counters(a[arg_counters]);
    VYRE_TRY(check_counters(counters));
    solve_on_one_thread(T, R, pe, seeds, counters);
    return {};
}

/// The op signature: 25 tables, 10 row tables, pe, seeds, counters.
inline std::vector<param> signature() {
    std::vector<param> ps = ifds_rows::table_params();
    ps.push_back({param_kind::buffer, "pe", true, ir::scalar_type::u32});
    ps.push_back({param_kind::buffer, "seeds", false, ir::scalar_type::u32});
    ps.push_back({param_kind::buffer, "counters", true, ir::scalar_type::u32});
    return ps;
}

} // namespace weir::ops::ifds_solve

namespace weir::ops {

/// The op `ifds_rows_solve` as vyre sees it (`vyre::ops::op_definition`):
/// registered by `weir::ops::register_ops` (weir/ifds/ops/register.hpp).
struct rows_solve_op {
    static constexpr std::string_view name = "ifds_rows_solve";
    static constexpr std::string_view summary =
        "the whole IFDS fixed point from seed row chunks, on a worklist inside the op (weir/ifds/ops/solve.hpp)";
    static std::vector<param> signature() { return ifds_solve::signature(); }
    static result<void> reference(std::span<op_arg> args) { return ifds_solve::reference(args); }
};

} // namespace weir::ops
