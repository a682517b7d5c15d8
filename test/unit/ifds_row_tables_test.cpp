// make_row_tables and derive_rows: which nodes are derived, the composed
// edges on a hand-checked case, composition laws on random relations, and on
// random problems the laws that make a solve over the skipping tables exact,
// checked against the tabulation solver's bits.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <atomic>
#include <vector>

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/row_tables.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#include "support/ifds_gen.hpp"

using namespace weir::ifds;
using weir::test::mini_problem;
using u32v = std::vector<std::uint32_t>;

namespace {

/// A row of F facts as W words.
using row = std::vector<std::uint32_t>;

/// Applies relation (id, pairs) to `r`.
row apply(const u32v& id, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& x, const row& r) {
    row out(r.size());
    for (std::size_t j = 0; j < r.size(); ++j) out[j] = r[j] & id[j];
    for (auto [s, d] : x)
        if ((r[s / 32] >> (s % 32)) & 1u) out[d / 32] |= 1u << (d % 32);
    return out;
}

/// Row (n, c) of a path-edge bitset.
row row_of(const layout& L, const u32v& pe, std::uint32_t n, std::uint32_t c) {
    const std::uint32_t F = L.node_fact_count[n];
    row r((F + 31) / 32, 0);
    for (std::uint32_t d = 0; d < F; ++d) {
        const std::uint64_t bit = detail::row_start(L, n, c) + d;
        if ((pe[bit / 32] >> (bit % 32)) & 1u) r[d / 32] |= 1u << (d % 32);
    }
    return r;
}

/// Pairs [x_off[i], x_off[i+1]) of a table.
std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_of(const u32v& off, const u32v& src, const u32v& dst, std::size_t i) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> x;
    for (std::uint32_t k = off[i]; k < off[i + 1]; ++k) x.push_back({src[k], dst[k]});
    return x;
}

/// The solved result with every derived node's block cleared, then
/// completed by derive_rows.
u32v rederived(const layout& L, const row_tables& t, u32v pe) {
    for (std::uint32_t s : t.derived.node)
        for (std::uint32_t w = L.pe_word[s]; w < L.pe_word[s + 1]; ++w) pe[w] = 0;  // blocks start on a word
    derive_rows(L, t.derived, pe);
    return pe;
}

/// The chunks (`derived_rows::chunk_off`) whose groups hold node `s`.
std::set<std::size_t> chunks_of(const derived_rows& dr, std::uint32_t s) {
    std::set<std::size_t> chunks;
    for (std::size_t k = 0; k + 1 < dr.chunk_off.size(); ++k)
        for (std::uint32_t i = dr.chunk_off[k]; i < dr.chunk_off[k + 1]; ++i)
            for (std::uint32_t e = dr.group_off[dr.order[i]]; e < dr.group_off[dr.order[i] + 1]; ++e)
                if (dr.node[e] == s) chunks.insert(k);
    return chunks;
}

/// The laws of `derived_rows::order` and `chunk_off`: the order is a
/// permutation of the groups, by their roots' procedures and stable; chunks
/// cover it in order, and a chunk ends between two procedures once it has
/// `finish_group_chunk` groups, inside one only at `finish_chunk_most`.
void check_chunks(const layout& L, const derived_rows& dr) {
    const std::size_t groups = dr.root.size();
    REQUIRE(dr.order.size() == groups);
    auto proc = [&](std::size_t i) { return L.node_proc[dr.root[dr.order[i]]]; };
    std::vector<char> seen(groups, 0);
    for (std::size_t i = 0; i < groups; ++i) {
        REQUIRE(dr.order[i] < groups);
        CHECK_FALSE(seen[dr.order[i]]);
        seen[dr.order[i]] = 1;
        if (i > 0) {
            REQUIRE(proc(i - 1) <= proc(i));
            if (proc(i - 1) == proc(i)) CHECK(dr.order[i - 1] < dr.order[i]);
        }
    }
    if (groups == 0) {
        CHECK(dr.chunk_off.size() <= 1);
        return;
    }
    REQUIRE(dr.chunk_off.size() >= 2);
    CHECK(dr.chunk_off.front() == 0);
    CHECK(dr.chunk_off.back() == groups);
    for (std::size_t k = 0; k + 1 < dr.chunk_off.size(); ++k) {
        const std::uint32_t b = dr.chunk_off[k], e = dr.chunk_off[k + 1];
        REQUIRE(b < e);
        CHECK(e - b <= detail::finish_chunk_most);
        for (std::uint32_t g = b + 1; g < e; ++g)  // no cut it could have made
            CHECK_FALSE((g - b >= detail::finish_group_chunk && proc(g) != proc(g - 1)));
        if (e < groups) CHECK((e - b == detail::finish_chunk_most || (e - b >= detail::finish_group_chunk && proc(e) != proc(e - 1))));
    }
}

bool contains(const row& big, const row& small) {
    for (std::size_t j = 0; j < big.size(); ++j)
        if ((small[j] & ~big[j]) != 0) return false;
    return true;
}

} // namespace

TEST_CASE("row tables: a straight line is routed past its derived nodes", "[ifds][rows]") {
    mini_problem m;
    m.facts({"a", "b"})
        .proc("main", "ms", "me")  // nodes 0, 1
        .node("n1", "main")        // 2
        .node("n2", "main")        // 3
        .flow("ms", "n1", "id gen:a")
        .flow("n1", "n2", "id kill:a a>b")
        .flow("n2", "me", "id")
        .seed("ms", "0");
    const layout L = make_layout(m.get());
    REQUIRE(L.node_fact_count[0] == 3);  // local facts: 0, a, b

    const row_tables all = make_row_tables(L, row_form::all_nodes);
    CHECK(all.edge_dst == u32v{2, 3, 1});
    CHECK(all.derived.size() == 0);

    const row_tables t = make_row_tables(L);
    // ms's one edge goes straight to me: (id gen:a) ; (id kill:a a>b) ; id
    CHECK(t.edge_off == u32v{0, 1, 1, 1, 1});
    CHECK(t.edge_dst == u32v{1});
    CHECK(t.edge_mask == u32v{0b101});  // 0 and b pass; a is killed on the way
    CHECK(pairs_of(t.edge_x_off, t.edge_x_src, t.edge_x_dst, 0) ==
          std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 2}, {1, 2}});  // 0>a>b, a>b
    // n1 and n2 are derived from ms
    CHECK(t.derived.root == u32v{0});
    CHECK(t.derived.group_off == u32v{0, 2});
    CHECK(std::set<std::uint32_t>(t.derived.node.begin(), t.derived.node.end()) == std::set<std::uint32_t>{2, 3});

    // the solve over t sets ms and me; derive_rows sets n1 and n2 as the tabulation solver does
    const auto expect = tabulation_solver(L).solve().value();
    REQUIRE(std::any_of(expect.path_edges.begin() + L.pe_word[2], expect.path_edges.begin() + L.pe_word[4],
                        [](std::uint32_t w) { return w != 0; }));
    CHECK(rederived(L, t, expect.path_edges) == expect.path_edges);
}

TEST_CASE("row tables: start nodes, call sites, return sites and exits are never derived; a join of two roots is",
          "[ifds][rows]") {
    mini_problem m;
    m.facts({"a"})
        .proc("main", "ms", "me")  // 0, 1
        .proc("f", "fs", "fe")     // 2, 3
        .node("c", "main")         // 4: call site
        .node("r", "main")         // 5: return site
        .node("x", "main")         // 6: one predecessor: derived from r
        .node("j", "main")         // 7: a join, derived from ms and from r
        .flow("ms", "c", "id")
        .call("c", "f", "r", "id", "id")
        .flow("r", "x", "id gen:a")
        .flow("x", "j", "id")
        .flow("ms", "j", "id")
        .flow("j", "me", "id")
        .flow("fs", "fe", "id")
        .seed("ms", "0");
    const layout L = make_layout(m.get());
    const row_tables t = make_row_tables(L);
    CHECK(t.derived.root == u32v{0, 5});
    CHECK(t.derived.group_off == u32v{0, 1, 3});
    CHECK(t.derived.node == u32v{7, 6, 7});
    // solved: ms -> me (through j), ms -> c, fs -> fe, c -> r (call to return), r -> me (through x and j)
    CHECK(t.edge_off == u32v{0, 2, 2, 3, 3, 4, 5, 5, 5});
    CHECK(t.edge_dst == u32v{1, 4, 3, 5, 1});
    const auto expect = tabulation_solver(L).solve().value();
    CHECK(rederived(L, t, expect.path_edges) == expect.path_edges);
}

TEST_CASE("row tables: a node fed by more roots than the limit is solved", "[ifds][rows]") {
    // A chain of joins j1 ... j12, each joining the one before it with the
    // return site of a call: join k is fed by k+1 roots, until one is solved.
    mini_problem m;
    m.facts({"a"}).proc("main", "ms", "me").proc("f", "fs", "fe").flow("fs", "fe", "id kill:a");
    constexpr int k_joins = 12;
    std::string prev = "ms";
    for (int k = 1; k <= k_joins; ++k) {
        const std::string c = "c" + std::to_string(k), r = "r" + std::to_string(k), j = "j" + std::to_string(k);
        m.node(c, "main").node(r, "main").node(j, "main");
        m.flow(prev, c, "id").call(c, "f", r, "id", "id gen:a").flow(prev, j, "id").flow(r, j, "id");
        prev = j;
    }
    m.flow(prev, "me", "id").seed("ms", "0");
    const layout L = make_layout(m.get());
    const row_tables t = make_row_tables(L);
    // node ids: main's 0, 1; f's 2, 3; then c, r, j of join k at 4 + 3(k-1)
    auto join = [](int k) { return static_cast<std::uint32_t>(4 + 3 * (k - 1) + 2); };
    std::vector<std::uint32_t> roots_of(L.num_nodes, 0);
    for (std::uint32_t s : t.derived.node) roots_of[s]++;
    constexpr auto limit = detail::max_roots_per_derived_node;
    static_assert(limit + 2 <= k_joins);
    for (int k = 1; k < static_cast<int>(limit); ++k) CHECK(roots_of[join(k)] == static_cast<std::uint32_t>(k + 1));
    CHECK(roots_of[join(limit)] == 0);      // limit + 1 roots: solved
    CHECK(roots_of[join(limit + 1)] == 2);  // fed by that join and one return site
    CHECK(roots_of[join(limit + 2)] == 3);
    const auto expect = tabulation_solver(L).solve().value();
    CHECK(rederived(L, t, expect.path_edges) == expect.path_edges);
}

TEST_CASE("row tables: an if/else diamond and a loop are derived", "[ifds][rows]") {
    mini_problem m;
    m.facts({"a", "b"})
        .proc("main", "ms", "me")  // 0, 1
        .node("t", "main")         // 2: then
        .node("e", "main")         // 3: else
        .node("j", "main")         // 4: join of the diamond
        .node("h", "main")         // 5: loop head
        .node("body", "main")      // 6: loop body, back to h
        .flow("ms", "t", "id gen:a")
        .flow("ms", "e", "id gen:b")
        .flow("t", "j", "id")
        .flow("e", "j", "id kill:a")
        .flow("j", "h", "id")
        .flow("h", "body", "id a>b")
        .flow("body", "h", "id")
        .flow("h", "me", "id")
        .seed("ms", "0");
    const layout L = make_layout(m.get());
    const row_tables t = make_row_tables(L);
    // everything but ms and me comes from ms, the loop as the least fixed point
    CHECK(t.derived.root == u32v{0});
    CHECK(t.derived.group_off == u32v{0, 5});
    CHECK(std::set<std::uint32_t>(t.derived.node.begin(), t.derived.node.begin() + 2) == std::set<std::uint32_t>{2, 3});
    CHECK(t.derived.node[2] == 4);
    CHECK(std::set<std::uint32_t>(t.derived.node.begin() + 3, t.derived.node.end()) == std::set<std::uint32_t>{5, 6});
    // solved: ms -> me only, through the diamond and the loop
    CHECK(t.edge_off == u32v{0, 1, 1, 1, 1, 1, 1, 1});
    CHECK(t.edge_dst == u32v{1});
    // ms => me is ((gen a ; id) | (gen b ; kill a)) ; (id a>b)*: 0, a and b
    // pass; 0 reaches a and b; a reaches b through the loop
    CHECK(t.edge_mask[t.edge_mask_off[0]] == 0b111);
    CHECK(pairs_of(t.edge_x_off, t.edge_x_src, t.edge_x_dst, 0) ==
          std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}, {0, 2}, {1, 2}});
    const auto expect = tabulation_solver(L).solve().value();
    CHECK(rederived(L, t, expect.path_edges) == expect.path_edges);
}

TEST_CASE("row tables: a loop that needs more passes than the limit has its head solved", "[ifds][rows]") {
    // Around the loop x0 moves to x1, x1 to x2, ...: x_k reaches x_j only
    // after j - k turns, so the loop's relations settle after one pass per
    // step of the shift, more than max_loop_passes.
    constexpr int steps = 10;
    static_assert(steps > static_cast<int>(detail::max_loop_passes));
    mini_problem m;
    std::vector<std::string> xs;
    std::string shift = "id";
    for (int i = 0; i <= steps; ++i) xs.push_back("x" + std::to_string(i));
    for (int i = 0; i < steps; ++i) shift += " x" + std::to_string(i) + ">x" + std::to_string(i + 1);
    m.facts(xs)
        .proc("main", "ms", "me")  // 0, 1
        .node("h", "main")         // 2: loop head
        .node("body", "main")      // 3
        .flow("ms", "h", "id gen:x0")
        .flow("h", "body", "id")
        .flow("body", "h", shift)
        .flow("h", "me", "id")
        .seed("ms", "0");
    const layout L = make_layout(m.get());
    const row_tables t = make_row_tables(L);
    // the head is solved, the body derived from it
    CHECK(t.derived.root == u32v{2});
    CHECK(t.derived.node == u32v{3});
    const auto expect = tabulation_solver(L).solve().value();
    CHECK(rederived(L, t, expect.path_edges) == expect.path_edges);
}

TEST_CASE("row tables: a node whose relation would be too large is solved", "[ifds][rows]") {
    // A line of moves without kills, x_i>x_{i+1}: the relation from the
    // start to the k-th node holds every pair x_a -> x_b, a < b <= k.
    constexpr int F = 40, k = 60;
    mini_problem m;
    std::vector<std::string> xs;
    for (int i = 0; i < F; ++i) xs.push_back("x" + std::to_string(i));
    m.facts(xs).proc("main", "ms", "me");
    std::string prev = "ms";
    for (int i = 0; i < k; ++i) {
        const std::string n = "n" + std::to_string(i);
        m.node(n, "main");
        m.flow(prev, n, i == 0 ? std::string("id gen:x0") : "id x" + std::to_string((i - 1) % F) + ">x" + std::to_string(i % F));
        prev = n;
    }
    m.flow(prev, "me", "id").seed("ms", "0");
    const layout L = make_layout(m.get());
    const row_tables t = make_row_tables(L);
    const std::uint32_t Fl = L.node_fact_count[0];
    // some nodes of the line are solved (more than one root group), and no
    // derived relation is over the limit
    CHECK(t.derived.root.size() > 1);
    for (std::size_t e = 0; e < t.derived.size(); ++e)
        CHECK(t.derived.x_off[e + 1] - t.derived.x_off[e] <= detail::max_relation_pairs(Fl));
    const auto expect = tabulation_solver(L).solve().value();
    CHECK(rederived(L, t, expect.path_edges) == expect.path_edges);
}

TEST_CASE("row tables: composition laws on random relations", "[ifds][rows][random]") {
    std::mt19937 rng(7);
    for (std::uint32_t F : {1u, 5u, 32u, 33u, 70u}) {
        const std::uint32_t W = (F + 31) / 32;
        auto random_relation = [&] {
            detail::row_relation r;
            r.id.assign(W, 0);
            for (std::uint32_t d = 0; d < F; ++d)
                if (rng() % 3) r.id[d / 32] |= 1u << (d % 32);
            for (std::uint32_t k = rng() % 6; k-- > 0;) r.x.push_back({std::uint32_t(rng() % F), std::uint32_t(rng() % F)});
            detail::normalise(r);
            return r;
        };
        auto random_row = [&] {
            row r(W, 0);
            for (std::uint32_t d = 0; d < F; ++d)
                if (rng() % 4 == 0) r[d / 32] |= 1u << (d % 32);
            return r;
        };
        for (int i = 0; i < 200; ++i) {
            INFO("F " << F << ", case " << i);
            const auto a = random_relation(), b = random_relation(), c = random_relation();
            const row r = random_row();
            const auto ab = detail::compose(a, b);
            // (a ; b)(r) = b(a(r)), and composition is associative
            CHECK(apply(ab.id, ab.x, r) == apply(b.id, b.x, apply(a.id, a.x, r)));
            const auto ab_c = detail::compose(ab, c), a_bc = detail::compose(a, detail::compose(b, c));
            CHECK(ab_c.id == a_bc.id);
            CHECK(ab_c.x == a_bc.x);
            // (a ∪ b)(r) = a(r) | b(r)
            auto u = a;
            detail::unite(u, b);
            row ua = apply(a.id, a.x, r), ub = apply(b.id, b.x, r);
            for (std::uint32_t j = 0; j < W; ++j) ua[j] |= ub[j];
            CHECK(apply(u.id, u.x, r) == ua);
            // normal form: no pair d → d, sorted, unique
            for (const detail::row_relation* rel : {&ab, &ab_c, static_cast<const detail::row_relation*>(&u)})
                for (std::size_t k = 0; k < rel->x.size(); ++k) {
                    CHECK(rel->x[k].first != rel->x[k].second);
                    if (k) CHECK(rel->x[k - 1] < rel->x[k]);
                }
        }
    }
}

TEST_CASE("row tables: on random problems the skipping tables are exact", "[ifds][rows][random]") {
    // what the seeds exercised: derived nodes, joins of several roots, derived
    // loops, procedures over 32 facts
    std::uint64_t derived_nodes = 0, derived_multi_root = 0, derived_loops = 0, derived_wide = 0;
    for (std::uint64_t seed = 0; seed < 150; ++seed) {
        weir::test::gen_options o;
        o.procs = 1 + static_cast<std::uint32_t>(seed % 6);
        o.facts = static_cast<std::uint32_t>(seed % 9) + (seed % 5 == 0 ? 60 : 0);  // some over 32 facts
        o.max_nodes = 4 + static_cast<std::uint32_t>(seed % 8);
        const layout L = make_layout(weir::test::random_problem(seed, o));
        const auto expect = tabulation_solver(L).solve().value();
        const auto& pe = expect.path_edges;
        const row_tables all = make_row_tables(L, row_form::all_nodes);
        const row_tables t = make_row_tables(L);
        INFO("seed " << seed);

        // Derived nodes and their roots: none of the kinds the solver must
        // expand; roots solved; each (root, node) once; and the roots of a
        // derived node are exactly its solved predecessors and the roots of its
        // derived ones (a least fixed point, so loops take their entries' roots).
        std::vector<char> derived(L.num_nodes, 0);
        std::vector<std::set<std::uint32_t>> roots(L.num_nodes);
        for (std::size_t g = 0; g < t.derived.root.size(); ++g)
            for (std::uint32_t e = t.derived.group_off[g]; e < t.derived.group_off[g + 1]; ++e) {
                const std::uint32_t s = t.derived.node[e];
                REQUIRE(s < L.num_nodes);
                REQUIRE(roots[s].insert(t.derived.root[g]).second);
                derived[s] = 1;
            }
        std::vector<std::vector<std::uint32_t>> preds(L.num_nodes);
        for (std::uint32_t p = 0; p < L.num_nodes; ++p)
            for (std::uint32_t ed = all.edge_off[p]; ed < all.edge_off[p + 1]; ++ed) preds[all.edge_dst[ed]].push_back(p);
        std::vector<std::set<std::uint32_t>> expect_roots(L.num_nodes);
        for (bool changed = true; changed;) {
            changed = false;
            for (std::uint32_t s = 0; s < L.num_nodes; ++s) {
                if (!derived[s]) continue;
                for (std::uint32_t p : preds[s]) {
                    const std::size_t before = expect_roots[s].size();
                    if (derived[p]) expect_roots[s].insert(expect_roots[p].begin(), expect_roots[p].end());
                    else expect_roots[s].insert(p);
                    changed = changed || expect_roots[s].size() != before;
                }
            }
        }
        for (std::uint32_t s = 0; s < L.num_nodes; ++s) {
            if (!derived[s]) continue;
            CHECK((L.node_kind[s] & (kind_start | kind_call_site | kind_exit)) == 0);
            CHECK(std::find(L.ce_retsite.begin(), L.ce_retsite.end(), s) == L.ce_retsite.end());
            CHECK(std::find(L.node_retsite.begin(), L.node_retsite.end(), s) == L.node_retsite.end());
            for (std::uint32_t r : roots[s]) CHECK_FALSE(derived[r]);
            CHECK(roots[s] == expect_roots[s]);
            CHECK(roots[s].size() <= detail::max_roots_per_derived_node);
            derived_nodes++;
            derived_multi_root += roots[s].size() > 1;
            derived_wide += L.node_fact_count[s] > 32;
        }
        // an entry is marked shared exactly when its node has roots in groups of
        // two chunks (the parallel completion writes only those with atomic ORs)
        check_chunks(L, t.derived);
        REQUIRE(t.derived.shared.size() == t.derived.size());
        for (std::size_t e = 0; e < t.derived.size(); ++e)
            CHECK(bool(t.derived.shared[e]) == (chunks_of(t.derived, t.derived.node[e]).size() > 1));
        // loops among derived nodes: some are left when sources are peeled off one by one
        {
            std::vector<std::uint32_t> indeg(L.num_nodes, 0), ready;
            for (std::uint32_t p = 0; p < L.num_nodes; ++p)
                for (std::uint32_t ed = all.edge_off[p]; ed < all.edge_off[p + 1]; ++ed)
                    if (derived[p] && derived[all.edge_dst[ed]]) indeg[all.edge_dst[ed]]++;
            std::uint32_t count = 0, peeled = 0;
            for (std::uint32_t s = 0; s < L.num_nodes; ++s) {
                count += derived[s];
                if (derived[s] && indeg[s] == 0) ready.push_back(s);
            }
            while (!ready.empty()) {
                const std::uint32_t p = ready.back();
                ready.pop_back();
                ++peeled;
                for (std::uint32_t ed = all.edge_off[p]; ed < all.edge_off[p + 1]; ++ed)
                    if (derived[all.edge_dst[ed]] && --indeg[all.edge_dst[ed]] == 0) ready.push_back(all.edge_dst[ed]);
            }
            derived_loops += peeled < count;
        }
        // The skipping tables leave derived nodes out: no edge out of or into one.
        REQUIRE(t.edge_off.size() == L.num_nodes + 1);
        for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
            if (derived[n]) CHECK(t.edge_off[n] == t.edge_off[n + 1]);
            for (std::uint32_t ed = t.edge_off[n]; ed < t.edge_off[n + 1]; ++ed) CHECK_FALSE(derived[t.edge_dst[ed]]);
        }
        // The composed edges are exact: each adds nothing the fixed point lacks,
        // and a solved node that only intraprocedural edges reach (not a start or
        // return site) has exactly the rows its composed incoming edges give it.
        std::vector<std::vector<row>> given(L.num_nodes);  // per node and context
        for (std::uint32_t n = 0; n < L.num_nodes; ++n)
            for (std::uint32_t ed = t.edge_off[n]; ed < t.edge_off[n + 1]; ++ed) {
                const std::uint32_t m = t.edge_dst[ed], F = L.node_fact_count[n], W = (F + 31) / 32;
                const u32v id(t.edge_mask.begin() + t.edge_mask_off[ed], t.edge_mask.begin() + t.edge_mask_off[ed] + W);
                const auto x = pairs_of(t.edge_x_off, t.edge_x_src, t.edge_x_dst, ed);
                given[m].resize(F, row(W, 0));
                for (std::uint32_t c = 0; c < F; ++c) {
                    const row r = apply(id, x, row_of(L, pe, n, c));
                    CHECK(contains(row_of(L, pe, m, c), r));
                    for (std::uint32_t j = 0; j < W; ++j) given[m][c][j] |= r[j];
                }
            }
        for (std::uint32_t m = 0; m < L.num_nodes; ++m) {
            const bool interprocedural = (L.node_kind[m] & kind_start) ||
                                         std::find(L.ce_retsite.begin(), L.ce_retsite.end(), m) != L.ce_retsite.end();
            if (derived[m] || interprocedural) continue;
            const std::uint32_t F = L.node_fact_count[m];
            given[m].resize(F, row((F + 31) / 32, 0));
            for (std::uint32_t c = 0; c < F; ++c) CHECK(row_of(L, pe, m, c) == given[m][c]);
        }
        // Each derived row is the union of its roots' rows through the entries' relations.
        std::vector<std::vector<row>> union_of(L.num_nodes);  // per derived node and context
        for (std::size_t g = 0; g < t.derived.root.size(); ++g) {
            const std::uint32_t n = t.derived.root[g], F = L.node_fact_count[n], W = (F + 31) / 32;
            CHECK_FALSE(derived[n]);
            for (std::uint32_t e = t.derived.group_off[g]; e < t.derived.group_off[g + 1]; ++e) {
                const std::uint32_t s = t.derived.node[e];
                const u32v id(t.derived.mask.begin() + t.derived.mask_off[e], t.derived.mask.begin() + t.derived.mask_off[e] + W);
                const auto x = pairs_of(t.derived.x_off, t.derived.x_src, t.derived.x_dst, e);
                union_of[s].resize(F, row(W, 0));
                for (std::uint32_t c = 0; c < F; ++c) {
                    const row r = apply(id, x, row_of(L, pe, n, c));
                    for (std::uint32_t j = 0; j < W; ++j) union_of[s][c][j] |= r[j];
                }
            }
        }
        for (std::uint32_t s = 0; s < L.num_nodes; ++s)
            if (derived[s])
                for (std::uint32_t c = 0; c < L.node_fact_count[s]; ++c) CHECK(row_of(L, pe, s, c) == union_of[s][c]);
        // And derive_rows rebuilds the derived nodes' bits from the others.
        CHECK(rederived(L, t, pe) == pe);
    }
    CHECK(derived_nodes > 100);
    CHECK(derived_multi_root > 0);
    CHECK(derived_loops > 0);
    CHECK(derived_wide > 0);
}

TEST_CASE("row tables: the call tables and node records hold the layout's relations", "[ifds][rows][random]") {
    namespace f = weir::ops::ifds_rows;
    std::uint64_t with_masks = 0, without_masks = 0, two_word_masks = 0;
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
        weir::test::gen_options o;
        // small procedures, and ones of up to about 64 facts and wider (facts
        // mentioned in many flow functions)
        o.procs = 2 + static_cast<std::uint32_t>(seed % 3);
        o.facts = 30 + 35 * static_cast<std::uint32_t>(seed % 3);
        o.min_nodes = 4, o.max_nodes = seed % 2 ? 8 : 14;
        o.p_gen = o.p_pair = seed % 2 ? 0.7 : 0.9;
        o.p_kill = 0.5, o.p_call = 0.4;
        if (seed % 5 == 0) o.facts = 3, o.p_gen = o.p_pair = 0.25;
        const layout L = make_layout(weir::test::random_problem(seed, o));
        INFO("seed " << seed);
        for (const row_form form : {row_form::all_nodes, row_form::skip_derived}) {
            const row_tables t = make_row_tables(L, form);
            // a call site's rows of the call relation (offsets, then its pairs), and no row for any other node
            REQUIRE(t.site_row.size() == L.num_nodes);
            CHECK(every_site_has_pairs(L, t));
            for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
                if (!(L.node_kind[n] & kind_call_site)) {
                    CHECK(t.site_row[n] == ~0u);
                    continue;
                }
                const std::uint32_t sr = t.site_row[n], F = L.node_fact_count[n];
                REQUIRE(std::uint64_t(sr) + F < t.site_call_off.size());
                CHECK(t.site_call_off[sr] == sr + F + 1);  // the pairs follow the offsets
                for (std::uint32_t d = 0; d < F; ++d) {
                    const std::uint32_t b = t.site_call_off[sr + d], e = t.site_call_off[sr + d + 1];
                    REQUIRE(b <= e);
                    REQUIRE(e <= t.site_call_off.size());
                    std::vector<std::pair<std::uint32_t, std::uint32_t>> got, want;
                    for (std::uint32_t i = b; i + 1 < e; i += 2) got.emplace_back(t.site_call_off[i], t.site_call_off[i + 1]);
                    for (std::uint32_t i = L.call_off[L.row_base[n] + d]; i < L.call_off[L.row_base[n] + d + 1]; ++i)
                        want.emplace_back(L.call_ce[i], L.call_fact[i]);
                    CHECK((e - b) % 2 == 0);
                    CHECK(got == want);
                }
            }
            // each node's record: what the ops read about it
            REQUIRE(t.node_info.size() == std::size_t(L.num_nodes) * node_info_words);
            for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
                const std::uint32_t* info = t.node_info.data() + std::size_t(n) * node_info_words;
                CHECK(info[f::ni_facts] == L.node_fact_count[n]);
                CHECK(info[f::ni_pe_word] == t.packing.pe_word[n]);  // in the packed bitset
                CHECK(info[f::ni_edge_begin] == t.edge_off[n]);
                CHECK(info[f::ni_edge_end] == t.edge_off[n + 1]);
                CHECK(info[f::ni_kind] == L.node_kind[n]);
                CHECK(info[f::ni_retsite] == L.node_retsite[n]);
                CHECK(info[f::ni_site_row] == t.site_row[n]);
                CHECK(info[f::ni_proc] == L.node_proc[n]);
            }
            // each call edge's record, and its return flow as masks where the caller has at most 64 facts
            REQUIRE(t.ce_info.size() == L.ce_site.size() * call_edge_info_words);
            for (std::size_t ce = 0; ce < L.ce_site.size(); ++ce) {
                const std::uint32_t* info = t.ce_info.data() + ce * call_edge_info_words;
                const std::uint32_t q = L.ce_callee[ce], fq = L.fact_count(q), fc = L.node_fact_count[L.ce_site[ce]];
                CHECK(info[f::ce_start] == L.proc_start[q]);
                CHECK(info[f::ce_exit] == L.proc_exit[q]);
                CHECK(info[f::ce_callee_facts] == fq);
                CHECK(info[f::ce_exit_word] == t.packing.pe_word[L.proc_exit[q]]);
                CHECK(info[f::ce_retsite] == L.ce_retsite[ce]);
                CHECK(info[f::ce_site_facts] == fc);
                const std::uint32_t w = info[f::ce_mask_words];
                CHECK(w == (fc <= 64 ? (fc + 31) / 32 : 0u));
                if (w == 0) {
                    ++without_masks;
                    continue;
                }
                ++with_masks;
                two_word_masks += w == 2;
                REQUIRE(std::uint64_t(info[f::ce_mask_first]) + std::uint64_t(fq) * w <= t.ret_mask.size());
                // one-word masks: 32 words in the table from the first (the op reads
                // them at once, `weir::ops::ifds_rows::select_masks`)
                if (w == 1) CHECK(std::uint64_t(info[f::ce_mask_first]) + 32 <= t.ret_mask.size());
                for (std::uint32_t d4 = 0; d4 < fq; ++d4) {
                    row expect(w, 0);
                    const std::uint32_t rr = L.ret_row[ce] + d4;
                    for (std::uint32_t k = L.ret_off[rr]; k < L.ret_off[rr + 1]; ++k) expect[L.ret_fact[k] / 32] |= 1u << (L.ret_fact[k] % 32);
                    const row got(t.ret_mask.begin() + info[f::ce_mask_first] + d4 * w,
                                  t.ret_mask.begin() + info[f::ce_mask_first] + (d4 + 1) * w);
                    CHECK(got == expect);
                }
            }
        }
    }
    // the seeds reached every case: one- and two-word masks, and callers without masks
    CHECK(with_masks > 0);
    CHECK(two_word_masks > 0);
    CHECK(without_masks > 0);
}

TEST_CASE("row tables: the packed bitset holds the solved nodes' blocks in node order, and unpacks to the layout's",
          "[ifds][rows][random]") {
    std::uint64_t moved = 0, packed_smaller = 0;
    for (std::uint64_t seed = 0; seed < 80; ++seed) {
        weir::test::gen_options o;
        o.procs = 1 + static_cast<std::uint32_t>(seed % 5);
        o.facts = static_cast<std::uint32_t>(seed % 7) + (seed % 4 == 0 ? 40 : 0);
        o.max_nodes = 4 + static_cast<std::uint32_t>(seed % 9);
        const layout L = make_layout(weir::test::random_problem(seed, o));
        const auto expect = tabulation_solver(L).solve().value();
        INFO("seed " << seed);
        for (const row_form form : {row_form::all_nodes, row_form::skip_derived}) {
            const row_tables t = make_row_tables(L, form);
            const bitset_packing& p = t.packing;
            std::vector<char> derived(L.num_nodes, 0);
            for (std::uint32_t n : t.derived.node) derived[n] = 1;
            // Solved nodes: their own block's size, one after another in node
            // order; derived nodes: at the end, with no block there.
            REQUIRE(p.pe_word.size() == std::size_t(L.num_nodes) + 1);
            std::uint32_t w = 0;
            for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
                if (derived[n]) continue;
                CHECK(p.pe_word[n] == w);
                w += L.pe_word[n + 1] - L.pe_word[n];
            }
            CHECK(p.words == w);
            CHECK(p.pe_word[L.num_nodes] == w);
            for (std::uint32_t n = 0; n < L.num_nodes; ++n)
                if (derived[n]) CHECK(p.pe_word[n] == p.words);
            if (form == row_form::all_nodes) CHECK(p.pe_word == L.pe_word);
            packed_smaller += p.words < L.pe_words;
            // The runs cover exactly the solved blocks (checked by moving them).
            std::uint64_t run_words = 0;
            for (const block_run& r : p.runs) {
                run_words += r.words;
                moved += r.packed != r.unpacked;
            }
            CHECK(run_words == p.words);

            // Pack the solved nodes' bits as a solve leaves them (garbage
            // after the packed words must not be there: the rest is zero),
            // unpack in place: the solved blocks at the layout's positions,
            // every other word zero.
            u32v solved = expect.path_edges;
            for (std::uint32_t n = 0; n < L.num_nodes; ++n)
                if (derived[n])
                    for (std::uint32_t k = L.pe_word[n]; k < L.pe_word[n + 1]; ++k) solved[k] = 0;
            u32v pe(L.pe_words, 0);
            for (std::uint32_t n = 0; n < L.num_nodes; ++n)
                if (!derived[n])
                    std::copy(solved.begin() + L.pe_word[n], solved.begin() + L.pe_word[n + 1], pe.begin() + p.pe_word[n]);
            unpack_bitset(p, pe);
            CHECK(pe == solved);
            derive_rows(L, t.derived, pe);
            CHECK(pe == expect.path_edges);
        }
    }
    CHECK(moved > 0);           // some blocks moved
    CHECK(packed_smaller > 0);  // and some packed bitsets are smaller than the layout's
}

TEST_CASE("row tables: completed on two threads a chunk at a time, as the resident solver does, the rows are exact",
          "[ifds][rows][random]") {
    // problems with more groups than one chunk; some (every third seed) with
    // procedures of more than `finish_chunk_most` groups, cut inside, so that
    // some derived nodes have roots in two chunks (shared: atomic ORs); most
    // joins do not
    std::uint64_t shared = 0, joins_in_one_chunk = 0;
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
        INFO("seed " << seed);
        weir::test::gen_options o;
        o.procs = seed % 3 == 0 ? 1 : 30 + static_cast<std::uint32_t>(seed % 4) * 10;
        o.facts = 4 + static_cast<std::uint32_t>(seed % 7) + (seed % 4 == 0 ? 40 : 0);
        o.min_nodes = seed % 3 == 0 ? 2000 : 6;
        o.max_nodes = seed % 3 == 0 ? 2400 : 14;
        const layout L = make_layout(weir::test::random_problem(seed, o));
        const auto expect = tabulation_solver(L).solve().value();
        const row_tables t = make_row_tables(L);
        const derived_rows& dr = t.derived;
        check_chunks(L, dr);
        std::vector<std::uint32_t> root_count(L.num_nodes, 0);
        for (std::uint32_t s : dr.node) root_count[s]++;
        for (std::size_t e = 0; e < dr.size(); ++e) {
            shared += dr.shared[e];
            joins_in_one_chunk += !dr.shared[e] && root_count[dr.node[e]] > 1;
        }
        u32v pe = expect.path_edges;
        for (std::uint32_t s : dr.node)
            for (std::uint32_t w = L.pe_word[s]; w < L.pe_word[s + 1]; ++w) pe[w] = 0;
        // two threads taking chunks in turn, interleaved
        const std::size_t chunks = dr.chunk_off.size() - 1;
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            for (std::size_t i; (i = next.fetch_add(1)) < chunks;)
                detail::derive_groups(L, dr, pe, dr.chunk_off[i], dr.chunk_off[i + 1], true);
        };
        std::thread other(work);
        work();
        other.join();
        CHECK(pe == expect.path_edges);
    }
    CHECK(shared > 0);
    CHECK(joins_in_one_chunk > 0);
}
