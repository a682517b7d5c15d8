// The `linear` edge-function family (spec: ide-format.md): the laws of its
// lattice and of composition on a sample of functions and values (the
// boundaries of 64-bit arithmetic and random ones), the spec's rules one by
// one, the encoding and the text form.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include <weir/ide/linear.hpp>

using weir::ide::linear;
using F = linear::function;
using V = linear::value;

namespace {

std::vector<F> sample_functions() {
    std::vector<F> fs{linear::top(), linear::bottom(), linear::identity()};
    for (std::int64_t c : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{42}, INT64_MAX, INT64_MIN})
        fs.push_back(linear::constant(c));
    const std::pair<std::int64_t, std::int64_t> ab[] = {{2, 3},         {-1, 0},           {3, -7},
                                                         {1, 5},         {INT64_MAX, 1},    {2, INT64_MAX},
                                                         {-2, INT64_MIN + 1}, {INT64_MIN, 0}, {1, -1}};
    for (auto [a, b] : ab) fs.push_back(linear::affine(a, b));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 24; ++i) {
        std::int64_t a = static_cast<std::int64_t>(rng() % 9) - 4;
        if (a == 0) a = 5;
        fs.push_back(linear::affine(a, static_cast<std::int64_t>(rng() % 201) - 100));
    }
    return fs;
}

std::vector<V> sample_values() {
    std::vector<V> vs{linear::top_value(), linear::bottom_value()};
    for (std::int64_t c : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-7}, std::int64_t{1000}, INT64_MAX, INT64_MIN})
        vs.push_back(linear::constant_value(c));
    return vs;
}

/// v ⊑ w in the value lattice.
bool below(const V& v, const V& w) { return linear::join_values(v, w) == w; }

} // namespace

TEST_CASE("linear: the value lattice is a join-semilattice with top as its unit and bottom absorbing", "[ide][linear]") {
    const auto vs = sample_values();
    for (const auto& a : vs) {
        CHECK(linear::join_values(a, a) == a);
        CHECK(linear::join_values(linear::top_value(), a) == a);
        CHECK(linear::join_values(linear::bottom_value(), a) == linear::bottom_value());
        for (const auto& b : vs) {
            CHECK(linear::join_values(a, b) == linear::join_values(b, a));
            for (const auto& c : vs)
                CHECK(linear::join_values(linear::join_values(a, b), c) == linear::join_values(a, linear::join_values(b, c)));
        }
    }
    CHECK(linear::join_values(linear::constant_value(3), linear::constant_value(4)) == linear::bottom_value());
}

TEST_CASE("linear: join of functions is idempotent, commutative, associative, with top as unit", "[ide][linear]") {
    const auto fs = sample_functions();
    for (const auto& f : fs) {
        CHECK(linear::join(f, f) == f);
        CHECK(linear::join(linear::top(), f) == f);
        CHECK(linear::join(f, linear::bottom()) == linear::bottom());
        for (const auto& g : fs) {
            CHECK(linear::join(f, g) == linear::join(g, f));
            if (!(f == g) && !(f == linear::top()) && !(g == linear::top())) CHECK(linear::join(f, g) == linear::bottom());
            for (const auto& h : fs) CHECK(linear::join(linear::join(f, g), h) == linear::join(f, linear::join(g, h)));
        }
    }
}

TEST_CASE("linear: composition has the identity as its unit, top absorbing, and agrees with applying", "[ide][linear]") {
    const auto fs = sample_functions();
    const auto vs = sample_values();
    for (const auto& f : fs) {
        INFO("f = " << linear::print_function(f));
        CHECK(linear::compose(linear::identity(), f) == f);
        CHECK(linear::compose(f, linear::identity()) == f);
        CHECK(linear::compose(linear::top(), f) == linear::top());
        CHECK(linear::compose(f, linear::top()) == linear::top());
        for (const auto& v : vs) {
            CHECK(linear::apply(linear::identity(), v) == v);
            CHECK(linear::apply(f, linear::top_value()) == linear::top_value());  // every function keeps top
        }
        for (const auto& g : fs) {
            INFO("g = " << linear::print_function(g));
            const F gf = linear::compose(g, f);
            for (const auto& v : vs) {
                INFO("v = " << linear::print_value(v));
                const V mid = linear::apply(f, v);
                const V stepwise = linear::apply(g, mid);
                const V at_once = linear::apply(gf, v);
                // Exact agreement, except where 64 bits overflow on one side
                // only: the composed coefficients (the composition is bottom,
                // above the stepwise value), or the intermediate value f(v)
                // (then stepwise is bottom, above the composition's value).
                const bool mid_overflows = v.k == linear::kind::constant && mid == linear::bottom_value() &&
                                           f.k == linear::kind::constant;
                if (gf == linear::bottom()) CHECK(below(stepwise, at_once));
                else if (mid_overflows) CHECK(below(at_once, stepwise));
                else CHECK(at_once == stepwise);
            }
        }
    }
}

TEST_CASE("linear: apply is monotone in the value", "[ide][linear]") {
    const auto fs = sample_functions();
    const auto vs = sample_values();
    for (const auto& f : fs)
        for (const auto& v : vs)
            for (const auto& w : vs)
                if (below(v, w)) CHECK(below(linear::apply(f, v), linear::apply(f, w)));
}

TEST_CASE("linear: the spec's rules, one by one", "[ide][linear]") {
    const V bot = linear::bottom_value(), top = linear::top_value();
    auto c = [](std::int64_t x) { return linear::constant_value(x); };
    // apply
    CHECK(linear::apply(linear::affine(3, 1), c(4)) == c(13));
    CHECK(linear::apply(linear::affine(2, 0), c(INT64_MAX)) == bot);        // outside 64 bits
    CHECK(linear::apply(linear::affine(1, -1), c(INT64_MIN)) == bot);
    CHECK(linear::apply(linear::affine(-1, 0), c(INT64_MIN)) == bot);
    CHECK(linear::apply(linear::affine(2, 3), bot) == bot);
    CHECK(linear::apply(linear::constant(5), bot) == c(5));                 // a constant maps bottom too
    CHECK(linear::apply(linear::constant(5), top) == top);                  // but never top
    CHECK(linear::apply(linear::bottom(), c(1)) == bot);
    CHECK(linear::apply(linear::bottom(), top) == top);
    // compose, in the rules' order
    CHECK(linear::compose(linear::constant(7), linear::bottom()) == linear::constant(7));  // g constant first
    CHECK(linear::compose(linear::bottom(), linear::constant(7)) == linear::bottom());     // g(C) is bottom
    CHECK(linear::compose(linear::affine(2, 1), linear::constant(7)) == linear::constant(15));
    CHECK(linear::compose(linear::affine(2, 0), linear::constant(INT64_MAX)) == linear::bottom());
    CHECK(linear::compose(linear::affine(2, 1), linear::bottom()) == linear::bottom());
    CHECK(linear::compose(linear::affine(2, 1), linear::affine(3, 4)) == linear::affine(6, 9));
    CHECK(linear::compose(linear::affine(INT64_MAX, 0), linear::affine(2, 0)) == linear::bottom());  // A overflows
    CHECK(linear::compose(linear::affine(2, 0), linear::affine(1, INT64_MAX)) == linear::bottom());  // B overflows
    // normalisation: 1*x+0 is x, 0*x+C is C
    CHECK(linear::affine(1, 0) == linear::identity());
    CHECK(linear::affine(0, 9) == linear::constant(9));
}

TEST_CASE("linear: encode and decode give back the function", "[ide][linear]") {
    for (const auto& f : sample_functions()) {
        std::uint32_t w[linear::encoded_words + 1];
        w[linear::encoded_words] = 0xdeadbeef;
        linear::encode(f, w);
        CHECK(w[linear::encoded_words] == 0xdeadbeef);  // exactly encoded_words words
        CHECK(linear::decode(w) == f);
    }
}

TEST_CASE("linear: encode_value and decode_value give back the value; foreign words decode to bottom", "[ide][linear]") {
    for (const auto& v : sample_values()) {
        std::uint32_t w[linear::encoded_value_words + 1];
        w[linear::encoded_value_words] = 0xdeadbeef;
        linear::encode_value(v, w);
        CHECK(w[linear::encoded_value_words] == 0xdeadbeef);  // exactly encoded_value_words words
        CHECK(linear::decode_value(w) == v);
    }
    const std::uint32_t junk[linear::encoded_words] = {7, 1, 2, 3, 4};  // no kind 7
    CHECK(linear::decode_value(junk) == linear::bottom_value());
    CHECK(linear::decode(junk) == linear::bottom());
}

TEST_CASE("linear: identity is a unit of compose (the resident solver skips identity edges)", "[ide][linear]") {
    for (const auto& f : sample_functions()) {
        CHECK(linear::compose(linear::identity(), f) == f);
        CHECK(linear::compose(f, linear::identity()) == f);
    }
}

TEST_CASE("linear: the text form reads back; malformed functions and values say why", "[ide][linear]") {
    std::string why;
    for (const auto& f : sample_functions()) {
        if (f == linear::top() || (f.k == linear::kind::constant && f.a != 0 && f.b == INT64_MIN)) continue;
        INFO(linear::print_function(f));
        auto g = linear::parse_function(linear::print_function(f), why);
        REQUIRE(g.has_value());
        CHECK(*g == f);
    }
    auto p = [&](std::string_view s) { return linear::parse_function(s, why); };
    CHECK(p("x") == linear::identity());
    CHECK(p("1*x+0") == linear::identity());
    CHECK(p("0*x+5") == linear::constant(5));
    CHECK(p("-3*x+1") == linear::affine(-3, 1));
    CHECK(p("007*x-08") == linear::affine(7, -8));  // leading zeros allowed
    CHECK(p("-9223372036854775808") == linear::constant(INT64_MIN));
    CHECK(p("-9223372036854775808*x") == linear::affine(INT64_MIN, 0));
    CHECK(p("bottom") == linear::bottom());
    for (std::string_view bad : {"", "top", "+5", "x+", "x-", "x+-1", "x++1", "*x", "2x", "2*y", "x*2", "--1", "1.5",
                                 "x-9223372036854775808", "9223372036854775808", "x+9223372036854775808", "2 * x",
                                 "bottom2", "xx"}) {
        INFO("'" << bad << "'");
        why.clear();
        CHECK_FALSE(p(bad).has_value());
        CHECK_FALSE(why.empty());
    }
    CHECK(linear::parse_value("-12", why) == linear::constant_value(-12));
    CHECK(linear::parse_value("bottom", why) == linear::bottom_value());
    CHECK_FALSE(linear::parse_value("top", why).has_value());
    CHECK_FALSE(linear::parse_value("x", why).has_value());
}
