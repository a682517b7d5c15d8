// ide::problem_builder: the problem it builds equals the `.ide` loader's for
// the same statements (edge functions, their joins with the identity of other
// terms, seed values), its errors come in call order (the IFDS rules and a
// `top` edge function), and what it builds solves like the loaded problem.
#include <catch2/catch.hpp>

#include <string>

#include <weir/ide/builder.hpp>
#include <weir/ide/format.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/tabulation_solver.hpp>

using namespace weir;
using L = ide::linear;
using E = ide::eff<L>;

namespace {

ide::problem<L> load(const std::string& text) {
    auto r = ide::load_problem<L>(text, "t.ide");
    if (!r) FAIL(r.error().what());
    return std::move(*r);
}

} // namespace

TEST_CASE("ide builder: builds what the loader loads from the same statements", "[ide][builder]") {
    const std::string text =
        "ide 1 linear\nfacts x y\nproc main s e\nnode c main\nnode r main\nproc inc is ie\n"
        "flow s c gen:x=1 id y>y=4\n"      // y>y joins the identity of `id`: bottom
        "call c inc r\n"
        "callflow c inc id x>y=3*x\n"
        "retflow c inc id y>x=x-2\n"
        "ctrflow c id kill:x\n"
        "flow r e id x>y=2*x+1 kill:y\n"  // y is killed: x>y alone
        "flow is ie x>x=x+10 gen:y\n"
        "seed s 0\nseed is x 40\n";
    const auto want = load(text);

    ide::problem_builder<L> b;
    const auto x = b.fact("x"), y = b.fact("y");
    const auto main = b.proc("main", "s", "e");
    const auto c = b.node("c", main), r = b.node("r", main);
    const auto inc = b.proc("inc", "is", "ie");
    const auto s = b.start_of(main), e = b.exit_of(main), is = b.start_of(inc), ie = b.exit_of(inc);
    b.flow(s, c, E::none().gen({x}, L::constant(1)).pair(y, y, L::constant(4)));
    b.call(c, inc, r);
    b.callflow(c, inc, E::id().pair(x, y, L::affine(3, 0)));
    b.retflow(c, inc, E::id().pair(y, x, L::affine(1, -2)));
    b.ctrflow(c, E::id().kill({x}));
    b.flow(r, e, E::id().pair(x, y, L::affine(2, 1)).kill({y}));
    b.flow(is, ie, E::none().pair(x, x, L::affine(1, 10)).gen({y}));
    b.seed(s, 0, L::constant_value(99));  // the zero fact's value is bottom, whatever is given
    b.seed(is, x, L::constant_value(40));
    auto got = b.finish();
    if (!got) FAIL(got.error().what());
    // The first flow is written differently (no `id`), so compare it by its functions.
    CHECK(got->flow_functions[1] == want.flow_functions[1]);
    CHECK(got->flow_functions[2] == want.flow_functions[2]);
    CHECK(got->call_functions == want.call_functions);
    CHECK(got->return_functions == want.return_functions);
    CHECK(got->ctr_functions == want.ctr_functions);
    CHECK(got->seed_values == want.seed_values);
    // gen:x=1 and y>y=4 with no identity relating y>y: exactly those functions.
    REQUIRE(got->flow_functions[0].size() == 2);
    CHECK(ide::function_of<L>(got->flow_functions[0], 0, x) == L::constant(1));
    CHECK(ide::function_of<L>(got->flow_functions[0], y, y) == L::constant(4));
    // With `id`, as in the file, y>y joins the identity: bottom.
    ide::problem_builder<L> b2;
    const auto x2 = b2.fact("x"), y2 = b2.fact("y");
    const auto m2 = b2.proc("main", "s", "e");
    b2.flow(b2.start_of(m2), b2.exit_of(m2), E::id().gen({x2}, L::constant(1)).pair(y2, y2, L::constant(4)));
    b2.seed(b2.start_of(m2), 0);
    auto p2 = b2.finish();
    REQUIRE(p2);
    CHECK(p2->flow_functions[0] ==
          load("ide 1 linear\nfacts x y\nproc main s e\nflow s e id gen:x=1 y>y=4\nseed s 0\n").flow_functions[0]);
    CHECK(ide::function_of<L>(p2->flow_functions[0], y2, y2) == L::bottom());
    // The built problem solves as the loaded one where the statements are the same.
    ide::problem<L> same = *got;
    same.flow_functions[0] = want.flow_functions[0];
    same.graph.flows[0] = want.graph.flows[0];
    CHECK(same == want);
    CHECK(ide::tabulation_solver<L>(same).solve().value() == ide::tabulation_solver<L>(want).solve().value());
}

TEST_CASE("ide builder: plain IFDS flow functions carry the identity", "[ide][builder]") {
    ide::problem_builder<L> b;
    const auto x = b.fact("x");
    const auto m = b.proc("main", "s", "e");
    b.flow(b.start_of(m), b.exit_of(m), ifds::ff::id().gen({x}));  // an ifds::ff converts
    b.seed(b.start_of(m), 0);
    auto p = b.finish();
    REQUIRE(p);
    CHECK(p->flow_functions[0].empty());
    CHECK(p->seed_values == std::vector<L::value>{L::bottom_value()});
}

namespace {

/// The error of a builder with fact x (call 1) and procedure main (call 2)
/// after `more` (calls 3 and on: `more(b, x, main)`); REQUIREs one.
template <class More>
ifds::build_error error_after(More more) {
    ide::problem_builder<L> b;
    const auto x = b.fact("x");
    const auto m = b.proc("main", "s", "e");
    more(b, x, m);
    auto p = b.finish();
    REQUIRE_FALSE(p);
    return p.error();
}

} // namespace

TEST_CASE("ide builder: errors in call order, a top edge function among them", "[ide][builder]") {
    auto top_flow = [](auto& b, auto x, auto m) { b.flow(b.start_of(m), b.exit_of(m), E::id().pair(x, x, L::top())); };
    SECTION("top, whether or not an IFDS rule is broken after it") {
        for (const bool bad_seed_after : {false, true}) {
            const auto e = error_after([&](auto& b, auto x, auto m) {
                top_flow(b, x, m);                                              // 3
                b.seed(bad_seed_after ? b.exit_of(m) : b.start_of(m), 0);      // 4
            });
            CHECK(e.statement == 3);
            CHECK_THAT(e.message, Catch::Contains("may not be `top`"));
        }
    }
    SECTION("an IFDS rule broken before the top function comes first") {
        const auto e = error_after([&](auto& b, auto x, auto m) {
            b.seed(b.exit_of(m), 0);  // 3: not a start node
            top_flow(b, x, m);        // 4
        });
        CHECK(e.statement == 3);
        CHECK_THAT(e.message, !Catch::Contains("top"));
    }
    SECTION("the IFDS rules, with the IFDS builder's numbering") {
        const auto e = error_after([&](auto& b, auto x, auto m) {
            b.flow(b.start_of(m), b.exit_of(m), E::id().pair(x, 0));  // 3: a pair into the zero fact
            b.seed(b.start_of(m), 0);                                 // 4
        });
        CHECK(e.statement == 3);
        CHECK_THAT(e.what(), Catch::Contains("statement 3"));
    }
}
