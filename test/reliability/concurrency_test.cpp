// Thread safety: one backend instance used from 8 threads at once for
// dispatches, resident allocations, transfers and frees, misuse, and IFDS
// solves through a shared graph cache. Run under ThreadSanitizer by
// `./run tsan` (CI too). Catch2's assertions are not thread-safe, so the
// threads count their failures and the checks happen after the join.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "support/backends.hpp"
#include "support/ifds_gen.hpp"

#include <weir/ifds/ops/cpu.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ifds/format.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/ifds/tabulation_solver.hpp>

using namespace vyre;
using vyre::test::backend_list;
using vyre::test::from_bytes;
using vyre::test::parse_checked;
using vyre::test::to_bytes;

namespace {
constexpr unsigned n_threads = 8;

/// The first failure seen by any thread, and how many there were.
struct failures {
    std::atomic<unsigned> count{0};
    std::mutex mu;
    std::string first;
    void add(const std::string& what) {
        if (count++ == 0) {
            std::lock_guard lk(mu);
            first = what;
        }
    }
};

/// Runs `body(thread_index)` on `n_threads` threads at once (started together).
template <class F>
void on_threads(F body) {
    std::atomic<unsigned> ready{0};
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < n_threads; ++t)
        ts.emplace_back([&, t] {
            ready++;
            while (ready.load() < n_threads) std::this_thread::yield();
            body(t);
        });
    for (auto& th : ts) th.join();
}

std::string add_k(unsigned k) {
    return "(program add_" + std::to_string(k) + " (workgroup 32 1 1)\n"
           "  (buffer x 0 read_write u32 0)\n  (buffer hits 1 read_write u32 1)\n"
           "  (let i (gid x))\n"
           "  (if (lt i (len x)) ((store x i (add (load x i) " + std::to_string(k) + ")) (let h (atomic_add hits 0 1)))))\n";
}
} // namespace

TEMPLATE_LIST_TEST_CASE("one backend, 8 threads: dispatch, resident memory, misuse", "[concurrency]", backend_list) {
    TestType b;
    // Three programs shared by all threads (one compiled-program cache entry each).
    std::vector<ir::program> progs;
    for (unsigned k = 1; k <= 3; ++k) progs.push_back(parse_checked(add_k(k)));
    failures fail;
    const unsigned iters = 40;
    on_threads([&](unsigned t) {
        for (unsigned it = 0; it < iters; ++it) {
            const unsigned k = (t + it) % 3;
            const std::uint32_t n = 50 + 7 * t + it;
            std::vector<std::uint32_t> v(n);
            std::iota(v.begin(), v.end(), t * 1000u);
            const auto in = to_bytes(v);
            // plain dispatch
            std::vector<bytes> inputs{in, bytes(4, 0)};
            auto out = vyre::dispatch(b, progs[k], inputs);
            if (!out) { fail.add(out.error().what()); continue; }
            auto got = from_bytes<std::uint32_t>((*out)[0]);
            for (std::uint32_t i = 0; i < n; ++i)
                if (got[i] != v[i] + k + 1) { fail.add("dispatch: wrong element"); break; }
            if (from_bytes<std::uint32_t>((*out)[1])[0] != n) fail.add("dispatch: wrong atomic count");
            // resident: allocate, batched upload, dispatch twice, ranged download, free
            auto x = b.allocate(in.size());
            auto h = b.allocate(4);
            if (!x || !h) { fail.add("allocate failed"); continue; }
            const bytes zero(4, 0);
            std::vector<upload_op<typename TestType::resource>> ups{{*x, in}, {*h, zero}};
            if (!b.upload_many(std::span<const upload_op<typename TestType::resource>>(ups))) fail.add("upload_many");
            std::vector<typename TestType::resource> rs{*x, *h};
            for (int rep = 0; rep < 2; ++rep)
                if (auto r = b.dispatch_resident(progs[k], rs, {}); !r) fail.add(r.error().what());
            auto last = b.download_range(*x, (n - 1) * 4, 4);
            if (!last || from_bytes<std::uint32_t>(*last)[0] != v[n - 1] + 2 * (k + 1)) fail.add("resident: wrong last element");
            auto hits = b.download(*h);
            if (!hits || from_bytes<std::uint32_t>(*hits)[0] != 2 * n) fail.add("resident: wrong atomic count");
            if (!b.free(*x) || !b.free(*h)) fail.add("free failed");
            // misuse from many threads: a freed handle is an error every time
            if (b.download(*x).has_value()) fail.add("download after free succeeded");
            if (b.free(*x).has_value()) fail.add("double free succeeded");
        }
    });
    INFO(fail.first);
    CHECK(fail.count == 0);
    CHECK(b.resident_bytes() == 0);
    auto m = b.backend_metric_snapshot();
    CHECK(m["allocations"] == 2 * n_threads * iters);
    CHECK(m["frees"] == 2 * n_threads * iters);
    CHECK(m["resident_dispatches"] == 2 * n_threads * iters);
    CHECK(b.pipeline_cache_snapshot().entries == 3);
}

TEMPLATE_LIST_TEST_CASE("one backend, 8 threads: IFDS solves through one graph cache", "[concurrency]",
                        backend_list) {
    using device_t = weir::vyre_resident_ifds<TestType>;
    using namespace weir::ifds;
    TestType b;
    device_t d(b);
    // Four problems: two threads share each layout (and its cached graph).
    std::vector<layout> layouts;
    std::vector<std::vector<std::uint32_t>> expect;
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
        weir::test::gen_options o;
        o.procs = 6 + seed;
        o.facts = 5;
        o.max_nodes = 7;
        o.seeds = 2;
        layouts.push_back(make_layout(weir::test::random_problem(100 + seed, o)));
        expect.push_back(tabulation_solver(layouts.back()).solve().value().path_edges);
    }
    resident_graph_cache<device_t> cache;
    failures fail;
    on_threads([&](unsigned t) {
        const auto& L = layouts[t % layouts.size()];
        for (unsigned it = 0; it < 4; ++it) {
            auto g = cache.get(d, L);
            if (!g) { fail.add(g.error().what()); return; }
            resident_options opt;
            opt.initial_frontier = 16;  // make the frontiers grow: allocations while others solve
            auto s = resident_solver<device_t>::create(d, L, *g, opt);
            if (!s) { fail.add(s.error().what()); return; }
            auto out = s->solve();
            if (!out) { fail.add(out.error().what()); return; }
            if (out->path_edges != expect[t % layouts.size()]) fail.add("solve " + std::to_string(t) + ": wrong path edges");
            // the oracle on the same thread, at the same time as the resident solves
            if (tabulation_solver(L).solve().value().path_edges != out->path_edges) fail.add("tabulation differs");
        }
    });
    INFO(fail.first);
    CHECK(fail.count == 0);
    CHECK(cache.stats().entries == layouts.size());
    cache.clear();
    CHECK(b.resident_bytes() == 0);
}

TEST_CASE("ifds_rows_solve shares its worklist between threads and stays exact", "[concurrency][ifds]") {
    using namespace weir::ifds;
    // Big enough for the op to use its threads (a packed path-edge bitset of
    // at least `rows_solve_parallel_words` words).
    // Many small procedures, and (seed 13) a few large ones, whose chunks of
    // groups are cut inside a procedure (`detail::finish_chunk_most`).
    weir::test::gen_options small;
    small.procs = 1000;
    small.facts = 15;
    small.max_nodes = 10;
    small.seeds = 6;
    weir::test::gen_options large = small;
    large.procs = 2;
    large.min_nodes = 2500;
    large.max_nodes = 3000;
    std::size_t shared = 0;
    for (std::uint64_t seed : {11u, 12u, 13u}) {
        auto L = make_layout(weir::test::random_problem(seed, seed == 13 ? large : small));
        const row_tables rt = make_row_tables(L);
        REQUIRE(rt.packing.words >= weir::ops::ifds_solve::parallel_words);
        // The host pass after the solve completes derived rows in chunks of groups
        // on several threads: a node with roots in two chunks has its words written
        // by two threads at once (atomic ORs; ThreadSanitizer runs this).
        for (const std::uint8_t s : rt.derived.shared) shared += s;
        const auto expect = tabulation_solver(L).solve().value();
        for (unsigned threads : {2u, 4u}) {
            INFO("seed " << seed << ", " << threads << " threads");
            vyre::cpu b(threads);
            weir::vyre_resident_ifds<vyre::cpu> d(b);
            weir::ifds::resident_options opts;
            opts.mode = kernel_mode::row_solve;
            opts.host_threads = threads;
            auto s = resident_solver<weir::vyre_resident_ifds<vyre::cpu>>::create(d, L, opts);
            REQUIRE(s.has_value());
            for (int rep = 0; rep < 3; ++rep) {  // the interleaving differs from run to run; the bits may not
                auto out = s->solve();
                REQUIRE(out.has_value());
                CHECK(out->path_edges == expect.path_edges);
                CHECK(out->stats.path_edges == expect.stats.path_edges);
                CHECK(out->stats.summary_edges == expect.stats.summary_edges);
            }
        }
    }
    CHECK(shared > 0);  // the atomic path ran
}

TEST_CASE("the .ifds loader reads statements on several threads and gives what one thread gives",
          "[concurrency][ifds]") {
    using namespace weir::ifds;
    // The read-ahead's threads read the name tables while the calling thread
    // checks the chunks they have read (ThreadSanitizer runs this); then a
    // text whose read-ahead ends early (a declaration among the statements).
    weir::test::gen_options o;
    o.procs = 300;
    o.facts = 12;
    o.max_nodes = 12;
    const std::string text = print_problem(weir::test::random_problem(21, o));
    // at a line boundary among the flow lines: a declaration (valid), then an unknown node (an error)
    const std::size_t cut = text.find('\n', text.find("\nflow ") + 8000) + 1;
    REQUIRE(cut > 8000);
    const std::string late = text.substr(0, cut) + "facts late_fact\n" + text.substr(cut);
    const std::string bad = text.substr(0, cut) + "flow no_such_node no_such_node id\n" + text.substr(cut);
    for (const std::string* t : {&text, &late, &bad}) {
        auto one = load_problem(*t, "t.ifds", load_options{1});
        REQUIRE(one.has_value() == (t != &bad));
        for (unsigned threads : {2u, 4u})
            for (std::size_t chunk : {std::size_t{64}, std::size_t{4096}}) {
                INFO(threads << " threads, runs of " << chunk << " bytes");
                auto many = load_problem(*t, "t.ifds", load_options{threads, 0, chunk});
                REQUIRE(many.has_value() == one.has_value());
                if (one) CHECK(*many == *one);
                else CHECK(many.error().what() == one.error().what());
            }
    }
}
