// vyre::ir::validate: one section per invalid construct, asserting its code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <vyre/ir/builder.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ir/validate.hpp>

using namespace vyre::ir;
using namespace vyre::ir::dsl;
using st = scalar_type;

namespace {

std::vector<std::string> codes(const program& p) {
    std::vector<std::string> out;
    for (const auto& d : validate(p)) out.push_back(d.code);
    return out;
}

bool has(const std::vector<std::string>& cs, const std::string& c) {
    return std::find(cs.begin(), cs.end(), c) != cs.end();
}

/// `p` must give exactly one diagnostic, with code `code`.
void require_only(const program& p, const std::string& code) {
    const auto ds = validate(p);
    INFO(print(p));
    INFO(format_diagnostics(ds));
    REQUIRE(ds.size() == 1);
    CHECK(ds[0].code == code);
    CHECK(!ds[0].message.empty());
    CHECK(!ds[0].fix.empty());
}

/// A program with the usual buffers: `in` (read u32), `out` (output u32 4),
/// `rw` (read_write i32), `f` (read_write f32), `wg` (workgroup u32 8).
program base() {
    program p("t");
    p.workgroup(4)
        .buffer("in", 0, access::read, st::u32)
        .buffer("out", 1, access::output, st::u32, 4)
        .buffer("rw", 2, access::read_write, st::i32)
        .buffer("f", 3, access::read_write, st::f32)
        .buffer("wg", 4, access::workgroup, st::u32, 8);
    return p;
}

program with(std::vector<stmt> body) {
    program p = base();
    for (auto& s : body) p.body.push_back(std::move(s));
    return p;
}

program parsed(std::string_view text) {
    auto r = parse(text);
    if (!r) FAIL(r.error().what());
    return *r;
}

} // namespace

TEST_CASE("valid programs give no diagnostics", "[ir][validate]") {
    CHECK(validate(with({})).empty());
    CHECK(validate(program()).empty());
    CHECK(validate(with({let("i", gid()), if_(lt(var("i"), len("out")), {store("out", var("i"), load("in", var("i")))}),
                         let("o", atomic(op_code::atomic_add, "wg", lit(0u), lit(1u))), barrier(),
                         store("f", lit(0u), fma(lit(1.0f), lit(2.0f), exp(lit(3.0f)))),
                         store("rw", lit(0u), neg(lit(std::int32_t(1)))), let("u", neg(lit(2u))),
                         let("a", abs(lit(2u))), let("e", eq(lit(true), lit(false))),
                         let("pc", popcount(lit(std::uint64_t(3)))), let("sd", sqrt(lit(2.0))),
                         let("bc", bitcast(st::f32, lit(std::int32_t(1)))), let("cb", cast(st::bool_, lit(1.5f))),
                         loop("k", lit(0u), lit(3u), {let("j", var("k"))}), block({let("j", lit(1u))}),
                         let("j", lit(2u)), set("j", lit(3u))}))
              .empty());
    // Storage-only element types widen on load and accept the widened type on store.
    program s("narrow");
    s.buffer("h", 0, access::read_write, st::f16).buffer("b", 1, access::read_write, st::i8).buffer("c", 2, access::output, st::u16, 2);
    s.add(store("h", lit(0u), add(load("h", lit(1u)), lit(1.0f))), store("b", lit(0u), load("b", lit(1u))),
          store("c", lit(0u), lit(7u)));
    CHECK(validate(s).empty());
    // An op program.
    program o("fill");
    o.buffer("dst", 0, access::output, st::u32, 8).add(op("fill", {var("dst"), lit(7u)}));
    CHECK(validate(o).empty());
}

TEST_CASE("buffer declarations", "[ir][validate]") {
    SECTION("V001 unknown buffer") {
        require_only(with({store("nope", lit(0u), lit(1u))}), "V001");
        require_only(with({let("x", load("nope", lit(0u)))}), "V001");
        require_only(with({let("x", len("nope"))}), "V001");
        require_only(with({let("x", atomic(op_code::atomic_add, "nope", lit(0u), lit(1u)))}), "V001");
    }
    SECTION("V002 duplicate buffer name") {
        program p = base();
        p.buffer("in", 9, access::read, st::u32);
        require_only(p, "V002");
    }
    SECTION("V003 duplicate binding") {
        program p = base();
        p.buffer("other", 1, access::read, st::u32);
        require_only(p, "V003");
    }
    SECTION("V004 workgroup size 0") {
        program p = base();
        p.workgroup(1, 0, 1);
        require_only(p, "V004");
        p.workgroup(0, 0, 0);
        CHECK(codes(p) == std::vector<std::string>{"V004", "V004", "V004"});
    }
    SECTION("V005 output or workgroup buffer with COUNT 0") {
        program p = base();
        p.buffer("o2", 7, access::output, st::u32, 0);
        require_only(p, "V005");
        program q = base();
        q.buffer("w2", 7, access::workgroup, st::u32, 0);
        require_only(q, "V005");
    }
    SECTION("V006 invalid names") {
        program p = base();
        p.buffer("bad name", 7, access::read, st::u32);
        require_only(p, "V006");
        require_only(with({let("1x", lit(1u))}), "V006");
        require_only(with({let("true", lit(1u))}), "V006");
        program q = base();
        q.name = "has space";
        require_only(q, "V006");
    }
}

TEST_CASE("malformed nodes", "[ir][validate]") {
    SECTION("V007 wrong operand count") {
        expr e = add(lit(1u), lit(2u));
        e.args.pop_back();
        require_only(with({let("x", e)}), "V007");
        stmt s = store("out", lit(0u), lit(1u));
        s.args.pop_back();
        require_only(with({s}), "V007");
        expr a = atomic(op_code::atomic_cas, "wg", lit(0u), lit(1u));
        require_only(with({let("x", a)}), "V007");
    }
    SECTION("V007 operator of the wrong kind") {
        expr e = add(lit(1u), lit(2u));
        e.op = op_code::neg;
        require_only(with({let("x", e)}), "V007");
    }
    SECTION("V007 unused fields set") {
        expr e = lit(1u);
        e.name = "junk";
        require_only(with({let("x", e)}), "V007");
        stmt b = barrier();
        b.name = "junk";
        require_only(with({b}), "V007");
        stmt l = let("x", lit(1u));
        l.else_body.push_back(barrier());
        require_only(with({l}), "V007");
    }
    SECTION("V008 literal out of range") {
        require_only(with({let("x", lit_bits(st::u32, 0x100000000ull))}), "V008");
        require_only(with({let("x", lit_bits(st::bool_, 2))}), "V008");
        require_only(with({let("x", lit_bits(st::f32, 0x1ffffffffull))}), "V008");
    }
    SECTION("V009 storage-only types in expressions") {
        require_only(with({let("x", lit_bits(st::u8, 1))}), "V009");
        require_only(with({let("x", cast(st::f16, lit(1.0f)))}), "V009");
        require_only(with({let("x", bitcast(st::i16, lit(1u)))}), "V009");
    }
}

TEST_CASE("expression typing", "[ir][validate]") {
    SECTION("V010 binary operand mismatch") {
        require_only(with({let("x", add(lit(1u), lit(std::int32_t(1))))}), "V010");
        require_only(with({let("x", shl(lit(std::uint64_t(1)), lit(3u)))}), "V010");
        require_only(with({let("x", fma(lit(1.0f), lit(1.0), lit(1.0f)))}), "V010");
        require_only(with({let("x", eq(lit(1u), lit(1.0f)))}), "V010");
    }
    SECTION("V011 operator not applicable") {
        require_only(with({let("x", add(lit(true), lit(false)))}), "V011");
        require_only(with({let("x", bitand_(lit(1.0f), lit(2.0f)))}), "V011");
        require_only(with({let("x", and_(lit(1u), lit(2u)))}), "V011");
        require_only(with({let("x", lt(lit(true), lit(false)))}), "V011");
        require_only(with({let("x", not_(lit(1u)))}), "V011");
        require_only(with({let("x", exp(lit(1.0)))}), "V011");
        require_only(with({let("x", sin(lit(1u)))}), "V011");
        require_only(with({let("x", sqrt(lit(4u)))}), "V011");
        require_only(with({let("x", popcount(lit(1.0f)))}), "V011");
        require_only(with({let("x", clz(lit(true)))}), "V011");
        require_only(with({let("x", neg(lit(true)))}), "V011");
        require_only(with({let("x", abs(lit(false)))}), "V011");
        require_only(with({let("x", fma(lit(1u), lit(2u), lit(3u)))}), "V011");
    }
    SECTION("V012 select condition not bool") {
        require_only(with({let("x", select(lit(1u), lit(2u), lit(3u)))}), "V012");
    }
    SECTION("V013 select arms differ") {
        require_only(with({let("x", select(lit(true), lit(2u), lit(3.0f)))}), "V013");
    }
    SECTION("V014 bitcast width") {
        require_only(with({let("x", bitcast(st::u64, lit(1u)))}), "V014");
        require_only(with({let("x", bitcast(st::u32, lit(true)))}), "V014");
        require_only(with({let("x", bitcast(st::bool_, lit(1u)))}), "V014");
    }
    SECTION("V015 index not u32") {
        require_only(with({let("x", load("in", lit(std::int32_t(0))))}), "V015");
        require_only(with({store("out", lit(std::uint64_t(0)), lit(1u))}), "V015");
        require_only(with({let("x", atomic(op_code::atomic_add, "wg", lit(1.0f), lit(1u)))}), "V015");
    }
    SECTION("V020 unknown variable") {
        require_only(with({let("x", var("nope"))}), "V020");
        require_only(with({let("x", var("x"))}), "V020");
        // Out of scope after its block / loop / if branch.
        require_only(with({block({let("y", lit(1u))}), let("x", var("y"))}), "V020");
        require_only(with({loop("k", lit(0u), lit(2u), {}), let("x", var("k"))}), "V020");
        require_only(with({if_(lit(true), {let("y", lit(1u))}, {let("z", var("y"))})}), "V020");
    }
    SECTION("V030 expression nested too deep") {
        expr e = lit(1u);
        for (int i = 0; i < 300; ++i) e = add(std::move(e), lit(1u));
        require_only(with({let("x", e)}), "V030");
    }
}

TEST_CASE("statements", "[ir][validate]") {
    SECTION("V016 store value type") {
        require_only(with({store("out", lit(0u), lit(1.0f))}), "V016");
        require_only(with({store("rw", lit(0u), lit(1u))}), "V016");
        program p = base();
        p.buffer("h", 9, access::read_write, st::f16).add(store("h", lit(0u), lit(1.0)));
        require_only(p, "V016");
    }
    SECTION("V017 store to read or uniform buffer") {
        require_only(with({store("in", lit(0u), lit(1u))}), "V017");
        program p = base();
        p.buffer("u", 9, access::uniform, st::u32, 1).add(store("u", lit(0u), lit(1u)));
        require_only(p, "V017");
    }
    SECTION("V018 if condition not bool") {
        require_only(with({if_(lit(1u), {})}), "V018");
    }
    SECTION("V019 loop bounds not u32") {
        require_only(with({loop("k", lit(std::int32_t(0)), lit(2u), {})}), "V019");
        require_only(with({loop("k", lit(0u), lit(std::uint64_t(2)), {})}), "V019");
    }
    SECTION("V021 shadowing") {
        require_only(with({let("x", lit(1u)), let("x", lit(2u))}), "V021");
        require_only(with({let("x", lit(1u)), block({let("x", lit(2u))})}), "V021");
        require_only(with({let("x", lit(1u)), loop("x", lit(0u), lit(1u), {})}), "V021");
        require_only(with({loop("k", lit(0u), lit(1u), {let("k", lit(2u))})}), "V021");
        require_only(with({loop("k", lit(0u), lit(1u), {loop("k", lit(0u), lit(1u), {})})}), "V021");
    }
    SECTION("V022 set of a loop variable") {
        require_only(with({loop("k", lit(0u), lit(4u), {set("k", lit(1u))})}), "V022");
    }
    SECTION("V023 set of an unknown variable") {
        require_only(with({set("nope", lit(1u))}), "V023");
    }
    SECTION("V024 set type mismatch") {
        require_only(with({let("x", lit(1u)), set("x", lit(1.0f))}), "V024");
    }
    SECTION("V028 statements nested deeper than 64") {
        stmt s = barrier();
        for (int i = 0; i < 64; ++i) s = block({std::move(s)});
        require_only(with({s}), "V028");
        stmt ok = barrier();
        for (int i = 0; i < 63; ++i) ok = block({std::move(ok)});
        CHECK(validate(with({ok})).empty());
    }
    SECTION("V029 more than 100000 statements") {
        std::vector<stmt> body(100001, barrier());
        require_only(with(body), "V029");
        std::vector<stmt> fine(100000, barrier());
        CHECK(validate(with(fine)).empty());
    }
}

TEST_CASE("atomics", "[ir][validate]") {
    SECTION("V025 wrong element type") {
        program p = base();
        p.buffer("ff", 9, access::read_write, st::f32).add(let("x", atomic(op_code::atomic_add, "ff", lit(0u), lit(1.0f))));
        require_only(p, "V025");
        program q = base();
        q.buffer("i6", 9, access::read_write, st::i64).add(let("x", atomic(op_code::atomic_max, "i6", lit(0u), lit(std::int64_t(1)))));
        require_only(q, "V025");
    }
    SECTION("V026 wrong access") {
        program p = base();
        p.buffer("r", 9, access::read, st::u32).add(let("x", atomic(op_code::atomic_or, "r", lit(0u), lit(1u))));
        require_only(p, "V026");
    }
    SECTION("V027 value type mismatch") {
        require_only(with({let("x", atomic(op_code::atomic_add, "rw", lit(0u), lit(1u)))}), "V027");
        require_only(with({let("x", atomic_cas("wg", lit(0u), lit(1u), lit(std::int32_t(2))))}), "V027");
    }
    SECTION("atomic results have the element type") {
        require_only(with({let("x", atomic(op_code::atomic_add, "rw", lit(0u), lit(std::int32_t(1)))), set("x", lit(1u))}),
                     "V024");
    }
}

TEST_CASE("op statements", "[ir][validate]") {
    auto op_prog = [](std::vector<stmt> body) {
        program p("opp");
        p.buffer("src", 0, access::read, st::u32)
            .buffer("dst", 1, access::output, st::u32, 8)
            .buffer("d64", 2, access::output, st::u64, 8)
            .buffer("wgb", 3, access::workgroup, st::u32, 8);
        for (auto& s : body) p.body.push_back(std::move(s));
        return p;
    };
    CHECK(validate(op_prog({op("copy", {var("src"), var("dst")})})).empty());
    SECTION("V031 not the only statement") {
        require_only(op_prog({op("fill", {var("dst"), lit(1u)}), barrier()}), "V031");
        require_only(op_prog({block({op("fill", {var("dst"), lit(1u)})})}), "V031");
    }
    SECTION("V032 unknown op") { require_only(op_prog({op("frobnicate", {var("dst")})}), "V032"); }
    SECTION("V033 argument count") { require_only(op_prog({op("fill", {var("dst")})}), "V033"); }
    SECTION("V034 argument kind") {
        require_only(op_prog({op("fill", {lit(3u), lit(1u)})}), "V034");
        require_only(op_prog({op("fill", {var("dst"), var("src")})}), "V034");
        require_only(op_prog({op("fill", {var("dst"), lit(std::int32_t(1))})}), "V034");
    }
    SECTION("V001 unknown buffer argument") { require_only(op_prog({op("fill", {var("zzz"), lit(1u)})}), "V001"); }
    SECTION("V035 access") {
        require_only(op_prog({op("fill", {var("src"), lit(1u)})}), "V035");
        require_only(op_prog({op("copy", {var("wgb"), var("dst")})}), "V035");
    }
    SECTION("V036 element type") { require_only(op_prog({op("fill", {var("d64"), lit(1u)})}), "V036"); }
}

TEST_CASE("every problem is reported at once", "[ir][validate]") {
    program p = parsed(R"((program multi (workgroup 0 1 1)
      (buffer a 0 read u32 0)
      (buffer a 1 read f32 0)
      (buffer o 1 output u32 0)
      (let x (add 1 (f32 2)))
      (store a 0 1)
      (loop k 0 4 (set k 1))
      (let y nope)))");
    const auto cs = codes(p);
    for (const char* c : {"V004", "V002", "V003", "V005", "V010", "V017", "V022", "V020"}) {
        INFO(c);
        CHECK(has(cs, c));
    }
    CHECK(cs.size() == 8);
}

TEST_CASE("diagnostics name the node and format one per line", "[ir][validate]") {
    const auto ds = validate(with({let("x", lit(1u)), if_(lit(true), {barrier(), store("out", var("x"), lit(1.0f))})}));
    REQUIRE(ds.size() == 1);
    CHECK(ds[0].code == "V016");
    CHECK(ds[0].message.find("body[1].then[1]") != std::string::npos);
    CHECK(ds[0].message.find("'out'") != std::string::npos);
    const std::string text = format_diagnostics(ds);
    CHECK(text == "V016: " + ds[0].message + " (fix: " + ds[0].fix + ")\n");
    const auto two = validate(with({let("a", var("p")), if_(lit(false), {}, {let("b", var("q"))})}));
    REQUIRE(two.size() == 2);
    CHECK(two[1].message.find("body[1].else[0]") != std::string::npos);
    const std::string lines = format_diagnostics(two);
    CHECK(std::count(lines.begin(), lines.end(), '\n') == 2);
}
