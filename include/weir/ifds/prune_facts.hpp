#pragma once
/// \file weir/ifds/prune_facts.hpp
/// `prune_to_demand`: an analysis that reads its result only for some facts
/// (a taint analysis: the facts of its sinks' arguments) needs only the
/// facts that can lead to them. A fact holds at a node only through a chain
/// of gens and pairs from the zero fact or a seed, so a fact from which no
/// chain of pairs (over every flow, call, return and call-to-return
/// function, whatever the node) leads to a demanded fact can never be part
/// of a path that ends in one. Dropping every gen, pair, kill and seed of
/// such facts leaves the result for the demanded facts, and for every fact
/// kept, exactly as it was; the pruned facts hold nowhere. Fact ids do not
/// change.

#include <cstdint>
#include <span>
#include <vector>

#include <weir/ifds/problem.hpp>

namespace weir::ifds {

/// Which facts of `pb` can lead to a fact of `demanded` (per fact id, the
/// zero fact always).
inline std::vector<char> facts_leading_to(const problem& pb, std::span<const fact_id> demanded) {
    const std::uint32_t nf = pb.fact_count();
    // The pairs reversed, as a CSR over their targets.
    std::vector<std::uint64_t> off(std::size_t{nf} + 1, 0);
    for_each_flow_function(pb, [&](const flow_function& f) {
        for (const auto& [a, b] : f.pairs)
            if (a != b && b < nf) ++off[b + 1];
    });
    for (std::uint32_t f = 0; f < nf; ++f) off[f + 1] += off[f];
    std::vector<fact_id> from(off[nf]);
    {
        std::vector<std::uint64_t> at(off.begin(), off.end() - 1);
        for_each_flow_function(pb, [&](const flow_function& f) {
            for (const auto& [a, b] : f.pairs)
                if (a != b && b < nf) from[at[b]++] = a;
        });
    }
    std::vector<char> keep(nf, 0);
    std::vector<fact_id> work;
    auto reach = [&](fact_id f) {
        if (f < nf && !keep[f]) keep[f] = 1, work.push_back(f);
    };
    reach(zero_fact);
    for (fact_id f : demanded) reach(f);
    while (!work.empty()) {
        const fact_id f = work.back();
        work.pop_back();
        for (std::uint64_t i = off[f]; i < off[f + 1]; ++i) reach(from[i]);
    }
    return keep;
}

/// Removes from `pb` every fact that cannot lead to one of `demanded` (see
/// the file comment): its gens, the pairs into it, its kills and its seeds.
/// Returns the number of facts pruned (the zero fact is never pruned). When
/// every seed is pruned (no zero-fact seed, and no seeded fact leads to a
/// demanded one) `pb.seeds` ends empty: nothing demanded can hold anywhere,
/// and the problem is no longer one the builder or the loader accepts.
inline std::size_t prune_to_demand(problem& pb, std::span<const fact_id> demanded) {
    const std::vector<char> keep = facts_leading_to(pb, demanded);
    auto kept = [&](fact_id f) { return f < keep.size() && keep[f]; };
    for_each_flow_function(pb, [&](flow_function& f) {
        std::erase_if(f.gen, [&](fact_id g) { return !kept(g); });
        std::erase_if(f.kill, [&](fact_id k) { return !kept(k); });
        std::erase_if(f.pairs, [&](const std::pair<fact_id, fact_id>& p) { return !kept(p.second); });
    });
    std::erase_if(pb.seeds, [&](const seed& s) { return !kept(s.fact); });
    std::size_t pruned = 0;
    for (char k : keep) pruned += k ? 0 : 1;
    return pruned;
}

} // namespace weir::ifds
