// Reliability of the IFDS solvers: memory budgets (tabulation, witnesses,
// resident) and injected faults at every allocation, upload and dispatch
// under every public resident operation (graph upload, cache, solver
// creation, solve, batch). A failure is an error with nothing partial
// presented as complete; the memory taken is given back; the next solve is
// exact again.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "support/ifds_gen.hpp"

#include <vyre/testing/fault_injector.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ifds/witness.hpp>

using namespace weir::ifds;
using vyre::error_code;
using vyre::test::backend_list;
using vyre::testing::fault_site;

namespace {
/// A generated problem big enough for several rounds and frontier growth.
layout test_layout(std::uint64_t seed = 7) {
    weir::test::gen_options o;
    o.procs = 12;
    o.facts = 9;
    o.max_nodes = 9;
    o.seeds = 3;
    return make_layout(weir::test::random_problem(seed, o));
}

constexpr fault_site all_sites[] = {fault_site::allocate, fault_site::upload, fault_site::dispatch};

/// For n = 1, 2, ...: arms the n-th call at `site`, runs `attempt` (true on
/// success) and disarms. Every attempt the fault struck must have failed, and
/// `after` must hold after it. Stops at the first attempt that ran through
/// without the fault striking (which must succeed). Returns the faults injected.
template <class B>
std::uint64_t sweep(B& b, fault_site site, const std::function<bool()>& attempt, const std::function<void()>& after) {
    auto& faults = vyre::testing::faults(b);
    for (std::uint64_t n = 1;; ++n) {
        INFO("fault at call " << n << " of site " << vyre::testing::to_string(site));
        const auto before = faults.injected();
        faults.fail_nth(site, n);
        const bool ok = attempt();
        faults.disarm();
        const bool struck = faults.injected() != before;
        if (!struck) {
            REQUIRE(ok);
            return n - 1;
        }
        CHECK_FALSE(ok);
        after();
    }
}
} // namespace

TEST_CASE("tabulation memory budget: out_of_memory and no result, or the exact result", "[reliability][budget]") {
    auto L = test_layout();
    auto exact = tabulation_solver(L).solve().value();
    auto tiny = tabulation_solver(L, {.memory_budget = 64}).solve();
    REQUIRE_FALSE(tiny.has_value());
    CHECK(tiny.error().code() == error_code::out_of_memory);
    CHECK(tiny.error().message().find("memory budget of 64") != std::string::npos);
    // Some budget between "too small" and "enough" fails partway through the
    // solve (not only at its start): find it by bisection and check the edge.
    std::uint64_t lo = 64, hi = 1 << 26;
    REQUIRE(tabulation_solver(L, {.memory_budget = hi}).solve().has_value());
    while (hi - lo > 1) {
        const auto mid = (lo + hi) / 2;
        (tabulation_solver(L, {.memory_budget = mid}).solve() ? hi : lo) = mid;
    }
    auto at = tabulation_solver(L, {.memory_budget = hi}).solve();
    REQUIRE(at.has_value());
    CHECK(at->path_edges == exact.path_edges);
    CHECK_FALSE(tabulation_solver(L, {.memory_budget = lo}).solve().has_value());
    CHECK(lo > std::uint64_t(L.pe_words) * 4);  // the bitset fitted; growth in the solve did not
    // The witness builder obeys the same budget.
    auto wb = witness_builder::create(L, {.memory_budget = 64});
    REQUIRE_FALSE(wb.has_value());
    CHECK(wb.error().code() == error_code::out_of_memory);
    auto wb_ok = witness_builder::create(L);
    REQUIRE(wb_ok.has_value());
    CHECK(wb_ok->path_edges() == exact.path_edges);
}

TEMPLATE_LIST_TEST_CASE("resident memory budgets: the solver's and the backend's", "[reliability][budget]",
                        backend_list) {
    using device_t = weir::vyre_resident_ifds<TestType>;
    TestType b;
    device_t d(b);
    auto L = test_layout();
    auto exact = tabulation_solver(L).solve().value();
    SECTION("solver budget too small for the graph") {
        auto s = resident_solver<device_t>::create(d, L, {.memory_budget = 256});
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code() == error_code::out_of_memory);
        CHECK(s.error().message().find("memory budget of 256") != std::string::npos);
    }
    SECTION("solver budget enough to start, too small for the frontier to grow") {
        // Rounds keep a frontier between them (row_solve has none to grow).
        auto probe = resident_solver<device_t>::create(d, L, {.mode = kernel_mode::ir_kernels, .initial_frontier = 16}).value();
        auto out = probe.solve().value();
        REQUIRE(out.stats.max_frontier > 16);  // this problem makes the frontier grow
        auto snap = b.backend_metric_snapshot();  // (host backends borrow the layout's tables: not in resident_bytes)
        const std::uint64_t start = snap["live_bytes"] + snap["live_borrowed_bytes"] + std::uint64_t(L.pe_words) * 4;
        resident_options opt;
        opt.mode = kernel_mode::ir_kernels;
        opt.initial_frontier = 16;
        opt.memory_budget = start;  // exactly what the solver takes at creation
        auto s = resident_solver<device_t>::create(d, L, opt);
        REQUIRE(s.has_value());
        auto bad = s->solve();
        REQUIRE_FALSE(bad.has_value());
        CHECK(bad.error().code() == error_code::out_of_memory);
        CHECK(bad.error().message().find("frontier") != std::string::npos);
    }
    SECTION("backend budget") {
        b.set_resident_budget(512);
        auto s = resident_solver<device_t>::create(d, L);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code() == error_code::out_of_memory);
        b.set_resident_budget(0);
        auto ok = resident_solver<device_t>::create(d, L);
        REQUIRE(ok.has_value());
        CHECK(ok->solve().value().path_edges == exact.path_edges);
    }
    CHECK(b.resident_bytes() == 0);  // every solver above is gone, and so is its memory
    CHECK(b.backend_metric_snapshot()["live_borrowed_bytes"] == 0);  // and every borrowed table is given back
}

TEMPLATE_LIST_TEST_CASE("faults under resident_solver::create: error, nothing held, backend usable",
                        "[reliability][faults]", backend_list) {
    using device_t = weir::vyre_resident_ifds<TestType>;
    TestType b;
    device_t d(b);
    auto L = test_layout();
    auto exact = tabulation_solver(L).solve().value();
    for (auto site : all_sites)
        for (auto mode : {kernel_mode::ir_kernels, kernel_mode::row_solve}) {
            resident_options opt;
            opt.mode = mode;
            opt.initial_frontier = 16;
            sweep(
                b, site,
                [&] {
                    auto s = resident_solver<device_t>::create(d, L, opt);
                    if (!s) return false;
                    auto out = s->solve();
                    if (!out) return false;
                    CHECK(out->path_edges == exact.path_edges);
                    return true;
                },
                [&] { CHECK(b.resident_bytes() == 0); });
        }
    CHECK(b.resident_bytes() == 0);
}

TEMPLATE_LIST_TEST_CASE("faults inside a solve: error, the solver solves exactly afterwards", "[reliability][faults]",
                        backend_list) {
    using device_t = weir::vyre_resident_ifds<TestType>;
    TestType b;
    device_t d(b);
    auto L = test_layout();
    auto exact = tabulation_solver(L).solve().value();
    std::vector<seed_set> sets(3);
    for (std::size_t i = 0; i < L.seed_node.size(); ++i) {
        sets[i % 3].node.push_back(L.seed_node[i]);
        sets[i % 3].fact.push_back(L.seed_fact[i]);
    }
    std::vector<tabulation_solver::output> expect;
    for (const auto& s : sets) expect.push_back(tabulation_solver(L).solve(s.node, s.fact).value());
    for (auto site : all_sites) {
        resident_options opt;
        opt.initial_frontier = 16;
        auto s = resident_solver<device_t>::create(d, L, opt).value();
        const auto held = b.resident_bytes();
        auto injected = sweep(
            b, site,
            [&] {
                auto out = s.solve_batch(sets);
                if (!out) return false;
                REQUIRE(out->size() == sets.size());
                for (std::size_t i = 0; i < sets.size(); ++i) CHECK((*out)[i].path_edges == expect[i].path_edges);
                return true;
            },
            [&] {
                // A failed solve may have grown a frontier (kept for the next solve), never leaked one.
                CHECK(b.resident_bytes() >= held);
                CHECK(s.solve().value().path_edges == exact.path_edges);
            });
        if (site != fault_site::allocate) CHECK(injected > 0);  // a solve uploads and dispatches
    }
    CHECK(b.resident_bytes() == 0);
}

TEMPLATE_LIST_TEST_CASE("faults under the graph cache: no entry for a failed upload, no leak", "[reliability][faults]",
                        backend_list) {
    using device_t = weir::vyre_resident_ifds<TestType>;
    TestType b;
    device_t d(b);
    auto L = test_layout();
    auto exact = tabulation_solver(L).solve().value();
    for (auto site : {fault_site::allocate, fault_site::upload}) {
        resident_graph_cache<device_t> cache;
        auto injected = sweep(
            b, site,
            [&] {
                auto g = cache.get(d, L);
                if (!g) return false;
                auto s = resident_solver<device_t>::create(d, L, *g);
                if (!s) return false;
                auto out = s->solve();
                if (!out) return false;
                CHECK(out->path_edges == exact.path_edges);
                return true;
            },
            [&] {
                // A failed upload leaves no entry; a failure after it, the cached graph only.
                CHECK(cache.stats().entries <= 1);
                CHECK(b.resident_bytes() == cache.stats().bytes);
            });
        CHECK(injected > 0);
        CHECK(cache.stats().entries == 1);
        cache.clear();
        CHECK(b.resident_bytes() == 0);
    }
}
