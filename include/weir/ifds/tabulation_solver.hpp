#pragma once
/// \file weir/ifds/tabulation_solver.hpp
/// The host reference solver: the Reps-Horwitz-Sagiv worklist tabulation over
/// the flat layout. Path edges live in the layout's path-edge bitset, so its
/// result can be compared bit for bit with any other solver on the same
/// layout. Everything on the hot path is a dense id and a flat array.

#include <chrono>
#include <cstdint>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <weir/ifds/layout.hpp>
#include <weir/ifds/stats.hpp>

namespace weir::ifds {

/// Thrown inside the tabulation engine when its tables would grow past the
/// memory budget; the solvers turn it into an `out_of_memory` error.
struct memory_budget_exceeded {
    std::uint64_t needed = 0;  ///< bytes the engine would hold
    std::uint64_t budget = 0;  ///< the budget
};

namespace detail {
/// Runs `fn` (which returns a `vyre::result`), turning the tabulation
/// engine's `memory_budget_exceeded` and the host's `std::bad_alloc` into
/// `out_of_memory` errors worded alike for every host solver: `who` names
/// the solver, `work` what needed the memory, `also` is added to each fix.
template <class Fn>
auto within_memory_budget(const std::string& who, const std::string& work, const std::string& also, Fn&& fn)
    -> decltype(fn()) {
    try {
        return fn();
    } catch (const memory_budget_exceeded& e) {
        return vyre::fail(vyre::error_code::out_of_memory,
                          who + ": " + work + " needs more than " + std::to_string(e.needed) +
                              " bytes, past its memory budget of " + std::to_string(e.budget),
                          "raise tabulation_options::memory_budget" + also);
    } catch (const std::bad_alloc&) {
        return vyre::fail(vyre::error_code::out_of_memory, who + ": the host ran out of memory",
                          "set tabulation_options::memory_budget below the free memory" + also);
    }
}
} // namespace detail

/// Options of the tabulation solver.
struct tabulation_options {
    /// Bytes the solver's own tables (path-edge bitset, worklist, incoming
    /// calls, end summaries) may hold; 0: no limit. Past it a solve fails
    /// with `out_of_memory` and returns nothing.
    std::uint64_t memory_budget = 0;
};

namespace detail {

/// How a path edge was first discovered (witness records).
enum class pe_origin : std::uint32_t {
    seed,   ///< the self-loop <s,d0> -> <s,d0> of a seed
    call,   ///< the self-loop <s_q,d3> -> <s_q,d3> created by a call from path edge `pred` over call edge `ce`
    intra,  ///< from path edge `pred` over one intraprocedural or call-to-return edge
    ret,    ///< from caller path edge `pred` (ending at the call site) through callee exit path edge `pred2` over `ce`
};

/// One discovered path edge <s_p, c> -> <n, d> (c, d local) and its origin.
struct pe_record {
    std::uint32_t n = 0, c = 0, d = 0;
    pe_origin kind = pe_origin::seed;
    std::uint32_t pred = ~0u, pred2 = ~0u, ce = ~0u;
};

/// The RHS tabulation proper. With `Record`, every path edge gets a
/// `pe_record` (record id = discovery order) and the worklist carries record
/// ids; without, the worklist carries (node, context, fact) triples.
template <bool Record>
class tabulation_engine {
public:
    /// Prepares empty tables for layout `L` (which must outlive the engine);
    /// `memory_budget` bytes at most for them (0: no limit).
    /// Throws `std::invalid_argument` for a layout without its per-row CSR.
    explicit tabulation_engine(const layout& L, std::uint64_t memory_budget = 0) : L_(L), budget_(memory_budget) {
        if (!L.has_intra_rows()) throw std::invalid_argument(missing_intra_rows("tabulation"));
    }

    /// Bytes the engine's tables held at their largest during the last `run`.
    std::uint64_t bytes_held() const { return held_; }

    /// Path-edge bitset (`pe_words` words) after `run`.
    std::vector<std::uint32_t> pe;
    /// Statistics of the last `run`.
    solve_stats stats;
    /// With `Record`: every path edge in discovery order.
    std::vector<pe_record> records;
    /// With `Record`: per context index (proc_fact_off[q] + d3), the record id of
    /// its self-loop, or ~0u.
    std::vector<std::uint32_t> ctx_rid;

    /// Runs the tabulation from the given seeds (start node, local fact).
    /// Throws `std::invalid_argument` for a seed that is not at a start node or
    /// whose fact is outside that procedure's fact set.
    void run(std::span<const std::uint32_t> seed_node, std::span<const std::uint32_t> seed_fact) {
        const layout& L = L_;
        if (seed_node.size() != seed_fact.size())
            throw std::invalid_argument("weir::ifds::tabulation_solver: seed_node and seed_fact differ in size");
        for (std::size_t i = 0; i < seed_node.size(); ++i) {
            if (seed_node[i] >= L.num_nodes || !(L.node_kind[seed_node[i]] & kind_start))
                throw std::invalid_argument("weir::ifds::tabulation_solver: seed " + std::to_string(i) +
                                            " is not at a start node");
            if (seed_fact[i] >= L.node_fact_count[seed_node[i]])
                throw std::invalid_argument("weir::ifds::tabulation_solver: seed " + std::to_string(i) +
                                            " has a fact outside its procedure's fact set");
        }
        const auto t0 = std::chrono::steady_clock::now();
        stats = solve_stats{};
        const std::uint32_t nctx = L.proc_fact_off[L.num_procs];
        held_ = 0;
        charge(std::uint64_t(L.pe_words) * 4 + std::uint64_t(nctx) * (sizeof(inc_[0]) + sizeof(es_[0])) +
               std::max<std::size_t>(wl_.size(), 1024) * 4 + (Record ? std::uint64_t(nctx) * 4 : 0));
        pe.assign(L.pe_words, 0);
        inc_.assign(nctx, {});
        es_.assign(nctx, {});
        std::size_t top = 0;  // worklist stack: wl_[0, top)
        if (wl_.size() < 1024) wl_.resize(1024);
        if constexpr (Record) {
            records.clear();
            ctx_rid.assign(nctx, ~0u);
        }

        // Raw views of the layout.
        const std::uint32_t* node_kind = L.node_kind.data();
        const std::uint32_t* node_fc = L.node_fact_count.data();
        const std::uint32_t* node_proc = L.node_proc.data();
        const std::uint32_t* row_base = L.row_base.data();
        const std::uint32_t* intra_off = L.intra_off.data();
        const std::uint32_t* intra_node = L.intra_node.data();
        const std::uint32_t* intra_fact = L.intra_fact.data();
        const std::uint32_t* call_off = L.call_off.data();
        const std::uint32_t* call_ce = L.call_ce.data();
        const std::uint32_t* call_fact = L.call_fact.data();
        const std::uint32_t* ce_callee = L.ce_callee.data();
        const std::uint32_t* ce_retsite = L.ce_retsite.data();
        const std::uint32_t* ret_row = L.ret_row.data();
        const std::uint32_t* ret_off = L.ret_off.data();
        const std::uint32_t* ret_fact = L.ret_fact.data();
        const std::uint32_t* proc_start = L.proc_start.data();
        const std::uint32_t* proc_fact_off = L.proc_fact_off.data();

        std::uint64_t path_edges = 0, contexts = 0;

        // Adds path edge (n, c, d) (F = F of n's procedure) if new.
        auto prop = [&](std::uint32_t n, std::uint32_t c, std::uint32_t d, std::uint32_t F, pe_origin kind,
                        std::uint32_t pred, std::uint32_t pred2, std::uint32_t ce) -> bool {
            const std::uint64_t bit = std::uint64_t{L.pe_word[n]} * 32 + std::uint64_t{c} * F + d;
            std::uint32_t& w = pe[bit >> 5];
            const std::uint32_t m = 1u << (bit & 31);
            if (w & m) return false;
            w |= m;
            ++path_edges;
            if (top + 3 > wl_.size()) {
                charge(wl_.size() * 4);
                wl_.resize(wl_.size() * 2);
            }
            if constexpr (Record) {
                wl_[top++] = static_cast<std::uint32_t>(records.size());
                push(records, pe_record{n, c, d, kind, pred, pred2, ce});
            } else {
                (void)kind, (void)pred, (void)pred2, (void)ce;
                wl_[top] = n;
                wl_[top + 1] = c;
                wl_[top + 2] = d;
                top += 3;
            }
            return true;
        };

        for (std::size_t i = 0; i < seed_node.size(); ++i) {
            const std::uint32_t n = seed_node[i], d = seed_fact[i];
            if (prop(n, d, d, node_fc[n], pe_origin::seed, ~0u, ~0u, ~0u)) {
                ++contexts;
                if constexpr (Record) ctx_rid[proc_fact_off[node_proc[n]] + d] = wl_[top - 1];
            }
        }

        while (top != 0) {
            std::uint32_t n, c, d, rid = ~0u;
            if constexpr (Record) {
                rid = wl_[--top];
                const pe_record& r = records[rid];
                n = r.n;
                c = r.c;
                d = r.d;
            } else {
                top -= 3;
                n = wl_[top];
                c = wl_[top + 1];
                d = wl_[top + 2];
            }
            const std::uint32_t F = node_fc[n];
            const std::uint32_t row = row_base[n] + d;
            for (std::uint32_t i = intra_off[row], e = intra_off[row + 1]; i < e; ++i)
                prop(intra_node[i], c, intra_fact[i], F, pe_origin::intra, rid, ~0u, ~0u);
            const std::uint32_t kind = node_kind[n];
            if (kind & kind_call_site) {
                for (std::uint32_t i = call_off[row], e = call_off[row + 1]; i < e; ++i) {
                    const std::uint32_t ce = call_ce[i], d3 = call_fact[i];
                    const std::uint32_t q = ce_callee[ce];
                    const std::uint32_t ctx = proc_fact_off[q] + d3;
                    if constexpr (Record)
                        push(inc_[ctx], inc_entry{ce, c, d, rid});
                    else
                        push(inc_[ctx], inc_entry{ce, c, d});
                    const std::uint32_t s = proc_start[q];
                    if (prop(s, d3, d3, node_fc[s], pe_origin::call, rid, ~0u, ce)) {
                        ++contexts;
                        if constexpr (Record) ctx_rid[ctx] = wl_[top - 1];
                    }
                    // Known end summaries of the callee context.
                    const std::uint32_t r = ce_retsite[ce];
                    for (const es_entry& x : es_[ctx]) {
                        const std::uint32_t rr = ret_row[ce] + x.d;
                        std::uint32_t exit_rid = ~0u;
                        if constexpr (Record) exit_rid = x.rid;
                        for (std::uint32_t j = ret_off[rr], je = ret_off[rr + 1]; j < je; ++j) {
                            prop(r, c, ret_fact[j], F, pe_origin::ret, rid, exit_rid, ce);
                        }
                    }
                }
            }
            if (kind & kind_exit) {
                const std::uint32_t ctx = proc_fact_off[node_proc[n]] + c;
                if constexpr (Record)
                    push(es_[ctx], es_entry{d, rid});
                else
                    push(es_[ctx], es_entry{d});
                for (std::size_t x = 0; x < inc_[ctx].size(); ++x) {
                    const inc_entry ie = inc_[ctx][x];
                    const std::uint32_t rr = ret_row[ie.ce] + d;
                    const std::uint32_t r = ce_retsite[ie.ce];
                    const std::uint32_t Fc = node_fc[r];
                    std::uint32_t caller_rid = ~0u;
                    if constexpr (Record) caller_rid = ie.rid;
                    for (std::uint32_t j = ret_off[rr], je = ret_off[rr + 1]; j < je; ++j) {
                        prop(r, ie.c, ret_fact[j], Fc, pe_origin::ret, caller_rid, rid, ie.ce);
                    }
                }
            }
        }
        stats.path_edges = path_edges;
        stats.summary_edges = count_summaries();
        stats.contexts = contexts;
        stats.seconds_solve = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

private:
    /// Counts `bytes` more held; past the budget, throws `memory_budget_exceeded`.
    void charge(std::uint64_t bytes) {
        held_ += bytes;
        if (budget_ != 0 && held_ > budget_) throw memory_budget_exceeded{held_, budget_};
    }
    /// `v.push_back(x)`, charging the capacity it grows by.
    template <class V, class T>
    void push(V& v, const T& x) {
        if (v.size() == v.capacity()) charge(std::max<std::size_t>(v.capacity(), 1) * sizeof(T));
        v.push_back(x);
    }

    /// Distinct (call edge, caller fact d, return-site fact d5) summaries used:
    /// for each context's distinct incoming (ce, d) and each of its end
    /// summaries d4, the facts ret(ce, d4). Counted after the fixed point so
    /// the hot loop stays lean.
    std::uint64_t count_summaries() const {
        const layout& L = L_;
        const std::uint32_t nce = static_cast<std::uint32_t>(L.ce_site.size());
        std::vector<std::uint64_t> base(nce + 1, 0), bits_base(nce + 1, 0);
        for (std::uint32_t ce = 0; ce < nce; ++ce) {
            const std::uint64_t F = L.node_fact_count[L.ce_site[ce]];
            base[ce + 1] = base[ce] + F;
            bits_base[ce + 1] = bits_base[ce] + (F * F + 63) / 64;
        }
        std::vector<std::uint32_t> stamp(base[nce], ~0u);
        std::vector<std::uint64_t> bits(bits_base[nce], 0);
        std::uint64_t count = 0;
        for (std::uint32_t ctx = 0; ctx < inc_.size(); ++ctx) {
            if (es_[ctx].empty()) continue;
            for (const inc_entry& ie : inc_[ctx]) {
                const std::uint64_t k = base[ie.ce] + ie.d;
                if (stamp[k] == ctx) continue;
                stamp[k] = ctx;
                const std::uint64_t F = L.node_fact_count[L.ce_site[ie.ce]];
                for (const es_entry& x : es_[ctx]) {
                    const std::uint32_t rr = L.ret_row[ie.ce] + x.d;
                    for (std::uint32_t j = L.ret_off[rr]; j < L.ret_off[rr + 1]; ++j) {
                        const std::uint64_t b = bits_base[ie.ce] * 64 + ie.d * F + L.ret_fact[j];
                        const std::uint64_t m = std::uint64_t{1} << (b & 63);
                        if (!(bits[b >> 6] & m)) {
                            bits[b >> 6] |= m;
                            ++count;
                        }
                    }
                }
            }
        }
        return count;
    }

    struct inc_plain {
        std::uint32_t ce, c, d;
    };
    struct inc_rec {
        std::uint32_t ce, c, d, rid;
    };
    struct es_plain {
        std::uint32_t d;
    };
    struct es_rec {
        std::uint32_t d, rid;
    };
    using inc_entry = std::conditional_t<Record, inc_rec, inc_plain>;
    using es_entry = std::conditional_t<Record, es_rec, es_plain>;
    const layout& L_;
    std::uint64_t budget_ = 0, held_ = 0;
    std::vector<std::uint32_t> wl_;
    std::vector<std::vector<inc_entry>> inc_;  // per callee context: (call edge, caller context, caller fact)
    std::vector<std::vector<es_entry>> es_;    // per context: exit facts (end summaries)
};

} // namespace detail

/// The classic RHS tabulation on the host over a `layout`: the exact
/// meet-over-all-valid-paths solution, as a path-edge bitset in the layout's
/// encoding. The layout must outlive the solver.
class tabulation_solver {
public:
    /// A solver over layout `L` (kept by reference).
    explicit tabulation_solver(const layout& L, tabulation_options opt = {}) : L_(&L), opt_(opt) {}

    /// What a solve returns: the path-edge bitset (`pe_words` words) and
    /// statistics (path_edges, summary_edges, contexts, seconds_solve).
    struct output {
        std::vector<std::uint32_t> path_edges;  ///< the layout's path-edge bitset
        solve_stats stats;                      ///< what the solve did
    };

    /// Solves from the layout's seeds. Fails with `out_of_memory` past the
    /// memory budget or when the host has no memory left, and with
    /// `invalid_argument` for a layout without its per-row CSR
    /// (`intra_form::per_edge`).
    vyre::result<output> solve() const { return run(L_->seed_node, L_->seed_fact); }

    /// Solves from the given seeds: start nodes and local fact indices of
    /// their procedures. A bad seed is an `invalid_argument` error.
    vyre::result<output> solve(std::span<const std::uint32_t> seed_node,
                               std::span<const std::uint32_t> seed_fact_local) const {
        VYRE_TRY(check_seeds(*L_, seed_node, seed_fact_local, "tabulation_solver"));
        return run(seed_node, seed_fact_local);
    }

private:
    vyre::result<output> run(std::span<const std::uint32_t> seed_node, std::span<const std::uint32_t> seed_fact) const {
        VYRE_TRY(check_intra_rows(*L_, "tabulation_solver"));
        return detail::within_memory_budget("tabulation_solver", "the solve", ", or solve fewer seeds",
                                            [&]() -> vyre::result<output> {
                                                detail::tabulation_engine<false> eng(*L_, opt_.memory_budget);
                                                eng.run(seed_node, seed_fact);
                                                return output{std::move(eng.pe), eng.stats};
                                            });
    }

    const layout* L_;
    tabulation_options opt_;
};

} // namespace weir::ifds
