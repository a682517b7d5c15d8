#pragma once
/// \file weir/ide/layout.hpp
/// The resident IDE solver's view of a problem: the IFDS layout of its graph
/// (weir/ifds/layout.hpp, unchanged) plus, aligned with the layout's
/// relation tables, the index of each exploded edge's function in a pool of
/// encoded functions, and the seeds' encoded values. All u32 arrays that
/// upload as they are.
///
/// Function indices: entry k of `intra_fn` is the function of the intra
/// entry k (`intra_node[k]`, `intra_fact[k]`: a flow edge's or a call-to-return
/// edge's pair), `call_fn` of the call entry k (`call_ce`, `call_fact`),
/// `rcall_fn` of the reverse call entry k (`rcall_fact`) and `ret_fn` of the
/// return entry k (`ret_fact`). Index i names the `F::encoded_words` words
/// from `functions[i * F::encoded_words]`; index 0 is always the identity.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <weir/ide/problem.hpp>
#include <weir/ifds/make_layout.hpp>

namespace weir::ide {

/// The flat IDE layout of a problem over family `F` (see the file comment).
template <edge_function_family F>
struct layout {
    /// The IFDS layout of the problem's graph.
    ifds::layout graph;
    /// Function indices aligned with `graph.intra_fact`, `call_fact`, `rcall_fact`, `ret_fact`.
    std::vector<std::uint32_t> intra_fn, call_fn, rcall_fn, ret_fn;
    /// The distinct functions, `F::encoded_words` words each; function 0 is the identity.
    std::vector<std::uint32_t> functions;
    /// `F::encoded_value_words` words per seed of `graph` (`seed_node`,
    /// `seed_fact`): its value, joined over the problem's seeds of that
    /// (node, fact); bottom for the zero fact.
    std::vector<std::uint32_t> seed_values;

    /// Number of distinct functions in the pool.
    std::size_t function_count() const { return functions.size() / F::encoded_words; }
};

namespace detail {

/// Interns encoded functions: equal functions get one index, the identity 0.
template <edge_function_family F>
class function_pool {
public:
    explicit function_pool(std::vector<std::uint32_t>& words) : words_(words) {
        words_.clear();
        (void)index_of(F::identity());
    }
    /// The index of `f`, added to the pool when new.
    std::uint32_t index_of(const typename F::function& f) {
        std::string key(F::encoded_words * 4, '\0');
        F::encode(f, reinterpret_cast<std::uint32_t*>(key.data()));
        auto [it, fresh] = index_.try_emplace(key, static_cast<std::uint32_t>(index_.size()));
        if (fresh) {
            const auto* w = reinterpret_cast<const std::uint32_t*>(key.data());
            words_.insert(words_.end(), w, w + F::encoded_words);
        }
        return it->second;
    }

private:
    std::vector<std::uint32_t>& words_;
    std::unordered_map<std::string, std::uint32_t> index_;
};

} // namespace detail

/// Derives the IDE layout of `pb` (its graph's IFDS layout, by
/// `ifds::make_layout`, and the function tables). Throws
/// `std::invalid_argument` when the edge-function lists do not match the
/// graph (see `problem::fill_defaults`), as the tabulation solver does, and
/// when an edge carries `F::top()` (the spec keeps it inside solvers).
template <edge_function_family F>
layout<F> make_layout(const problem<F>& pb) {
    const ifds::problem& g = pb.graph;
    if (pb.flow_functions.size() != g.flows.size() || pb.call_functions.size() != g.calls.size() ||
        pb.return_functions.size() != g.calls.size() || pb.seed_values.size() != g.seeds.size())
        throw std::invalid_argument("ide::make_layout: the edge-function lists do not match the graph "
                                    "(call problem::fill_defaults after building it)");
    // `top` is solver-internal ("no path yet"): an edge carrying it would hold a
    // fact in the IFDS stage that the IDE equations never reach.
    auto no_top = [](const edge_terms<F>& terms, const char* what, std::size_t i) {
        for (const auto& t : terms)
            if (t.f == F::top())
                throw std::invalid_argument(std::string("ide::make_layout: the ") + what + " " + std::to_string(i) +
                                            " gives the pair (" + std::to_string(t.from) + ", " + std::to_string(t.to) +
                                            ") the function top, which only a solver may use");
    };
    for (std::size_t i = 0; i < pb.flow_functions.size(); ++i) no_top(pb.flow_functions[i], "flow edge", i);
    for (std::size_t i = 0; i < pb.call_functions.size(); ++i) no_top(pb.call_functions[i], "call edge (callflow)", i);
    for (std::size_t i = 0; i < pb.return_functions.size(); ++i) no_top(pb.return_functions[i], "call edge (retflow)", i);
    for (const auto& [site, terms] : pb.ctr_functions) no_top(terms, "call-to-return edge of node", site);
    layout<F> out;
    out.graph = ifds::make_layout(g);
    const ifds::layout& L = out.graph;
    detail::function_pool<F> pool(out.functions);
    auto fn = [&](const edge_terms<F>& terms, fact_id d, fact_id t) -> std::uint32_t {
        return terms.empty() ? 0u : pool.index_of(function_of<F>(terms, d, t));
    };

    // Intra entries: a node's flow edges have distinct targets (the format
    // allows one `flow FROM TO`), and a call site's only intra edge is its
    // call-to-return edge, so the target node names the edge.
    std::unordered_map<std::uint64_t, std::uint32_t> flow_of;  // (from, to) -> flow edge
    flow_of.reserve(g.flows.size());
    for (std::uint32_t i = 0; i < g.flows.size(); ++i) flow_of.emplace(std::uint64_t(g.flows[i].from) << 32 | g.flows[i].to, i);
    static const edge_terms<F> none;
    out.intra_fn.resize(L.intra_fact.size());
    for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
        const std::uint32_t p = L.node_proc[n];
        const auto ctr = pb.ctr_functions.find(n);
        for (std::uint32_t d = 0; d < L.node_fact_count[n]; ++d) {
            const std::uint32_t row = L.row_base[n] + d;
            for (std::uint32_t k = L.intra_off[row]; k < L.intra_off[row + 1]; ++k) {
                const edge_terms<F>* terms = &none;
                if (L.node_retsite[n] != ~0u) {
                    if (ctr != pb.ctr_functions.end()) terms = &ctr->second;
                } else {
                    terms = &pb.flow_functions[flow_of.at(std::uint64_t(n) << 32 | L.intra_node[k])];
                }
                out.intra_fn[k] = fn(*terms, L.global_fact(p, d), L.global_fact(p, L.intra_fact[k]));
            }
        }
    }
    // Call entries, by caller row, and the reverse call entries, by callee row.
    out.call_fn.resize(L.call_fact.size());
    out.rcall_fn.resize(L.rcall_fact.size());
    for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
        const std::uint32_t p = L.node_proc[n];
        for (std::uint32_t d = 0; d < L.node_fact_count[n]; ++d) {
            const std::uint32_t row = L.row_base[n] + d;
            for (std::uint32_t k = L.call_off[row]; k < L.call_off[row + 1]; ++k) {
                const std::uint32_t ce = L.call_ce[k];
                out.call_fn[k] = fn(pb.call_functions[ce], L.global_fact(p, d), L.global_fact(L.ce_callee[ce], L.call_fact[k]));
            }
        }
    }
    for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
        const std::uint32_t p = L.node_proc[L.ce_site[ce]], q = L.ce_callee[ce];
        for (std::uint32_t d3 = 0; d3 < L.fact_count(q); ++d3) {
            const std::uint32_t row = L.rcall_row[ce] + d3;
            for (std::uint32_t k = L.rcall_off[row]; k < L.rcall_off[row + 1]; ++k)
                out.rcall_fn[k] = fn(pb.call_functions[ce], L.global_fact(p, L.rcall_fact[k]), L.global_fact(q, d3));
        }
    }
    // Return entries, by callee exit row.
    out.ret_fn.resize(L.ret_fact.size());
    for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
        const std::uint32_t p = L.node_proc[L.ce_retsite[ce]], q = L.ce_callee[ce];
        for (std::uint32_t d4 = 0; d4 < L.fact_count(q); ++d4) {
            const std::uint32_t row = L.ret_row[ce] + d4;
            for (std::uint32_t k = L.ret_off[row]; k < L.ret_off[row + 1]; ++k)
                out.ret_fn[k] = fn(pb.return_functions[ce], L.global_fact(q, d4), L.global_fact(p, L.ret_fact[k]));
        }
    }
    // Seed values: the layout's seeds are sorted and unique; the problem may repeat one.
    const std::size_t VW = F::encoded_value_words;
    std::vector<typename F::value> v(L.seed_node.size(), F::top_value());
    for (std::size_t i = 0; i < g.seeds.size(); ++i) {
        const auto& s = g.seeds[i];
        const std::uint32_t p = L.node_proc[s.node];
        const std::uint32_t d = ifds::detail::local_fact(L, p, s.fact);
        std::size_t lo = 0, hi = L.seed_node.size();  // (node, fact) ascending
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (std::pair(L.seed_node[mid], L.seed_fact[mid]) < std::pair(s.node, d)) lo = mid + 1;
            else hi = mid;
        }
        const std::size_t j = lo;
        if (j == L.seed_node.size() || L.seed_node[j] != s.node || L.seed_fact[j] != d) continue;  // (make_layout keeps every seed)
        v[j] = s.fact == zero_fact ? F::bottom_value() : F::join_values(v[j], pb.seed_values[i]);
    }
    out.seed_values.resize(v.size() * VW);
    for (std::size_t j = 0; j < v.size(); ++j) F::encode_value(v[j], out.seed_values.data() + j * VW);
    return out;
}

} // namespace weir::ide
