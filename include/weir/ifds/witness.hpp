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
        // Index: path-edge bit -> record id, sorted by bit.
        const auto& rec = eng_.records;
        index_.resize(rec.size());
        for (std::uint32_t i = 0; i < rec.size(); ++i) index_[i] = {bit_of(rec[i].n, rec[i].c, rec[i].d), i};
        std::sort(index_.begin(), index_.end());
    }

public:
    /// The statistics of the recording tabulation.
    const solve_stats& stats() const { return eng_.stats; }
    /// The path-edge bitset of the recording tabulation (same as the solver's).
    const std::vector<std::uint32_t>& path_edges() const { return eng_.pe; }

    /// A realizable path from a seed to (n, global_fact), fully expanded, or
    /// nullopt when the fact does not hold at n (or n / the fact is unknown).
    std::optional<witness_path> witness(node_id n, fact_id global_fact) const {
        const layout& L = *L_;
        if (n >= L.num_nodes) return std::nullopt;
        const std::uint32_t p = L.node_proc[n];
        const std::span<const fact_id> set(L.proc_facts.data() + L.proc_fact_off[p], L.fact_count(p));
        auto it = std::lower_bound(set.begin(), set.end(), global_fact);
        if (it == set.end() || *it != global_fact) return std::nullopt;
        const std::uint32_t d = static_cast<std::uint32_t>(it - set.begin());
        const std::uint32_t F = L.node_fact_count[n];
        std::uint32_t best = ~0u;
        for (std::uint32_t c = 0; c < F; ++c) {
            const std::uint64_t b = bit_of(n, c, d);
            if (!(eng_.pe[b >> 5] & (1u << (b & 31)))) continue;
            auto jt = std::lower_bound(index_.begin(), index_.end(), std::pair<std::uint64_t, std::uint32_t>(b, 0));
            if (jt != index_.end() && jt->first == b) best = std::min(best, jt->second);
        }
        if (best == ~0u) return std::nullopt;
        return expand(best);
    }

private:
    enum class action : std::uint32_t { prefix, same_level, emit };
    struct task {
        action a;
        std::uint32_t x, y;  ///< prefix/same_level: record id; emit: node, local fact
    };

    std::uint64_t bit_of(std::uint32_t n, std::uint32_t c, std::uint32_t d) const {
        return std::uint64_t{L_->pe_word[n]} * 32 + std::uint64_t{c} * L_->node_fact_count[n] + d;
    }
    /// Record id of the self-loop of the context of path edge `rid`.
    std::uint32_t context_of(std::uint32_t rid) const {
        const auto& r = eng_.records[rid];
        return eng_.ctx_rid[L_->proc_fact_off[L_->node_proc[r.n]] + r.c];
    }

    /// Path: seed ... context self-loop vertex (prefix), then the same-level
    /// path of the path edge without its first vertex.
    witness_path expand(std::uint32_t rid) const {
        const layout& L = *L_;
        const auto& rec = eng_.records;
        witness_path out;
        std::vector<task> st;
        st.push_back({action::same_level, rid, 0});
        st.push_back({action::prefix, context_of(rid), 0});
        while (!st.empty()) {
            const task t = st.back();
            st.pop_back();
            switch (t.a) {
            case action::emit:
                out.emplace_back(t.x, L.global_fact(L.node_proc[t.x], t.y));
                break;
            case action::prefix: {
                // Seed ... (s_p, c), for the self-loop record t.x.
                const detail::pe_record& r = rec[t.x];
                if (r.kind == detail::pe_origin::seed) {
                    st.push_back({action::emit, r.n, r.d});
                } else {  // call from caller path edge r.pred
                    st.push_back({action::emit, r.n, r.d});
                    st.push_back({action::same_level, r.pred, 0});
                    st.push_back({action::prefix, context_of(r.pred), 0});
                }
                break;
            }
            case action::same_level: {
                // The same-level path of record t.x, without its first vertex.
                const detail::pe_record& r = rec[t.x];
                switch (r.kind) {
                case detail::pe_origin::seed:
                case detail::pe_origin::call: break;
                case detail::pe_origin::intra:
                    st.push_back({action::emit, r.n, r.d});
                    st.push_back({action::same_level, r.pred, 0});
                    break;
                case detail::pe_origin::ret: {
                    const detail::pe_record& ex = rec[r.pred2];  // <s_q, d3> -> <exit_q, d4>
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

    const layout* L_;
    detail::tabulation_engine<true> eng_;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> index_;
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
