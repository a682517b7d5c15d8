// The `.ide` loader (spec: ide-format.md): edge functions on terms, joined
// with the identity where another term relates the same pair, seed values,
// the header deciding the format, and every error of the spec with its line.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include <weir/ide/format.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/tabulation_solver.hpp>

#include "support/ide_gen.hpp"

using namespace weir;
using L = ide::linear;

namespace {

const std::string head = "ide 1 linear\nfacts x y\nproc main s e\nnode n main\nproc f fs fe\nnode c main\n";

/// Loads `text`; REQUIREs success.
ide::problem<L> load(const std::string& text) {
    auto r = ide::load_problem<L>(text, "t.ide");
    if (!r) FAIL(r.error().what());
    return std::move(*r);
}

/// The error of loading `text` (REQUIREs failure).
ifds::load_error error_of(const std::string& text) {
    auto r = ide::load_problem<L>(text, "t.ide");
    REQUIRE_FALSE(r);
    return r.error();
}

} // namespace

TEST_CASE("ide format: terms carry edge functions, joined with the identity of other terms", "[ide][format]") {
    const auto p = load(head + "flow s n id gen:x,y=5 x>y=2*x-1 y>y=7\nflow n e gen:x 0>x=3\nseed s 0\n");
    REQUIRE(p.graph.flows.size() == 2);
    const auto& t0 = p.flow_functions[0];
    const ifds::fact_id x = 1, y = 2;
    CHECK(ide::function_of<L>(t0, 0, x) == L::constant(5));
    CHECK(ide::function_of<L>(t0, 0, y) == L::constant(5));
    CHECK(ide::function_of<L>(t0, x, y) == L::affine(2, -1));
    CHECK(ide::function_of<L>(t0, y, y) == L::bottom());   // `id` relates y to y too: x ⊔ 7
    CHECK(ide::function_of<L>(t0, x, x) == L::identity());  // only `id`
    CHECK(ide::function_of<L>(p.flow_functions[1], 0, x) == L::bottom());  // gen:x (identity) ⊔ 3
    CHECK(p.seed_values == std::vector<L::value>{L::bottom_value()});
}

TEST_CASE("ide format: seed values; the zero fact's is bottom; calls and ctrflows carry functions", "[ide][format]") {
    const auto p = load(head + "flow s c id\ncall c f n\ncallflow c f x>y=x+1\nretflow c f y>x=-2\nctrflow c id kill:x "
                               "y>y=x-4\nflow n e id\nflow fs fe id\nseed s x 12\nseed s y\nseed s 0 99\nseed fs x bottom\n");
    REQUIRE(p.graph.seeds.size() == 4);
    CHECK(p.seed_values[0] == L::constant_value(12));
    CHECK(p.seed_values[1] == L::bottom_value());
    CHECK(p.seed_values[2] == L::bottom_value());  // the zero fact's value is ignored
    CHECK(p.seed_values[3] == L::bottom_value());
    REQUIRE(p.graph.calls.size() == 1);
    CHECK(ide::function_of<L>(p.call_functions[0], 1, 2) == L::affine(1, 1));
    CHECK(ide::function_of<L>(p.return_functions[0], 2, 1) == L::constant(-2));
    REQUIRE(p.ctr_functions.count(p.graph.calls[0].site));
    CHECK(ide::function_of<L>(p.ctr_functions.at(p.graph.calls[0].site), 2, 2) == L::bottom());  // id ⊔ x-4
    const auto s = ide::tabulation_solver<L>(p).solve().value();
    CHECK(ide::format_solution(p.graph, s) ==
          "s: 0 x=12 y=bottom\ne: 0 x=-2 y=bottom\nn: 0 x=-2 y=bottom\nfs: 0 x=bottom y=13\nfe: 0 x=bottom y=13\n"
          "c: 0 x=12 y=bottom\n");
}

TEST_CASE("ide format: the header decides the format", "[ide][format]") {
    CHECK(ide::header_of("# a comment\n\n  ide 1 linear\n").ide);
    CHECK(ide::header_of("\xEF\xBB\xBFide 1 linear\n").family == "linear");
    CHECK_FALSE(ide::header_of("ifds 1\n").ide);
    CHECK(ide::header_of("\r\n  \r\nide 1 linear\r\n").ide);  // blank CRLF lines before the header
    CHECK(ide::header_of("ide 1 linear\r\nfacts x\r\n").family == "linear");
    CHECK_FALSE(ide::header_of("").ide);
    // an `ifds 1` file is no IDE problem, and `=EF` does not belong in one
    CHECK(error_of("ifds 1\nfacts x\nproc m s e\nflow s e id\nseed s 0\n").line == 1);
    auto r = ifds::load_problem("ifds 1\nfacts x\nproc m s e\nflow s e x>x=5\nseed s 0\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().line == 4);
    CHECK_THAT(r.error().message, Catch::Contains(".ide"));
}

TEST_CASE("ide format: every error of the spec, with its line", "[ide][format][errors]") {
    struct bad {
        std::string text;
        std::uint32_t line;
        std::string says;
    };
    const std::string tail = "seed s 0\n";
    const bad cases[] = {
        {"ide 1 other\n" + head.substr(13) + tail, 1, "ide 1 linear"},
        {"ide 2 linear\n" + head.substr(13) + tail, 1, "ide 1 linear"},
        {"ide 1\n" + head.substr(13) + tail, 1, "ide 1 linear"},
        {"ide 1 linear extra\n" + head.substr(13) + tail, 1, "ide 1 linear"},
        {"facts x\n", 1, "ide 1 linear"},
        {"", 1, "missing header"},
        {head + "ide 1 linear\n" + tail, 7, "repeated header"},
        {head + "ifds 1\n" + tail, 7, "`ide 1 linear` must appear once"},
        {head + "flow s n x>y=2*y\n" + tail, 7, "at 'x>y=2*y'"},
        {head + "flow s n x>y=x-9223372036854775808\n" + tail, 7, "64 signed bits"},
        {head + "flow s n x>y=9223372036854775808\n" + tail, 7, "64 signed bits"},
        {head + "flow s n x>y=x+-1\n" + tail, 7, "malformed"},
        {head + "flow s n x>y=\n" + tail, 7, "expected an edge function"},
        {head + "flow s n id=5\n" + tail, 7, "take no edge function"},
        {head + "flow s n kill:x=5\n" + tail, 7, "take no edge function"},
        {head + "flow s n gen:x=top\n" + tail, 7, "malformed"},
        {head + "flow s n x>z=5\n" + tail, 7, "z"},
        {head + "flow s n =5\n" + tail, 7, "malformed flow-function term '=5': expected id, kill:F,..., gen:F,... or A>B (at '=5')"},
        {head + "flow s n x>=5\n" + tail, 7, "(at 'x>=5')"},
        {head + "flow s n id\nseed s x seven\n", 8, "value"},
        {head + "flow s n id\nseed s x 5 6\n", 8, "end of line"},
        {head + "flow s n id\nseed s x 5\nseed s x 6\n", 9, "seed"},  // a repeated key, whatever the values
        {head + "flow s n id\nflow n e x>y=1\nflow n e id\n" + tail, 9, "flow"},
    };
    for (const auto& b : cases) {
        INFO(b.text);
        const auto e = error_of(b.text);
        CHECK(e.line == b.line);
        CHECK_THAT(e.what(), Catch::Contains(b.says));
        CHECK_THAT(e.what(), Catch::StartsWith("t.ide:"));
    }
}

TEST_CASE("ide format: a statement that names a later declaration keeps its functions", "[ide][format]") {
    // `flow` before `node late` is declared: the loader reads it again after the scan
    const auto p = load("ide 1 linear\nfacts x\nproc m s e\nflow s late gen:x=4\nnode late m\nflow late e id\nseed s 0\n");
    const auto s = ide::tabulation_solver<L>(p).solve().value();
    CHECK(ide::format_solution(p.graph, s) == "s: 0\ne: 0 x=4\nlate: 0 x=4\n");
}

TEST_CASE("ide format: printing loads back to the same functions, values and result", "[ide][format][print]") {
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        INFO("seed " << seed);
        auto p = test::small_ide_problem(seed);
        const std::string text = ide::print_problem(p);
        auto q = ide::load_problem<L>(text, "printed.ide");
        if (!q) FAIL(q.error().what() << "\n" << text);
        CHECK(q->flow_functions == p.flow_functions);
        CHECK(q->call_functions == p.call_functions);
        CHECK(q->return_functions == p.return_functions);
        CHECK(q->ctr_functions == p.ctr_functions);
        for (std::size_t i = 0; i < p.seed_values.size(); ++i)
            if (p.graph.seeds[i].fact != 0) CHECK(q->seed_values[i] == p.seed_values[i]);
        CHECK(ide::tabulation_solver<L>(*q).solve().value() == ide::tabulation_solver<L>(p).solve().value());
        // printing what loaded is a fixed point (the generator's own lists are not sorted as loaded ones are)
        const std::string again = ide::print_problem(*q);
        auto r = ide::load_problem<L>(again, "again.ide");
        REQUIRE(r.has_value());
        CHECK(ide::print_problem(*r) == again);
    }
}

TEST_CASE("ide format: a function version 1 cannot write is refused by the printer", "[ide][format][print]") {
    auto p = load(head + "flow s n x>x=x-5\n" + "seed s x 3\n");
    p.flow_functions[0][0].f = L::affine(1, INT64_MIN);
    CHECK_THROWS_AS(ide::print_problem(p), std::invalid_argument);
    p.flow_functions[0][0].f = L::affine(1, INT64_MIN + 1);
    CHECK_NOTHROW(ide::print_problem(p));
    p.seed_values[0] = L::top_value();
    CHECK_THROWS_AS(ide::print_problem(p), std::invalid_argument);
}
