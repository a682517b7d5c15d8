#pragma once
/// \file weir/ide/tabulation_solver.hpp
/// `weir::ide::tabulation_solver<F>`: the exact host IDE solver, the oracle
/// every other IDE solver and backend is compared with. The two phases of
/// Sagiv, Reps and Horwitz (1996), as Heros' `IDESolver` runs them:
///
/// 1. jump functions JF(d₀; n, d) from each reached context (procedure p,
///    start fact d₀) to every (n, d) of p, by a worklist over exploded edges,
///    with the summary of a call formed first, f_ret ∘ (JF_callee ∘ f_call),
///    and then composed after the caller's jump function (the spec's
///    parentheses, which matter once a coefficient overflows);
/// 2. values: the entry value of each context (seeds, then f_call of the
///    caller's value at the call site, joined over callers, to a fixed point),
///    and val(n, d) = ⊔ over d₀ of JF(d₀; n, d)(entry(p, d₀)).
///
/// A fact holds at a node exactly where the IFDS problem without the edge
/// functions holds it (a jump function that is not `top`).

#include <algorithm>
#include <cstdint>
#include <deque>
#include <new>
#include <stdexcept>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>

#include <weir/ide/problem.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ide/solution.hpp>

namespace weir::ide {

namespace detail {

/// (context fact, node, fact) as one hashable key.
struct jf_key {
    fact_id d0;
    node_id n;
    fact_id d;
    bool operator==(const jf_key&) const = default;
};
/// A hash of `jf_key`.
struct jf_key_hash {
    std::size_t operator()(const jf_key& k) const noexcept {
        std::uint64_t h = (std::uint64_t(k.d0) << 32 | k.n) * 0x9e3779b97f4a7c15ULL;
        h ^= (h >> 29) + std::uint64_t(k.d) * 0xbf58476d1ce4e5b9ULL;
        return static_cast<std::size_t>(h ^ (h >> 31));
    }
};

/// Joins `x` into `m[k]` (a missing entry is the least element, so it
/// becomes `x`); true when the entry changed.
template <class Map, class Key, class T, class Join>
bool join_into(Map& m, const Key& k, const T& x, Join join) {
    auto [it, fresh] = m.try_emplace(k, x);
    if (fresh) return true;
    const T j = join(it->second, x);
    if (j == it->second) return false;
    it->second = j;
    return true;
}

/// Bytes one entry of a node-based hash table of `Entry` holds: the entry,
/// the node's link and cached hash, and its bucket pointer.
template <class Entry>
inline constexpr std::uint64_t hash_entry_bytes = sizeof(Entry) + 3 * sizeof(void*);

} // namespace detail

/// Options of the IDE tabulation solver.
struct tabulation_options {
    /// Bytes the solver's tables may hold (0: no limit): the jump functions,
    /// the worklist at its longest, the callers of each context, the entry
    /// values, the call sites each context reaches and the solution, each
    /// counted as its entries times their size (a hash table's entry with
    /// its node and bucket overhead, `detail::hash_entry_bytes`). Past it a
    /// solve fails with `out_of_memory` and returns nothing.
    std::uint64_t memory_budget = 0;
};

/// The exact host IDE solver over family `F` (see the file comment).
template <edge_function_family F>
class tabulation_solver {
public:
    using function = typename F::function;
    using value = typename F::value;

    /// Prepares to solve `pb` (kept by reference: it must outlive the solver).
    /// Throws `std::invalid_argument` when the edge-function lists do not
    /// match the graph (see `problem::fill_defaults`).
    explicit tabulation_solver(const problem<F>& pb, tabulation_options opt = {})
        : pb_(pb), g_(pb.graph), budget_(opt.memory_budget) {
        if (pb.flow_functions.size() != g_.flows.size() || pb.call_functions.size() != g_.calls.size() ||
            pb.return_functions.size() != g_.calls.size() || pb.seed_values.size() != g_.seeds.size())
            throw std::invalid_argument("ide::tabulation_solver: the edge-function lists do not match the graph "
                                        "(call problem::fill_defaults after building it)");
        out_flows_.resize(g_.nodes.size());
        for (std::uint32_t i = 0; i < g_.flows.size(); ++i) out_flows_[g_.flows[i].from].push_back(i);
        site_calls_.resize(g_.nodes.size());
        for (std::uint32_t i = 0; i < g_.calls.size(); ++i) site_calls_[g_.calls[i].site].push_back(i);
        is_exit_.assign(g_.nodes.size(), 0);
        for (const auto& p : g_.procs) is_exit_[p.exit] = 1;
    }

    /// Solves: both phases, then every value (once per solver). On a
    /// well-formed problem (what the loader and the builder make) it fails
    /// only with `out_of_memory`: past `tabulation_options::memory_budget`,
    /// or when the host runs out.
    vyre::result<solution<F>> solve() {
        return ifds::detail::within_memory_budget("ide::tabulation_solver", "the solve", "",
                                                  [&]() -> vyre::result<solution<F>> {
                                                      jump_functions();
                                                      values();
                                                      return collect();
                                                  });
    }

private:
    using key = detail::jf_key;

    // ---- phase 1: jump functions -------------------------------------------------
    void propagate(fact_id d0, node_id n, fact_id d, const function& f) {
        if (f == F::top()) return;
        const std::size_t before = jf_.size();
        if (detail::join_into(jf_, key{d0, n, d}, f, F::join)) {
            work_.push_back(key{d0, n, d});
            if (work_.size() > longest_work_) longest_work_ = work_.size(), charge(sizeof(key));
        }
        if (jf_.size() != before) charge(detail::hash_entry_bytes<std::pair<const key, function>>);
    }

    /// Counts `bytes` more held; past the budget, throws `memory_budget_exceeded`.
    void charge(std::uint64_t bytes) {
        held_ += bytes;
        if (budget_ != 0 && held_ > budget_) throw ifds::memory_budget_exceeded{held_, budget_};
    }

    function jf(fact_id d0, node_id n, fact_id d) const {
        auto it = jf_.find(key{d0, n, d});
        return it == jf_.end() ? F::top() : it->second;
    }

    void jump_functions() {
        for (const auto& s : g_.seeds) propagate(s.fact, s.node, s.fact, F::identity());
        while (!work_.empty()) {
            const key k = work_.front();
            work_.pop_front();
            const function j = jf(k.d0, k.n, k.d);
            if (!site_calls_[k.n].empty()) at_call(k, j);
            if (is_exit_[k.n]) at_exit(k, j);
            for (std::uint32_t e : out_flows_[k.n]) {
                const auto& fe = g_.flows[e];
                ifds::for_each_target(fe.ff, k.d, [&](fact_id t) {
                    propagate(k.d0, fe.to, t, F::compose(function_of<F>(pb_.flow_functions[e], k.d, t), j));
                });
            }
        }
    }

    /// (k.d0; call site, k.d) with jump function j: into each callee (a
    /// context per callee start fact), the callees' summaries so far to the
    /// return site, and the call-to-return flow.
    void at_call(const key& k, const function& j) {
        node_id retsite = 0;
        for (std::uint32_t ce : site_calls_[k.n]) {
            const auto& c = g_.calls[ce];
            retsite = c.retsite;
            const node_id start = g_.procs[c.callee].start, exit = g_.procs[c.callee].exit;
            ifds::for_each_target(c.callflow, k.d, [&](fact_id d3) {
                propagate(d3, start, d3, F::identity());
                const std::uint64_t ctx = context_key(c.callee, d3);
                if (incoming_[ctx].insert(incoming_entry{ce, k.d, k.d0}).second)
                    charge(detail::hash_entry_bytes<incoming_entry>);
                const function f_call = function_of<F>(pb_.call_functions[ce], k.d, d3);
                for (fact_id d4 : exit_facts_[ctx])
                    apply_summary(ce, k.d0, j, f_call, jf(d3, exit, d4), d4);
            });
        }
        const auto ctr = pb_.ctr_functions.find(k.n);
        const auto ctf = g_.ctrflows.find(k.n);
        const ifds::flow_function& ff = ctf == g_.ctrflows.end() ? identity_ff_ : ctf->second;
        ifds::for_each_target(ff, k.d, [&](fact_id t) {
            const function f = ctr == pb_.ctr_functions.end() ? F::identity() : function_of<F>(ctr->second, k.d, t);
            propagate(k.d0, retsite, t, F::compose(f, j));
        });
    }

    /// (d₃; exit of q, d₄) with jump function `callee`: the summary to every
    /// caller that entered context (q, d₃) so far.
    void at_exit(const key& k, const function& callee) {
        const proc_id q = g_.nodes[k.n].proc;
        const std::uint64_t ctx = context_key(q, k.d0);
        auto& exits = exit_facts_[ctx];
        if (std::find(exits.begin(), exits.end(), k.d) == exits.end()) exits.push_back(k.d);
        auto in = incoming_.find(ctx);
        if (in == incoming_.end()) return;
        const std::vector<incoming_entry> callers(in->second.begin(), in->second.end());  // (propagate may add more)
        for (const auto& e : callers) {
            const function f_call = function_of<F>(pb_.call_functions[e.ce], e.d, k.d0);
            apply_summary(e.ce, e.d0, jf(e.d0, g_.calls[e.ce].site, e.d), f_call, callee, k.d);
        }
    }

    /// JF(d₀; r, d′) ⊒ (f_ret ∘ (callee ∘ f_call)) ∘ caller for each d′ that
    /// the return flow of call edge `ce` relates d₄ to.
    void apply_summary(std::uint32_t ce, fact_id d0, const function& caller, const function& f_call,
                       const function& callee, fact_id d4) {
        const auto& c = g_.calls[ce];
        const function inner = F::compose(callee, f_call);
        ifds::for_each_target(c.retflow, d4, [&](fact_id t) {
            const function summary = F::compose(function_of<F>(pb_.return_functions[ce], d4, t), inner);
            propagate(d0, c.retsite, t, F::compose(summary, caller));
        });
    }

    // ---- phase 2: values ------------------------------------------------------
    void values() {
        // The contexts of each procedure; the (call site, fact) pairs each context reaches.
        std::unordered_map<std::uint64_t, std::vector<std::pair<node_id, fact_id>>> sites_of;
        for (const auto& [k, f] : jf_) {
            const proc_id p = g_.nodes[k.n].proc;
            if (!site_calls_[k.n].empty()) {
                sites_of[context_key(p, k.d0)].push_back({k.n, k.d});
                charge(sizeof(std::pair<node_id, fact_id>));
            }
            if (k.n == g_.procs[p].start && k.d0 == k.d) contexts_of_[p].push_back(k.d0);
        }
        std::deque<std::uint64_t> work;
        auto raise = [&](proc_id p, fact_id d0, const value& v) {
            const value x = d0 == zero_fact ? F::bottom_value() : v;  // the zero fact's value is bottom
            const std::size_t before = entry_.size();
            if (detail::join_into(entry_, context_key(p, d0), x, F::join_values)) work.push_back(context_key(p, d0));
            if (entry_.size() != before) charge(detail::hash_entry_bytes<std::pair<const std::uint64_t, value>> + 8);
        };
        for (std::size_t i = 0; i < g_.seeds.size(); ++i)
            raise(g_.nodes[g_.seeds[i].node].proc, g_.seeds[i].fact, pb_.seed_values[i]);
        while (!work.empty()) {
            const std::uint64_t ctx = work.front();
            work.pop_front();
            // every call site of p where context d0 reaches a fact: the value there, joined over p's contexts
            auto sites = sites_of.find(ctx);
            if (sites == sites_of.end()) continue;
            for (const auto& site : sites->second) {
                const node_id n = site.first;
                const fact_id d = site.second;  // (not a structured binding: lambdas capture it)
                const value v = value_at(n, d);
                for (std::uint32_t ce : site_calls_[n]) {
                    const auto& c = g_.calls[ce];
                    ifds::for_each_target(c.callflow, d, [&](fact_id d3) {
                        raise(c.callee, d3, F::apply(function_of<F>(pb_.call_functions[ce], d, d3), v));
                    });
                }
            }
        }
    }

    /// val(n, d) = ⊔ over the contexts d₀ of n's procedure of JF(d₀; n, d)(entry).
    value value_at(node_id n, fact_id d) const {
        const proc_id p = g_.nodes[n].proc;
        value v = F::top_value();
        auto ctxs = contexts_of_.find(p);
        if (ctxs == contexts_of_.end()) return v;
        for (fact_id d0 : ctxs->second) {
            auto e = entry_.find(context_key(p, d0));
            if (e == entry_.end()) continue;
            v = F::join_values(v, F::apply(jf(d0, n, d), e->second));
        }
        return v;
    }

    solution<F> collect() {
        charge(jf_.size() * sizeof(std::pair<fact_id, value>));  // at most one entry per jump function
        solution<F> s;
        s.at.resize(g_.nodes.size());
        std::unordered_set<std::uint64_t> seen;
        for (const auto& [k, f] : jf_) {
            if (!seen.insert(std::uint64_t(k.n) << 32 | k.d).second) continue;
            s.at[k.n].push_back({k.d, value_at(k.n, k.d)});
        }
        for (auto& v : s.at)
            std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        s.stats.jump_functions = jf_.size();
        s.stats.contexts = 0;
        for (const auto& [p, c] : contexts_of_) s.stats.contexts += c.size();
        return s;
    }

    static std::uint64_t context_key(proc_id p, fact_id d0) { return std::uint64_t(p) << 32 | d0; }

    /// A caller that entered a context: call edge, its fact at the site, its own context.
    struct incoming_entry {
        std::uint32_t ce;
        fact_id d;
        fact_id d0;
        bool operator==(const incoming_entry&) const = default;
    };
    struct incoming_hash {
        std::size_t operator()(const incoming_entry& e) const noexcept {
            return detail::jf_key_hash{}(detail::jf_key{e.ce, e.d, e.d0});
        }
    };

    const problem<F>& pb_;
    const ifds::problem& g_;
    const ifds::flow_function identity_ff_ = ifds::flow_function::id();
    std::vector<std::vector<std::uint32_t>> out_flows_;   ///< flow edges by source node
    std::vector<std::vector<std::uint32_t>> site_calls_;  ///< call edges by site
    std::vector<std::uint8_t> is_exit_;
    std::unordered_map<key, function, detail::jf_key_hash> jf_;
    std::deque<key> work_;
    std::unordered_map<std::uint64_t, std::unordered_set<incoming_entry, incoming_hash>> incoming_;  ///< by context
    std::unordered_map<std::uint64_t, std::vector<fact_id>> exit_facts_;  ///< by context: facts reached at the exit
    std::unordered_map<proc_id, std::vector<fact_id>> contexts_of_;
    std::unordered_map<std::uint64_t, value> entry_;                      ///< by context
    std::uint64_t budget_ = 0;        ///< tabulation_options::memory_budget
    std::uint64_t held_ = 0;          ///< bytes counted against it
    std::size_t longest_work_ = 0;    ///< the worklist's longest length so far
};

} // namespace weir::ide
