#pragma once
/// \file weir/ifds/problem.hpp
/// The IFDS problem model (spec: ifds-format.md): procedures, nodes, call
/// sites, facts, flow functions on every edge, and seeds, as written by a
/// frontend or read from a `.ifds` file. Names index dense ids; the solver's
/// layout (`weir::ifds::layout`) is derived from it.

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace weir::ifds {

/// Dense node id, in declaration order.
using node_id = std::uint32_t;
/// Dense procedure id, in declaration order.
using proc_id = std::uint32_t;
/// Dense fact id: 0 is the zero fact (Λ); declared facts are 1..N in order.
using fact_id = std::uint32_t;

/// The zero fact.
inline constexpr fact_id zero_fact = 0;

/// A distributive flow function as written: the union of `0 → 0`, the
/// identity minus `kill` (when `identity`), `0 → gen`, and explicit `pairs`.
struct flow_function {
    bool identity = false;
    std::vector<fact_id> kill;
    std::vector<fact_id> gen;
    std::vector<std::pair<fact_id, fact_id>> pairs;  ///< `a>b`; a may be 0 (same as gen)

    /// The identity function (what a missing `callflow/retflow/ctrflow` means).
    static flow_function id() {
        flow_function f;
        f.identity = true;
        return f;
    }
    bool operator==(const flow_function&) const = default;
};

/// True when the `id` term of `f` relates fact `d` to itself (`f` has
/// `id`, `d` is not the zero fact and not killed).
inline bool identity_keeps(const flow_function& f, fact_id d) {
    return f.identity && d != zero_fact && std::find(f.kill.begin(), f.kill.end(), d) == f.kill.end();
}

/// Calls `visit(t)` for every fact t that `f` relates fact `d` to (the
/// spec's union of terms; a fact may come more than once).
template <class Visit>
void for_each_target(const flow_function& f, fact_id d, Visit&& visit) {
    if (d == zero_fact) {
        visit(zero_fact);
        for (fact_id g : f.gen) visit(g);
    } else if (identity_keeps(f, d)) {
        visit(d);
    }
    for (const auto& [a, b] : f.pairs)
        if (a == d) visit(b);
}

/// A procedure with its unique start and exit nodes.
struct procedure {
    std::string name;
    node_id start = 0;
    node_id exit = 0;
    /// Member-wise equality.
    bool operator==(const procedure&) const = default;
};

/// A node and the procedure it belongs to.
struct node {
    std::string name;
    proc_id proc = 0;
    /// Member-wise equality.
    bool operator==(const node&) const = default;
};

/// An intraprocedural edge.
struct flow_edge {
    node_id from = 0;
    node_id to = 0;
    flow_function ff;
    /// Member-wise equality.
    bool operator==(const flow_edge&) const = default;
};

/// One (site, callee) pair of a call; an indirect call has one per target.
struct call_edge {
    node_id site = 0;
    proc_id callee = 0;
    node_id retsite = 0;
    flow_function callflow = flow_function::id();  ///< site → start(callee)
    flow_function retflow = flow_function::id();   ///< exit(callee) → retsite
    /// Member-wise equality.
    bool operator==(const call_edge&) const = default;
};

/// A seed: fact `fact` holds at the start node `node`.
struct seed {
    node_id node = 0;
    fact_id fact = 0;
    bool operator==(const seed&) const = default;
};

/// A whole IFDS problem. Invariants (checked by the loader and by
/// `problem_builder::finish`): see the spec's well-formedness rules.
struct problem {
    std::vector<std::string> facts;      ///< declared facts; fact id i+1 is facts[i]
    std::vector<procedure> procs;
    std::vector<node> nodes;             ///< declaration order
    std::vector<flow_edge> flows;
    std::vector<call_edge> calls;
    /// Call-to-return flow per call site; a site without an entry uses `id`.
    std::unordered_map<node_id, flow_function> ctrflows;
    std::vector<seed> seeds;

    /// Number of facts including the zero fact.
    std::uint32_t fact_count() const { return static_cast<std::uint32_t>(facts.size()) + 1; }
    /// Name of a fact (`"0"` for the zero fact).
    std::string fact_name(fact_id f) const { return f == 0 ? std::string("0") : facts[f - 1]; }
    /// Member-wise equality (flow functions compare as written, so compare
    /// canonical forms: the loader and `problem_builder` sort their lists).
    bool operator==(const problem&) const = default;
};

/// Calls `visit(ff)` for every flow function of `pb`: its flow edges', its
/// call edges' callflow and retflow, and its call-to-return functions (`P`
/// is `problem` or `const problem`; `ff` is a reference into it).
template <class P, class Visit>
    requires std::same_as<std::remove_const_t<P>, problem>
void for_each_flow_function(P& pb, Visit&& visit) {
    for (auto& e : pb.flows) visit(e.ff);
    for (auto& c : pb.calls) visit(c.callflow), visit(c.retflow);
    for (auto& [site, ff] : pb.ctrflows) visit(ff);
}

/// Frees `pb`'s flow functions, call edges and seeds, keeping what names
/// things (facts, procedures, nodes): enough to print a result or a witness
/// (`write_solution`, `format_witness`) once the layout is made, with the
/// memory of the rest handed back for the solve (`weir solve` does this).
inline void release_flows(problem& pb) {
    std::vector<flow_edge>().swap(pb.flows);
    std::vector<call_edge>().swap(pb.calls);
    std::unordered_map<node_id, flow_function>().swap(pb.ctrflows);
    std::vector<seed>().swap(pb.seeds);
}

} // namespace weir::ifds
