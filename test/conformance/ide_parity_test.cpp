// Parity: ide::resident_solver on every enabled backend that runs weir's IDE
// op equals ide::tabulation_solver, bit for bit (facts and values), on
// generated and hand-written problems; a backend without the op refuses it
// with `unsupported` before anything runs.

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

/// True when dispatcher `d` runs the IDE op; otherwise checks the refusal.
template <class D>
bool runs_ide(D& d, const weir::ide::layout<linear>& L) {
    if (weir::ide::runs_ide_solve<linear>(d)) return true;
    auto s = weir::ide::resident_solver<linear, D>::create(d, L);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code() == vyre::error_code::unsupported);
    CHECK_THAT(s.error().message(), Catch::Contains("ide_solve_linear"));
    WARN("backend " << d.backend_id() << " does not run IDE yet: refusal checked, no solve");
    return false;
}

/// Solves `pb` on `backend` and checks the solution and its sizes against tabulation.
template <class B>
void check_parity(B& backend, const weir::ide::problem<linear>& pb, std::uint64_t seed) {
    INFO("problem seed " << seed);
    const auto expect = weir::ide::tabulation_solver<linear>(pb).solve();
    const auto L = weir::ide::make_layout(pb);
    weir::vyre_resident_ifds<B> d(backend);
    if (!runs_ide(d, L)) return;
    auto solver = weir::ide::resident_solver<linear, weir::vyre_resident_ifds<B>>::create(d, L);
    if (!solver) FAIL(solver.error().what());
    for (int run = 0; run < 2; ++run) {  // a second solve reuses every buffer
        auto got = solver->solve();
        if (!got) FAIL(got.error().what());
        REQUIRE(got->result.at.size() == expect.at.size());
        for (std::size_t n = 0; n < expect.at.size(); ++n) {
            INFO("node " << pb.graph.nodes[n].name);
            CHECK(got->result.at[n] == expect.at[n]);
        }
        CHECK(got->result.stats == expect.stats);
    }
}

} // namespace

TEMPLATE_LIST_TEST_CASE("resident IDE solver equals tabulation on generated problems", "[ide][parity]", backend_list) {
    TestType b;
    for (std::uint64_t seed = 0; seed < 300; ++seed) check_parity(b, weir::test::small_ide_problem(seed), seed);
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
