// Text form of the vyre IR: print/parse round trips, literal forms, error
// positions and robustness against malformed input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <vyre/ir/builder.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ir/validate.hpp>

#ifndef VYRE_TEST_DATA_DIR
#define VYRE_TEST_DATA_DIR ""
#endif

using namespace vyre::ir;
using namespace vyre::ir::dsl;

namespace {

/// Checks `parse(print(p)) == p` and that printing is a fixed point.
void require_round_trip(const program& p) {
    const std::string text = print(p);
    INFO(text);
    auto r = parse(text);
    if (!r) FAIL(r.error().what());
    CHECK(*r == p);
    CHECK(print(*r) == text);
}

/// A valid program that uses every expression and statement kind.
program kitchen_sink() {
    using st = scalar_type;
    program p("kitchen_sink");
    p.workgroup(8, 2, 1)
        .buffer("a", 0, access::read, st::u32)
        .buffer("f", 1, access::read_write, st::f32)
        .buffer("h", 2, access::uniform, st::f16, 4)
        .buffer("o", 3, access::output, st::u64, 16)
        .buffer("w", 4, access::workgroup, st::i32, 8)
        .buffer("d", 5, access::read, st::f64)
        .buffer("s8", 6, access::read_write, st::i8)
        .buffer("bo", 7, access::output, st::bool_, 2);
    p.add(let("i", gid()), let("l", lid(axis::y)), let("g", wgid(axis::z)), let("ws", wgsize()),
          let("ng", ngroups(axis::y)), let("n", len("a")), let("x", load("a", var("i"))),
          let("ar", add(sub(mul(var("x"), lit(3u)), div(var("x"), lit(2u))),
                        mod(min(var("x"), max(var("x"), lit(1u))), lit(7u)))),
          let("bits", bitand_(bitor_(bitxor_(var("x"), lit(5u)), shl(var("x"), lit(2u))), shr(var("x"), lit(1u)))),
          let("un", add(add(bitnot(var("x")), popcount(var("x"))), add(clz(var("x")), ctz(var("x"))))),
          let("ngv", neg(lit(std::int32_t(-3)))), let("ab", abs(lit(-2.5f))),
          let("c", and_(or_(eq(var("x"), lit(1u)), ne(var("x"), lit(2u))),
                        not_(and_(lt(var("x"), lit(3u)), and_(le(var("x"), lit(4u)),
                                                              and_(gt(var("x"), lit(5u)), ge(var("x"), lit(6u)))))))),
          let("fl", load("f", var("i"))),
          let("tr", add(add(exp(var("fl")), log(var("fl"))),
                        add(add(sin(var("fl")), cos(var("fl"))), tanh(sqrt(var("fl")))))),
          let("fm", fma(var("fl"), lit(2.0f), lit(1.0f))), let("sel", select(var("c"), var("fm"), lit(0.0f))),
          let("ca", cast(st::f64, var("sel"))), let("bc", bitcast(st::u64, var("ca"))),
          let("dd", sqrt(load("d", var("i")))), let("hv", load("h", lit(0u))),
          store("f", var("i"), add(var("hv"), var("sel"))), store("o", var("i"), var("bc")),
          let("at", atomic(op_code::atomic_add, "w", lit(0u), lit(std::int32_t(1)))),
          let("cas", atomic_cas("w", lit(1u), lit(std::int32_t(0)), var("at"))),
          let("a1", atomic(op_code::atomic_sub, "o", lit(1u), lit(std::uint64_t(2)))),
          let("a2", atomic(op_code::atomic_and, "o", lit(1u), lit(std::uint64_t(3)))),
          let("a3", atomic(op_code::atomic_or, "o", lit(1u), lit(std::uint64_t(4)))),
          let("a4", atomic(op_code::atomic_xor, "o", lit(1u), lit(std::uint64_t(5)))),
          let("a5", atomic(op_code::atomic_min, "o", lit(1u), lit(std::uint64_t(6)))),
          let("a6", atomic(op_code::atomic_max, "o", lit(1u), lit(std::uint64_t(7)))),
          let("a7", atomic(op_code::atomic_exchange, "o", lit(1u), lit(std::uint64_t(8)))),
          store("s8", var("i"), lit(std::int32_t(-1))), store("bo", lit(0u), var("c")), set("x", lit(4u)),
          let("lits", select(lit(true), lit(false), lit(true))), let("i64v", lit(std::int64_t(-5))),
          let("f64v", lit(0.1)),
          if_(var("c"), {store("f", lit(0u), lit(1.5f)), return_()}, {barrier()}), if_(lit(false), {}),
          if_(lit(true), {}, {block({}), if_(var("c"), {loop("m", lit(0u), var("n"), {})})}),
          loop("k", lit(0u), lit(4u), {let("kk", var("k")), block({set("x", var("kk"))}), barrier()}), block({}));
    return p;
}

std::vector<std::filesystem::path> data_files() {
    std::vector<std::filesystem::path> candidates = {VYRE_TEST_DATA_DIR, "test/data/ir", "../test/data/ir",
                                                     "../../test/data/ir",
                                                     std::filesystem::path(__FILE__).parent_path() / "../data/ir"};
    for (const auto& c : candidates) {
        std::error_code ec;
        if (c.empty() || !std::filesystem::is_directory(c, ec)) continue;
        std::vector<std::filesystem::path> out;
        for (const auto& e : std::filesystem::directory_iterator(c))
            if (e.path().extension() == ".vyre") out.push_back(e.path());
        std::sort(out.begin(), out.end());
        if (!out.empty()) return out;
    }
    return {};
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

expr literal_of(std::string_view text) {
    auto r = parse("(program t (workgroup 1 1 1) (let v " + std::string(text) + "))");
    if (!r) FAIL(std::string(text) + ": " + r.error().what());
    return r->body.at(0).args.at(0);
}

parse_error error_of(std::string_view text) {
    auto r = parse(text);
    if (r) FAIL("expected a parse error for: " + std::string(text));
    return r.error();
}

} // namespace

TEST_CASE("the spec example parses and prints in the canonical form", "[ir][text]") {
    const std::string spec =
        "(program xor (workgroup 64 1 1)\n"
        "  (buffer a 0 read u32 0)\n"
        "  (buffer b 1 read u32 0)\n"
        "  (buffer out 2 output u32 4)\n"
        "  (let i (gid x))\n"
        "  (if (lt i (len out))\n"
        "    ((store out i (bitxor (load a i) (load b i))))))";
    auto r = parse(spec);
    REQUIRE(r);
    program want("xor");
    want.workgroup(64)
        .buffer("a", 0, access::read, scalar_type::u32)
        .buffer("b", 1, access::read, scalar_type::u32)
        .buffer("out", 2, access::output, scalar_type::u32, 4)
        .add(let("i", gid()),
             if_(lt(var("i"), len("out")), {store("out", var("i"), bitxor_(load("a", var("i")), load("b", var("i"))))}));
    CHECK(*r == want);
    CHECK(print(*r) == spec + "\n");
    CHECK(validate(*r).empty());
}

TEST_CASE("canonical layout of statement lists", "[ir][text]") {
    program p("layout");
    p.add(if_(lit(true), {store("o", lit(0u), lit(1u)), loop("j", lit(0u), lit(2u), {barrier()})}, {return_()}),
          block({}), loop("e", lit(0u), lit(1u), {}), if_(lit(false), {}));
    const std::string want =
        "(program layout (workgroup 1 1 1)\n"
        "  (if true\n"
        "    ((store o 0 1)\n"
        "     (loop j 0 2\n"
        "       (barrier)))\n"
        "    ((return)))\n"
        "  (block)\n"
        "  (loop e 0 1)\n"
        "  (if false\n"
        "    ()))\n";
    CHECK(print(p) == want);
    require_round_trip(p);
    CHECK(print(program()) == "(program (workgroup 1 1 1))\n");
    require_round_trip(program());
}

TEST_CASE("every expression and statement kind round-trips", "[ir][text]") {
    const program p = kitchen_sink();
    INFO(format_diagnostics(validate(p)));
    REQUIRE(validate(p).empty());
    require_round_trip(p);
}

TEST_CASE("op statements round-trip", "[ir][text]") {
    program p("fill");
    p.buffer("dst", 0, access::output, scalar_type::u32, 8).add(op("fill", {var("dst"), lit(7u)}));
    require_round_trip(p);
    CHECK(print(p).find("(op fill dst 7)") != std::string::npos);
}

TEST_CASE("literals of every kind round-trip bit-exactly", "[ir][text]") {
    using st = scalar_type;
    const std::vector<expr> lits = {
        lit(0u), lit(1u), lit(std::numeric_limits<std::uint32_t>::max()), lit(true), lit(false),
        lit(std::int32_t(-3)), lit(std::int32_t(0)), lit(std::numeric_limits<std::int32_t>::min()),
        lit(std::numeric_limits<std::int32_t>::max()), lit(std::uint64_t(0)),
        lit(std::numeric_limits<std::uint64_t>::max()), lit(std::numeric_limits<std::int64_t>::min()),
        lit(std::numeric_limits<std::int64_t>::max()), lit(std::int64_t(-1)), lit(1.5f), lit(0.1f), lit(0.0f),
        lit(-0.0f), lit(std::numeric_limits<float>::max()), lit(std::numeric_limits<float>::lowest()),
        lit(std::numeric_limits<float>::min()), lit(std::numeric_limits<float>::denorm_min()),
        lit(std::numeric_limits<float>::infinity()), lit(-std::numeric_limits<float>::infinity()),
        lit_bits(st::f32, 0x7fc00000), lit_bits(st::f32, 0x7fc00001), lit_bits(st::f32, 0xffc00000),
        lit_bits(st::f32, 0x7f800001), lit_bits(st::f32, 0x007fffff), lit_bits(st::f32, 0x80000001),
        lit(0.1), lit(-0.0), lit(1e300), lit(std::numeric_limits<double>::denorm_min()),
        lit(std::numeric_limits<double>::max()), lit(std::numeric_limits<double>::infinity()),
        lit(-std::numeric_limits<double>::infinity()), lit_bits(st::f64, 0x7ff8000000000000ull),
        lit_bits(st::f64, 0x7ff8000000000001ull), lit_bits(st::f64, 0xfff8000000000000ull),
        lit_bits(st::f64, 0x7ff0000000000001ull), lit_bits(st::f64, 0x000fffffffffffffull)};
    program p("lits");
    for (std::size_t i = 0; i < lits.size(); ++i) p.add(let("v" + std::to_string(i), lits[i]));
    REQUIRE(validate(p).empty());
    require_round_trip(p);

    SECTION("printed forms") {
        CHECK(print(lit(7u)) == "7");
        CHECK(print(lit(true)) == "true");
        CHECK(print(lit(std::int32_t(-3))) == "(i32 -3)");
        CHECK(print(lit(std::numeric_limits<std::uint64_t>::max())) == "(u64 18446744073709551615)");
        CHECK(print(lit(std::numeric_limits<std::int64_t>::min())) == "(i64 -9223372036854775808)");
        CHECK(print(lit(1.5f)) == "(f32 1.5)");
        CHECK(print(lit(-0.0f)) == "(f32 -0)");
        CHECK(print(lit(-0.0)) == "(f64 -0)");
        CHECK(print(lit_bits(st::f32, 0x7fc00000)) == "(f32 nan)");
        CHECK(print(lit_bits(st::f64, 0x7ff8000000000000ull)) == "(f64 nan)");
        CHECK(print(lit_bits(st::f32, 0x7fc00001)) == "(f32 0x7fc00001)");
        CHECK(print(lit_bits(st::f32, 0xffc00000)) == "(f32 0xffc00000)");
        CHECK(print(lit(-std::numeric_limits<float>::infinity())) == "(f32 -inf)");
        CHECK(print(lit(std::numeric_limits<double>::infinity())) == "(f64 inf)");
    }
    SECTION("accepted input forms") {
        CHECK(literal_of("(u32 5)") == lit(5u));
        CHECK(literal_of("0x10") == lit(16u));
        CHECK(literal_of("(i32 0xffffffff)") == lit(std::int32_t(-1)));
        CHECK(literal_of("(f32 0x7fc00000)") == lit_bits(st::f32, 0x7fc00000));
        CHECK(literal_of("(f32 nan)") == lit_bits(st::f32, 0x7fc00000));
        CHECK(literal_of("(f64 nan)") == lit_bits(st::f64, 0x7ff8000000000000ull));
        CHECK(literal_of("(f32 -inf)") == lit(-std::numeric_limits<float>::infinity()));
        CHECK(literal_of("(f32 1)") == lit(1.0f));
        CHECK(literal_of("(f32 -0)") == lit(-0.0f));
        CHECK(literal_of("(f64 2.5e-3)") == lit(2.5e-3));
        CHECK(literal_of("(f32 1e-45)") == lit(std::numeric_limits<float>::denorm_min()));
        CHECK(literal_of("(bool true)") == lit(true));
        CHECK(literal_of("(bool 0x0)") == lit(false));
        CHECK(literal_of("(u64 0xffffffffffffffff)") == lit(std::numeric_limits<std::uint64_t>::max()));
        CHECK(literal_of("(i64 -9223372036854775808)") == lit(std::numeric_limits<std::int64_t>::min()));
        CHECK(literal_of("4294967295") == lit(4294967295u));
    }
}

TEST_CASE("random float bits round-trip", "[ir][text]") {
    std::mt19937_64 rng(12345);
    program p("floats");
    for (int i = 0; i < 4000; ++i) {
        std::uint64_t r = rng();
        p.add(let("f" + std::to_string(i), lit_bits(scalar_type::f32, r & 0xffffffffull)));
        p.add(let("d" + std::to_string(i), lit_bits(scalar_type::f64, r)));
    }
    REQUIRE(validate(p).empty());
    require_round_trip(p);
}

TEST_CASE("out-of-range and malformed literals are errors", "[ir][text]") {
    for (const char* bad : {"4294967296", "(i32 2147483648)", "(i32 -2147483649)", "(u64 18446744073709551616)",
                            "(f32 1e39)", "(f64 1e400)", "(u32 -1)", "(bool 0x2)", "(i32 0x100000000)",
                            "(u32 0x1ffffffff)", "(u64 0x10000000000000000)", "(f32 abc)", "(f32 infinity)",
                            "(f32 0x)", "(u8 1)", "(f16 1.5)", "-1", "(i32 1.5)", "(bool 1)", "1.5", "(u32 1 2)"}) {
        INFO(bad);
        auto e = error_of("(program t (workgroup 1 1 1) (let v " + std::string(bad) + "))");
        CHECK(e.line == 1);
        CHECK(e.column >= 37);
        CHECK(!e.message.empty());
    }
    auto e = error_of("(program t (workgroup 1 1 1) (let v (i32 2147483648)))");
    CHECK(e.column == 42);
    CHECK(e.message.find("out of range for i32") != std::string::npos);
}

TEST_CASE("comments and any whitespace are accepted", "[ir][text]") {
    const std::string text =
        "; leading comment\r\n"
        "(program   xor\t(workgroup 64 1 1) ; trailing\n"
        "\t(buffer a 0 read u32 0)(buffer b 1 read u32 0)\n"
        "  (buffer out 2 output u32 4) ;; (buffer ignored 9 read u32 0)\n"
        "(let i (gid x))(if(lt i(len out))((store out i(bitxor(load a i)(load b i))))))\n"
        "; done";
    auto r = parse(text);
    REQUIRE(r);
    auto canonical = parse(print(*r));
    REQUIRE(canonical);
    CHECK(*canonical == *r);
    CHECK(r->buffers.size() == 3);
    CHECK(r->body.size() == 2);
}

TEST_CASE("parse errors report line, column and what was expected", "[ir][text]") {
    struct case_ {
        std::string text;
        std::uint32_t line, column;
        std::string needle;
    };
    const std::vector<case_> cases = {
        {"", 1, 1, "found end of input"},
        {"program", 1, 1, "expected '(program'"},
        {"(prog x)", 1, 2, "expected 'program'"},
        {"(program x (workgroup 1 1))", 1, 26, "workgroup size"},
        {"(program x (workgroup 1 1 1)", 1, 29, "end of input"},
        {"(program x (workgroup 1 1 1)\n  (let 3 1))", 2, 8, "variable name"},
        {"(program x (workgroup 1 1 1)\n  (frob 1))", 2, 4, "expected a statement"},
        {"(program x (workgroup 1 1 1)\n\n  (let y (add 1)))", 3, 16, "expected an expression"},
        {"(program x (workgroup 1 1 1)\n  (let y (add 1 2 3)))", 2, 19, "expected ')'"},
        {"(program x (workgroup 1 1 1)\n  (let y (frob 1)))", 2, 11, "expression operator"},
        {"(program x (workgroup 1 1 1)\n  (let y (gid w)))", 2, 15, "axis"},
        {"(program x (workgroup 1 1 1)\n  (buffer a 0 readonly u32 0))", 2, 15, "access mode"},
        {"(program x (workgroup 1 1 1)\n  (buffer a 0 read u33 0))", 2, 20, "element type"},
        {"(program x (workgroup 1 1 1)\n  (buffer a 0 read u32 -1))", 2, 24, "element count"},
        {"(program x (workgroup 1 1 1)\n  (if true (store a 0 1)))", 2, 13, "expected '(' to start a statement"},
        {"(program x (workgroup 1 1 1)) (extra)", 1, 31, "end of input"},
        {"(program x (workgroup 1 1 1)\n  (block (buffer a 0 read u32 0)))", 2, 11, "top level"},
        {"(program x (workgroup 1 1 1) (let y 1)))", 1, 40, "end of input"},
        {"(program x (workgroup 1 1 1) (let y\x01 1))", 1, 35, "\\x01"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto e = error_of(c.text);
        INFO(e.what());
        CHECK(e.line == c.line);
        CHECK(e.column == c.column);
        CHECK(e.message.find(c.needle) != std::string::npos);
        CHECK(e.what().find("line " + std::to_string(c.line)) == 0);
    }
}

TEST_CASE("deep nesting is an error, not a crash", "[ir][text]") {
    SECTION("statements") {
        std::string text = "(program x (workgroup 1 1 1)";
        for (int i = 0; i < 5000; ++i) text += "(block";
        for (int i = 0; i < 5000; ++i) text += ")";
        text += ")";
        auto e = error_of(text);
        CHECK(e.message.find("nesting deeper") != std::string::npos);
    }
    SECTION("expressions") {
        std::string text = "(program x (workgroup 1 1 1) (let y ";
        for (int i = 0; i < 100000; ++i) text += "(neg ";
        auto e = error_of(text);
        CHECK(e.message.find("nesting deeper") != std::string::npos);
    }
    SECTION("only parentheses") {
        auto e = error_of(std::string(200000, '('));
        CHECK(e.line == 1);
    }
    SECTION("moderate nesting still parses") {
        std::string text = "(program x (workgroup 1 1 1) (let y ";
        for (int i = 0; i < 200; ++i) text += "(add 1 ";
        text += "1";
        for (int i = 0; i < 200; ++i) text += ")";
        text += "))";
        auto r = parse(text);
        REQUIRE(r);
        CHECK(validate(*r).empty());
        require_round_trip(*r);
    }
}

TEST_CASE("large inputs parse", "[ir][text]") {
    program p("big");
    p.buffer("o", 0, access::output, scalar_type::u32, 4);
    for (std::uint32_t i = 0; i < 20000; ++i) p.add(store("o", lit(i % 4), lit(i)));
    require_round_trip(p);
}

TEST_CASE("test data programs parse, validate and round-trip", "[ir][text]") {
    const auto files = data_files();
    REQUIRE(files.size() >= 5);
    for (const auto& f : files) {
        INFO(f.string());
        auto r = parse(slurp(f));
        if (!r) FAIL(r.error().what());
        const auto diags = validate(*r);
        INFO(format_diagnostics(diags));
        if (f.filename().string().rfind("invalid", 0) == 0)
            CHECK(!diags.empty());
        else
            CHECK(diags.empty());
        require_round_trip(*r);
    }
}

TEST_CASE("truncated and mutated text never crashes", "[ir][text]") {
    std::vector<std::string> seeds = {print(kitchen_sink())};
    for (const auto& f : data_files()) seeds.push_back(slurp(f));
    std::mt19937 rng(42);
    const std::string alphabet = "()  \n;abxiu0123456789-.e\x80";
    std::size_t parsed = 0, failed = 0;
    auto attempt = [&](const std::string& text) {
        auto r = parse(text);
        if (!r) {
            ++failed;
            CHECK(r.error().line >= 1);
            CHECK(r.error().column >= 1);
            CHECK(!r.error().message.empty());
            return;
        }
        ++parsed;
        // Whatever parses prints and parses back to the same tree.
        auto again = parse(print(*r));
        REQUIRE(again);
        CHECK(*again == *r);
        (void)validate(*r);
    };
    for (const auto& s : seeds) {
        for (std::size_t n = 0; n < s.size(); n += 1 + s.size() / 300) attempt(s.substr(0, n));
        for (int m = 0; m < 400; ++m) {
            std::string t = s;
            int edits = 1 + static_cast<int>(rng() % 3);
            for (int k = 0; k < edits && !t.empty(); ++k) {
                std::size_t pos = rng() % t.size();
                switch (rng() % 3) {
                case 0: t.erase(pos, 1 + rng() % 4); break;
                case 1: t.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
                default: t[pos] = alphabet[rng() % alphabet.size()]; break;
                }
            }
            attempt(t);
        }
    }
    CHECK(parsed > 0);
    CHECK(failed > 0);
}
