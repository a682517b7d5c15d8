#pragma once
/// \file weir/ide/problem.hpp
/// The IDE problem model (spec: ide-format.md): an IFDS problem (the
/// supergraph, the facts, the flow relations, the seeds: what holds where)
/// plus, for every exploded edge, an edge function of family `F`, and a
/// value per seed.

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <weir/ide/edge_function_family.hpp>
#include <weir/ifds/problem.hpp>

namespace weir::ide {

using ifds::fact_id;
using ifds::node_id;
using ifds::proc_id;
using ifds::zero_fact;

/// The edge function of one pair (d, d′) of a flow relation.
template <edge_function_family F>
struct edge_term {
    fact_id from = 0;
    fact_id to = 0;
    typename F::function f{};
    /// Member-wise equality.
    bool operator==(const edge_term&) const = default;
};

/// The edge functions of one flow function: the pairs whose function is not
/// the identity, sorted by (from, to), each pair once (terms that relate the
/// same pair are already joined). Every listed pair belongs to the flow
/// relation; a pair of the relation that is not listed carries the identity.
template <edge_function_family F>
using edge_terms = std::vector<edge_term<F>>;

/// The function of pair (d, t) in `terms` (the identity when not listed).
template <edge_function_family F>
typename F::function function_of(const edge_terms<F>& terms, fact_id d, fact_id t) {
    auto it = std::lower_bound(terms.begin(), terms.end(), std::pair<fact_id, fact_id>(d, t),
                               [](const edge_term<F>& e, const std::pair<fact_id, fact_id>& k) {
                                   return std::pair<fact_id, fact_id>(e.from, e.to) < k;
                               });
    if (it != terms.end() && it->from == d && it->to == t) return it->f;
    return F::identity();
}

/// Sorts `terms` by pair and joins the functions of a repeated pair, dropping
/// those that end up the identity (the canonical form `problem` keeps).
template <edge_function_family F>
void canonicalize(edge_terms<F>& terms) {
    std::stable_sort(terms.begin(), terms.end(), [](const edge_term<F>& a, const edge_term<F>& b) {
        return std::pair(a.from, a.to) < std::pair(b.from, b.to);
    });
    std::size_t w = 0;
    for (std::size_t i = 0; i < terms.size();) {
        edge_term<F> t = terms[i];
        for (++i; i < terms.size() && terms[i].from == t.from && terms[i].to == t.to; ++i) t.f = F::join(t.f, terms[i].f);
        if (!(t.f == F::identity())) terms[w++] = t;
    }
    terms.resize(w);
}

namespace detail {

/// The edge functions of a flow function as its terms were written (`=EF`
/// terms, `written`), in the canonical form `problem` keeps: each pair's
/// functions joined, and joined with the identity where a term of `f`
/// without a function (`id`, a plain `gen:` or `a>b`) relates the pair too
/// (spec ide-format.md: terms relating the same pair join). `f` is the flow
/// function as written, before any sorting or deduplication.
template <edge_function_family F>
edge_terms<F> join_written_terms(edge_terms<F> written, const ifds::flow_function& f) {
    const std::size_t n = written.size();
    for (std::size_t i = 0; i < n; ++i) {
        const edge_term<F> t = written[i];
        std::size_t relating = 0, with_function = 0;
        if (t.from == t.to && ifds::identity_keeps(f, t.from)) ++relating;
        if (t.from == zero_fact) relating += static_cast<std::size_t>(std::count(f.gen.begin(), f.gen.end(), t.to));
        relating += static_cast<std::size_t>(
            std::count(f.pairs.begin(), f.pairs.end(), std::pair<fact_id, fact_id>(t.from, t.to)));
        for (std::size_t j = 0; j < n; ++j) with_function += written[j].from == t.from && written[j].to == t.to;
        if (relating > with_function) written.push_back({t.from, t.to, F::identity()});
    }
    // (an identity term may have been added once per repeated pair: joining is idempotent)
    canonicalize<F>(written);
    return written;
}

} // namespace detail

/// An IDE problem over family `F`.
template <edge_function_family F>
struct problem {
    /// What holds where: the IFDS problem with every edge function dropped.
    ifds::problem graph;
    /// Edge functions of `graph.flows[i]`.
    std::vector<edge_terms<F>> flow_functions;
    /// Edge functions of `graph.calls[i].callflow` and `.retflow`.
    std::vector<edge_terms<F>> call_functions, return_functions;
    /// Edge functions of the call-to-return flow of a call site (absent: all identity).
    std::unordered_map<node_id, edge_terms<F>> ctr_functions;
    /// The value of `graph.seeds[i]` (the zero fact's is always bottom).
    std::vector<typename F::value> seed_values;

    /// Gives every edge and seed its (identity, bottom) defaults where the
    /// lists are shorter than the graph's (after building `graph` alone).
    void fill_defaults() {
        flow_functions.resize(graph.flows.size());
        call_functions.resize(graph.calls.size());
        return_functions.resize(graph.calls.size());
        seed_values.resize(graph.seeds.size(), F::bottom_value());
    }
    /// Member-wise equality.
    bool operator==(const problem&) const = default;
};

} // namespace weir::ide
