// Tabulation solver: hand-made cases for the exactness traps, and agreement
// with the brute-force reference on hundreds of random small problems.

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#include "support/brute_force.hpp"
#include "support/ifds_gen.hpp"
#include "support/tabulate.hpp"

using namespace weir::ifds;
using weir::test::mini_problem;

namespace {

/// Solves with the tabulation, checks against brute force, returns the text.
std::string solve_text(const problem& pb) {
    const solution s = weir::test::tabulate(pb);
    const solution b = weir::test::brute_force_solve(pb);
    CHECK(format_solution(pb, s) == format_solution(pb, b));
    return format_solution(pb, s);
}

} // namespace

TEST_CASE("tabulation: two call sites of one callee do not mix", "[ifds][tabulation]") {
    mini_problem m;
    m.facts({"a", "b"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("c1", "main")
        .node("r1", "main")
        .node("c2", "main")
        .node("r2", "main")
        .flow("ms", "c1")
        .call("c1", "f", "r1", "gen:a")
        .flow("r1", "c2")
        .call("c2", "f", "r2", "gen:b")
        .flow("r2", "me")
        .flow("fs", "fe")
        .seed("ms", "0");
    CHECK(solve_text(m.get()) ==
          "ms: 0\nme: 0 a b\nfs: 0 a b\nfe: 0 a b\nc1: 0\nr1: 0 a\nc2: 0 a\nr2: 0 a b\n");
}

TEST_CASE("tabulation: shared return site matches the open call's own retflow", "[ifds][tabulation]") {
    mini_problem m;
    m.facts({"a", "b"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("c1", "main")
        .node("c2", "main")
        .node("r", "main")
        .flow("ms", "c1")
        .flow("ms", "c2")
        .call("c1", "f", "r", "gen:a", "id kill:a")
        .call("c2", "f", "r", "gen:b", "id")
        .ctr("c1", "")
        .ctr("c2", "")
        .flow("r", "me")
        .flow("fs", "fe")
        .seed("ms", "0");
    CHECK(solve_text(m.get()) == "ms: 0\nme: 0 b\nfs: 0 a b\nfe: 0 a b\nc1: 0\nc2: 0\nr: 0 b\n");
}

TEST_CASE("tabulation: no return past the seed's procedure", "[ifds][tabulation]") {
    SECTION("seed only in the callee") {
        mini_problem m;
        m.facts({"a"})
            .proc("main", "ms", "me")
            .proc("f", "fs", "fe")
            .node("c1", "main")
            .node("r1", "main")
            .flow("ms", "c1")
            .call("c1", "f", "r1")
            .flow("r1", "me")
            .flow("fs", "fe")
            .seed("fs", "a");
        CHECK(solve_text(m.get()) == "fs: a\nfe: a\n");
    }
    SECTION("seeded callee context is not returned to a caller that never opened it") {
        mini_problem m;
        m.facts({"a"})
            .proc("main", "ms", "me")
            .proc("f", "fs", "fe")
            .node("c1", "main")
            .node("r1", "main")
            .flow("ms", "c1")
            .call("c1", "f", "r1")
            .flow("r1", "me")
            .flow("fs", "fe")
            .seed("ms", "0")
            .seed("fs", "a");
        CHECK(solve_text(m.get()) == "ms: 0\nme: 0\nfs: 0 a\nfe: 0 a\nc1: 0\nr1: 0\n");
    }
    SECTION("a seeded context is returned to a caller that does open it") {
        mini_problem m;
        m.facts({"a"})
            .proc("main", "ms", "me")
            .proc("f", "fs", "fe")
            .node("c1", "main")
            .node("r1", "main")
            .flow("ms", "c1", "gen:a")
            .call("c1", "f", "r1", "a>a")
            .ctr("c1", "")
            .flow("r1", "me")
            .flow("fs", "fe")
            .seed("ms", "0")
            .seed("fs", "a");
        CHECK(solve_text(m.get()) == "ms: 0\nme: 0 a\nfs: 0 a\nfe: 0 a\nc1: 0 a\nr1: 0 a\n");
    }
}

TEST_CASE("tabulation: kill on the call-to-return edge", "[ifds][tabulation]") {
    mini_problem m;
    m.facts({"a", "b"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("c1", "main")
        .node("r1", "main")
        .flow("ms", "c1", "id gen:a,b")
        .call("c1", "f", "r1", "")
        .ctr("c1", "id kill:a")
        .flow("r1", "me")
        .flow("fs", "fe")
        .seed("ms", "0");
    CHECK(solve_text(m.get()) == "ms: 0\nme: 0 b\nfs: 0\nfe: 0\nc1: 0 a b\nr1: 0 b\n");
}

TEST_CASE("tabulation: facts generated inside a callee come back", "[ifds][tabulation]") {
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
    CHECK(solve_text(m.get()) == "ms: 0\nme: 0 a x\nfs: 0\nfe: 0 x\nc1: 0 a\nr1: 0 a x\n");
}

TEST_CASE("tabulation: recursion", "[ifds][tabulation]") {
    // f(a) recurses with a moved to b; b at the exit becomes c on the way back.
    mini_problem m;
    m.facts({"a", "b", "c"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .node("c0", "main")
        .node("r0", "main")
        .node("c", "f")
        .node("r", "f")
        .flow("ms", "c0", "id gen:a")
        .call("c0", "f", "r0", "id")
        .ctr("c0", "")
        .flow("r0", "me")
        .flow("fs", "fe")
        .flow("fs", "c")
        .call("c", "f", "r", "a>b", "id b>c")
        .ctr("c", "")
        .flow("r", "fe")
        .seed("ms", "0");
    CHECK(solve_text(m.get()) ==
          "ms: 0\nme: 0 a b c\nfs: 0 a b\nfe: 0 a b c\nc0: 0 a\nr0: 0 a b c\nc: 0 a b\nr: 0 b c\n");
}

TEST_CASE("tabulation: mutual recursion", "[ifds][tabulation]") {
    // f calls g, g calls f; each call turns one fact into the next.
    mini_problem m;
    m.facts({"a", "b", "c", "d"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .proc("g", "gs", "ge")
        .node("cm", "main")
        .node("rm", "main")
        .node("cf", "f")
        .node("rf", "f")
        .node("cg", "g")
        .node("rg", "g")
        .flow("ms", "cm", "gen:a")
        .call("cm", "f", "rm")
        .ctr("cm", "")
        .flow("rm", "me")
        .flow("fs", "cf")
        .flow("fs", "fe")
        .call("cf", "g", "rf", "a>b c>d")
        .ctr("cf", "")
        .flow("rf", "fe")
        .flow("gs", "cg")
        .flow("gs", "ge")
        .call("cg", "f", "rg", "b>c")
        .ctr("cg", "")
        .flow("rg", "ge")
        .seed("ms", "0");
    const std::string out = solve_text(m.get());
    // f(a) -> g(b) -> f(c) -> g(d); everything flows back out through identity retflows.
    CHECK(out == "ms: 0\nme: 0 a b c d\nfs: 0 a c\nfe: 0 a b c d\ngs: 0 b d\nge: 0 b c d\ncm: 0 a\n"
                 "rm: 0 a b c d\ncf: 0 a c\nrf: 0 b c d\ncg: 0 b d\nrg: 0 c d\n");
}

TEST_CASE("tabulation: indirect call with several callees and one call-to-return edge", "[ifds][tabulation]") {
    mini_problem m;
    m.facts({"a", "b", "x", "y"})
        .proc("main", "ms", "me")
        .proc("f", "fs", "fe")
        .proc("g", "gs", "ge")
        .node("c", "main")
        .node("r", "main")
        .flow("ms", "c", "id gen:a,b")
        .call("c", "f", "r", "a>a", "id")
        .call("c", "g", "r", "b>b", "id kill:b")
        .ctr("c", "id kill:a,b")
        .flow("r", "me")
        .flow("fs", "fe", "id gen:x")
        .flow("gs", "ge", "id gen:y")
        .seed("ms", "0");
    CHECK(solve_text(m.get()) == "ms: 0\nme: 0 a x y\nfs: 0 a\nfe: 0 a x\ngs: 0 b\nge: 0 b y\nc: 0 a b\nr: 0 a x y\n");
}

TEST_CASE("tabulation: x = y moves and kill/gen union", "[ifds][tabulation]") {
    mini_problem m;
    m.facts({"x", "y", "z"})
        .proc("main", "s", "e")
        .node("n1", "main")
        .node("n2", "main")
        .node("n3", "main")
        .flow("s", "n1", "id gen:y")
        .flow("n1", "n2", "id kill:x y>x")
        .flow("n2", "n3", "id kill:y,z gen:z")
        .flow("n3", "e", "z>x y>z")
        .seed("s", "0");
    CHECK(solve_text(m.get()) == "s: 0\ne: 0 x\nn1: 0 y\nn2: 0 x y\nn3: 0 x z\n");
}

TEST_CASE("tabulation: seeds with and without the zero fact", "[ifds][tabulation]") {
    mini_problem m;
    m.facts({"a", "b"}).proc("main", "s", "e").flow("s", "e", "id gen:b").seed("s", "a");
    CHECK(solve_text(m.get()) == "s: a\ne: a\n");
}

TEST_CASE("tabulation: explicit seeds, statistics and bad seeds", "[ifds][tabulation]") {
    const problem pb = weir::test::random_problem(42, {});
    const layout L = make_layout(pb);
    const tabulation_solver ts(L);
    const auto out = ts.solve().value();
    std::uint64_t bits = 0;
    for (auto w : out.path_edges) bits += static_cast<std::uint64_t>(std::popcount(w));
    CHECK(out.stats.path_edges == bits);
    CHECK(out.stats.contexts >= L.seed_node.size());
    CHECK(out.path_edges.size() == L.pe_words);
    const auto again = ts.solve(L.seed_node, L.seed_fact).value();
    CHECK(again.path_edges == out.path_edges);
    // A seed away from a start node, or with a fact outside the set, is refused.
    std::vector<std::uint32_t> bad_node{L.proc_exit[0]}, fact0{0};
    CHECK(ts.solve(bad_node, fact0).error().code() == vyre::error_code::invalid_argument);
    std::vector<std::uint32_t> start{L.proc_start[0]}, big{L.fact_count(0)};
    CHECK(ts.solve(start, big).error().code() == vyre::error_code::invalid_argument);
    // No seeds: nothing holds.
    const auto none = ts.solve({}, {}).value();
    CHECK(none.stats.path_edges == 0);
}

TEST_CASE("tabulation: format_solution_json", "[ifds][solution]") {
    mini_problem m;
    m.facts({"a"}).proc("main", "s", "e").flow("s", "e", "id gen:a").seed("s", "0");
    const problem& pb = m.get();
    const solution s = weir::test::tabulate(pb);
    CHECK(format_solution_json(pb, s) == "{\"s\":[\"0\"],\"e\":[\"0\",\"a\"]}\n");
    CHECK(s.holds(m.n("e"), m.f("a")));
    CHECK_FALSE(s.holds(m.n("s"), m.f("a")));
}

TEST_CASE("tabulation equals brute force on random problems", "[ifds][tabulation][random]") {
    int checked = 0;
    for (std::uint64_t seed = 0; seed < 400; ++seed) {
        weir::test::gen_options o;
        o.procs = 1 + static_cast<std::uint32_t>(seed % 5);
        o.facts = static_cast<std::uint32_t>(seed % 6);
        o.max_nodes = 3 + static_cast<std::uint32_t>(seed % 5);
        if (seed % 4 == 1) {  // recursion-heavy
            o.p_recursion = 0.4;
            o.p_mutual = 0.4;
        }
        if (seed % 4 == 2) {  // indirect- and move-heavy
            o.p_indirect = 0.6;
            o.p_pair = 0.6;
            o.p_identity = 0.5;
        }
        if (seed % 4 == 3) o.p_missing = 0.9;
        o.seeds = 1 + static_cast<std::uint32_t>(seed % 3);
        const problem pb = weir::test::random_problem(seed, o);
        const solution s = weir::test::tabulate(pb);
        const solution b = weir::test::brute_force_solve(pb);
        INFO("seed " << seed);
        REQUIRE(format_solution(pb, s) == format_solution(pb, b));
        ++checked;
    }
    CHECK(checked == 400);
}

TEST_CASE("solution: held_facts is the OR of the node's rows, read row by row", "[ifds][solution]") {
    // the reference: each row's chunks read one at a time (read_row_bits), ORed
    auto reference = [](const layout& L, std::span<const std::uint32_t> pe, std::uint32_t n) {
        const std::uint32_t F = L.node_fact_count[n], W = (F + 31) / 32;
        std::vector<std::uint32_t> out(W, 0);
        for (std::uint32_t c = 0; c < F; ++c)
            for (std::uint32_t j = 0; j < W; ++j)
                out[j] |= detail::read_row_bits(pe, detail::row_start(L, n, c) + 32 * j, detail::chunk_len(F, j));
        return out;
    };
    std::uint64_t state = 0x9e3779b97f4a7c15ULL;
    auto next = [&] {  // xorshift64
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        return state;
    };
    int compared = 0;
    for (std::uint32_t F = 0; F <= 70; ++F) {
        // three nodes of F facts, and a node of 5 facts after them; their blocks back to back
        layout L;
        L.num_nodes = 4;
        L.node_fact_count = {F, F, F, 5};
        L.pe_word = {0};
        for (std::uint32_t n = 0; n < 4; ++n) {
            const std::uint64_t f = L.node_fact_count[n];
            L.pe_word.push_back(L.pe_word.back() + static_cast<std::uint32_t>((f * f + 31) / 32));
        }
        L.pe_words = L.pe_word.back();
        for (int density = 0; density < 3; ++density) {
            std::vector<std::uint32_t> bits(L.pe_words);
            for (std::uint32_t& w : bits)  // sparse, half full, full: every bit of every word, padding included
                w = density == 0 ? static_cast<std::uint32_t>(next() & next() & next()) : density == 1 ? static_cast<std::uint32_t>(next()) : ~0u;
            std::vector<std::uint32_t> got{0xdeadbeef, 7};  // (whatever it held before)
            for (std::uint32_t n = 0; n < 4; ++n) {
                // the bitset exactly pe_words long (the last block ends the span) and one longer
                for (std::size_t extra : {0, 1}) {
                    std::vector<std::uint32_t> pe = bits;
                    pe.resize(pe.size() + extra, ~0u);
                    detail::held_facts(L, pe, n, got);
                    INFO("F " << F << " node " << n << " density " << density << " extra " << extra);
                    REQUIRE(got == reference(L, pe, n));
                    ++compared;
                }
            }
        }
    }
    CHECK(compared == 71 * 3 * 4 * 2);
}

TEST_CASE("solution: write_solution's text with long names, at and past its buffer's size", "[ifds][solution]") {
    weir::test::gen_options o;
    o.procs = 3;
    o.facts = 6;
    o.max_nodes = 5;
    o.seeds = 2;
    problem pb = weir::test::random_problem(11, o);
    const layout L = make_layout(pb);
    const auto bits = tabulation_solver(L).solve().value().path_edges;
    const solution s = extract_solution(L, bits);
    // names of 15, 16 and 17 bytes (one fixed 16-byte copy or not), long ones, and one over the 1 MiB
    // buffer: the first node that holds a fact gets that one, the others and the facts the rest in turn
    const std::size_t sizes[] = {(std::size_t{1} << 20) + 100, 1, 15, 16, 17, 100, 4096};
    std::size_t k = 0;
    for (std::size_t i = 0; i < pb.nodes.size(); ++i) {
        const std::size_t size = s.facts[i].empty() ? 3 : sizes[k++ % std::size(sizes)];
        pb.nodes[i].name = std::string(size - 1, static_cast<char>('A' + i % 26)) + std::to_string(i % 10);
    }
    REQUIRE(k > 0);
    for (std::size_t i = 0; i < pb.facts.size(); ++i)
        pb.facts[i] = std::string(sizes[1 + i % (std::size(sizes) - 1)], static_cast<char>('a' + i));
    std::ostringstream text;
    write_solution(text, pb, L, bits);
    CHECK(text.str().size() > (std::size_t{1} << 20));
    CHECK(text.str() == format_solution(pb, s));
    // JSON: the same sizes, with characters that are escaped (entries grow past 16 bytes or not)
    for (std::size_t i = 0; i < pb.nodes.size(); i += 2) pb.nodes[i].name[0] = '"';
    for (std::size_t i = 0; i < pb.facts.size(); ++i) pb.facts[i][0] = "\\\"\x01\n"[i % 4];
    std::ostringstream json;
    write_solution(json, pb, L, bits, true);
    CHECK(json.str().size() > (std::size_t{1} << 20));
    CHECK(json.str() == format_solution_json(pb, s));
}

TEST_CASE("solution: write_solution refuses a problem that is not the layout's", "[ifds][solution]") {
    weir::test::gen_options o;
    o.procs = 3;
    o.facts = 5;
    o.max_nodes = 4;
    o.seeds = 2;
    const problem pb = weir::test::random_problem(5, o);
    const layout L = make_layout(pb);
    const auto bits = tabulation_solver(L).solve().value().path_edges;
    const solution s = extract_solution(L, bits);
    REQUIRE(std::any_of(s.facts.begin(), s.facts.end(), [](const auto& f) { return f.size() > 1; }));  // a fact not 0
    problem fewer_nodes = pb, more_nodes = pb, fewer_facts = pb, more_facts = pb;
    fewer_nodes.nodes.pop_back();
    more_nodes.nodes.push_back(pb.nodes.back());
    fewer_facts.facts.pop_back();
    more_facts.facts.push_back("extra");
    for (const problem* other : {&fewer_nodes, &more_nodes, &fewer_facts, &more_facts})
        for (const bool json : {false, true}) {
            std::ostringstream sink;
            CHECK_THROWS_AS(write_solution(sink, *other, L, bits, json), std::invalid_argument);
            CHECK(sink.str().empty());
        }
    // a layout whose fact sets name a fact past the problem's (not one make_layout makes)
    layout bad = L;
    for (fact_id& f : bad.proc_facts)
        if (f != zero_fact) f = bad.num_facts + 7;
    for (const bool json : {false, true}) {
        std::ostringstream sink;
        CHECK_THROWS_AS(write_solution(sink, pb, bad, bits, json), std::invalid_argument);
    }
}

TEST_CASE("solution: write_solution writes what format_solution returns, straight from the bits", "[ifds][solution]") {
    int nonempty = 0;
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
        weir::test::gen_options o;
        o.procs = 1 + static_cast<std::uint32_t>(seed % 4);
        o.facts = seed % 3 == 0 ? 40 : static_cast<std::uint32_t>(seed % 7);  // more than 32 facts: rows of two words
        o.max_nodes = 3 + static_cast<std::uint32_t>(seed % 5);
        o.seeds = 1 + static_cast<std::uint32_t>(seed % 3);
        const problem pb = weir::test::random_problem(seed, o);
        const layout L = make_layout(pb);
        const auto bits = tabulation_solver(L).solve().value().path_edges;
        const solution s = extract_solution(L, bits);
        INFO("seed " << seed);
        // the facts each node holds, as the brute-force reference finds them
        REQUIRE(s == weir::test::brute_force_solve(pb));
        std::ostringstream text, json;
        write_solution(text, pb, L, bits);
        write_solution(json, pb, L, bits, true);
        CHECK(text.str() == format_solution(pb, s));
        CHECK(json.str() == format_solution_json(pb, s));
        // the names are all the output needs: the same text once the flows are released
        problem names_only = pb;
        release_flows(names_only);
        CHECK((names_only.flows.empty() && names_only.calls.empty() && names_only.ctrflows.empty() && names_only.seeds.empty()));
        std::ostringstream again;
        write_solution(again, names_only, L, bits);
        CHECK(again.str() == text.str());
        // for_each_held: nodes holding facts, ascending, each with its sorted facts
        node_id last = 0;
        bool first = true;
        for_each_held(L, bits, [&](node_id n, std::span<const fact_id> f) {
            CHECK((first || n > last));
            CHECK_FALSE(f.empty());
            CHECK(std::vector<fact_id>(f.begin(), f.end()) == s.facts[n]);
            first = false, last = n;
            ++nonempty;
        });
        if (L.pe_words > 0) {
            std::ostringstream sink;
            const std::span<const std::uint32_t> short_bits(bits.data(), L.pe_words - 1);
            CHECK_THROWS_AS(write_solution(sink, pb, L, short_bits), std::invalid_argument);
            CHECK_THROWS_AS(extract_solution(L, short_bits), std::invalid_argument);
        }
    }
    CHECK(nonempty > 100);
}
