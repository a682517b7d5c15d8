// Laws of `ir_ops<linear>` (weir/ide/linear_ir.hpp) on every enabled
// backend: the IR forms of compose, join, apply and join_values give, word
// for word, what `weir::ide::linear` computes in C++, on every kind of
// function and value and on the integers where exact 64-bit arithmetic is
// decided (products and sums at and past the edges of the range).

#include <cstdint>
#include <limits>
#include <vector>

#include "support/backends.hpp"

#include <weir/ide/linear.hpp>
#include <weir/ide/linear_ir.hpp>

using weir::ide::linear;
using vyre::test::backend_list;

namespace {

constexpr std::uint32_t W = linear::encoded_words, V = linear::encoded_value_words;
constexpr std::uint32_t in_words = 2 * W + V, out_words = 2 * W + 2 * V;

/// One invocation per case: (g, f, v) in, (g ∘ f, g ⊔ f, f(v), v ⊔ f(v)) out.
vyre::ir::program laws_program() {
    using namespace vyre::ir;
    using namespace vyre::ir::dsl;
    weir::ir_namer nm;
    program p("ide_linear_ir_laws");
    p.workgroup(64);
    p.buffer("in", 0, access::read, scalar_type::u32).buffer("out", 1, access::read_write, scalar_type::u32);
    std::vector<stmt> b = {let("i", gid())};
    std::vector<stmt> body;
    auto words = [&](const char* base, std::uint32_t at, std::uint32_t n) {
        return weir::ide::word_vars::declare(nm, base, n, body, [&](std::size_t k) {
            return load("in", add(mul(var("i"), lit(in_words)), lit(at + static_cast<std::uint32_t>(k))));
        });
    };
    const auto g = words("g", 0, W), f = words("f", W, W), v = words("v", 2 * W, V);
    const auto comp = weir::ide::word_vars::zeros(nm, "comp", W, body);
    const auto join = weir::ide::word_vars::zeros(nm, "join", W, body);
    const auto app = weir::ide::word_vars::zeros(nm, "app", V, body);
    const auto jv = weir::ide::word_vars::zeros(nm, "jv", V, body);
    weir::ide::ir_ops<linear>::compose(nm, g, f, comp, body);
    weir::ide::ir_ops<linear>::join(nm, g, f, join, body);
    weir::ide::ir_ops<linear>::apply(nm, f, v, app, body);
    weir::ide::ir_ops<linear>::join_values(nm, v, app, jv, body);
    std::uint32_t at = 0;
    for (const auto* r : {&comp, &join, &app, &jv})
        for (std::size_t k = 0; k < r->size(); ++k, ++at)
            body.push_back(store("out", add(mul(var("i"), lit(out_words)), lit(at)), (*r)[k]));
    b.push_back(if_(lt(mul(var("i"), lit(in_words)), len("in")), std::move(body)));
    for (auto& s : b) p.add(std::move(s));
    return p;
}

/// Functions and values of every kind over integers at the edges of 64 bits.
struct cases {
    std::vector<linear::function> fns;
    std::vector<linear::value> vals;
    cases() {
        constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
        const std::vector<std::int64_t> ints = {0, 1, -1, 2, -2, 3, 7, -7, 3037000499, 3037000500, -3037000500,
                                                std::int64_t{1} << 32, -(std::int64_t{1} << 32), std::int64_t{1} << 62,
                                                max, min, max - 1, min + 1, max / 2, min / 2, 4611686018427387904 - 1};
        fns = {linear::top(), linear::bottom(), linear::identity()};
        vals = {linear::top_value(), linear::bottom_value()};
        for (auto a : ints) {
            vals.push_back(linear::constant_value(a));
            fns.push_back(linear::constant(a));
            for (auto b : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, max, min, a, a / 3 + 5})
                if (a != 0) fns.push_back(linear::affine(a, b));
        }
    }
};

} // namespace

TEMPLATE_LIST_TEST_CASE("ir_ops<linear> computes what linear computes, word for word", "[ide][ir][laws]", backend_list) {
    const cases cs;
    std::vector<std::uint32_t> in;
    std::vector<std::array<std::size_t, 3>> index;
    // every (g, f) pair, each with a value cycling through the values
    for (std::size_t gi = 0; gi < cs.fns.size(); ++gi)
        for (std::size_t fi = 0; fi < cs.fns.size(); ++fi) {
            const std::size_t vi = (gi * 7 + fi) % cs.vals.size();
            index.push_back({gi, fi, vi});
            const std::size_t at = in.size();
            in.resize(at + in_words);
            linear::encode(cs.fns[gi], in.data() + at);
            linear::encode(cs.fns[fi], in.data() + at + W);
            linear::encode_value(cs.vals[vi], in.data() + at + 2 * W);
        }
    // and every (f, v) pair for apply
    for (std::size_t fi = 0; fi < cs.fns.size(); ++fi)
        for (std::size_t vi = 0; vi < cs.vals.size(); ++vi) {
            index.push_back({0, fi, vi});
            const std::size_t at = in.size();
            in.resize(at + in_words);
            linear::encode(cs.fns[0], in.data() + at);
            linear::encode(cs.fns[fi], in.data() + at + W);
            linear::encode_value(cs.vals[vi], in.data() + at + 2 * W);
        }
    const std::vector<std::uint32_t> zeros(index.size() * out_words, 0);
    std::vector<vyre::bytes> inputs = {vyre::bytes(reinterpret_cast<const std::uint8_t*>(in.data()),
                                                   reinterpret_cast<const std::uint8_t*>(in.data() + in.size())),
                                       vyre::bytes(reinterpret_cast<const std::uint8_t*>(zeros.data()),
                                                   reinterpret_cast<const std::uint8_t*>(zeros.data() + zeros.size()))};
    TestType b;
    const auto p = laws_program();
    INFO(vyre::ir::format_diagnostics(vyre::ir::validate(p)));
    REQUIRE(vyre::ir::validate(p).empty());
    vyre::dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{static_cast<std::uint32_t>((index.size() + 63) / 64), 1, 1};
    auto r = vyre::dispatch(b, p, inputs, c);
    if (!r) FAIL(r.error().what());
    REQUIRE(r->size() == 1);
    const auto* out = reinterpret_cast<const std::uint32_t*>((*r)[0].data());
    REQUIRE((*r)[0].size() == zeros.size() * 4);
    std::size_t checked = 0;
    for (std::size_t k = 0; k < index.size(); ++k) {
        const auto& g = cs.fns[index[k][0]];
        const auto& f = cs.fns[index[k][1]];
        const auto& v = cs.vals[index[k][2]];
        INFO("g = " << linear::print_function(g) << ", f = " << linear::print_function(f)
                    << ", v = " << linear::print_value(v));
        const std::uint32_t* o = out + k * out_words;
        CHECK(linear::decode(o) == linear::compose(g, f));
        CHECK(linear::decode(o + W) == linear::join(g, f));
        const auto applied = linear::apply(f, v);
        CHECK(linear::decode_value(o + 2 * W) == applied);
        CHECK(linear::decode_value(o + 2 * W + V) == linear::join_values(v, applied));
        // and the words themselves: the IR writes the canonical encoding
        std::uint32_t expect[W];
        linear::encode(linear::compose(g, f), expect);
        CHECK(std::equal(expect, expect + W, o));
        ++checked;
    }
    CHECK(checked > 10000);
}
