#pragma once
/// \file weir/ifds/witness.hpp
/// Witnesses: a realizable path in the exploded supergraph from a seed to a
/// (node, fact) that holds, with every call spelled out (summaries expanded
/// into the callee's path from its start to its exit).
///
/// `witness_builder` runs one recording tabulation: every path edge keeps how
/// it was first discovered (seed, call, intraprocedural edge, or return through
/// an earlier callee exit path edge). Predecessors are always discovered
/// earlier, so the records form a DAG and every expansion terminates. The
/// expansion uses an explicit stack (no recursion), so long paths cannot
/// overflow the call stack.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/layout.hpp>
#include <weir/ifds/problem.hpp>
#include <weir/ifds/tabulation_solver.hpp>

namespace weir::ifds {

/// A witness path: exploded-supergraph vertices (node, global fact), seed first.
using witness_path = std::vector<std::pair<node_id, fact_id>>;

namespace detail {

/// (path-edge bit, record id) of every record, sorted by bit.
inline std::vector<std::pair<std::uint64_t, std::uint32_t>> record_index(const layout& L, std::span<const pe_record> rec) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> index(rec.size());
    for (std::uint32_t i = 0; i < rec.size(); ++i) index[i] = {row_start(L, rec[i].n, rec[i].c) + rec[i].d, i};
    std::sort(index.begin(), index.end());
    return index;
}

/// The earliest record of (n, global_fact) in a context c of n's procedure
/// that `usable(c)` accepts, or ~0u (n or the fact unknown, or no record).
template <class Usable>
std::uint32_t first_record_of(const layout& L, std::span<const std::pair<std::uint64_t, std::uint32_t>> index, node_id n,
                              fact_id global_fact, Usable&& usable) {
    if (n >= L.num_nodes) return ~0u;
    const std::uint32_t d = local_fact(L, L.node_proc[n], global_fact);
    if (d == no_index) return ~0u;
    std::uint32_t best = ~0u;
    for (std::uint32_t c = 0; c < L.node_fact_count[n]; ++c) {
        if (!usable(c)) continue;
        const std::uint64_t b = row_start(L, n, c) + d;
        auto jt = std::lower_bound(index.begin(), index.end(), std::pair<std::uint64_t, std::uint32_t>(b, 0));
        if (jt != index.end() && jt->first == b) best = std::min(best, jt->second);
    }
    return best;
}

/// The path of record `rid`, fully expanded: seed ... the self-loop of its
/// context (the prefix, through the `call` records' caller path edges), then
/// its same-level path (through `intra` and `ret` records). `ctx_rid[
/// proc_fact_off[p] + c]` is the record of context (p, c)'s self-loop. The
/// records must form a DAG (predecessors recorded before what they derive);
/// an explicit stack, so long paths cannot overflow the call stack.
/// Expanded summaries nest, so a path can be exponentially longer than the
/// records it comes from: with a finite `max_steps` (room for which is
/// reserved at once, so the vector never moves), only the path's first
/// `max_steps` vertices (`witness_length` says whether that is all).
inline witness_path expand_witness(const layout& L, std::span<const pe_record> rec, std::span<const std::uint32_t> ctx_rid,
                                   std::uint32_t rid, std::uint64_t max_steps = ~std::uint64_t{0}) {
    enum class action : std::uint32_t { prefix, same_level, emit };
    struct task {
        action a;
        std::uint32_t x, y;  ///< prefix/same_level: record id; emit: node, local fact
    };
    auto context_of = [&](std::uint32_t r) { return ctx_rid[L.proc_fact_off[L.node_proc[rec[r].n]] + rec[r].c]; };
    witness_path out;
    if (max_steps != ~std::uint64_t{0}) out.reserve(max_steps);
    std::vector<task> st;
    st.push_back({action::same_level, rid, 0});
    st.push_back({action::prefix, context_of(rid), 0});
    while (!st.empty()) {
        const task t = st.back();
        st.pop_back();
        switch (t.a) {
        case action::emit:
            if (out.size() == max_steps) return out;
            out.emplace_back(t.x, L.global_fact(L.node_proc[t.x], t.y));
            break;
        case action::prefix: {
            // Seed ... (s_p, c), for the self-loop record t.x.
            const pe_record& r = rec[t.x];
            st.push_back({action::emit, r.n, r.d});
            if (r.kind != pe_origin::seed) {  // call from caller path edge r.pred
                st.push_back({action::same_level, r.pred, 0});
                st.push_back({action::prefix, context_of(r.pred), 0});
            }
            break;
        }
        case action::same_level: {
            // The same-level path of record t.x, without its first vertex.
            const pe_record& r = rec[t.x];
            switch (r.kind) {
            case pe_origin::seed:
            case pe_origin::call: break;
            case pe_origin::intra:
                st.push_back({action::emit, r.n, r.d});
                st.push_back({action::same_level, r.pred, 0});
                break;
            case pe_origin::ret: {
                const pe_record& ex = rec[r.pred2];  // <s_q, d3> -> <exit_q, d4>
                const std::uint32_t q = L.ce_callee[r.ce];
                st.push_back({action::emit, r.n, r.d});
                st.push_back({action::same_level, r.pred2, 0});
                st.push_back({action::emit, L.proc_start[q], ex.c});
                st.push_back({action::same_level, r.pred, 0});
                break;
            }
            }
            break;
        }
        }
    }
    return out;
}

/// Memos for `witness_length`: per record, its same-level path's vertices;
/// per context, its prefix's (`unknown` until computed).
struct witness_lengths {
    static constexpr std::uint64_t unknown = ~std::uint64_t{0};
    std::vector<std::uint64_t> same_level, prefix;
    /// Memos for records `rec` and contexts `ctx_rid`.
    witness_lengths(std::size_t records, std::size_t contexts) : same_level(records, unknown), prefix(contexts, unknown) {}
    /// Their bytes.
    std::uint64_t bytes() const { return (same_level.size() + prefix.size()) * sizeof(std::uint64_t); }
};

/// The vertices of `expand_witness(L, rec, ctx_rid, rid)`'s path, counted
/// over the records (saturating at 2^62) rather than expanded: linear in
/// the records, where the path may be exponential in them.
inline std::uint64_t witness_length(const layout& L, std::span<const pe_record> rec, std::span<const std::uint32_t> ctx_rid,
                                    std::uint32_t rid, witness_lengths& m) {
    constexpr std::uint64_t cap = std::uint64_t{1} << 62;
    auto add = [](std::uint64_t a, std::uint64_t b) { return a + b < cap ? a + b : cap; };  // both ≤ cap: no overflow
    auto ctx = [&](std::uint32_t r) { return L.proc_fact_off[L.node_proc[rec[r].n]] + rec[r].c; };
    // Same-level lengths, post-order over the records' predecessors (a DAG).
    std::vector<std::uint32_t> st;
    auto same_level = [&](std::uint32_t root) {
        if (m.same_level[root] != witness_lengths::unknown) return m.same_level[root];
        st.assign(1, root);
        while (!st.empty()) {
            const std::uint32_t r = st.back();
            const pe_record& x = rec[r];
            if (m.same_level[r] != witness_lengths::unknown) {
                st.pop_back();
                continue;
            }
            const bool intra = x.kind == pe_origin::intra, ret = x.kind == pe_origin::ret;
            if (!intra && !ret) {
                m.same_level[r] = 0, st.pop_back();
                continue;
            }
            const std::uint64_t a = m.same_level[x.pred], b = ret ? m.same_level[x.pred2] : 0;
            if (a == witness_lengths::unknown) {
                st.push_back(x.pred);
                continue;
            }
            if (b == witness_lengths::unknown) {
                st.push_back(x.pred2);
                continue;
            }
            m.same_level[r] = ret ? add(add(a, b), 2) : add(a, 1);  // ret: the callee's start and the return site
            st.pop_back();
        }
        return m.same_level[root];
    };
    // The prefix: up the chain of callers to a known one or a seed, then back down.
    std::vector<std::uint32_t> chain;
    for (std::uint32_t x = ctx(rid);;) {
        if (m.prefix[x] != witness_lengths::unknown) break;
        chain.push_back(x);
        const pe_record& self = rec[ctx_rid[x]];
        if (self.kind == pe_origin::seed) break;
        x = ctx(self.pred);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const pe_record& self = rec[ctx_rid[*it]];
        m.prefix[*it] = self.kind == pe_origin::seed ? 1 : add(add(m.prefix[ctx(self.pred)], same_level(self.pred)), 1);
    }
    return add(m.prefix[ctx(rid)], same_level(rid));
}

} // namespace detail

/// Builds witnesses for one layout and its seeds. Construction runs the
/// recording tabulation once; each `witness` call then only walks records.
/// The layout must outlive the builder.
class witness_builder {
public:
    /// Runs the recording tabulation from the layout's seeds (no memory
    /// budget; throws `std::bad_alloc` when the host runs out, and
    /// `std::invalid_argument` for a layout without its per-row CSR).
    explicit witness_builder(const layout& L) : witness_builder(L, 0) {}

    /// Runs the recording tabulation within `opt.memory_budget` bytes (its
    /// records count too); past it, or out of host memory, an `out_of_memory` error.
    static vyre::result<witness_builder> create(const layout& L, tabulation_options opt = {}) {
        VYRE_TRY(check_intra_rows(L, "witness_builder"));
        return detail::within_memory_budget("witness_builder", "recording the solve", "",
                                            [&]() -> vyre::result<witness_builder> {
                                                return witness_builder(L, opt.memory_budget);
                                            });
    }

private:
    witness_builder(const layout& L, std::uint64_t memory_budget) : L_(&L), eng_(L, memory_budget) {
        eng_.run(L.seed_node, L.seed_fact);
        index_ = detail::record_index(L, eng_.records);
    }

public:
    /// The statistics of the recording tabulation.
    const solve_stats& stats() const { return eng_.stats; }
    /// The path-edge bitset of the recording tabulation (same as the solver's).
    const std::vector<std::uint32_t>& path_edges() const { return eng_.pe; }

    /// A realizable path from a seed to (n, global_fact), fully expanded, or
    /// nullopt when the fact does not hold at n (or n / the fact is unknown).
    std::optional<witness_path> witness(node_id n, fact_id global_fact) const {
        const std::uint32_t rid = detail::first_record_of(*L_, index_, n, global_fact, [](std::uint32_t) { return true; });
        if (rid == ~0u) return std::nullopt;
        return detail::expand_witness(*L_, eng_.records, eng_.ctx_rid, rid);
    }

private:
    const layout* L_;
    detail::tabulation_engine<true> eng_;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> index_;  ///< (path-edge bit, record id), by bit
};

/// Text form of a witness: one `NODE FACT` line per vertex.
inline std::string format_witness(const problem& pb, const witness_path& path) {
    std::string out;
    for (auto [n, f] : path) {
        out += pb.nodes[n].name;
        out += ' ';
        out += pb.fact_name(f);
        out += '\n';
    }
    return out;
}

} // namespace weir::ifds
