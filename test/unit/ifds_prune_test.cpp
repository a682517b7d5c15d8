// prune_to_demand: the facts that cannot lead to a demanded fact hold
// nowhere afterwards, and every other fact holds exactly where it held.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include <weir/ifds/prune_facts.hpp>

#include "support/brute_force.hpp"
#include "support/ifds_gen.hpp"
#include "support/tabulate.hpp"

using namespace weir::ifds;
using weir::test::mini_problem;

TEST_CASE("prune_to_demand: what leads to the demanded fact stays, through calls too", "[ifds][prune]") {
    mini_problem m;
    m.facts({"a", "b", "c", "d", "p"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("n1", "main")
        .node("c1", "main")
        .node("r1", "main")
        .flow("ms", "n1", "id gen:a gen:c")
        .flow("n1", "c1", "id a>b c>d")
        .call("c1", "f", "r1", "b>p", "p>b")
        .flow("fs", "fe", "id")
        .flow("r1", "me", "id")
        .seed("ms", "0");
    problem pb = m.get();
    const solution before = weir::test::tabulate(pb);
    const std::vector<fact_id> demanded{2};  // b: a leads to it, through f and back too (p)
    CHECK(facts_leading_to(pb, demanded) == std::vector<char>{1, 1, 1, 0, 0, 1});
    CHECK(prune_to_demand(pb, demanded) == 2);  // c and d
    const solution after = weir::test::tabulate(pb);
    CHECK(before.holds(4, 3));  // c held at n1 (node 4) before
    for (node_id n = 0; n < pb.nodes.size(); ++n)
        for (fact_id f : {0u, 1u, 2u, 5u}) CHECK(before.holds(n, f) == after.holds(n, f));
    for (node_id n = 0; n < pb.nodes.size(); ++n) CHECK_FALSE((after.holds(n, 3) || after.holds(n, 4)));
}

TEST_CASE("prune_to_demand: the kept facts' result is unchanged on random problems", "[ifds][prune]") {
    std::size_t pruned_total = 0, kept_holding = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        problem pb = weir::test::random_problem(seed, weir::test::larger_options(seed));
        if (pb.fact_count() < 2) continue;
        std::mt19937_64 rng(seed);
        std::vector<fact_id> demanded;
        const std::uint32_t nd = 1 + static_cast<std::uint32_t>(rng() % 3);
        for (std::uint32_t i = 0; i < nd; ++i) demanded.push_back(1 + static_cast<fact_id>(rng() % (pb.fact_count() - 1)));
        INFO("seed " << seed);
        const solution before = weir::test::tabulate(pb);
        const std::vector<char> keep = facts_leading_to(pb, demanded);
        for (fact_id d : demanded) REQUIRE(keep[d]);
        pruned_total += prune_to_demand(pb, demanded);
        const solution after = weir::test::tabulate(pb);
        REQUIRE(after == weir::test::brute_force_solve(pb));  // still a well-formed problem the reference agrees on
        for (node_id n = 0; n < pb.nodes.size(); ++n)
            for (fact_id f = 0; f < pb.fact_count(); ++f) {
                REQUIRE(after.holds(n, f) == (keep[f] && before.holds(n, f)));
                kept_holding += keep[f] && f != zero_fact && after.holds(n, f);
            }
    }
    CHECK(pruned_total > 100);  // the law was tested where it prunes
    CHECK(kept_holding > 1000);  // and where kept facts hold
}
