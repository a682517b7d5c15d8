#pragma once
/// \file support/path_checker.hpp
/// Test support: an independent checker of witness paths. It reads only the
/// `problem` (never the layout) and evaluates flow functions from their terms.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/problem.hpp>

namespace weir::test {

using namespace weir::ifds;

/// True when flow function `ff` relates fact `d` at the edge's source to `t`
/// at its target (the spec's union of terms).
inline bool ff_relates(const flow_function& ff, fact_id d, fact_id t) {
    if (d == zero_fact && t == zero_fact) return true;
    if (ff.identity && d == t && d != zero_fact && std::find(ff.kill.begin(), ff.kill.end(), d) == ff.kill.end())
        return true;
    if (d == zero_fact && std::find(ff.gen.begin(), ff.gen.end(), t) != ff.gen.end()) return true;
    return std::find(ff.pairs.begin(), ff.pairs.end(), std::pair<fact_id, fact_id>(d, t)) != ff.pairs.end();
}

/// Checks that `path` is a realizable path of the exploded supergraph of `pb`
/// from a seed to (target_node, target_fact). Returns nullopt when it is, else
/// a message saying which step fails. Ambiguous steps (a pair of nodes joined
/// by both a call edge and a call-to-return edge) are tracked as alternative
/// call stacks.
inline std::optional<std::string> check_path(const problem& pb, const std::vector<std::pair<node_id, fact_id>>& path,
                                             node_id target_node, fact_id target_fact) {
    auto vname = [&](std::pair<node_id, fact_id> v) {
        return "(" + (v.first < pb.nodes.size() ? pb.nodes[v.first].name : std::to_string(v.first)) + ", " +
               (v.second < pb.fact_count() ? pb.fact_name(v.second) : std::to_string(v.second)) + ")";
    };
    if (path.empty()) return "empty path";
    for (auto v : path)
        if (v.first >= pb.nodes.size() || v.second >= pb.fact_count()) return "vertex out of range " + vname(v);
    if (std::find(pb.seeds.begin(), pb.seeds.end(), seed{path.front().first, path.front().second}) == pb.seeds.end())
        return "path does not start at a seed: " + vname(path.front());
    if (path.back() != std::pair<node_id, fact_id>(target_node, target_fact))
        return "path ends at " + vname(path.back()) + ", not at the target";

    const flow_function identity = flow_function::id();
    auto ctr_of = [&](node_id site) -> const flow_function& {
        auto it = pb.ctrflows.find(site);
        return it == pb.ctrflows.end() ? identity : it->second;
    };
    // Alternative call stacks (indices into pb.calls).
    std::set<std::vector<std::uint32_t>> stacks{{}};
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const auto [m, d] = path[i];
        const auto [n, t] = path[i + 1];
        std::set<std::vector<std::uint32_t>> next;
        // Intraprocedural edges (do not change the stack).
        bool intra = false;
        for (const flow_edge& e : pb.flows)
            if (e.from == m && e.to == n && ff_relates(e.ff, d, t)) intra = true;
        // Call-to-return edge.
        for (const call_edge& c : pb.calls)
            if (c.site == m && c.retsite == n && ff_relates(ctr_of(m), d, t)) intra = true;
        if (intra) next = stacks;
        // Call edges (push).
        for (std::uint32_t k = 0; k < pb.calls.size(); ++k) {
            const call_edge& c = pb.calls[k];
            if (c.site == m && pb.procs[c.callee].start == n && ff_relates(c.callflow, d, t))
                for (auto s : stacks) {
                    s.push_back(k);
                    next.insert(std::move(s));
                }
        }
        // Return edges (pop; must match the most recent open call).
        for (const auto& s : stacks) {
            if (s.empty()) continue;
            const call_edge& c = pb.calls[s.back()];
            if (pb.procs[c.callee].exit == m && c.retsite == n && ff_relates(c.retflow, d, t)) {
                auto s2 = s;
                s2.pop_back();
                next.insert(std::move(s2));
            }
        }
        if (next.empty())
            return "step " + std::to_string(i) + ": " + vname(path[i]) + " -> " + vname(path[i + 1]) +
                   " is no exploded edge that keeps the path realizable";
        if (next.size() > 4096) return "too many ambiguous call stacks at step " + std::to_string(i);
        stacks = std::move(next);
    }
    return std::nullopt;
}

} // namespace weir::test
