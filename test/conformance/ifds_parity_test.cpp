// Parity: resident_solver on every enabled backend equals tabulation_solver,
// bit for bit on the path-edge sets, on generated and hand-made problems.

#include <cstdint>

#include "support/backends.hpp"
#include "support/ifds_gen.hpp"

#include <weir/adapter/vyre_resident_ifds.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

using namespace weir::ifds;
using vyre::test::backend_list;

namespace {
template <class B>
void check_parity(B& backend, const problem& pb, std::uint64_t seed) {
    INFO("problem seed " << seed);
    auto L = make_layout(pb);
    auto expect = tabulation_solver(L).solve();
    weir::vyre_resident_ifds<B> d(backend);
    auto solver = resident_solver<weir::vyre_resident_ifds<B>>::create(d, L);
    REQUIRE(solver.has_value());
    auto got = solver->solve();
    if (!got) FAIL(got.error().what());
    CHECK(got->path_edges == expect.path_edges);
    CHECK(got->stats.path_edges == expect.stats.path_edges);
    CHECK(got->stats.contexts == expect.stats.contexts);
    CHECK(got->stats.summary_edges == expect.stats.summary_edges);
}
} // namespace

TEMPLATE_LIST_TEST_CASE("resident solver equals tabulation on generated problems", "[ifds][parity]", backend_list) {
    TestType b;
    weir::test::gen_options o;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
        o.procs = 1 + seed % 6;
        o.facts = 1 + seed % 5;
        o.max_nodes = 3 + seed % 5;
        o.seeds = 1 + seed % 3;
        check_parity(b, weir::test::random_problem(seed, o), seed);
    }
}

TEMPLATE_LIST_TEST_CASE("resident solver equals tabulation on larger generated problems", "[ifds][parity]",
                        backend_list) {
    TestType b;
    weir::test::gen_options o;
    for (std::uint64_t seed = 1000; seed < 1040; ++seed) {
        o.procs = 8 + seed % 25;
        o.facts = 4 + seed % 9;
        o.max_nodes = 4 + seed % 8;
        o.seeds = 1 + seed % 4;
        o.p_recursion = 0.2;
        o.p_mutual = 0.3;
        check_parity(b, weir::test::random_problem(seed, o), seed);
    }
}

TEMPLATE_LIST_TEST_CASE("resident solver grows its frontier and reuses buffers across a batch", "[ifds][resident]",
                        backend_list) {
    TestType b;
    weir::test::gen_options o;
    o.procs = 20;
    o.facts = 10;
    o.max_nodes = 10;
    auto pb = weir::test::random_problem(77, o);
    auto L = make_layout(pb);
    weir::vyre_resident_ifds<TestType> d(b);
    resident_options opt;
    opt.initial_frontier = 16;  // forces overflow and regrowth
    auto solver = resident_solver<weir::vyre_resident_ifds<TestType>>::create(d, L, opt);
    REQUIRE(solver.has_value());
    auto after_upload = b.backend_metric_snapshot();
    std::vector<seed_set> sets;
    for (std::uint32_t p = 0; p < L.num_procs && sets.size() < 6; ++p) {
        seed_set s;
        s.node = {L.proc_start[p]};
        s.fact = {0};
        sets.push_back(s);
    }
    auto outs = solver->solve_batch(sets);
    REQUIRE(outs.has_value());
    REQUIRE(outs->size() == sets.size());
    for (std::size_t i = 0; i < sets.size(); ++i) {
        auto expect = tabulation_solver(L).solve(sets[i].node, sets[i].fact);
        CHECK((*outs)[i].path_edges == expect.path_edges);
    }
    auto after = b.backend_metric_snapshot();
    // The graph was not uploaded again: per solve only counters (16 B a round) and seeds moved up.
    std::uint64_t up = after["bytes_uploaded"] - after_upload["bytes_uploaded"];
    std::uint64_t rounds = 0;
    for (const auto& out : *outs) rounds += out.stats.rounds + 1;
    CHECK(up <= rounds * 16 * 4 + sets.size() * 8);
    // Downloads: the 4-byte counter per round, and the result bitset per solve.
    std::uint64_t down = after["bytes_downloaded"] - after_upload["bytes_downloaded"];
    std::uint64_t result_bytes = sets.size() * std::uint64_t(std::max<std::uint32_t>(L.pe_words, 1)) * 4;
    CHECK(down >= result_bytes);
    CHECK(down - result_bytes <= rounds * 4 * 4);
}
