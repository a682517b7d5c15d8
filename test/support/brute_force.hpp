#pragma once
/// \file support/brute_force.hpp
/// Test support: a slow reference for the spec's meaning, written from the
/// definition and sharing nothing with the layout or the tabulation solver.
///
/// Over the whole fact domain (no per-procedure fact sets), it computes the
/// same-level relation SL((s_p, c), v) — v reachable from (s_p, c) by a path
/// with balanced calls and returns — by naive global iteration to a fixed
/// point, then the vertices reachable from the seeds by alternating
/// same-level segments and (open) call edges. Small problems only.

#include <cstdint>
#include <vector>

#include <weir/ifds/problem.hpp>
#include <weir/ifds/solution.hpp>

#include "support/path_checker.hpp"

namespace weir::test {

/// The meet-over-all-valid-paths solution of `pb`, computed naively.
inline solution brute_force_solve(const problem& pb) {
    const std::uint32_t N = static_cast<std::uint32_t>(pb.nodes.size());
    const std::uint32_t D = pb.fact_count();
    const std::uint32_t P = static_cast<std::uint32_t>(pb.procs.size());
    const std::uint32_t V = N * D;
    auto vid = [&](node_id n, fact_id d) { return n * D + d; };
    const flow_function identity = flow_function::id();

    // sl[(p * D + c) * V + v]: v same-level reachable from (start(p), c).
    std::vector<char> sl(std::size_t{P} * D * V, 0);
    for (proc_id p = 0; p < P; ++p)
        for (fact_id c = 0; c < D; ++c) sl[(std::size_t{p} * D + c) * V + vid(pb.procs[p].start, c)] = 1;

    bool changed = true;
    while (changed) {
        changed = false;
        auto set = [&](std::size_t base, std::uint32_t v) {
            if (!sl[base + v]) {
                sl[base + v] = 1;
                changed = true;
            }
        };
        for (proc_id p = 0; p < P; ++p)
            for (fact_id c = 0; c < D; ++c) {
                const std::size_t base = (std::size_t{p} * D + c) * V;
                for (node_id m = 0; m < N; ++m) {
                    if (pb.nodes[m].proc != p) continue;
                    for (fact_id d = 0; d < D; ++d) {
                        if (!sl[base + vid(m, d)]) continue;
                        for (const flow_edge& e : pb.flows)
                            if (e.from == m)
                                for (fact_id t = 0; t < D; ++t)
                                    if (ff_relates(e.ff, d, t)) set(base, vid(e.to, t));
                        bool is_site = false;
                        for (const call_edge& ce : pb.calls) {
                            if (ce.site != m) continue;
                            is_site = true;
                            const proc_id q = ce.callee;
                            for (fact_id d3 = 0; d3 < D; ++d3) {
                                if (!ff_relates(ce.callflow, d, d3)) continue;
                                const std::size_t qb = (std::size_t{q} * D + d3) * V;
                                for (fact_id d4 = 0; d4 < D; ++d4) {
                                    if (!sl[qb + vid(pb.procs[q].exit, d4)]) continue;
                                    for (fact_id d5 = 0; d5 < D; ++d5)
                                        if (ff_relates(ce.retflow, d4, d5)) set(base, vid(ce.retsite, d5));
                                }
                            }
                        }
                        if (is_site) {
                            auto it = pb.ctrflows.find(m);
                            const flow_function& ff = it == pb.ctrflows.end() ? identity : it->second;
                            node_id r = 0;
                            for (const call_edge& ce : pb.calls)
                                if (ce.site == m) r = ce.retsite;
                            for (fact_id t = 0; t < D; ++t)
                                if (ff_relates(ff, d, t)) set(base, vid(r, t));
                        }
                    }
                }
            }
    }

    // Reachable contexts: seeds, then calls out of reachable same-level vertices.
    std::vector<char> ctx(std::size_t{P} * D, 0), reach(V, 0);
    std::vector<std::uint32_t> work;
    for (const seed& s : pb.seeds) {
        const std::uint32_t k = pb.nodes[s.node].proc * D + s.fact;
        if (!ctx[k]) {
            ctx[k] = 1;
            work.push_back(k);
        }
    }
    while (!work.empty()) {
        const std::uint32_t k = work.back();
        work.pop_back();
        const std::size_t base = std::size_t{k} * V;
        for (node_id m = 0; m < N; ++m)
            for (fact_id d = 0; d < D; ++d) {
                if (!sl[base + vid(m, d)]) continue;
                reach[vid(m, d)] = 1;
                for (const call_edge& ce : pb.calls) {
                    if (ce.site != m) continue;
                    for (fact_id d3 = 0; d3 < D; ++d3) {
                        if (!ff_relates(ce.callflow, d, d3)) continue;
                        const std::uint32_t k2 = ce.callee * D + d3;
                        if (!ctx[k2]) {
                            ctx[k2] = 1;
                            work.push_back(k2);
                        }
                    }
                }
            }
    }
    solution s;
    s.facts.resize(N);
    for (node_id n = 0; n < N; ++n)
        for (fact_id d = 0; d < D; ++d)
            if (reach[vid(n, d)]) s.facts[n].push_back(d);
    return s;
}

} // namespace weir::test
