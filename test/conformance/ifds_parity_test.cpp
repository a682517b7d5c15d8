// Parity: resident_solver on every enabled backend equals tabulation_solver,
// bit for bit on the path-edge sets, on generated and hand-made problems.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/backends.hpp"
#include "support/brute_force.hpp"
#include "support/ifds_gen.hpp"

#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ifds/format.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#ifndef WEIR_TEST_DATA_DIR
#define WEIR_TEST_DATA_DIR "test/data/ifds"
#endif

using namespace weir::ifds;
using vyre::test::backend_list;

namespace {
/// Every way of running a round; each must give the same bits.
constexpr kernel_mode all_modes[] = {kernel_mode::ir_kernels, kernel_mode::row_solve};
const char* mode_name(kernel_mode m) { return m == kernel_mode::ir_kernels ? "ir_kernels" : "row_solve"; }

/// True when dispatcher `d` runs `mode` (row_solve needs weir's host op,
/// which `cuda` does not list); for the others, checks that a solver in that
/// mode is refused with `unsupported` before anything runs.
template <class D>
bool runs_mode(D& d, const layout& L, kernel_mode mode) {
    if (mode != kernel_mode::row_solve || runs_row_solve(d)) return true;
    resident_options opt;
    opt.mode = mode;
    auto s = resident_solver<D>::create(d, L, opt);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code() == vyre::error_code::unsupported);
    CHECK_THAT(s.error().message(), Catch::Contains("ifds_rows_solve"));
    return false;
}

/// Solves `pb` on `backend` in every mode, checks each against tabulation (bits
/// and statistics), and returns the solution.
template <class B>
solution check_parity(B& backend, const problem& pb, std::uint64_t seed = 0) {
    INFO("problem seed " << seed);
    auto L = make_layout(pb);
    const layout P = make_layout(pb, intra_form::per_edge);  // what the row-wise solve reads
    auto expect = tabulation_solver(L).solve().value();
    weir::vyre_resident_ifds<B> d(backend);
    // Every way of running a round: IR kernels, per-edge ops, row ops.
    for (auto mode : all_modes) {
        INFO("mode " << mode_name(mode));
        if (!runs_mode(d, L, mode)) continue;
        resident_options opt;
        opt.mode = mode;
        auto solver = resident_solver<weir::vyre_resident_ifds<B>>::create(d, L, opt);
        REQUIRE(solver.has_value());
        CHECK(solver->mode() == mode);
        auto got = solver->solve();
        if (!got) FAIL(got.error().what());
        CHECK(got->path_edges == expect.path_edges);
        CHECK(got->stats.path_edges == expect.stats.path_edges);
        CHECK(got->stats.contexts == expect.stats.contexts);
        CHECK(got->stats.summary_edges == expect.stats.summary_edges);
        // the intraprocedural edges per edge only: the row-wise solve is the
        // same, the per-fact kernels refuse the layout before anything runs
        auto on_edges = resident_solver<weir::vyre_resident_ifds<B>>::create(d, P, opt);
        if (mode == kernel_mode::row_solve) {
            REQUIRE(on_edges.has_value());
            auto again = on_edges->solve();
            if (!again) FAIL(again.error().what());
            CHECK(again->path_edges == expect.path_edges);
            CHECK(again->stats.path_edges == expect.stats.path_edges);
            CHECK(again->stats.summary_edges == expect.stats.summary_edges);
        } else {
            REQUIRE_FALSE(on_edges.has_value());
            CHECK(on_edges.error().code() == vyre::error_code::invalid_argument);
            CHECK_THAT(on_edges.error().message(), Catch::Contains("per edge only"));
        }
    }
    return extract_solution(L, expect.path_edges);  // equal to every resident run above
}

/// `check_parity` on the random problems of seeds [first, last), with the
/// generator's options for each seed set by `set(options, seed)`.
template <class B, class Set>
void check_parity_on_seeds(B& backend, std::uint64_t first, std::uint64_t last, Set set) {
    for (std::uint64_t seed = first; seed < last; ++seed) {
        weir::test::gen_options o;
        set(o, seed);
        check_parity(backend, weir::test::random_problem(seed, o), seed);
    }
}
} // namespace

TEMPLATE_LIST_TEST_CASE("resident solver equals tabulation on generated problems", "[ifds][parity]", backend_list) {
    TestType b;
    check_parity_on_seeds(b, 0, 300, [](weir::test::gen_options& o, std::uint64_t seed) {
        o.procs = 1 + seed % 6;
        o.facts = 1 + seed % 5;
        o.max_nodes = 3 + seed % 5;
        o.seeds = 1 + seed % 3;
    });
}

TEMPLATE_LIST_TEST_CASE("resident solver equals tabulation on larger generated problems", "[ifds][parity]",
                        backend_list) {
    TestType b;
    check_parity_on_seeds(b, 1000, 1040,
                          [](weir::test::gen_options& o, std::uint64_t seed) { o = weir::test::larger_options(seed); });
}

TEMPLATE_LIST_TEST_CASE("resident solver equals tabulation on procedures of many facts", "[ifds][parity]",
                        backend_list) {
    // Callers of up to 64 facts return through one or two words of masks per
    // callee fact (row_tables' call tables), wider ones through the layout's
    // return relation: seeds 2000-2002 have callers of 33-64 facts, 2003
    // callers of more.
    TestType b;
    check_parity_on_seeds(b, 2000, 2004, [](weir::test::gen_options& o, std::uint64_t seed) {
        o.procs = 2 + seed % 3;
        o.facts = 30 + 35 * (seed % 3);
        o.min_nodes = 4, o.max_nodes = 8;
        o.p_gen = o.p_pair = 0.7;
        o.p_kill = 0.5, o.p_call = 0.4;
        o.seeds = 1 + seed % 2;
        if (seed % 2) o.facts = 100, o.min_nodes = 8, o.max_nodes = 12, o.p_gen = o.p_pair = 0.9;
    });
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
        auto expect = tabulation_solver(L).solve(sets[i].node, sets[i].fact).value();
        CHECK((*outs)[i].path_edges == expect.path_edges);
    }
    auto after = b.backend_metric_snapshot();
    // The graph was not uploaded again: per solve only counters (16 B a round) and seeds moved up.
    std::uint64_t up = after["bytes_uploaded"] - after_upload["bytes_uploaded"];
    std::uint64_t rounds = 0;
    for (const auto& out : *outs) rounds += out.stats.rounds + 1;
    CHECK(up <= rounds * 16 * 4 + sets.size() * 8);
    // Downloads: the 4-byte counter per round, and the resident bitset per
    // solve (packed in the row modes: the solved nodes' blocks only) unless
    // the solve ran in place: in the result's own vector, adopted and given
    // back (reclaimed), so that no bitset is copied.
    using solver_t = resident_solver<weir::vyre_resident_ifds<TestType>>;
    std::uint64_t down = after["bytes_downloaded"] - after_upload["bytes_downloaded"];
    const std::uint32_t bitset_words = solver->graph()->bitset_words();
    CHECK(bitset_words == (needs_rows(solver->mode()) ? make_row_tables(L).packing.words : L.pe_words));
    std::uint64_t result_bytes = sets.size() * std::uint64_t(std::max<std::uint32_t>(bitset_words, 1)) * 4;
    if constexpr (solver_t::solves_in_place) {
        CHECK(after["bytes_reclaimed"] - after_upload["bytes_reclaimed"] ==
              sets.size() * std::uint64_t(std::max<std::uint32_t>(L.pe_words, 1)) * 4);
        CHECK(after["allocations"] - after_upload["allocations"] == sets.size());  // the results, adopted
        result_bytes = 0;
    } else {
        CHECK(after["allocations"] == after_upload["allocations"]);  // every buffer reused
    }
    CHECK(down >= result_bytes);
    CHECK(down - result_bytes <= rounds * 4 * 4);
}

// ---- hand-made problems -------------------------------------------------------------
// Each is solved on the backend and by tabulation (bits must be equal), checked
// against the naive reference (support/brute_force.hpp), and against the result
// computed by hand from the spec: the whole `weir solve` text, and the facts
// that decide each case.

namespace {

/// Solves `pb` on `backend`, checks parity with tabulation and the brute-force
/// reference, and returns the solution.
template <class B>
solution resident_solution(B& backend, const problem& pb) {
    auto s = check_parity(backend, pb);
    CHECK(s == weir::test::brute_force_solve(pb));
    return s;
}

/// The facts at node `name`, as `weir solve` lists them ("" when none holds).
std::string facts_at(const problem& pb, const solution& s, const std::string& name) {
    for (node_id n = 0; n < pb.nodes.size(); ++n)
        if (pb.nodes[n].name == name) {
            std::string out;
            for (fact_id f : s.facts[n]) out += (out.empty() ? "" : " ") + pb.fact_name(f);
            return out;
        }
    FAIL("no node called " << name);
    return {};
}

struct hand_case {
    const char* name;
    const char* text;    ///< the `.ifds` problem
    const char* result;  ///< the whole `weir solve` output, by hand
    /// (node, facts) at the nodes that decide the case.
    std::vector<std::pair<const char*, const char*>> key;
};

const hand_case hand_cases[] = {
    {"two call sites of one callee do not mix",
     R"(ifds 1
facts a b
proc main m.s m.e
node c1 main
node r1 main
node c2 main
node r2 main
flow m.s c1 gen:a
call c1 f r1
ctrflow c1 id kill:a
flow r1 c2 id kill:a gen:b
call c2 f r2
ctrflow c2 id kill:b
flow r2 m.e id
proc f f.s f.e
flow f.s f.e id
seed m.s 0
)",
     "m.s: 0\nm.e: 0 b\nc1: 0 a\nr1: 0 a\nc2: 0 b\nr2: 0 b\nf.s: 0 a b\nf.e: 0 a b\n",
     // f's exit holds a and b, but a goes back only to r1 and b only to r2.
     {{"f.e", "0 a b"}, {"r1", "0 a"}, {"r2", "0 b"}}},

    {"no return past a seed",
     R"(ifds 1
facts x y
proc main m.s m.e
node c main
node r main
flow m.s c id
call c f r
flow r m.e id
proc f f.s f.e
flow f.s f.e id gen:x
seed f.s y
seed m.s 0
)",
     "m.s: 0\nm.e: 0 x\nc: 0\nr: 0 x\nf.s: 0 y\nf.e: 0 x y\n",
     // y is seeded inside f: it reaches f's exit but no call carried it there.
     {{"f.e", "0 x y"}, {"r", "0 x"}, {"m.e", "0 x"}}},

    {"a seed only in the callee reaches nothing in the caller",
     R"(ifds 1
facts x
proc main m.s m.e
node c main
node r main
flow m.s c id
call c f r
flow r m.e id
proc f f.s f.e
flow f.s f.e id gen:x
seed f.s 0
)",
     "f.s: 0\nf.e: 0 x\n",
     {{"f.e", "0 x"}, {"r", ""}, {"m.e", ""}, {"m.s", ""}}},

    {"kill on the call-to-return edge",
     R"(ifds 1
facts k s
proc main m.s m.e
node c main
node r main
flow m.s c gen:k,s
call c g r
ctrflow c id kill:k   # k does not bypass the call
flow r m.e id
proc g g.s g.e
flow g.s g.e id kill:k   # ... and does not survive it
seed m.s 0
)",
     "m.s: 0\nm.e: 0 s\nc: 0 k s\nr: 0 s\ng.s: 0 k s\ng.e: 0 s\n",
     {{"c", "0 k s"}, {"g.s", "0 k s"}, {"r", "0 s"}}},

    {"facts generated in a callee come back through the return flow",
     R"(ifds 1
facts g1 g2
proc main m.s m.e
node c main
node r main
flow m.s c id
retflow c gen_fn g1>g1   # before its call line: only g1 comes back
call c gen_fn r
flow r m.e id
proc gen_fn q.s q.e
node q.mid gen_fn
flow q.s q.mid gen:g1
flow q.mid q.e id gen:g2
seed m.s 0
)",
     "m.s: 0\nm.e: 0 g1\nc: 0\nr: 0 g1\nq.s: 0\nq.e: 0 g1 g2\nq.mid: 0 g1\n",
     {{"c", "0"}, {"q.e", "0 g1 g2"}, {"r", "0 g1"}}},

    {"recursion with x=y moves",
     R"(ifds 1
facts x y
proc main m.s m.e
node c main
node r main
flow m.s c gen:x
call c f r
flow r m.e id
proc f f.s f.e
node f.c f
node f.r f
flow f.s f.e id              # base case
flow f.s f.c id kill:y x>y   # y = x
call f.c f f.r
callflow f.c f y>x           # the callee's x is the caller's y
retflow f.c f x>y            # the callee's x comes back as y
ctrflow f.c id kill:y
flow f.r f.e id
seed m.s 0
)",
     "m.s: 0\nm.e: 0 x y\nc: 0 x\nr: 0 x y\nf.s: 0 x\nf.e: 0 x y\nf.c: 0 x y\nf.r: 0 x y\n",
     // y never enters f (the callflows pass only x, and y as x), but comes back out of the recursion.
     {{"f.s", "0 x"}, {"f.r", "0 x y"}, {"r", "0 x y"}}},

    {"an indirect call with two targets",
     R"(ifds 1
facts a b c
proc main m.s m.e
node cs main
node rs main
flow m.s cs gen:a
call cs p1 rs
call cs p2 rs
retflow cs p1 b>b      # p1 returns only b
callflow cs p2 a>b     # p2 sees a as b
retflow cs p2 a>c      # p2 would return a as c (it has no a at its exit)
ctrflow cs
flow rs m.e id
proc p1 p1.s p1.e
flow p1.s p1.e id gen:b
proc p2 p2.s p2.e
flow p2.s p2.e id
seed m.s 0
)",
     "m.s: 0\nm.e: 0 b\ncs: 0 a\nrs: 0 b\np1.s: 0 a\np1.e: 0 a b\np2.s: 0 b\np2.e: 0 b\n",
     // p1's exit has a, but only p2's retflow maps a (to c): each target returns through its own retflow.
     {{"p1.e", "0 a b"}, {"p2.s", "0 b"}, {"rs", "0 b"}}},

    {"two call sites sharing a return site",
     R"(ifds 1
facts a b m
proc main m.s m.e
node br main
node c1 main
node c2 main
node join main
flow m.s br id
flow br c1 gen:a
flow br c2 gen:b
call c1 f join
retflow c1 f a>a b>m
retflow c2 f b>b a>m
call c2 f join
ctrflow c1
ctrflow c2
flow join m.e id
proc f f.s f.e
flow f.s f.e id
seed m.s 0
)",
     "m.s: 0\nm.e: 0 a b\nbr: 0\nc1: 0 a\nc2: 0 b\njoin: 0 a b\nf.s: 0 a b\nf.e: 0 a b\n",
     // A return for c1's call uses c1's retflow on what c1 passed: m would appear
     // only if a site's return took the other site's facts or retflow.
     {{"f.e", "0 a b"}, {"join", "0 a b"}, {"m.e", "0 a b"}}},

    {"a start node as call site and as return site",
     R"(ifds 1
facts x y
proc main m.s m.e
node m.mid main
call m.s g m.mid
flow m.mid m.e id
proc g g.s g.e
node g.c g
flow g.s g.c id
flow g.s g.e id
call g.c h g.s
ctrflow g.c
proc h h.s h.e
flow h.s h.e id gen:x x>y
seed m.s 0
)",
     "m.s: 0\nm.e: 0 x y\nm.mid: 0 x y\ng.s: 0 x y\ng.e: 0 x y\ng.c: 0 x y\nh.s: 0 x y\nh.e: 0 x y\n",
     {{"m.s", "0"}, {"g.s", "0 x y"}, {"m.mid", "0 x y"}}},
};

} // namespace

TEMPLATE_LIST_TEST_CASE("resident solver on the hand-made data files", "[ifds][parity][hand]", backend_list) {
    // The files under test/data/ifds and their results, computed by hand from the spec.
    const std::pair<const char*, const char*> files[] = {
        {"spec_examples.ifds", "m.start: 0\nm.exit: 0 x y\nn1: 0 x\nn2: 0 x\nn3: 0 y\nn4: 0 x y\n"},
        {"recursion.ifds",
         "main.s: 0\nmain.e: 0 t\nmain.gen: 0\nmain.call: 0 t\nmain.ret: 0 t\nrec.s: 0 p\nrec.e: 0 p r u\n"
         "rec.call: 0 p\nrec.ret: 0 p r u\n"},
        {"indirect.ifds", "main.s: 0\nmain.e: 0 x z\nmain.call: 0 x\nmain.ret: 0 x z\na.s: 0 x\na.e: 0 x\nb.s: 0 y\nb.e: 0 y\n"},
        {"two_sites.ifds",
         "main.s: 0\nmain.e: 0 s2 h\ncall1: 0 s1\nafter1: 0 s1 h\npre2: 0\ncall2: 0 s2\nafter2: 0 s2 h\n"
         "helper.s: 0 s1 s2\nhelper.e: 0 s1 s2 h\nhelper.mid: 0 s1 s2 h\n"},
    };
    TestType b;
    for (const auto& [file, result] : files) {
        INFO(file);
        auto pb = load_problem_file(std::string(WEIR_TEST_DATA_DIR) + "/" + file);
        if (!pb) FAIL(pb.error().what());
        auto s = resident_solution(b, *pb);
        CHECK(format_solution(*pb, s) == result);
    }
    // The facts that decide the files' cases.
    auto two = load_problem_file(std::string(WEIR_TEST_DATA_DIR) + "/two_sites.ifds");
    REQUIRE(two.has_value());
    auto s2 = resident_solution(b, *two);
    CHECK(facts_at(*two, s2, "after1") == "0 s1 h");  // no s2 from the second site
    CHECK(facts_at(*two, s2, "after2") == "0 s2 h");  // no s1 from the first site
    auto rec = load_problem_file(std::string(WEIR_TEST_DATA_DIR) + "/recursion.ifds");
    REQUIRE(rec.has_value());
    auto sr = resident_solution(b, *rec);
    CHECK(facts_at(*rec, sr, "main.ret") == "0 t");  // u stays inside rec; r comes back as t
    CHECK(facts_at(*rec, sr, "rec.e") == "0 p r u");
}

TEMPLATE_LIST_TEST_CASE("resident solver on hand-written problems", "[ifds][parity][hand]", backend_list) {
    TestType b;
    for (const auto& hc : hand_cases) {
        INFO(hc.name);
        auto pb = load_problem(hc.text, "hand.ifds");
        if (!pb) FAIL(pb.error().what());
        auto s = resident_solution(b, *pb);
        CHECK(format_solution(*pb, s) == hc.result);
        for (const auto& [node, facts] : hc.key) {
            INFO("at " << node);
            CHECK(facts_at(*pb, s, node) == facts);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("resident graph with row tables: leaves out the per-fact tables, serves only row_solve",
                        "[ifds][resident]", backend_list) {
    TestType b;
    using device_t = weir::vyre_resident_ifds<TestType>;
    device_t d(b);
    weir::test::gen_options o;
    o.procs = 6;
    o.p_call = 0.4;
    const layout L = make_layout(weir::test::random_problem(700, o));
    const auto expect = tabulation_solver(L).solve().value();
    auto full = resident_graph<device_t>::upload(d, L, false).value();
    const auto before = b.backend_metric_snapshot();
    auto rows = resident_graph<device_t>::upload(d, L, true).value();
    // The byte counters account for every resident byte of the graph: the
    // row tables, made for the upload, are handed over without a copy where
    // the backend has host-visible memory, and uploaded otherwise.
    {
        const auto after = b.backend_metric_snapshot();
        auto grew = [&](const char* k) {
            return (after.count(k) ? after.at(k) : 0) - (before.count(k) ? before.at(k) : 0);
        };
        CHECK(grew("bytes_uploaded") + grew("bytes_adopted") == rows->bytes());
        CHECK(grew("live_bytes") == rows->bytes());
        if constexpr (weir::adopts_host_memory<device_t>) {
            CHECK(grew("bytes_adopted") > grew("bytes_uploaded"));  // the row tables are the larger part
        } else {
            CHECK(grew("bytes_adopted") == 0);
        }
    }
    // Its bytes: the graph's tables less the six per-fact ones (one word each
    // instead), plus the row tables.
    const row_tables rt = make_row_tables(L);
    REQUIRE(every_site_has_pairs(L, rt));
    namespace t = weir::ops::ifds;
    std::uint64_t left_out = 0, row_bytes = 0;
    for (const auto* v : {&L.intra_off, &L.intra_node, &L.intra_fact, &L.call_off, &L.call_ce, &L.call_fact})
        left_out += (std::max<std::size_t>(v->size(), 1) - 1) * 4;
    for (const auto* v : rt.tables()) row_bytes += std::max<std::size_t>(v->size(), 1) * 4;
    REQUIRE(left_out > 0);
    CHECK(rows->bytes() == full->bytes() - left_out + row_bytes);
    // Its solves keep the packed bitset (the solved nodes' blocks only).
    REQUIRE(rt.derived.size() > 0);
    CHECK(rows->bitset_words() == rt.packing.words);
    CHECK(rows->bitset_words() < L.pe_words);
    CHECK(full->bitset_words() == L.pe_words);
    for (std::size_t i = 0; i < graph_buffer_count; ++i)
        CHECK(detail::left_out_with_rows(i, true) ==
              (i == t::intra_off || i == t::intra_node || i == t::intra_fact || i == t::call_off || i == t::call_ce ||
               i == t::call_fact));
    // row_solve solves on it exactly; ir_kernels is refused, with what to do instead.
    for (auto mode : all_modes) {
        INFO("mode " << mode_name(mode));
        resident_options opt;
        opt.mode = mode;
        auto s = resident_solver<device_t>::create(d, L, rows, opt);
        if (needs_rows(mode) && !runs_row_solve(d)) {
            REQUIRE_FALSE(s.has_value());
            CHECK(s.error().code() == vyre::error_code::unsupported);
        } else if (needs_rows(mode)) {
            REQUIRE(s.has_value());
            auto out = s->solve();
            REQUIRE(out.has_value());
            CHECK(out->path_edges == expect.path_edges);
            CHECK(out->stats.summary_edges == expect.stats.summary_edges);
        } else {
            REQUIRE_FALSE(s.has_value());
            CHECK(s.error().code() == vyre::error_code::invalid_argument);
            CHECK_THAT(s.error().message(), Catch::Contains("serves only row_solve"));
            CHECK_THAT(s.error().fix(), Catch::Contains("upload(d, L, false)"));
            auto on_full = resident_solver<device_t>::create(d, L, full, opt);
            REQUIRE(on_full.has_value());
            CHECK(on_full->solve().value().path_edges == expect.path_edges);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("resident graph cache: per-edge layouts that differ only in a flow function are two graphs",
                        "[ifds][cache]", backend_list) {
    TestType b;
    using device_t = weir::vyre_resident_ifds<TestType>;
    device_t d(b);
    if (!runs_row_solve(d)) {
        WARN("the row-wise solve is not among this backend's ops: per-edge layouts do not apply");
        return;
    }
    // the same shape and the same uploaded tables (the per-row CSR is empty
    // in both): only the per-edge relations tell them apart
    auto make = [](const char* last) {
        return weir::test::mini_problem()
            .facts({"x", "y"})
            .proc("m", "s", "e")
            .node("a", "m")
            .flow("s", "a", "id gen:x")
            .flow("a", "e", last)
            .seed("s", "0")
            .get();
    };
    const problem keep = make("id"), kill = make("id kill:x");
    const layout P1 = make_layout(keep, intra_form::per_edge), P2 = make_layout(kill, intra_form::per_edge);
    CHECK(layout_hash(P1) != layout_hash(P2));
    resident_graph_cache<device_t> cache;
    auto g1 = cache.get(d, P1).value(), g2 = cache.get(d, P2).value();
    CHECK(g1 != g2);
    CHECK(cache.stats().misses == 2);
    auto s2 = resident_solver<device_t>::create(d, P2, g2).value();
    auto got = s2.solve();
    REQUIRE(got.has_value());
    CHECK(got->path_edges == tabulation_solver(make_layout(kill)).solve().value().path_edges);
}

TEMPLATE_LIST_TEST_CASE("resident graph cache: hits, LRU eviction under a byte budget, graphs in use survive",
                        "[ifds][cache]", backend_list) {
    TestType b;
    using device_t = weir::vyre_resident_ifds<TestType>;
    device_t d(b);
    weir::test::gen_options o;
    o.procs = 6;
    std::vector<layout> layouts;
    for (std::uint64_t seed = 0; seed < 3; ++seed) layouts.push_back(make_layout(weir::test::random_problem(500 + seed, o)));
    // Budget: room for the two largest graphs, not for all three.
    std::vector<std::uint64_t> sizes;
    for (const auto& L : layouts) sizes.push_back(resident_graph<device_t>::upload(d, L).value()->bytes());
    std::sort(sizes.begin(), sizes.end());
    resident_graph_cache<device_t> cache(sizes[1] + sizes[2]);

    auto g0 = cache.get(d, layouts[0]).value();
    auto g0_again = cache.get(d, layouts[0]).value();
    CHECK(g0 == g0_again);
    CHECK(cache.stats().hits == 1);
    CHECK(cache.stats().misses == 1);
    auto solver = resident_solver<device_t>::create(d, layouts[0], g0).value();
    g0.reset();
    g0_again.reset();
    (void)cache.get(d, layouts[1]).value();
    (void)cache.get(d, layouts[2]).value();  // over budget: layout 0's graph, least recently used, goes
    auto s = cache.stats();
    CHECK(s.evictions >= 1);
    CHECK(s.bytes <= sizes[1] + sizes[2]);
    CHECK(s.entries == 3 - s.evictions);
    // The solver still holds the evicted graph, whose resources stay valid.
    auto out = solver.solve();
    REQUIRE(out.has_value());
    CHECK(out->path_edges == tabulation_solver(layouts[0]).solve().value().path_edges);
    // Asking again is a miss and uploads it anew.
    auto misses = cache.stats().misses;
    (void)cache.get(d, layouts[0]).value();
    CHECK(cache.stats().misses == misses + 1);
    // Once nothing uses them, evicted and cleared graphs free their memory.
    cache.clear();
    solver = resident_solver<device_t>::create(d, layouts[1]).value();
    // What is live now is exactly the new solver: its graph and its scratch
    // (path edges, packed in the row modes, unless each solve adopts its
    // result's vector; two frontiers of the default 4096 entries, counters).
    auto snap = b.backend_metric_snapshot();
    auto live = snap["live_bytes"] + snap["live_borrowed_bytes"];  // (host backends borrow the layout's tables)
    const std::uint64_t entry_bytes = needs_rows(solver.mode()) ? 16 : 8;
    const std::uint64_t bitset = resident_solver<device_t>::solves_in_place ? 0 : std::max<std::uint64_t>(solver.graph()->bitset_words(), 1) * 4;
    std::uint64_t scratch = bitset + 2 * 4096 * entry_bytes + 16;
    CHECK(live == solver.graph()->bytes() + scratch);
}
