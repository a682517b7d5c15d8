#pragma once
/// \file weir/ifds/targeted_witnesses.hpp
/// Witnesses for a few chosen (node, fact) targets of a problem already
/// solved, recording only the path edges that can derive them.
///
/// `witness_builder` records every path edge of the whole solve, which is
/// out of reach on real programs (4.6 G path edges for a taint analysis of
/// SQLite). `targeted_witnesses` starts from the solution instead (the
/// path-edge bitset any solver returns) and works in three steps:
///
/// 1. Prefixes. A target's context (p, c) is reached from a seed through
///    calls. A backward breadth-first search over contexts (caller context
///    (p', c') before (p, c) when the caller path edge <s_p', c'> -> <site,
///    d'> is in the solution and the call maps d' to c) finds a chain to a
///    seed context, or to a context whose chain is already known. The chains
///    form a forest rooted at the seeds, so expanding them terminates.
/// 2. The same-level closure. From the targets and the chains' caller path
///    edges, backwards through every rule of the tabulation whose premises
///    are in the solution: an intraprocedural or call-to-return edge (one
///    premise in the same context), a return (the caller path edge at the
///    call site and the callee's exit path edge in the callee context the
///    call enters). A context's self-loop is an axiom here, so the closure
///    never climbs into callers; whole, it holds every same-level
///    derivation of every edge in it. It grows nearest first (premises that
///    carry the same fact, or the zero fact, before those that change
///    it), and stops growing as
///    soon as step 3 derives every target and chain edge (tried each time
///    the closure has doubled).
/// 3. A recording tabulation restricted to the closure, seeded with the
///    self-loops of the closure's contexts: it records how each path edge of
///    the closure was first derived (a DAG, as in `witness_builder`); the
///    chains' self-loops then take their caller path edge as predecessor.
///
/// Expansion is `witness_builder`'s. Memory is the closure's, not the
/// solve's: a hash table entry and a record per closure path edge.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>

#include <weir/ifds/layout.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ifds/witness.hpp>

namespace weir::ifds {

/// What building targeted witnesses did.
struct targeted_witness_stats {
    std::uint64_t closure_edges = 0;   ///< path edges of the same-level closure grown (maybe not all of it)
    std::uint64_t recorded_edges = 0;  ///< of them, derived (recorded) by the restricted tabulation
    std::uint64_t contexts = 0;        ///< contexts of the closure
    std::uint64_t chain_contexts = 0;  ///< contexts on the prefix chains (seeds excluded)
    std::uint64_t passes = 0;          ///< restricted tabulations run (one per doubling of the closure)
    std::uint64_t missing = 0;         ///< wanted path edges (targets', chains' caller edges) left underived: the budget ran out
    std::uint64_t bytes = 0;           ///< the largest the builder's own tables grew
    double seconds = 0;                ///< the whole construction
};

/// How `targeted_witnesses` works.
struct targeted_witness_options {
    /// Bytes the builder's own tables may hold (0: no limit). When the
    /// closure would grow past it, the builder stops growing it and keeps
    /// the witnesses found so far (`targeted_witness_stats::missing` counts
    /// the others); when even its fixed tables do not fit, `out_of_memory`.
    std::uint64_t memory_budget = 0;
    /// The closure's size at the first restricted tabulation (then each time it doubles).
    std::size_t first_pass_edges = std::size_t{1} << 16;
};

namespace detail {

/// An open-addressing hash table from path-edge bits to u32 values (~0u
/// until set); 12 bytes a slot, at most half full.
class pe_bit_table {
public:
    pe_bit_table() { rehash(1024); }
    std::size_t size() const { return size_; }
    std::uint64_t bytes() const { return keys_.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t)); }
    /// Inserts `bit` (value ~0u); true when it was not there.
    bool insert(std::uint64_t bit) {
        if (2 * (size_ + 1) > keys_.size()) rehash(keys_.size() * 2);
        std::size_t i = slot(bit);
        if (keys_[i] == bit) return false;
        keys_[i] = bit;
        vals_[i] = ~0u;
        ++size_;
        return true;
    }
    /// The value of `bit`, or null when it is not in the table.
    std::uint32_t* find(std::uint64_t bit) {
        const std::size_t i = slot(bit);
        return keys_[i] == bit ? &vals_[i] : nullptr;
    }
    /// Sets every value back to ~0u.
    void reset_values() { std::fill(vals_.begin(), vals_.end(), ~0u); }
    const std::uint32_t* find(std::uint64_t bit) const { return const_cast<pe_bit_table*>(this)->find(bit); }

private:
    static constexpr std::uint64_t empty = ~std::uint64_t{0};
    std::size_t slot(std::uint64_t bit) const {
        std::size_t i = static_cast<std::size_t>((bit * 0x9E3779B97F4A7C15ull) >> shift_);
        while (keys_[i] != empty && keys_[i] != bit) i = (i + 1) & (keys_.size() - 1);
        return i;
    }
    void rehash(std::size_t n) {
        std::vector<std::uint64_t> keys(n, empty);
        std::vector<std::uint32_t> vals(n, ~0u);
        keys.swap(keys_);
        vals.swap(vals_);
        shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(n));
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] != empty) {
                const std::size_t j = slot(keys[i]);
                keys_[j] = keys[i];
                vals_[j] = vals[i];
            }
    }
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> vals_;
    std::size_t size_ = 0;
    unsigned shift_ = 54;
};

} // namespace detail

/// Witnesses for chosen targets of a solved layout (see the file comment).
/// The layout must outlive it; its intraprocedural edges may be in either
/// form (`intra_form`: per row, or per edge as the row-wise solve reads them).
class targeted_witnesses {
public:
    /// Builds witnesses for `targets` (node, global fact) from `solution`,
    /// the path-edge bitset (`L.pe_words` words, every node's rows) that a
    /// solver returned for `L`'s seeds. Targets whose fact does not hold get
    /// no witness. Fails with `invalid_argument` for a short bitset, or bits
    /// that no solve of `L` gives (a target's context that no seed reaches, a
    /// context without its self-loop, a target without a derivation in the
    /// whole closure); with `out_of_memory` when the fixed tables alone
    /// exceed `opt.memory_budget` or the host runs out. Where the closure
    /// would grow past the budget, it stops there and keeps the witnesses
    /// found so far (`stats().missing` counts the rest).
    static vyre::result<targeted_witnesses> create(const layout& L, std::span<const std::uint32_t> solution,
                                                   std::span<const std::pair<node_id, fact_id>> targets,
                                                   targeted_witness_options opt = {}) {
        if (solution.size() < L.pe_words)
            return vyre::fail(vyre::error_code::invalid_argument,
                              "targeted_witnesses: the solution has " + std::to_string(solution.size()) +
                                  " words, the layout's path-edge bitset " + std::to_string(L.pe_words),
                              "pass the whole path-edge bitset a solver returned for this layout");
        return detail::within_memory_budget("targeted_witnesses", "recording the witnesses' path edges", "",
                                            [&]() -> vyre::result<targeted_witnesses> {
                                                targeted_witnesses w(L, solution, opt);
                                                VYRE_TRY(w.build(targets));
                                                return w;
                                            });
    }

    /// A realizable path from a seed to (n, global_fact), fully expanded, or
    /// nullopt when (n, global_fact) does not hold, or was not a target
    /// (nor on a target's derivation in a context with a known prefix).
    /// Expanded summaries nest, so a path may be exponentially longer than
    /// the search that found it: with `max_steps`, a path longer than that
    /// (counted over the records first, without expanding it) comes as its
    /// first `min(max_steps, cut_path_vertices)` vertices, and `*whole`
    /// (when given) says whether the path is all there. (It memoises the
    /// records' lengths then: not for several threads at once.)
    std::optional<witness_path> witness(node_id n, fact_id global_fact, std::uint64_t max_steps = ~std::uint64_t{0},
                                        bool* whole = nullptr) const {
        if (n >= L_->num_nodes) return std::nullopt;
        const std::uint32_t base = L_->proc_fact_off[L_->node_proc[n]];
        // Only contexts with a prefix: a seed's, or one chained to a seed.
        const std::uint32_t rid = detail::first_record_of(*L_, index_, n, global_fact,
                                                          [&](std::uint32_t c) { return rooted_[base + c]; });
        if (rid == ~0u) return std::nullopt;
        if (whole) *whole = true;
        if (max_steps == ~std::uint64_t{0}) return detail::expand_witness(*L_, records_, ctx_rid_, rid);
        if (!lengths_) lengths_.emplace(records_.size(), ctx_rid_.size());
        const std::uint64_t len = detail::witness_length(*L_, records_, ctx_rid_, rid, *lengths_);
        if (len <= max_steps) return detail::expand_witness(*L_, records_, ctx_rid_, rid, len);  // room for all of it at once
        if (whole) *whole = false;
        return detail::expand_witness(*L_, records_, ctx_rid_, rid, std::min(max_steps, cut_path_vertices));
    }

    /// The most vertices of a path cut short by `witness`'s `max_steps`: its
    /// beginning, which names its seed and (in practice) where its fact
    /// was generated, in time that does not grow with the whole path's.
    static constexpr std::uint64_t cut_path_vertices = std::uint64_t{1} << 16;

    /// What the construction did.
    const targeted_witness_stats& stats() const { return stats_; }

private:
    /// A context's way in from its caller: the caller path edge (site, c, d) and the call edge.
    struct hop {
        std::uint32_t site = ~0u, c = 0, d = 0, ce = ~0u;
    };

    targeted_witnesses(const layout& L, std::span<const std::uint32_t> solution, targeted_witness_options opt)
        : L_(&L), sol_(solution), budget_(opt.memory_budget), first_pass_(std::max<std::size_t>(opt.first_pass_edges, 1)) {}

    bool holds(std::uint32_t n, std::uint32_t c, std::uint32_t d) const {
        const std::uint64_t b = detail::row_start(*L_, n, c) + d;
        return sol_[b >> 5] >> (b & 31) & 1u;
    }
    std::uint32_t context(std::uint32_t n, std::uint32_t c) const { return L_->proc_fact_off[L_->node_proc[n]] + c; }
    /// The procedure of context `x` (every procedure has at least the zero fact).
    std::uint32_t proc_of(std::uint32_t x) const {
        const auto& off = L_->proc_fact_off;
        return static_cast<std::uint32_t>(std::upper_bound(off.begin(), off.end(), x) - off.begin() - 1);
    }
    /// Counts `bytes` more of fixed tables, then checks the budget.
    void charge(std::uint64_t bytes) {
        fixed_ += bytes;
        update();
    }
    /// The bytes of the fixed tables, the closure's table and room for `records` records.
    std::uint64_t held(std::size_t records) const { return fixed_ + table_.bytes() + records * sizeof(detail::pe_record); }
    /// The bytes held now; past the budget, throws `memory_budget_exceeded`
    /// (only the fixed tables can get here past it: `close` keeps the
    /// closure within it).
    void update() {
        const std::uint64_t now = held(records_.capacity());
        stats_.bytes = std::max(stats_.bytes, now);
        if (budget_ != 0 && now > budget_) throw memory_budget_exceeded{now, budget_};
    }

    vyre::result<void> build(std::span<const std::pair<node_id, fact_id>> targets) {
        const layout& L = *L_;
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint32_t nctx = L.proc_fact_off[L.num_procs];
        charge(std::uint64_t(nctx) * (sizeof(hop) + 12) + std::uint64_t(L.num_nodes) * 16);
        hops_.assign(nctx, hop{});
        ctx_state_.assign(nctx, 0);
        for (std::size_t i = 0; i < L.seed_node.size(); ++i) ctx_state_[context(L.seed_node[i], L.seed_fact[i])] = seed_ctx;

        // The targets that hold, each in its first context.
        closure_work work;
        std::vector<std::uint64_t> wanted;  // path edges the witnesses need recorded
        for (const auto& [n, f] : targets) {
            if (n >= L.num_nodes) continue;
            const std::uint32_t d = detail::local_fact(L, L.node_proc[n], f);
            if (d == detail::no_index) continue;
            for (std::uint32_t c = 0; c < L.node_fact_count[n]; ++c)
                if (holds(n, c, d)) {
                    VYRE_TRY(chain_to_seed(context(n, c)));
                    add(n, c, d, work, true);
                    wanted.push_back(detail::row_start(L, n, c) + d);
                    break;
                }
        }
        for (std::uint32_t x = 0; x < nctx; ++x)
            if (hops_[x].site != ~0u) {
                ++stats_.chain_contexts;
                add(hops_[x].site, hops_[x].c, hops_[x].d, work, true);
                wanted.push_back(detail::row_start(L, hops_[x].site, hops_[x].c) + hops_[x].d);
            }
        // Grow the closure nearest first from them, and try the restricted
        // tabulation each time it has doubled: a derivation of every wanted
        // edge usually lies in a small part of the whole closure.
        reverse_edges();
        std::size_t limit = std::max<std::size_t>(2 * table_.size(), first_pass_);
        for (;;) {
            const bool complete = close(work, limit);
            VYRE_TRY(record());
            ++stats_.passes;
            std::size_t missing = 0;
            for (std::uint64_t b : wanted) missing += *table_.find(b) == ~0u;
            stats_.missing = missing;
            if (missing == 0 || exhausted_) break;
            if (complete) return not_a_solution(std::to_string(missing) + " wanted path edges without a derivation");
            limit = 2 * table_.size();
        }
        stats_.closure_edges = table_.size();
        stats_.contexts = contexts_.size();
        pred_ = {};
        pred_off_ = {};
        ret_ce_ = {};
        ret_off_ = {};
        from_ = {};
        stamp_ = {};
        finish();
        stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return {};
    }

    // ---- 1. prefixes: a chain of callers from each target context to a seed ----

    static constexpr std::uint8_t seed_ctx = 1, chained = 2;  // ctx_state_

    vyre::result<void> chain_to_seed(std::uint32_t target) {
        if (ctx_state_[target] & (seed_ctx | chained)) return {};
        const layout& L = *L_;
        if (from_.empty()) {
            charge(std::uint64_t(ctx_state_.size()) * (sizeof(hop) + 8));
            from_.assign(ctx_state_.size(), {~0u, hop{}});
            stamp_.assign(ctx_state_.size(), ~0u);
        }
        ++search_;
        std::vector<std::uint32_t> queue{target};
        stamp_[target] = search_;
        for (std::size_t qi = 0; qi < queue.size(); ++qi) {
            const std::uint32_t u = queue[qi];
            const std::uint32_t q = proc_of(u);
            const std::uint32_t d3 = u - L.proc_fact_off[q];
            for (std::uint32_t k = L.callers_off[q]; k < L.callers_off[q + 1]; ++k) {
                const std::uint32_t ce = L.callers_ce[k], m = L.ce_site[ce], Fm = L.node_fact_count[m];
                const std::uint32_t rr = L.rcall_row[ce] + d3;
                for (std::uint32_t i = L.rcall_off[rr]; i < L.rcall_off[rr + 1]; ++i) {
                    const std::uint32_t d = L.rcall_fact[i];
                    for (std::uint32_t c = 0; c < Fm; ++c) {
                        if (!holds(m, c, d)) continue;
                        const std::uint32_t v = context(m, c);
                        if (stamp_[v] == search_) continue;
                        stamp_[v] = search_;
                        from_[v] = {u, hop{m, c, d, ce}};
                        if (ctx_state_[v] & (seed_ctx | chained)) {  // a seed, or chained already: chain u .. target through v
                            for (std::uint32_t w = v; w != target;) {
                                const auto [next, h] = from_[w];
                                hops_[next] = h;
                                ctx_state_[next] |= chained;
                                w = next;
                            }
                            return {};
                        }
                        queue.push_back(v);
                    }
                }
            }
        }
        return vyre::fail(vyre::error_code::invalid_argument,
                          "targeted_witnesses: no seed reaches context " + std::to_string(target) +
                              " through the solution's path edges",
                          "pass the path-edge bitset a solver returned for this layout and its seeds");
    }

    // ---- 2. the same-level closure ----------------------------------------------

    /// The closure's work: path edges (n, c, d) whose premises are still to
    /// add, nearest first (a 0-1 breadth-first search: a premise that
    /// carries the same fact, or the zero fact, costs 0; one that changes
    /// it 1). Taint's derivations are zero-fact paths to a source, then the
    /// tainted fact carried along, so they cost 0 or little.
    using closure_work = std::deque<std::array<std::uint32_t, 3>>;

    /// Adds path edge (n, c, d) to the closure (when it holds and is new),
    /// with its context's self-loop; `near`: its fact is the one it derives.
    void add(std::uint32_t n, std::uint32_t c, std::uint32_t d, closure_work& work, bool near) {
        if (!holds(n, c, d) || !table_.insert(detail::row_start(*L_, n, c) + d)) return;
        if (near) work.push_front({n, c, d});
        else work.push_back({n, c, d});
        const std::uint32_t x = context(n, c);
        if (!(ctx_state_[x] & in_closure)) {
            ctx_state_[x] |= in_closure;
            contexts_.push_back(x);
            add(L_->proc_start[L_->node_proc[n]], c, c, work, false);
        }
    }
    static constexpr std::uint8_t in_closure = 4;

    /// Predecessor lists: the nodes with an intraprocedural or call-to-return
    /// edge into each node, and the call edges returning to each node.
    void reverse_edges() {
        const layout& L = *L_;
        const std::uint32_t N = L.num_nodes;
        std::vector<std::uint32_t> seen(N, ~0u);
        pred_off_.assign(N + 1, 0);
        auto each_target = [&](std::uint32_t m, auto&& fn) {
            detail::for_each_intra_successor(L, m, [&](std::uint32_t t) {
                if (seen[t] != m) {
                    seen[t] = m;
                    fn(t);
                }
            });
        };
        for (std::uint32_t m = 0; m < N; ++m) each_target(m, [&](std::uint32_t t) { ++pred_off_[t + 1]; });
        for (std::uint32_t n = 0; n < N; ++n) pred_off_[n + 1] += pred_off_[n];
        charge(std::uint64_t(pred_off_[N]) * 4 + std::uint64_t(L.ce_site.size()) * 8);
        pred_.resize(pred_off_[N]);
        std::vector<std::uint32_t> fill(pred_off_.begin(), pred_off_.end() - 1);
        std::fill(seen.begin(), seen.end(), ~0u);
        for (std::uint32_t m = 0; m < N; ++m) each_target(m, [&](std::uint32_t t) { pred_[fill[t]++] = m; });
        ret_off_.assign(N + 1, 0);
        for (std::uint32_t r : L.ce_retsite) ++ret_off_[r + 1];
        for (std::uint32_t n = 0; n < N; ++n) ret_off_[n + 1] += ret_off_[n];
        ret_ce_.resize(L.ce_retsite.size());
        fill.assign(ret_off_.begin(), ret_off_.end() - 1);
        for (std::uint32_t ce = 0; ce < L.ce_retsite.size(); ++ce) ret_ce_[fill[L.ce_retsite[ce]]++] = ce;
    }

    /// At most the bytes the builder holds from here to the end, with a
    /// closure 64 edges larger than now: the table after its next doubling,
    /// the work, and for each closure edge a record (in a vector that grows
    /// by doubling), its index entry, and the restricted tabulation's work
    /// and call entries; per closure context its call and exit lists.
    std::uint64_t projected(const closure_work& work) const {
        const std::uint64_t edges = table_.size() + 64;
        return fixed_ + 2 * table_.bytes() + edges * (2 * sizeof(detail::pe_record) + 40) +
               work.size() * sizeof(work[0]) + contexts_.size() * 64;
    }

    /// Grows the closure from `work` (nearest first, a heuristic: a
    /// derivation that carries one fact along, as taint through a callee
    /// does, tends to be found before the alternatives that change facts)
    /// until the table holds `limit` path edges (or a few more); false there
    /// or where the budget stops it, true when the work ran out (the closure
    /// is whole).
    bool close(closure_work& work, std::size_t limit) {
        const layout& L = *L_;
        while (!work.empty()) {
            if (table_.size() >= limit) return false;
            if (budget_ != 0 && projected(work) > budget_) {
                exhausted_ = true;  // the records of a closure this size would not fit
                return false;
            }
            const auto [n, c, d] = work.front();
            work.pop_front();
            const std::uint32_t p = L.node_proc[n], F = L.node_fact_count[n];
            if (n == L.proc_start[p] && d == c) continue;  // a self-loop: an axiom
            // Intraprocedural and call-to-return edges m -> n carrying some d' to d.
            for (std::uint32_t k = pred_off_[n]; k < pred_off_[n + 1]; ++k) {
                const std::uint32_t m = pred_[k];
                for (std::uint32_t j = 0; 32 * j < F; ++j)
                    for (std::uint32_t bits = detail::read_row_bits(sol_, detail::row_start(L, m, c) + 32 * j,
                                                                    detail::chunk_len(F, j));
                         bits; bits &= bits - 1) {
                        const std::uint32_t d1 = 32 * j + static_cast<std::uint32_t>(__builtin_ctz(bits));
                        if (detail::has_intra_edge(L, m, d1, n, d)) add(m, c, d1, work, d1 == d || d1 == 0);
                    }
            }
            // Returns into n: the caller path edge at the site and the callee's
            // exit path edge (near when both carry n's fact through).
            const fact_id gd = L.global_fact(p, d);
            for (std::uint32_t k = ret_off_[n]; k < ret_off_[n + 1]; ++k) {
                const std::uint32_t ce = ret_ce_[k], m = L.ce_site[ce], q = L.ce_callee[ce];
                const std::uint32_t x = L.proc_exit[q], Fq = L.fact_count(q);
                for (std::uint32_t d4 = 0; d4 < Fq; ++d4) {
                    const std::uint32_t rr = L.ret_row[ce] + d4;
                    const auto rb = L.ret_fact.begin() + L.ret_off[rr], re = L.ret_fact.begin() + L.ret_off[rr + 1];
                    if (std::find(rb, re, d) == re) continue;
                    for (std::uint32_t d3 = 0; d3 < Fq; ++d3) {
                        if (!holds(x, d3, d4)) continue;
                        const bool through = (d3 == d4 && L.global_fact(q, d3) == gd) || d4 == 0;
                        const std::uint32_t cr = L.rcall_row[ce] + d3;
                        bool entered = false;
                        for (std::uint32_t i = L.rcall_off[cr]; i < L.rcall_off[cr + 1]; ++i)
                            if (holds(m, c, L.rcall_fact[i])) {
                                add(m, c, L.rcall_fact[i], work, L.rcall_fact[i] == d || L.rcall_fact[i] == 0);
                                entered = true;
                            }
                        if (entered) add(x, d3, d4, work, through);
                    }
                }
            }
        }
        return true;
    }

    // ---- 3. the recording tabulation within the closure ---------------------------

    /// Records (n, c, d) if it is in the closure and new.
    void derive(std::uint32_t n, std::uint32_t c, std::uint32_t d, detail::pe_origin kind, std::uint32_t pred,
                std::uint32_t pred2, std::uint32_t ce, std::vector<std::uint32_t>& work) {
        std::uint32_t* v = table_.find(detail::row_start(*L_, n, c) + d);
        if (!v || *v != ~0u) return;
        *v = static_cast<std::uint32_t>(records_.size());
        if (records_.size() == records_.capacity())  // the records about to double
            stats_.bytes = std::max(stats_.bytes, held(2 * std::max<std::size_t>(records_.capacity(), 16)));
        records_.push_back(detail::pe_record{n, c, d, kind, pred, pred2, ce});
        work.push_back(*v);
    }

    static vyre::result<void> not_a_solution(const std::string& why) {
        return vyre::fail(vyre::error_code::invalid_argument, "targeted_witnesses: the bits are not a solve's (" + why + ")",
                          "pass the path-edge bitset a solver returned for this layout and its seeds");
    }

    /// One pass of the recording tabulation within the closure as it is now.
    vyre::result<void> record() {
        const layout& L = *L_;
        table_.reset_values();
        records_.clear();
        struct incoming {
            std::uint32_t ce, c, d, rid;
        };
        struct summary {
            std::uint32_t d, rid;
        };
        // Per closure context (its index in contexts_): calls into it and its exit facts.
        std::vector<std::uint32_t> slot(ctx_state_.size(), ~0u);
        for (std::uint32_t i = 0; i < contexts_.size(); ++i) slot[contexts_[i]] = i;
        std::vector<std::vector<incoming>> inc(contexts_.size());
        std::vector<std::vector<summary>> ends(contexts_.size());
        ctx_rid_.assign(ctx_state_.size(), ~0u);
        std::vector<std::uint32_t> work;
        for (std::uint32_t x : contexts_) {
            const std::uint32_t q = proc_of(x);
            const std::uint32_t c = x - L.proc_fact_off[q];
            derive(L.proc_start[q], c, c, detail::pe_origin::seed, ~0u, ~0u, ~0u, work);
            const std::uint32_t* self = table_.find(detail::row_start(L, L.proc_start[q], c) + c);
            if (!self) return not_a_solution("context " + std::to_string(x) + " has path edges but not its self-loop");
            ctx_rid_[x] = *self;
        }
        while (!work.empty()) {
            const std::uint32_t rid = work.back();
            work.pop_back();
            const detail::pe_record r = records_[rid];
            const std::uint32_t n = r.n, c = r.c, d = r.d, row = L.row_base[n] + d;
            detail::for_each_intra_target(L, n, d, [&](std::uint32_t t, std::uint32_t d2) {
                derive(t, c, d2, detail::pe_origin::intra, rid, ~0u, ~0u, work);
            });
            if (L.node_kind[n] & kind_call_site)
                for (std::uint32_t i = L.call_off[row]; i < L.call_off[row + 1]; ++i) {
                    const std::uint32_t ce = L.call_ce[i], q = L.ce_callee[ce];
                    const std::uint32_t s = slot[L.proc_fact_off[q] + L.call_fact[i]];
                    if (s == ~0u) continue;  // a callee context no witness needs
                    inc[s].push_back({ce, c, d, rid});
                    for (const summary& e : ends[s]) {
                        const std::uint32_t rr = L.ret_row[ce] + e.d;
                        for (std::uint32_t j = L.ret_off[rr]; j < L.ret_off[rr + 1]; ++j)
                            derive(L.ce_retsite[ce], c, L.ret_fact[j], detail::pe_origin::ret, rid, e.rid, ce, work);
                    }
                }
            if (L.node_kind[n] & kind_exit) {
                const std::uint32_t s = slot[context(n, c)];
                ends[s].push_back({d, rid});
                for (const incoming& ie : inc[s]) {
                    const std::uint32_t rr = L.ret_row[ie.ce] + d;
                    for (std::uint32_t j = L.ret_off[rr]; j < L.ret_off[rr + 1]; ++j)
                        derive(L.ce_retsite[ie.ce], ie.c, L.ret_fact[j], detail::pe_origin::ret, ie.rid, rid, ie.ce, work);
                }
            }
        }
        return {};
    }

    /// The chains' self-loops take their caller path edge as predecessor; the lookup index.
    void finish() {
        const layout& L = *L_;
        // A context is rooted when it is a seed's, or chained through a
        // recorded caller path edge to a rooted one (all of them, unless the
        // budget stopped the closure early).
        const std::size_t nctx = ctx_state_.size();
        auto caller_record = [&](std::uint32_t x) {
            const hop& h = hops_[x];
            const std::uint32_t* r = table_.find(detail::row_start(L, h.site, h.c) + h.d);
            return r ? *r : ~0u;
        };
        enum : std::uint8_t { unknown, yes, no, on_path };
        std::vector<std::uint8_t> rooted(nctx, unknown);
        for (std::uint32_t x = 0; x < nctx; ++x)
            if (ctx_state_[x] & seed_ctx) rooted[x] = yes;
        std::vector<std::uint32_t> path;
        for (std::uint32_t x = 0; x < nctx; ++x) {
            path.clear();
            std::uint32_t y = x;
            while (rooted[y] == unknown) {
                if (!(ctx_state_[y] & chained) || ctx_rid_[y] == ~0u || caller_record(y) == ~0u) {
                    rooted[y] = no;
                    break;
                }
                rooted[y] = on_path;
                path.push_back(y);
                y = context(hops_[y].site, hops_[y].c);
            }
            const std::uint8_t r = rooted[y] == yes ? yes : no;
            for (std::uint32_t z : path) rooted[z] = r;
        }
        // The rooted chains: each self-loop comes from its caller path edge.
        rooted_.assign(nctx, false);
        for (std::uint32_t x = 0; x < nctx; ++x) {
            if (rooted[x] != yes) continue;
            rooted_[x] = true;
            if (!(ctx_state_[x] & chained)) continue;
            detail::pe_record& self = records_[ctx_rid_[x]];
            self.kind = detail::pe_origin::call;
            self.pred = caller_record(x);
            self.ce = hops_[x].ce;
        }
        stats_.recorded_edges = records_.size();
        index_ = detail::record_index(L, records_);
        if (budget_ != 0) {  // a budget bounds the paths handed out (`witness`'s max_steps): their lengths' memos
            lengths_.emplace(records_.size(), ctx_rid_.size());
            stats_.bytes = std::max(stats_.bytes, held(records_.capacity()) + lengths_->bytes());
        }
        hops_ = {};
        ctx_state_ = {};
    }

    const layout* L_;
    std::span<const std::uint32_t> sol_;
    std::uint64_t budget_ = 0, fixed_ = 0;
    std::size_t first_pass_ = 1;
    bool exhausted_ = false;  // the closure stopped growing at the budget
    targeted_witness_stats stats_;
    std::vector<hop> hops_;                // per context: its caller hop (chained contexts)
    std::vector<std::uint8_t> ctx_state_;  // per context: seed_ctx | chained | in_closure
    std::vector<std::pair<std::uint32_t, hop>> from_;  // the backward search's parents
    std::vector<std::uint32_t> stamp_;     // the backward search's visit marks
    std::uint32_t search_ = 0;
    std::vector<std::uint32_t> pred_off_, pred_, ret_off_, ret_ce_;
    std::vector<std::uint32_t> contexts_;  // closure contexts
    detail::pe_bit_table table_;           // closure path edges -> record id
    std::vector<detail::pe_record> records_;
    std::vector<std::uint32_t> ctx_rid_;
    std::vector<bool> rooted_;             // per context: a seed's, or chained to one
    std::vector<std::pair<std::uint64_t, std::uint32_t>> index_;
    mutable std::optional<detail::witness_lengths> lengths_;  // paths' lengths, for `witness`'s max_steps
};

} // namespace weir::ifds
