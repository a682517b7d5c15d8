// Targeted witnesses (weir/ifds/targeted_witnesses.hpp): on many random
// problems, every holding (node, fact) asked for gets a path that the
// independent checker accepts, alone or with every other target at once;
// facts that do not hold get none; and the builder records fewer path edges
// than the whole solve; the same witnesses from a layout with its edges per edge.
// Plus the long chain, the budget and bits that no solve gives; and
// for_each_witness retrying alone a target the joint search starves, and
// cutting a path exponentially longer than its search to the budget.

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ifds/for_each_witness.hpp>
#include <weir/ifds/targeted_witnesses.hpp>

#include "support/brute_force.hpp"
#include "support/ifds_gen.hpp"
#include "support/path_checker.hpp"

using namespace weir::ifds;
using weir::test::check_path;
using target = std::pair<node_id, fact_id>;

TEST_CASE("targeted witnesses: one target at a time and all at once", "[ifds][witness][targeted][random]") {
    std::size_t alone = 0, together = 0, absent = 0;
    std::uint64_t recorded = 0, whole = 0, passes = 0, short_of_budget = 0, found_within = 0;
    for (std::uint64_t seed = 2000; seed < 2250; ++seed) {
        const problem pb = weir::test::random_problem(seed, weir::test::varied_options(seed));
        const solution truth = weir::test::brute_force_solve(pb);
        const layout L = make_layout(pb);
        const layout P = make_layout(pb, intra_form::per_edge);  // the same rows, the edges per edge
        const auto solved = tabulation_solver(L).solve().value();
        std::vector<target> holding;
        for (node_id n = 0; n < pb.nodes.size(); ++n)
            for (fact_id f = 0; f < pb.fact_count(); ++f) {
                INFO("seed " << seed << " node " << pb.nodes[n].name << " fact " << pb.fact_name(f));
                const target t{n, f};
                // Odd nodes: the restricted tabulation tried from the first
                // doubling on; every third node: the per-edge layout.
                auto tw = targeted_witnesses::create(n % 3 ? L : P, solved.path_edges, std::span(&t, 1),
                                                     {.first_pass_edges = n % 2 ? 1u : 1u << 16});
                REQUIRE(tw.has_value());
                if (n % 2) passes += tw->stats().passes - 1;
                const auto w = tw->witness(n, f);
                REQUIRE(w.has_value() == truth.holds(n, f));
                if (!w) {
                    ++absent;
                    continue;
                }
                INFO(format_witness(pb, *w));
                REQUIRE_FALSE(check_path(pb, *w, n, f).has_value());
                {  // its length, counted over the records: the whole path fits it exactly
                    bool whole = false;
                    REQUIRE(tw->witness(n, f, w->size(), &whole) == w);
                    REQUIRE(whole);
                    const auto cut = tw->witness(n, f, w->size() - 1, &whole);
                    REQUIRE(cut);
                    REQUIRE_FALSE(whole);
                    REQUIRE(cut->size() < w->size());
                    REQUIRE(std::equal(cut->begin(), cut->end(), w->begin()));
                }
                holding.push_back(t);
                recorded += tw->stats().recorded_edges;
                whole += solved.stats.path_edges;
                ++alone;
            }
        // All at once: with the whole closure, and tried from its first edge on.
        auto all = targeted_witnesses::create(L, solved.path_edges, holding);
        auto early = targeted_witnesses::create(L, solved.path_edges, holding, {.first_pass_edges = 1});
        auto by_edge = targeted_witnesses::create(P, solved.path_edges, holding);
        REQUIRE(all.has_value());
        REQUIRE(early.has_value());
        REQUIRE(by_edge.has_value());
        CHECK(all->stats().passes == 1);
        CHECK(early->stats().closure_edges <= all->stats().closure_edges);
        CHECK(by_edge->stats().closure_edges == all->stats().closure_edges);  // the same edges, either form
        for (const auto& [n, f] : holding) {
            INFO("seed " << seed << " node " << pb.nodes[n].name << " fact " << pb.fact_name(f) << " (all targets)");
            for (const auto* tw : {&*all, &*early, &*by_edge}) {
                const auto w = tw->witness(n, f);
                REQUIRE(w);
                REQUIRE_FALSE(check_path(pb, *w, n, f).has_value());
            }
            // Either form visits the edges in the same order: the same witness.
            CHECK(format_witness(pb, *by_edge->witness(n, f)) == format_witness(pb, *all->witness(n, f)));
            ++together;
        }
        // Budgets below what all of them need: what comes back is a valid
        // witness, what does not is counted missing; below the fixed tables, out_of_memory.
        for (std::uint64_t budget = all->stats().bytes; budget >= 64; budget -= std::max<std::uint64_t>(32, budget / 32)) {
            auto part = targeted_witnesses::create(L, solved.path_edges, holding,
                                                   {.memory_budget = budget, .first_pass_edges = 1});
            if (!part) {
                CHECK(part.error().code() == vyre::error_code::out_of_memory);
                break;
            }
            std::size_t found = 0;
            for (const auto& [n, f] : holding) {
                INFO("seed " << seed << " node " << pb.nodes[n].name << " fact " << pb.fact_name(f) << " budget " << budget);
                const auto w = part->witness(n, f);
                if (!w) continue;
                REQUIRE_FALSE(check_path(pb, *w, n, f).has_value());
                ++found;
            }
            CHECK((found == holding.size()) == (part->stats().missing == 0));
            short_of_budget += part->stats().missing != 0;
            found_within += found;
        }
    }
    CHECK(alone > 1000);
    CHECK(together == alone);
    CHECK(absent > 1000);
    CHECK(passes > 500);  // the closure grew after a first try many times
    CHECK(short_of_budget > 50);   // the budgets cut closures short ...
    CHECK(found_within > 1000);    // ... and witnesses were found within them
    // One target records less than the whole solve, on average by far.
    CHECK(recorded * 2 < whole);
}

TEST_CASE("targeted witnesses: a long call chain, a budget, bits no solve gives", "[ifds][witness][targeted]") {
    // p0 calls p1 calls ... p{K-1}; the last generates x, which flows back out.
    constexpr int K = 3000;
    const problem pb = weir::test::call_chain_problem(K);
    const layout L = make_layout(pb);
    auto bits = tabulation_solver(L).solve().value().path_edges;

    SECTION("the exit of the outermost procedure, through every call") {
        const target t{pb.procs[0].exit, 1};
        auto tw = targeted_witnesses::create(L, bits, std::span(&t, 1));
        REQUIRE(tw);
        const auto w = tw->witness(t.first, t.second);
        REQUIRE(w);
        CHECK(w->size() == static_cast<std::size_t>(3 * K - 1));
        CHECK_FALSE(check_path(pb, *w, t.first, t.second).has_value());
    }
    SECTION("the exit of the innermost one: its prefix is the chain of calls") {
        const target t{pb.procs[K - 1].exit, 1};
        auto tw = targeted_witnesses::create(L, bits, std::span(&t, 1));
        REQUIRE(tw);
        CHECK(tw->stats().chain_contexts == static_cast<std::uint64_t>(K - 1));
        const auto w = tw->witness(t.first, t.second);
        REQUIRE(w);
        CHECK(w->size() == static_cast<std::size_t>(K + 1));
        CHECK_FALSE(check_path(pb, *w, t.first, t.second).has_value());
    }
    SECTION("past the memory budget: out_of_memory, not a crash") {
        const target t{pb.procs[0].exit, 1};
        auto tw = targeted_witnesses::create(L, bits, std::span(&t, 1), {.memory_budget = 4096});
        REQUIRE_FALSE(tw);
        CHECK(tw.error().code() == vyre::error_code::out_of_memory);
    }
    SECTION("a budget between the fixed tables and the closure: no witness, counted missing") {
        const target t{pb.procs[0].exit, 1};
        auto whole = targeted_witnesses::create(L, bits, std::span(&t, 1), {.first_pass_edges = 64});
        REQUIRE(whole);
        CHECK(whole->stats().missing == 0);
        std::size_t partial = 0;
        for (std::uint64_t budget = whole->stats().bytes; budget > 1024; budget = budget * 3 / 4) {
            auto tw = targeted_witnesses::create(L, bits, std::span(&t, 1), {.memory_budget = budget, .first_pass_edges = 64});
            if (!tw) {
                CHECK(tw.error().code() == vyre::error_code::out_of_memory);
                break;
            }
            const auto w = tw->witness(t.first, t.second);
            CHECK(w.has_value() == (tw->stats().missing == 0));
            if (w) CHECK_FALSE(check_path(pb, *w, t.first, t.second).has_value());
            partial += tw->stats().missing != 0;
        }
        CHECK(partial > 0);
    }
    // Bits that no solve gives: create refuses them, naming why.
    auto set_bit = [&](node_id n, std::uint32_t c, std::uint32_t d, bool on) {
        const std::uint64_t b = detail::row_start(L, n, c) + d;
        if (on) bits[b / 32] |= 1u << (b % 32);
        else bits[b / 32] &= ~(1u << (b % 32));
    };
    auto refused = [&](target t, const char* why) {
        auto tw = targeted_witnesses::create(L, bits, std::span(&t, 1));
        REQUIRE_FALSE(tw);
        CHECK(tw.error().code() == vyre::error_code::invalid_argument);
        CHECK_THAT(tw.error().message(), Catch::Contains(why));
    };
    SECTION("a short bitset, and a path edge no solve derives") {
        const target t{pb.procs[0].exit, 1};
        auto shorter = targeted_witnesses::create(L, std::span(bits.data(), bits.size() / 2), std::span(&t, 1));
        REQUIRE_FALSE(shorter);
        CHECK(shorter.error().code() == vyre::error_code::invalid_argument);
        // x at the start of p0: no edge generates it there.
        set_bit(pb.procs[0].start, 0, 1, true);
        refused({pb.procs[0].start, 1}, "not a solve's");
    }
    SECTION("a target's context that no seed reaches") {
        // The self-loop of p1's context x: no caller passes x into p1.
        set_bit(pb.procs[1].start, 1, 1, true);
        refused({pb.procs[1].start, 1}, "no seed reaches");
    }
    SECTION("a callee context without its self-loop") {
        set_bit(pb.procs[1].start, 0, 0, false);
        refused({pb.procs[0].exit, 1}, "self-loop");
    }
}

TEST_CASE("for_each_witness: a short witness the joint search starves, found alone", "[ifds][witness][targeted]") {
    // main: a0 -> a1 -> ... -> aM carries x from a0 on (same fact at every
    // step: the joint closure grows over it first); b0 -> b1 -> b2 makes y,
    // then turns it into z (a change of fact: searched after all of the a's).
    constexpr int M = 4000;
    problem pb;
    pb.facts = {"x", "y", "z"};
    const fact_id x = 1, y = 2, z = 3;
    auto add_node = [&](std::string name) {
        pb.nodes.push_back({std::move(name), 0});
        return static_cast<node_id>(pb.nodes.size() - 1);
    };
    const node_id s = add_node("s"), e = add_node("e");
    pb.procs.push_back({"main", s, e});
    auto with = [](flow_function f, auto&& edit) {
        edit(f);
        return f;
    };
    node_id a = add_node("a0");
    pb.flows.push_back({s, a, with(flow_function::id(), [&](flow_function& f) { f.gen.push_back(x); })});
    for (int i = 1; i <= M; ++i) {
        const node_id next = add_node("a" + std::to_string(i));
        pb.flows.push_back({a, next, flow_function::id()});
        a = next;
    }
    const node_id b0 = add_node("b0"), b1 = add_node("b1"), b2 = add_node("b2");
    pb.flows.push_back({s, b0, flow_function::id()});
    pb.flows.push_back({b0, b1, with(flow_function::id(), [&](flow_function& f) { f.gen.push_back(y); })});
    pb.flows.push_back({b1, b2, with(flow_function{}, [&](flow_function& f) { f.pairs.push_back({y, z}); })});
    pb.flows.push_back({a, e, flow_function::id()});
    pb.flows.push_back({b2, e, flow_function::id()});
    pb.seeds.push_back({s, zero_fact});
    const layout L = make_layout(pb);
    const auto bits = tabulation_solver(L).solve().value().path_edges;
    const std::vector<target> targets{{b2, z}, {a, x}};

    // A budget at which the joint search derives neither.
    auto joint = [&](std::uint64_t budget) {
        return targeted_witnesses::create(L, bits, targets, {.memory_budget = budget, .first_pass_edges = 64});
    };
    auto whole = joint(0);
    REQUIRE(whole);
    REQUIRE(whole->witness(b2, z));
    std::uint64_t budget = whole->stats().bytes;
    for (; budget > 1024; budget = budget * 7 / 8) {
        auto tw = joint(budget);
        REQUIRE(tw);
        if (!tw->witness(b2, z)) break;
    }
    REQUIRE(budget > 1024);
    INFO("budget " << budget);
    REQUIRE_FALSE(joint(budget)->witness(a, x));

    SECTION("retried alone, the short one is found; the long one stays without") {
        std::vector<std::size_t> found;
        auto st = for_each_witness(L, bits, targets, {.memory_budget = budget, .slices = 1, .first_pass_edges = 64},
                                   [&](std::size_t i, const witness_path& w, std::uint64_t, bool whole) {
                                       found.push_back(i);
                                       CHECK(whole);
                                       CHECK_FALSE(check_path(pb, w, targets[i].first, targets[i].second).has_value());
                                   });
        REQUIRE(st);
        CHECK(found == std::vector<std::size_t>{0});
        CHECK(st->found == 1);
        CHECK(st->retried == 2);  // the long one alone does not fit either
    }
    SECTION("without a budget, the joint search finds both, nothing is retried") {
        std::vector<std::size_t> found;
        auto st = for_each_witness(L, bits, targets, {}, [&](std::size_t i, const witness_path&, std::uint64_t, bool) { found.push_back(i); });
        REQUIRE(st);
        CHECK(found == std::vector<std::size_t>{0, 1});
        CHECK(st->retried == 0);
    }
    SECTION("the joint search's tables past the budget: out_of_memory, nothing reported") {
        std::size_t calls = 0;
        auto st = for_each_witness(L, bits, targets, {.memory_budget = 64}, [&](std::size_t, const witness_path&, std::uint64_t, bool) { ++calls; });
        REQUIRE_FALSE(st);
        CHECK(st.error().code() == vyre::error_code::out_of_memory);
        CHECK(calls == 0);
    }
}

TEST_CASE("for_each_witness: a path exponentially longer than its search comes cut to the budget", "[ifds][witness][targeted]") {
    // p_i (i < D) calls p_{i+1} twice; x is generated in p_0 and goes around
    // no call (each call-to-return edge keeps only the zero fact), so its
    // witness to p_0's exit passes through p_{i+1} twice at every level:
    // about 2^D * 6 vertices, from a search of a few dozen path edges.
    constexpr int D = 16;
    problem pb;
    pb.facts = {"x"};
    const fact_id x = 1;
    auto add_node = [&](std::string name, proc_id p) {
        pb.nodes.push_back({std::move(name), p});
        return static_cast<node_id>(pb.nodes.size() - 1);
    };
    std::vector<node_id> c1, r1, c2, r2;
    for (int i = 0; i <= D; ++i) {
        const auto p = static_cast<proc_id>(i);
        const std::string k = std::to_string(i);
        const node_id s = add_node("s" + k, p), e = add_node("e" + k, p);
        pb.procs.push_back({"p" + k, s, e});
        if (i == D) {
            pb.flows.push_back({s, e, flow_function::id()});
            break;
        }
        c1.push_back(add_node("c1_" + k, p)), r1.push_back(add_node("r1_" + k, p));
        c2.push_back(add_node("c2_" + k, p)), r2.push_back(add_node("r2_" + k, p));
        flow_function first = flow_function::id();
        if (i == 0) first.gen.push_back(x);
        pb.flows.push_back({s, c1[i], first});
        pb.ctrflows[c1[i]] = flow_function{};  // around the call: the zero fact only
        pb.flows.push_back({r1[i], c2[i], flow_function::id()});
        pb.ctrflows[c2[i]] = flow_function{};
        pb.flows.push_back({r2[i], e, flow_function::id()});
    }
    for (int i = 0; i < D; ++i) {
        pb.calls.push_back({c1[i], static_cast<proc_id>(i + 1), r1[i]});
        pb.calls.push_back({c2[i], static_cast<proc_id>(i + 1), r2[i]});
    }
    pb.seeds.push_back({pb.procs[0].start, zero_fact});
    const layout L = make_layout(pb);
    const auto bits = tabulation_solver(L).solve().value().path_edges;
    const std::vector<target> targets{{pb.procs[0].exit, x}};

    witness_path full;
    auto st = for_each_witness(L, bits, targets, {}, [&](std::size_t, const witness_path& w, std::uint64_t, bool whole) {
        CHECK(whole);
        full = w;
    });
    REQUIRE(st);
    REQUIRE(st->found == 1);
    REQUIRE(full.size() > (std::size_t{1} << D));
    REQUIRE_FALSE(check_path(pb, full, targets[0].first, targets[0].second).has_value());
    INFO("the search held " << st->joint.bytes << " bytes for a path of " << full.size() << " vertices");
    REQUIRE(st->joint.bytes * 16 < full.size() * sizeof(full[0]));  // the path dwarfs its search

    // A budget that the search fits with room to spare (it plans ahead
    // within it), but that the whole path would pass many times over.
    const std::uint64_t budget = 4 * st->joint.bytes + 1000 * sizeof(full[0]);
    REQUIRE(budget * 8 < full.size() * sizeof(full[0]));
    std::size_t calls = 0;
    st = for_each_witness(L, bits, targets, {.memory_budget = budget},
                          [&](std::size_t, const witness_path& w, std::uint64_t held, bool whole) {
                              ++calls;
                              CHECK_FALSE(whole);
                              CHECK(w.size() <= (budget - held) / sizeof(w[0]));
                              CHECK(w.size() * 4 > (budget - held) / sizeof(w[0]));  // not far below it
                              CHECK(w.size() < full.size());
                              CHECK(std::equal(w.begin(), w.end(), full.begin()));  // its beginning
                              CHECK(w.size() > 2);
                              if (w.size() > 2) CHECK(w[2].second == x);  // past the generation of x
                          });
    REQUIRE(st);
    CHECK(calls == 1);
}
