// Witnesses: every reachable (node, fact) of many random problems gets a path
// that the independent checker accepts; unreachable ones get none. Plus the
// checker's own sanity and long paths (no recursion in the expansion).

#include <catch2/catch.hpp>

#include <string>

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ifds/witness.hpp>

#include "support/brute_force.hpp"
#include "support/ifds_gen.hpp"
#include "support/path_checker.hpp"

using namespace weir::ifds;
using weir::test::check_path;
using weir::test::mini_problem;

TEST_CASE("witness: every holding fact has a valid path, the others none", "[ifds][witness][random]") {
    std::size_t witnesses = 0, absent = 0;
    for (std::uint64_t seed = 1000; seed < 1300; ++seed) {
        const problem pb = weir::test::random_problem(seed, weir::test::varied_options(seed));
        const solution truth = weir::test::brute_force_solve(pb);
        const layout L = make_layout(pb);
        const witness_builder wb(L);
        REQUIRE(wb.path_edges() == tabulation_solver(L).solve().value().path_edges);
        for (node_id n = 0; n < pb.nodes.size(); ++n)
            for (fact_id f = 0; f < pb.fact_count(); ++f) {
                INFO("seed " << seed << " node " << pb.nodes[n].name << " fact " << pb.fact_name(f));
                const auto w = wb.witness(n, f);
                REQUIRE(w.has_value() == truth.holds(n, f));
                if (!w) {
                    ++absent;
                    continue;
                }
                const auto err = check_path(pb, *w, n, f);
                INFO(format_witness(pb, *w));
                REQUIRE_FALSE(err.has_value());
                ++witnesses;
            }
    }
    CHECK(witnesses > 1000);
    CHECK(absent > 1000);
}

TEST_CASE("witness: spelled-out call and format", "[ifds][witness]") {
    mini_problem m;
    m.facts({"a", "x"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("c1", "main")
        .node("r1", "main")
        .flow("ms", "c1", "id gen:a")
        .call("c1", "f", "r1", "", "id")
        .flow("r1", "me")
        .flow("fs", "fe", "id gen:x")
        .seed("ms", "0");
    const problem& pb = m.get();
    const layout L = make_layout(pb);
    const witness_builder wb(L);
    const auto w = wb.witness(m.n("me"), m.f("x"));
    REQUIRE(w);
    CHECK(format_witness(pb, *w) == "ms 0\nc1 0\nfs 0\nfe x\nr1 x\nme x\n");
    CHECK_FALSE(wb.witness(m.n("fs"), m.f("a")));
    CHECK_FALSE(wb.witness(m.n("fs"), 99));
    CHECK_FALSE(wb.witness(99, 0));
}

TEST_CASE("witness: path checker rejects bad paths", "[ifds][witness][checker]") {
    mini_problem m;
    m.facts({"a"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("c1", "main")
        .node("r1", "main")
        .node("c2", "main")
        .node("r2", "main")
        .flow("ms", "c1")
        .call("c1", "f", "r1", "gen:a")
        .flow("r1", "c2")
        .call("c2", "f", "r2")
        .flow("r2", "me")
        .flow("fs", "fe")
        .seed("ms", "0")
        .seed("fs", "a");
    const problem& pb = m.get();
    auto v = [&](const char* n, const char* f) { return std::pair<node_id, fact_id>(m.n(n), m.f(f)); };
    using path = std::vector<std::pair<node_id, fact_id>>;
    CHECK_FALSE(check_path(pb, path{v("ms", "0"), v("c1", "0"), v("fs", "a"), v("fe", "a"), v("r1", "a")},
                           m.n("r1"), m.f("a")));
    // Not starting at a seed.
    CHECK(check_path(pb, path{v("c1", "0"), v("fs", "a")}, m.n("fs"), m.f("a")));
    // Return with no open call (past the seed).
    CHECK(check_path(pb, path{v("fs", "a"), v("fe", "a"), v("r1", "a")}, m.n("r1"), m.f("a")));
    // Return to the wrong site: call from c1, return to r2.
    CHECK(check_path(pb, path{v("ms", "0"), v("c1", "0"), v("fs", "a"), v("fe", "a"), v("r2", "a")},
                     m.n("r2"), m.f("a")));
    // Not an exploded edge: `flow ms c1 id` does not relate 0 to a.
    CHECK(check_path(pb, path{v("ms", "0"), v("c1", "a")}, m.n("c1"), m.f("a")));
    // Wrong end.
    CHECK(check_path(pb, path{v("ms", "0"), v("c1", "0")}, m.n("me"), m.f("0")));
    CHECK(check_path(pb, path{}, m.n("me"), m.f("0")));
}

TEST_CASE("witness: long call chains expand without recursion", "[ifds][witness][deep]") {
    // p0 calls p1 calls ... p{K-1}; the last generates x, which flows back out.
    constexpr int K = 3000;
    const problem pb = weir::test::call_chain_problem(K);
    const layout L = make_layout(pb);
    const witness_builder wb(L);
    const auto w = wb.witness(pb.procs[0].exit, 1);
    REQUIRE(w);
    CHECK(w->size() == static_cast<std::size_t>(3 * K - 1));
    CHECK_FALSE(check_path(pb, *w, pb.procs[0].exit, 1).has_value());
}
