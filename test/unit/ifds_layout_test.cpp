// make_layout: fact sets and every CSR table on a tiny hand-checked case,
// structural invariants on random problems, and the fact sets against a naive
// fixed point.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include <weir/ifds/format.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/row_tables.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ifds/witness.hpp>

#include "support/ifds_gen.hpp"

using namespace weir::ifds;
using weir::test::mini_problem;
using u32v = std::vector<std::uint32_t>;

namespace {
/// The random problem of `seed` that the layout tests share: 1 to 7
/// procedures, 0 to 8 facts.
problem random_layout_problem(std::uint64_t seed) {
    weir::test::gen_options o;
    o.procs = 1 + static_cast<std::uint32_t>(seed % 7);
    o.facts = static_cast<std::uint32_t>(seed % 9);
    return weir::test::random_problem(seed, o);
}

/// Every table of a layout but the intraprocedural edges (both forms).
std::vector<const u32v*> common_tables(const layout& x) {
    return {&x.proc_start, &x.proc_exit,  &x.proc_fact_off, &x.proc_facts,  &x.node_proc,   &x.node_kind,
            &x.node_fact_count, &x.row_base, &x.pe_word,    &x.node_retsite, &x.ce_site,    &x.ce_callee,
            &x.ce_retsite, &x.call_off,   &x.call_ce,      &x.call_fact,    &x.ret_row,     &x.ret_off,
            &x.ret_fact,   &x.rcall_row,  &x.rcall_off,    &x.rcall_fact,   &x.callers_off, &x.callers_ce,
            &x.seed_node,  &x.seed_fact};
}
/// The per-row CSR of the intraprocedural edges.
std::vector<const u32v*> row_csr(const layout& x) { return {&x.intra_off, &x.intra_node, &x.intra_fact}; }
/// The per-edge relations of the intraprocedural edges.
std::vector<const u32v*> edge_relations(const layout& x) {
    return {&x.intra_edge_off, &x.intra_edge_dst,   &x.intra_edge_mask_off, &x.intra_edge_mask,
            &x.intra_edge_x_off, &x.intra_edge_x_src, &x.intra_edge_x_dst};
}

/// Checks that the tables `a` and `b` are equal, table by table.
void check_same(const std::vector<const u32v*>& a, const std::vector<const u32v*>& b) {
    REQUIRE(a.size() == b.size());
    for (std::size_t t = 0; t < a.size(); ++t) {
        INFO("table " << t);
        CHECK(*a[t] == *b[t]);
    }
}

/// Every table of two row-table sets, their derived rows and packing included.
void check_same(const row_tables& a, const row_tables& b) {
    const auto ta = a.tables(), tb = b.tables();
    check_same(std::vector<const u32v*>(ta.begin(), ta.end()), std::vector<const u32v*>(tb.begin(), tb.end()));
    check_same({&a.edge_off, &a.edge_x_off, &a.site_row, &a.derived.root, &a.derived.group_off, &a.derived.node,
                &a.derived.mask_off, &a.derived.mask, &a.derived.x_off, &a.derived.x_src, &a.derived.x_dst,
                &a.derived.order, &a.derived.chunk_off, &a.packing.pe_word},
               {&b.edge_off, &b.edge_x_off, &b.site_row, &b.derived.root, &b.derived.group_off, &b.derived.node,
                &b.derived.mask_off, &b.derived.mask, &b.derived.x_off, &b.derived.x_src, &b.derived.x_dst,
                &b.derived.order, &b.derived.chunk_off, &b.packing.pe_word});
    CHECK(a.derived.shared == b.derived.shared);
    CHECK(a.packing.words == b.packing.words);
    CHECK(a.packing.runs == b.packing.runs);
}
} // namespace

TEST_CASE("layout: tiny case, every table", "[ifds][layout]") {
    mini_problem m;
    m.facts({"a", "b", "c"})
        .proc("main", "ms", "me")  // nodes 0, 1
        .proc("f", "fs", "fe")     // nodes 2, 3
        .node("c1", "main")        // 4
        .node("r1", "main")        // 5
        .flow("ms", "c1", "id gen:a")
        .call("c1", "f", "r1", "id kill:c", "id")
        .flow("r1", "me", "id kill:a b>c")
        .flow("fs", "fe", "id gen:b")
        .seed("ms", "0")
        .seed("ms", "0");  // duplicate: removed
    const layout L = make_layout(m.get());

    CHECK(L.num_nodes == 6);
    CHECK(L.num_procs == 2);
    CHECK(L.num_facts == 4);
    // main: 0, a (gen), b (returned from f), c (b>c); f: 0, a (callflow), b (gen); c is killed on the call.
    CHECK(L.proc_fact_off == u32v{0, 4, 7});
    CHECK(L.proc_facts == u32v{0, 1, 2, 3, 0, 1, 2});
    CHECK(L.fact_count(1) == 3);
    CHECK(L.global_fact(1, 2) == 2);
    CHECK(L.proc_start == u32v{0, 2});
    CHECK(L.proc_exit == u32v{1, 3});
    CHECK(L.node_proc == u32v{0, 0, 1, 1, 0, 0});
    CHECK(L.node_kind == u32v{kind_start, kind_exit, kind_start, kind_exit, kind_call_site, 0});
    CHECK(L.node_fact_count == u32v{4, 4, 3, 3, 4, 4});
    CHECK(L.row_base == u32v{0, 4, 8, 11, 14, 18, 22});
    CHECK(L.num_rows == 22);
    CHECK(L.pe_word == u32v{0, 1, 2, 3, 4, 5, 6});
    CHECK(L.pe_words == 6);
    CHECK(L.node_retsite == u32v{~0u, ~0u, ~0u, ~0u, 5, ~0u});

    // Intra rows: ms(0..3) -> c1; me(4..7) none; fs(8..10) -> fe; fe(11..13) none;
    // c1(14..17) -> r1 (ctr id); r1(18..21) -> me.
    CHECK(L.intra_off == u32v{0, 2, 3, 4, 5, 5, 5, 5, 5, 7, 8, 9, 9, 9, 9, 10, 11, 12, 13, 14, 14, 16, 17});
    CHECK(L.intra_node == u32v{4, 4, 4, 4, 4, 3, 3, 3, 3, 5, 5, 5, 5, 1, 1, 1, 1});
    CHECK(L.intra_fact == u32v{0, 1, 1, 2, 3, 0, 2, 1, 2, 0, 1, 2, 3, 0, 2, 3, 3});

    CHECK(L.ce_site == u32v{4});
    CHECK(L.ce_callee == u32v{1});
    CHECK(L.ce_retsite == u32v{5});
    // Call rows: only c1's (14..17); c is killed.
    u32v call_off(23, 0);
    for (std::size_t r = 15; r < 23; ++r) call_off[r] = std::min<std::uint32_t>(static_cast<std::uint32_t>(r) - 14, 3);
    CHECK(L.call_off == call_off);
    CHECK(L.call_ce == u32v{0, 0, 0});
    CHECK(L.call_fact == u32v{0, 1, 2});
    CHECK(L.ret_row == u32v{0, 3});
    CHECK(L.ret_off == u32v{0, 1, 2, 3});
    CHECK(L.ret_fact == u32v{0, 1, 2});
    CHECK(L.rcall_row == u32v{0, 3});
    CHECK(L.rcall_off == u32v{0, 1, 2, 3});
    CHECK(L.rcall_fact == u32v{0, 1, 2});
    CHECK(L.callers_off == u32v{0, 0, 1});
    CHECK(L.callers_ce == u32v{0});
    CHECK(L.seed_node == u32v{0});
    CHECK(L.seed_fact == u32v{0});
}

TEST_CASE("layout: indirect call site has one call-to-return edge; relations sorted", "[ifds][layout]") {
    mini_problem m;
    m.facts({"a", "b"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .proc("g", "gs", "ge")
        .node("c", "main")
        .flow("ms", "c", "id gen:b,a")
        .call("c", "g", "me", "b>a a>a", "a>b")
        .call("c", "f", "me", "a>b", "id")
        .ctr("c", "id b>a")
        .seed("ms", "0");
    const layout L = make_layout(m.get());
    const node_id c = 6;
    REQUIRE(L.node_fact_count[c] == 3);
    // ctr rows of c: one edge to me; b (local 2) -> {a, b}.
    const auto rb = L.row_base[c];
    CHECK(L.intra_off[rb + 3] - L.intra_off[rb] == 4);  // 0->0, a->a, b->a, b->b
    CHECK(u32v(L.intra_fact.begin() + L.intra_off[rb + 2], L.intra_fact.begin() + L.intra_off[rb + 3]) ==
          u32v{1, 2});
    // Call row of a (local 1): (ce0 = g, a) then (ce1 = f, b): sorted by call edge.
    CHECK(u32v(L.call_ce.begin() + L.call_off[rb + 1], L.call_ce.begin() + L.call_off[rb + 2]) == u32v{0, 1});
    // Reverse callflow of g's a: caller facts a and b.
    const auto g_a = L.rcall_row[0] + 1;
    CHECK(u32v(L.rcall_fact.begin() + L.rcall_off[g_a], L.rcall_fact.begin() + L.rcall_off[g_a + 1]) ==
          u32v{1, 2});
    CHECK(L.callers_off == u32v{0, 0, 1, 2});
    CHECK(L.callers_ce == u32v{1, 0});
}

TEST_CASE("layout: invariants on random problems", "[ifds][layout][random]") {
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        const problem pb = random_layout_problem(seed);
        const layout L = make_layout(pb);
        INFO("seed " << seed);
        REQUIRE(L.proc_fact_off.size() == L.num_procs + 1);
        for (std::uint32_t p = 0; p < L.num_procs; ++p) {
            REQUIRE(L.fact_count(p) >= 1);
            REQUIRE(L.global_fact(p, 0) == zero_fact);
            for (std::uint32_t d = 1; d < L.fact_count(p); ++d)
                REQUIRE(L.global_fact(p, d - 1) < L.global_fact(p, d));
        }
        REQUIRE(L.intra_off.size() == L.num_rows + 1);
        REQUIRE(L.call_off.size() == L.num_rows + 1);
        REQUIRE(L.ret_off.size() == L.ret_row.back() + 1);
        REQUIRE(L.rcall_off.size() == L.rcall_row.back() + 1);
        for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
            const std::uint32_t F = L.node_fact_count[n];
            REQUIRE(L.pe_word[n + 1] - L.pe_word[n] == (F * F + 31) / 32);
            REQUIRE(L.row_base[n + 1] - L.row_base[n] == F);
            for (std::uint32_t d = 0; d < F; ++d) {
                const auto r = L.row_base[n] + d;
                for (auto i = L.intra_off[r]; i + 1 < L.intra_off[r + 1]; ++i)
                    REQUIRE(std::pair(L.intra_node[i], L.intra_fact[i]) <
                            std::pair(L.intra_node[i + 1], L.intra_fact[i + 1]));
                for (auto i = L.intra_off[r]; i < L.intra_off[r + 1]; ++i)
                    REQUIRE(L.intra_fact[i] < L.node_fact_count[L.intra_node[i]]);
                for (auto i = L.call_off[r]; i + 1 < L.call_off[r + 1]; ++i)
                    REQUIRE(std::pair(L.call_ce[i], L.call_fact[i]) < std::pair(L.call_ce[i + 1], L.call_fact[i + 1]));
                if (d == 0 && !(L.node_kind[n] & kind_exit) &&
                    (L.node_retsite[n] != ~0u || L.intra_off[r] != L.intra_off[r + 1]))
                    REQUIRE(L.intra_fact[L.intra_off[r]] == 0);  // 0 -> 0 always
            }
        }
        // Reverse call relation is exactly the inverse of the call relation.
        std::size_t fwd = 0;
        for (std::uint32_t r = 0; r < L.num_rows; ++r) fwd += L.call_off[r + 1] - L.call_off[r];
        REQUIRE(L.rcall_fact.size() == fwd);
        for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
            const auto site = L.ce_site[ce];
            for (std::uint32_t d3 = 0; d3 < L.fact_count(L.ce_callee[ce]); ++d3) {
                const auto k = L.rcall_row[ce] + d3;
                for (auto i = L.rcall_off[k]; i < L.rcall_off[k + 1]; ++i) {
                    const auto row = L.row_base[site] + L.rcall_fact[i];
                    bool found = false;
                    for (auto j = L.call_off[row]; j < L.call_off[row + 1]; ++j)
                        found = found || (L.call_ce[j] == ce && L.call_fact[j] == d3);
                    REQUIRE(found);
                }
            }
        }
    }
}

namespace {
/// The fact sets by a naive fixed point over `std::set`s, straight from the
/// definition (`detail::fact_sets`): 0 and the seeds; closed under each
/// procedure's gens and pairs (flows and call-to-return flows), under call
/// flows into callees and return flows back (identity minus kills, gens,
/// pairs), until nothing changes.
std::vector<std::vector<fact_id>> naive_fact_sets(const problem& pb) {
    std::vector<std::set<fact_id>> s(pb.procs.size());
    for (auto& set : s) set.insert(zero_fact);
    for (const seed& sd : pb.seeds) s[pb.nodes[sd.node].proc].insert(sd.fact);
    bool changed = true;
    // the facts `ff` maps `from`'s set to, into `to`'s set (identity part only across procedures)
    auto apply = [&](proc_id from, proc_id to, const flow_function& ff, bool across) {
        std::vector<fact_id> add(ff.gen.begin(), ff.gen.end());
        for (const fact_id f : s[from]) {
            if (across && ff.identity && f != zero_fact && std::find(ff.kill.begin(), ff.kill.end(), f) == ff.kill.end())
                add.push_back(f);
            for (const auto& [a, b] : ff.pairs)
                if (a == f) add.push_back(b);
        }
        for (const fact_id f : add) changed |= s[to].insert(f).second;
    };
    while (changed) {
        changed = false;
        for (const flow_edge& e : pb.flows) apply(pb.nodes[e.from].proc, pb.nodes[e.from].proc, e.ff, false);
        for (const auto& [site, ff] : pb.ctrflows) apply(pb.nodes[site].proc, pb.nodes[site].proc, ff, false);
        for (const call_edge& c : pb.calls) {
            apply(pb.nodes[c.site].proc, c.callee, c.callflow, true);
            apply(c.callee, pb.nodes[c.site].proc, c.retflow, true);
        }
    }
    std::vector<std::vector<fact_id>> out;
    for (const auto& set : s) out.emplace_back(set.begin(), set.end());
    return out;
}

/// The largest fact set.
std::size_t largest(const std::vector<std::vector<fact_id>>& sets) {
    std::size_t m = 0;
    for (const auto& set : sets) m = std::max(m, set.size());
    return m;
}
} // namespace

TEST_CASE("layout: fact sets equal a naive fixed point, small and large sets", "[ifds][layout][random]") {
    // Sets of up to 80 facts: detail::fact_sets scans a set while it is small
    // and marks it in a bitset (few procedures x facts, here) from 32 facts on.
    std::size_t big = 0;
    for (std::uint64_t seed = 0; seed < 150; ++seed) {
        weir::test::gen_options o;
        o.procs = 1 + static_cast<std::uint32_t>(seed % 9);
        o.facts = static_cast<std::uint32_t>(seed % 81);
        o.max_nodes = 10;
        o.p_gen = 0.5;
        o.p_kill = 0.1;
        const problem pb = weir::test::random_problem(seed, o);
        INFO("seed " << seed);
        const auto sets = detail::fact_sets(pb);
        REQUIRE(sets == naive_fact_sets(pb));
        big += largest(sets) > 32;
    }
    CHECK(big >= 10);  // the bitset path ran

    // Procedures x facts above 2^27: sets past 32 facts go to the hash set. Procedure
    // 0 gens 40 facts and calls procedure 1 with `id` both ways; procedure 1 gens
    // 5 more, which return; the other 4198 procedures are a start and an exit.
    problem pb;
    for (std::uint32_t i = 1; i <= 32000; ++i) pb.facts.push_back("f" + std::to_string(i));
    auto ff_gen = [](fact_id first, fact_id last) {
        flow_function f = flow_function::id();
        for (fact_id g = first; g <= last; ++g) f.gen.push_back(g);
        return f;
    };
    for (proc_id p = 0; p < 4200; ++p) {
        const node_id s0 = static_cast<node_id>(pb.nodes.size());
        pb.procs.push_back({"p" + std::to_string(p), s0, s0 + (p == 0 ? 3 : 1)});
        for (std::uint32_t k = 0; k < (p == 0 ? 4u : 2u); ++k) pb.nodes.push_back({"n" + std::to_string(s0 + k), p});
        if (p == 0) {  // start -> site, call p1, retsite -> exit
            pb.flows.push_back({s0, s0 + 1, ff_gen(1, 40)});
            pb.flows.push_back({s0 + 2, s0 + 3, flow_function::id()});
            pb.calls.push_back({s0 + 1, 1, s0 + 2, flow_function::id(), flow_function::id()});
        } else {
            pb.flows.push_back({s0, s0 + 1, p == 1 ? ff_gen(41, 45) : flow_function::id()});
        }
    }
    pb.seeds.push_back({pb.procs[2].start, 100});
    REQUIRE(std::uint64_t{pb.procs.size()} * pb.fact_count() > (std::uint64_t{1} << 27));
    const auto sets = detail::fact_sets(pb);
    REQUIRE(sets == naive_fact_sets(pb));
    CHECK(sets[0].size() == 46);  // 0 and f1..f45: the hash-set path ran
    CHECK(sets[1].size() == 46);
    CHECK(sets[2] == std::vector<fact_id>{0, 100});
}

TEST_CASE("layout: make_layout_releasing gives the same layout and keeps only the names", "[ifds][layout][random]") {
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
        const problem pb = random_layout_problem(seed);
        problem mine = pb;
        const layout L = make_layout(pb);
        const layout R = make_layout_releasing(mine);
        INFO("seed " << seed);
        CHECK(R.num_nodes == L.num_nodes);
        CHECK(R.num_procs == L.num_procs);
        CHECK(R.num_facts == L.num_facts);
        CHECK(R.num_rows == L.num_rows);
        CHECK(R.pe_words == L.pe_words);
        check_same(common_tables(L), common_tables(R));
        check_same(row_csr(L), row_csr(R));
        check_same(edge_relations(L), edge_relations(R));
        // what names things stays; the rest is gone
        CHECK(mine.facts == pb.facts);
        CHECK(mine.procs == pb.procs);
        CHECK(mine.nodes == pb.nodes);
        CHECK(mine.flows.empty());
        CHECK(mine.calls.empty());
        CHECK(mine.ctrflows.empty());
        CHECK(mine.seeds.empty());
    }
}

TEST_CASE("layout: intra_form::per_edge is the same layout with the intraprocedural edges per edge",
          "[ifds][layout][random]") {
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
        INFO("seed " << seed);
        const problem pb = random_layout_problem(seed);
        const layout L = make_layout(pb), P = make_layout(pb, intra_form::per_edge);
        CHECK(P.num_nodes == L.num_nodes);
        CHECK(P.num_rows == L.num_rows);
        CHECK(P.pe_words == L.pe_words);
        check_same(common_tables(L), common_tables(P));
        CHECK(L.has_intra_rows());
        CHECK_FALSE(P.has_intra_rows());
        for (const u32v* t : edge_relations(L)) CHECK(t->empty());
        for (const u32v* t : row_csr(P)) CHECK(t->empty());
        CHECK(P.intra_edge_off.size() == P.num_nodes + 1);
        CHECK(P.intra_edge_x_off.size() == P.intra_edge_dst.size() + 1);
        // the row tables read from either form are the same, word for word
        check_same(detail::all_node_row_tables(L), detail::all_node_row_tables(P));
        for (const row_form f : {row_form::all_nodes, row_form::skip_derived}) {
            INFO((f == row_form::all_nodes ? "all nodes" : "derived nodes skipped"));
            check_same(make_row_tables(L, f), make_row_tables(P, f));
        }
        // made while releasing the problem: the same
        problem mine = pb;
        const layout R = make_layout_releasing(mine, intra_form::per_edge);
        check_same(common_tables(P), common_tables(R));
        check_same(edge_relations(P), edge_relations(R));
        CHECK(row_csr(R)[0]->empty());
    }
}

namespace {
/// Procedures whose derived nodes break the derivation's limits (so the row
/// tables are planned again with them solved): loops of a shift x0>x1,
/// x1>x2, ... (more passes than `max_loop_passes`) and lines of moves
/// without kills (relations over `max_relation_pairs`), alternately.
problem limit_breaking_problem(int procs) {
    constexpr int F = 40, line = 60, steps = 10;
    weir::test::mini_problem m;
    std::vector<std::string> xs;
    for (int i = 0; i < F; ++i) xs.push_back("x" + std::to_string(i));
    m.facts(xs);
    for (int p = 0; p < procs; ++p) {
        const std::string P = "p" + std::to_string(p), s = P + ".s", e = P + ".e";
        m.proc(P, s, e);
        if (p % 2 == 0) {
            std::string shift = "id";
            for (int i = 0; i < steps; ++i) shift += " x" + std::to_string(i) + ">x" + std::to_string(i + 1);
            m.node(P + ".h", P).node(P + ".b", P);
            m.flow(s, P + ".h", "id gen:x0").flow(P + ".h", P + ".b", "id").flow(P + ".b", P + ".h", shift);
            m.flow(P + ".h", e, "id");
        } else {
            std::string prev = s;
            for (int i = 0; i < line; ++i) {
                const std::string n = P + ".n" + std::to_string(i);
                m.node(n, P);
                m.flow(prev, n, i == 0 ? std::string("id gen:x0") : "id x" + std::to_string((i - 1) % F) + ">x" + std::to_string(i % F));
                prev = n;
            }
            m.flow(prev, e, "id");
        }
        m.seed(s, "0");
    }
    return m.get();
}
} // namespace

TEST_CASE("layout and row tables: the same, word for word, built in parts on any number of threads",
          "[ifds][layout][rows][random]") {
    std::vector<problem> problems;
    for (std::uint64_t seed = 0; seed < 80; ++seed) {
        weir::test::gen_options o;
        o.procs = 1 + static_cast<std::uint32_t>(seed % 7);
        o.facts = static_cast<std::uint32_t>(seed % 9) + (seed % 4 == 0 ? 40 : 0);
        o.max_nodes = 4 + static_cast<std::uint32_t>(seed % 12);
        problems.push_back(weir::test::random_problem(seed, o));
    }
    // procedures whose nodes interleave (the `node` lines of a printed problem in
    // another order): the plan, made per procedure, walks them as the whole graph would
    for (std::uint64_t seed = 0; seed < 6; ++seed) {
        weir::test::gen_options o;
        o.procs = 5;
        o.facts = 6;
        o.max_nodes = 14;
        std::vector<std::string> lines, node_lines;
        std::string text = print_problem(weir::test::random_problem(100 + seed, o)), line;
        for (std::size_t at = 0, nl; at < text.size(); at = nl + 1) {
            nl = text.find('\n', at);
            line = text.substr(at, nl - at);
            (line.rfind("node ", 0) == 0 ? node_lines : lines).push_back(line);
        }
        std::reverse(node_lines.begin(), node_lines.end());
        std::rotate(node_lines.begin(), node_lines.begin() + static_cast<std::ptrdiff_t>(node_lines.size() / 3), node_lines.end());
        // the node lines, reordered, right after the last `proc` line
        std::size_t last_proc = 0;
        for (std::size_t i = 0; i < lines.size(); ++i)
            if (lines[i].rfind("proc ", 0) == 0) last_proc = i;
        std::string shuffled;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            shuffled += lines[i] + "\n";
            if (i == last_proc)
                for (const std::string& l : node_lines) shuffled += l + "\n";
        }
        auto loaded = load_problem(shuffled, "interleaved.ifds");
        REQUIRE(loaded);
        bool interleaved = false;  // some procedure's nodes are not consecutive
        for (std::size_t n = 2; n < loaded->nodes.size(); ++n)
            interleaved |= loaded->nodes[n].proc != loaded->nodes[n - 1].proc && loaded->nodes[n].proc == loaded->nodes[n - 2].proc;
        CHECK(interleaved);
        problems.push_back(std::move(*loaded));
    }
    problems.push_back(limit_breaking_problem(9));
    std::uint64_t empty_parts = 0;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        INFO("problem " << i);
        const problem& pb = problems[i];
        const layout one = make_layout(pb, layout_options{.form = intra_form::per_edge, .threads = 1});
        const row_tables rows_one = make_row_tables(one, row_table_options{.threads = 1});
        for (const unsigned threads : {2u, 3u, 7u}) {
            INFO(threads << " threads");
            const layout many =
                make_layout(pb, layout_options{.form = intra_form::per_edge, .threads = threads, .min_parallel_nodes = 1});
            check_same(common_tables(one), common_tables(many));
            check_same(edge_relations(one), edge_relations(many));
            problem mine = pb;
            const layout released = make_layout_releasing(
                mine, layout_options{.form = intra_form::per_edge, .threads = threads, .min_parallel_nodes = 1});
            check_same(edge_relations(one), edge_relations(released));
            check_same(rows_one, make_row_tables(one, row_table_options{.threads = threads, .min_parallel_nodes = 1}));
            empty_parts += threads * detail::parts_per_thread > one.num_nodes;
        }
    }
    CHECK(empty_parts >= 10);  // more parts than nodes ran
    // the limit-breaking problem: its first plan has nodes that break a limit in
    // several parts, which join in node order
    const layout L = make_layout(problems.back(), intra_form::per_edge);
    const row_tables all = detail::all_node_row_tables(L);
    std::vector<std::uint32_t> unfit_one, unfit_many;
    const auto plan = detail::derive_plan(L, all);
    detail::skip_derived_row_tables(L, all, plan, unfit_one, 1);
    detail::skip_derived_row_tables(L, all, plan, unfit_many, 3, 1);
    CHECK(unfit_one.size() >= 9);
    CHECK(unfit_many == unfit_one);
}

TEST_CASE("node parts: cuts cover the nodes in order at equal shares; every part runs once; a part's exception reaches "
          "the caller",
          "[ifds][layout]") {
    // cost 1 per node, a heavy node 50, and nodes of no cost
    std::vector<std::uint64_t> cost{0, 1, 1, 50, 1, 0, 0, 1, 1, 1, 1, 1};
    std::vector<std::uint64_t> prefix(cost.size() + 1, 0);
    for (std::size_t i = 0; i < cost.size(); ++i) prefix[i + 1] = prefix[i] + cost[i];
    const auto n = static_cast<std::uint32_t>(cost.size());
    for (const unsigned parts : {1u, 2u, 3u, 5u, 16u}) {
        INFO(parts << " parts");
        const auto cuts = detail::cut_by_cost(n, parts, [&](std::uint32_t i) { return prefix[i]; });
        REQUIRE(cuts.size() == parts + 1);
        CHECK(cuts.front() == 0);
        CHECK(cuts.back() == n);
        CHECK(std::is_sorted(cuts.begin(), cuts.end()));
        // cut k is the first node at which the cost reaches k shares
        for (unsigned k = 1; k < parts; ++k) {
            const std::uint64_t goal = prefix[n] * k / parts;
            CHECK(prefix[cuts[k]] >= goal);
            if (cuts[k] > 0) CHECK(prefix[cuts[k] - 1] < goal);
        }
    }
    CHECK(detail::cut_by_cost(0, 4, [](std::uint32_t) { return std::uint64_t{0}; }) == std::vector<std::uint32_t>(5, 0));

    for (const unsigned threads : {1u, 2u, 4u}) {
        std::vector<std::atomic<int>> runs(37);
        detail::for_each_part(37, threads, [&](unsigned k, unsigned t) {
            CHECK(t < threads);
            runs[k].fetch_add(1);
        });
        for (const auto& r : runs) CHECK(r.load() == 1);
        std::atomic<int> ran{0};
        CHECK_THROWS_WITH(detail::for_each_part(9, threads,
                                                [&](unsigned k, unsigned) {
                                                    ran.fetch_add(1);
                                                    if (k == 4) throw std::length_error("part 4");
                                                }),
                          "part 4");
        CHECK(ran.load() == 9);  // the other parts still ran
    }
}

TEST_CASE("layout: the solvers that read the per-row CSR refuse a per-edge layout", "[ifds][layout]") {
    const problem pb = random_layout_problem(5);
    const layout P = make_layout(pb, intra_form::per_edge);
    const auto checked = check_intra_rows(P, "who");
    REQUIRE_FALSE(checked);
    CHECK(checked.error().code() == vyre::error_code::invalid_argument);
    CHECK(checked.error().message().find("who: the layout has its intraprocedural edges per edge only") == 0);
    const auto tab = tabulation_solver(P).solve();
    REQUIRE_FALSE(tab);
    CHECK(tab.error().code() == vyre::error_code::invalid_argument);
    CHECK(tab.error().message().find("tabulation_solver") == 0);
    const auto w = witness_builder::create(P);
    REQUIRE_FALSE(w);
    CHECK(w.error().message().find("witness_builder") == 0);
    CHECK_THROWS_AS(witness_builder(P), std::invalid_argument);
    CHECK(check_intra_rows(make_layout(pb), "who"));
}
