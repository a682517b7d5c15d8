// Parity: ide::resident_solver on every enabled backend equals
// ide::tabulation_solver, bit for bit (facts and values), on generated and
// hand-written problems, in batches of seed sets and with graphs from a
// shared cache, with stage 2 as weir's op (where the backend runs it) and
// as the portable IR kernels (on every backend); a backend without the op
// refuses `stage2_mode::op` with `unsupported` before anything runs.

#include <cstdint>
#include <string>

#include "support/backends.hpp"
#include "support/ide_gen.hpp"

#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ide/format.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/resident_solver.hpp>
#include <weir/ide/tabulation_solver.hpp>

#ifndef WEIR_TEST_DATA_DIR
#define WEIR_TEST_DATA_DIR "test/data/ifds"
#endif

using weir::ide::linear;
using vyre::test::backend_list;

namespace {

using weir::ide::stage2_mode;

/// The modes of stage 2 to check on dispatcher `d`: the IR kernels always,
/// the op where `d` runs it (elsewhere its refusal is checked here).
template <class D>
std::vector<stage2_mode> stage2_modes(D& d, const weir::ide::layout<linear>& L) {
    if (weir::ide::runs_ide_solve<linear>(d)) return {stage2_mode::op, stage2_mode::ir_kernels};
    auto s = weir::ide::resident_solver<linear, D>::create(d, L, {}, stage2_mode::op);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code() == vyre::error_code::unsupported);
    CHECK_THAT(s.error().message(), Catch::Contains("ide_solve_linear"));
    return {stage2_mode::ir_kernels};
}

/// Checks the result and sizes of `runs` solves of `solver` (the second
/// reuses every buffer) against `expect`.
template <class Solver>
void check_solves(Solver& solver, const weir::ide::problem<linear>& pb, const weir::ide::solution<linear>& expect,
                  int runs = 2) {
    for (int run = 0; run < runs; ++run) {
        auto got = solver.solve();
        if (!got) FAIL(got.error().what());
        REQUIRE(got->result.at.size() == expect.at.size());
        for (std::size_t n = 0; n < expect.at.size(); ++n) {
            INFO("node " << pb.graph.nodes[n].name);
            CHECK(got->result.at[n] == expect.at[n]);
        }
        CHECK(got->result.stats == expect.stats);
    }
}

/// Solves `pb` on `backend` and checks the solution and its sizes against
/// tabulation; with stage 2 as the IR kernels too when `kernels`.
template <class B>
void check_parity(B& backend, const weir::ide::problem<linear>& pb, std::uint64_t seed, bool kernels = true) {
    INFO("problem seed " << seed);
    const auto expect = weir::ide::tabulation_solver<linear>(pb).solve().value();
    const auto L = weir::ide::make_layout(pb);
    weir::vyre_resident_ifds<B> d(backend);
    for (const stage2_mode mode : stage2_modes(d, L)) {
        if (mode == stage2_mode::ir_kernels && !kernels && weir::ide::runs_ide_solve<linear>(d)) continue;
        INFO("stage 2 as " << (mode == stage2_mode::op ? "the op" : "IR kernels"));
        auto solver = weir::ide::resident_solver<linear, weir::vyre_resident_ifds<B>>::create(d, L, {}, mode);
        if (!solver) FAIL(solver.error().what());
        CHECK(solver->uses_ir_kernels() == (mode == stage2_mode::ir_kernels));
        // (the kernels' buffer reuse is checked by the batch test and on the
        // no-op dispatcher: one solve each here keeps the sanitizer run short)
        check_solves(*solver, pb, expect, mode == stage2_mode::op ? 2 : 1);
    }
    if (!weir::ide::runs_ide_solve<linear>(d)) {
        // No IDE op here (cuda): stage 1 on this backend, stage 2 on the host reference.
        vyre::cpu_ref host_backend;
        weir::vyre_resident_ifds<vyre::cpu_ref> host(host_backend);
        auto split = weir::ide::resident_solver<linear, decltype(d), decltype(host)>::create(d, host, L);
        if (!split) FAIL(split.error().what());
        check_solves(*split, pb, expect);
    }
}

/// A backend, its dispatcher, and a generated problem with its layout.
template <class B>
struct resident_case {
    B b;
    weir::vyre_resident_ifds<B> d{b};
    weir::ide::problem<linear> pb;
    weir::ide::layout<linear> L;
    resident_case(std::uint64_t seed, std::uint64_t size)
        : pb(weir::test::random_ide_problem(seed, weir::test::larger_options(size))), L(weir::ide::make_layout(pb)) {}
};

} // namespace

TEMPLATE_LIST_TEST_CASE("resident IDE solver equals tabulation on generated problems", "[ide][parity]", backend_list) {
    TestType b;
    // (the IR kernels on every third: they run interpreted on the host
    // backends, and the sanitizer run of this suite must stay short)
    for (std::uint64_t seed = 0; seed < 300; ++seed)
        check_parity(b, weir::test::small_ide_problem(seed), seed, seed % 3 == 0);
}

TEMPLATE_LIST_TEST_CASE("resident IDE solver equals tabulation on larger generated problems", "[ide][parity]",
                        backend_list) {
    TestType b;
    for (std::uint64_t seed = 1000; seed < 1030; ++seed)
        check_parity(b, weir::test::random_ide_problem(seed, weir::test::larger_options(seed)), seed);
}

TEMPLATE_LIST_TEST_CASE("resident IDE solver equals tabulation on the hand-written .ide cases", "[ide][parity]",
                        backend_list) {
    TestType b;
    for (const char* name : {"contexts.ide", "recursion.ide", "overflow.ide"}) {
        INFO(name);
        auto pb = weir::ide::load_problem_file<linear>(std::string(WEIR_TEST_DATA_DIR) + "/../ide/" + name);
        if (!pb) FAIL(pb.error().what());
        check_parity(b, *pb, 0);
    }
}

TEMPLATE_LIST_TEST_CASE("resident IDE solver: batches of seed sets with values, and a shared graph cache", "[ide][resident]",
                        backend_list) {
    resident_case<TestType> c(4242, 12);
    auto& d = c.d;
    const auto& pb = c.pb;
    const auto& L = c.L;
    for (const stage2_mode mode : stage2_modes(d, L)) {
        INFO("stage 2 as " << (mode == stage2_mode::op ? "the op" : "IR kernels"));
        weir::ifds::resident_graph_cache<decltype(c.d)> cache;
        auto solver = weir::ide::resident_solver<linear, decltype(c.d)>::create(d, L, cache, {}, mode);
        if (!solver) FAIL(solver.error().what());
        // Seed sets: each start node with its zero fact, or a fact of its procedure with a value.
        std::vector<weir::ide::seed_set<linear>> sets;
        for (std::uint32_t p = 0; p < L.graph.num_procs && sets.size() < 6; ++p) {
            weir::ide::seed_set<linear> s;
            s.node.push_back(L.graph.proc_start[p]);
            s.fact.push_back(0);
            s.value.push_back(linear::constant_value(99));  // ignored: the zero fact's value is bottom
            if (L.graph.fact_count(p) > 1) {
                s.node.push_back(L.graph.proc_start[p]);
                s.fact.push_back(L.graph.fact_count(p) - 1);
                s.value.push_back(linear::constant_value(static_cast<std::int64_t>(p) - 3));
            }
            sets.push_back(s);
        }
        sets.push_back({});  // no seed at all: nothing holds
        auto got = solver->solve_batch(sets);
        if (!got) FAIL(got.error().what());
        REQUIRE(got->size() == sets.size());
        for (std::size_t i = 0; i < sets.size(); ++i) {
            INFO("seed set " << i);
            weir::ide::problem<linear> one = pb;  // the same problem with this set's seeds, in global terms
            one.graph.seeds.clear();
            one.seed_values.clear();
            for (std::size_t k = 0; k < sets[i].node.size(); ++k) {
                const auto n = sets[i].node[k];
                one.graph.seeds.push_back({n, L.graph.global_fact(L.graph.node_proc[n], sets[i].fact[k])});
                one.seed_values.push_back(sets[i].value[k]);
            }
            const auto expect = weir::ide::tabulation_solver<linear>(one).solve().value();
            CHECK((*got)[i].result == expect);
            CHECK((*got)[i].result.stats == expect.stats);
        }
        // the layout's own seeds again, after the batch overwrote the resident seeds
        CHECK(solver->solve()->result == weir::ide::tabulation_solver<linear>(pb).solve().value());
        // a second solver of the same layout takes both graphs from the cache
        const auto misses = cache.stats().misses;
        auto again = weir::ide::resident_solver<linear, decltype(c.d)>::create(d, L, cache, {}, mode);
        if (!again) FAIL(again.error().what());
        CHECK(cache.stats().misses == misses);
        CHECK(cache.stats().hits >= 2);
        CHECK(again->solve()->result == weir::ide::tabulation_solver<linear>(pb).solve().value());
        // malformed seed sets are refused before anything runs
        weir::ide::seed_set<linear> bad = sets[0];
        bad.value.pop_back();
        auto e1 = solver->solve(bad);
        REQUIRE_FALSE(e1.has_value());
        CHECK(e1.error().code() == vyre::error_code::invalid_argument);
        bad = sets[0];
        bad.node[0] = L.graph.proc_exit[0] == L.graph.proc_start[0] ? bad.node[0] : L.graph.proc_exit[0];
        if (bad.node[0] != sets[0].node[0]) {
            auto e2 = solver->solve(bad);
            REQUIRE_FALSE(e2.has_value());
            CHECK_THAT(e2.error().message(), Catch::Contains("not at a start node"));
        }
    }
}

TEST_CASE("ide::make_layout refuses an edge that carries top", "[ide][layout]") {
    auto pb = weir::test::small_ide_problem(3);
    REQUIRE_FALSE(pb.graph.flows.empty());
    pb.flow_functions[0] = {{0, 0, linear::top()}};
    CHECK_THROWS_WITH(weir::ide::make_layout(pb), Catch::Contains("the function top"));
}

TEMPLATE_LIST_TEST_CASE("resident IDE solver: the memory budget bounds both stages", "[ide][resident][budget]",
                        backend_list) {
    resident_case<TestType> c(77, 20);
    auto& b = c.b;
    auto& d = c.d;
    const auto& L = c.L;
    for (const stage2_mode mode : stage2_modes(d, L)) {
        INFO("stage 2 as " << (mode == stage2_mode::op ? "the op" : "IR kernels"));
        const auto& pb = c.pb;
        const auto expect = weir::ide::tabulation_solver<linear>(pb).solve().value();
        using solver_t = weir::ide::resident_solver<linear, decltype(c.d)>;
        // Unbounded: what the solver holds after create, and after a solve (the jump functions too).
        auto free_run = solver_t::create(d, L, {}, mode);
        if (!free_run) FAIL(free_run.error().what());
        const std::uint64_t created = free_run->held_bytes();
        REQUIRE(free_run->solve()->result == expect);
        const std::uint64_t solved = free_run->held_bytes();
        REQUIRE(solved > created);
        auto with = [&](std::uint64_t budget) {
            weir::ifds::resident_options o;
            o.memory_budget = budget;
            return solver_t::create(d, L, o, mode);
        };
        // Exactly enough: the same values.
        {
            auto s = with(solved);
            if (!s) FAIL(s.error().what());
            auto out = s->solve();
            if (!out) FAIL(out.error().what());
            CHECK(out->result == expect);
            CHECK(s->held_bytes() == solved);
        }
        // Enough for the graphs and tables, not for the jump functions: the solve fails, naming them.
        {
            auto s = with(solved - 1);
            if (s) {
                auto out = s->solve();
                REQUIRE_FALSE(out.has_value());
                CHECK(out.error().code() == vyre::error_code::out_of_memory);
                CHECK_THAT(out.error().message(), Catch::Contains("memory budget of " + std::to_string(solved - 1)));
            } else {
                CHECK(s.error().code() == vyre::error_code::out_of_memory);
            }
            auto t = with(created);
            if (!t) FAIL(t.error().what());
            auto out = t->solve();
            REQUIRE_FALSE(out.has_value());
            CHECK(out.error().code() == vyre::error_code::out_of_memory);
            CHECK_THAT(out.error().message(), Catch::Contains("jump functions"));
        }
        // Too small for stage 2's tables: create fails, and frees what it took.
        {
            auto live_bytes = [&] { return b.backend_metric_snapshot()["live_bytes"]; };
            const auto live = live_bytes();
            auto s = with(created - 1);
            REQUIRE_FALSE(s.has_value());
            CHECK(s.error().code() == vyre::error_code::out_of_memory);
            CHECK(live_bytes() == live);
        }
    }
}
