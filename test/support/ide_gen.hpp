#pragma once
/// \file ide_gen.hpp
/// Random IDE problems over `linear` for tests (`weir::test::random_ide_problem`):
/// a random IFDS problem (ifds_gen.hpp) with random edge functions on some
/// pairs of every relation (constants, affine maps, bottom, and coefficients
/// big enough to overflow) and random seed values.

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <weir/ide/linear.hpp>
#include <weir/ide/problem.hpp>

#include "support/ifds_gen.hpp"

namespace weir::test {

/// The relation pairs (d, t) of `ff` over `facts` facts (the zero fact included).
inline std::vector<std::pair<ifds::fact_id, ifds::fact_id>> pairs_of(const ifds::flow_function& ff, std::uint32_t facts) {
    std::vector<std::pair<ifds::fact_id, ifds::fact_id>> out;
    for (ifds::fact_id d = 0; d < facts; ++d) ifds::for_each_target(ff, d, [&](ifds::fact_id t) { out.push_back({d, t}); });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// Random edge functions on some pairs of `ff` (never on 0 → 0).
inline ide::edge_terms<ide::linear> random_terms(const ifds::flow_function& ff, std::uint32_t facts, std::mt19937_64& rng) {
    ide::edge_terms<ide::linear> out;
    for (auto [d, t] : pairs_of(ff, facts)) {
        if (d == 0 && t == 0) continue;
        const auto r = rng() % 100;
        if (r < 45) continue;  // identity
        ide::linear::function f;
        if (r < 65) f = ide::linear::constant(static_cast<std::int64_t>(rng() % 7) - 3);
        else if (r < 88) f = ide::linear::affine(std::array<std::int64_t, 5>{-2, -1, 2, 3, 1}[rng() % 5], static_cast<std::int64_t>(rng() % 7) - 3);
        else if (r < 93) f = ide::linear::bottom();
        else f = ide::linear::affine(std::int64_t{1} << (40 + rng() % 22), static_cast<std::int64_t>(rng() % 5));  // overflow-prone
        out.push_back({d, t, f});
    }
    ide::canonicalize<ide::linear>(out);
    return out;
}

/// A random IDE problem over `linear`; the same seed and options give the same problem.
inline ide::problem<ide::linear> random_ide_problem(std::uint64_t seed, const gen_options& o) {
    ide::problem<ide::linear> p;
    p.graph = random_problem(seed, o);
    std::mt19937_64 rng(seed * 31 + 7);
    const std::uint32_t facts = p.graph.fact_count();
    for (const auto& e : p.graph.flows) p.flow_functions.push_back(random_terms(e.ff, facts, rng));
    for (const auto& c : p.graph.calls) {
        p.call_functions.push_back(random_terms(c.callflow, facts, rng));
        p.return_functions.push_back(random_terms(c.retflow, facts, rng));
    }
    auto set_ctr = [&](ifds::node_id site, ide::edge_terms<ide::linear> t) {
        if (!t.empty()) p.ctr_functions[site] = std::move(t);  // (absent means every pair carries the identity)
    };
    for (const auto& [site, ff] : p.graph.ctrflows) set_ctr(site, random_terms(ff, facts, rng));
    // sites without a ctrflow line use `id`: give some of them functions too
    for (const auto& c : p.graph.calls)
        if (!p.graph.ctrflows.count(c.site) && rng() % 2)
            set_ctr(c.site, random_terms(ifds::flow_function::id(), facts, rng));
    for (std::size_t i = 0; i < p.graph.seeds.size(); ++i)
        p.seed_values.push_back(rng() % 3 == 0 ? ide::linear::bottom_value() : ide::linear::constant_value(static_cast<std::int64_t>(rng() % 9) - 4));
    return p;
}

/// `random_ide_problem` with 2 to 5 procedures and 2 to 4 facts, both cycling
/// with `seed`: the small problems the IDE tests sweep seeds over.
inline ide::problem<ide::linear> small_ide_problem(std::uint64_t seed) {
    gen_options o;
    o.procs = 2 + static_cast<std::uint32_t>(seed % 4);
    o.facts = 2 + static_cast<std::uint32_t>(seed % 3);
    return random_ide_problem(seed, o);
}

} // namespace weir::test
