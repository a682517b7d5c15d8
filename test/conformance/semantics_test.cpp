// Conformance: one body per clause of spec/vyre-ir.md, instantiated for every
// enabled backend. Every program also round-trips through the printer.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "support/backends.hpp"

using namespace vyre;
using vyre::test::backend_list;
using vyre::test::against_reference;
using vyre::test::from_bytes;
using vyre::test::run;
using vyre::test::run_body;
using vyre::test::to_bytes;

namespace {
std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t f64_bits(double f) { return std::bit_cast<std::uint64_t>(f); }
} // namespace

TEMPLATE_LIST_TEST_CASE("integer arithmetic wraps", "[conformance][arith]", backend_list) {
    TestType b;
    auto u = run_body<std::uint32_t>(b, "u32", 4,
                                     "  (store out 0 (add 4294967295 2))\n"
                                     "  (store out 1 (sub 0 1))\n"
                                     "  (store out 2 (mul 65536 65536))\n"
                                     "  (store out 3 (neg 1))\n");
    CHECK(u == std::vector<std::uint32_t>{1, 4294967295u, 0, 4294967295u});
    auto i = run_body<std::int32_t>(b, "i32", 3,
                                    "  (store out 0 (add (i32 2147483647) (i32 1)))\n"
                                    "  (store out 1 (abs (i32 -2147483648)))\n"
                                    "  (store out 2 (mul (i32 -65536) (i32 65536)))\n");
    CHECK(i == std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::min(), 0});
    auto l = run_body<std::uint64_t>(b, "u64", 2,
                                     "  (store out 0 (add (u64 18446744073709551615) (u64 1)))\n"
                                     "  (store out 1 (mul (u64 4294967296) (u64 4294967297)))\n");
    CHECK(l == std::vector<std::uint64_t>{0, 4294967296ull});
}

TEMPLATE_LIST_TEST_CASE("div and mod: by zero, MIN / -1, truncation, signs", "[conformance][arith]", backend_list) {
    TestType b;
    auto u = run_body<std::uint32_t>(b, "u32", 4,
                                     "  (store out 0 (div 7 0))\n"
                                     "  (store out 1 (mod 7 0))\n"
                                     "  (store out 2 (div 7 2))\n"
                                     "  (store out 3 (mod 7 2))\n");
    CHECK(u == std::vector<std::uint32_t>{0, 0, 3, 1});
    auto i = run_body<std::int32_t>(b, "i32", 6,
                                    "  (store out 0 (div (i32 -2147483648) (i32 -1)))\n"
                                    "  (store out 1 (mod (i32 -2147483648) (i32 -1)))\n"
                                    "  (store out 2 (div (i32 -7) (i32 2)))\n"
                                    "  (store out 3 (mod (i32 -7) (i32 2)))\n"
                                    "  (store out 4 (mod (i32 7) (i32 -2)))\n"
                                    "  (store out 5 (div (i32 -7) (i32 0)))\n");
    CHECK(i == std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 0, -3, -1, 1, 0});
    auto l = run_body<std::int64_t>(b, "i64", 2,
                                    "  (store out 0 (div (i64 -9223372036854775808) (i64 -1)))\n"
                                    "  (store out 1 (mod (i64 -9223372036854775808) (i64 -1)))\n");
    CHECK(l == std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), 0});
}

TEMPLATE_LIST_TEST_CASE("shifts take the amount modulo the width; shr by signedness", "[conformance][bits]",
                        backend_list) {
    TestType b;
    auto u = run_body<std::uint32_t>(b, "u32", 6,
                                     "  (store out 0 (shl 1 33))\n"
                                     "  (store out 1 (shr 2147483648 31))\n"
                                     "  (store out 2 (popcount 4294967295))\n"
                                     "  (store out 3 (clz 0))\n"
                                     "  (store out 4 (ctz 8))\n"
                                     "  (store out 5 (bitnot 0))\n");
    CHECK(u == std::vector<std::uint32_t>{2, 1, 32, 32, 3, 4294967295u});
    auto i = run_body<std::int32_t>(b, "i32", 2,
                                    "  (store out 0 (shr (i32 -8) (i32 1)))\n"
                                    "  (store out 1 (shr (i32 -8) (i32 33)))\n");
    CHECK(i == std::vector<std::int32_t>{-4, -4});
    auto l = run_body<std::uint64_t>(b, "u64", 2,
                                     "  (store out 0 (shl (u64 1) (u64 64)))\n"
                                     "  (store out 1 (shl (u64 1) (u64 63)))\n");
    CHECK(l == std::vector<std::uint64_t>{1, 1ull << 63});
}

TEMPLATE_LIST_TEST_CASE("casts: wrap, extend, saturate, NaN to 0, bool", "[conformance][cast]", backend_list) {
    TestType b;
    auto i = run_body<std::int32_t>(b, "i32", 8,
                                    "  (store out 0 (cast i32 (f32 3.9)))\n"
                                    "  (store out 1 (cast i32 (f32 -3.9)))\n"
                                    "  (store out 2 (cast i32 (f32 1e20)))\n"
                                    "  (store out 3 (cast i32 (f32 -1e20)))\n"
                                    "  (store out 4 (cast i32 (f32 nan)))\n"
                                    "  (store out 5 (cast i32 (u64 4294967295)))\n"
                                    "  (store out 6 (cast i32 true))\n"
                                    "  (store out 7 (cast i32 (f64 -inf)))\n");
    CHECK(i == std::vector<std::int32_t>{3, -3, 2147483647, std::numeric_limits<std::int32_t>::min(), 0, -1, 1,
                                         std::numeric_limits<std::int32_t>::min()});
    auto u = run_body<std::uint32_t>(b, "u32", 4,
                                     "  (store out 0 (cast u32 (f32 -5)))\n"
                                     "  (store out 1 (cast u32 (f64 1e300)))\n"
                                     "  (store out 2 (cast u32 (i32 -1)))\n"
                                     "  (store out 3 (cast u32 (f32 inf)))\n");
    CHECK(u == std::vector<std::uint32_t>{0, 4294967295u, 4294967295u, 4294967295u});
    auto l = run_body<std::int64_t>(b, "i64", 3,
                                    "  (store out 0 (cast i64 (i32 -2)))\n"
                                    "  (store out 1 (cast i64 (u32 4294967295)))\n"
                                    "  (store out 2 (cast i64 (f64 1e30)))\n");
    CHECK(l == std::vector<std::int64_t>{-2, 4294967295ll, std::numeric_limits<std::int64_t>::max()});
    auto f = run_body<std::uint32_t>(b, "f32", 3,
                                     "  (store out 0 (cast f32 16777217))\n"  // rounds to nearest even
                                     "  (store out 1 (cast f32 (f64 0.1)))\n"
                                     "  (store out 2 (cast f32 (u64 18446744073709551615)))\n");
    CHECK(f[0] == f32_bits(16777216.0f));
    CHECK(f[1] == f32_bits(0.1f));
    CHECK(f[2] == f32_bits(18446744073709551616.0f));
    auto bo = run_body<std::uint32_t>(b, "bool", 4,
                                      "  (store out 0 (cast bool 7))\n"
                                      "  (store out 1 (cast bool (f32 -0)))\n"
                                      "  (store out 2 (cast bool (f32 nan)))\n"
                                      "  (store out 3 (cast bool (i64 0)))\n");
    CHECK(bo == std::vector<std::uint32_t>{1, 0, 1, 0});
    auto bc = run_body<std::uint32_t>(b, "u32", 2,
                                      "  (store out 0 (bitcast u32 (f32 1)))\n"
                                      "  (store out 1 (bitcast u32 (i32 -1)))\n");
    CHECK(bc == std::vector<std::uint32_t>{0x3f800000u, 0xffffffffu});
}

TEMPLATE_LIST_TEST_CASE("floats: exact ops, fma, no contraction, subnormals", "[conformance][float]", backend_list) {
    TestType b;
    auto f = run_body<std::uint32_t>(b, "f32", 6,
                                     "  (store out 0 (add (f32 0.1) (f32 0.2)))\n"
                                     "  (store out 1 (div (f32 1) (f32 3)))\n"
                                     "  (store out 2 (sqrt (f32 2)))\n"
                                     "  (store out 3 (mul (f32 1e-30) (f32 1e-10)))\n"  // subnormal kept
                                     "  (store out 4 (fma (f32 0.1) (f32 10) (f32 -1)))\n"
                                     "  (store out 5 (add (mul (f32 0.1) (f32 10)) (f32 -1)))\n");
    volatile float a = 0.1f, c = 0.2f, ten = 10.0f, m1 = -1.0f;
    CHECK(f[0] == f32_bits(a + c));
    CHECK(f[1] == f32_bits(1.0f / 3.0f));
    CHECK(f[2] == f32_bits(std::sqrt(2.0f)));
    CHECK(f[3] == f32_bits(1e-30f * 1e-10f));
    CHECK(f[3] != 0u);
    CHECK(f[4] == f32_bits(std::fma(0.1f, 10.0f, -1.0f)));
    float prod = a * ten;
    CHECK(f[5] == f32_bits(prod + m1));
    CHECK(f[4] != f[5]);  // fma rounds once, mul+add twice
    auto d = run_body<std::uint64_t>(b, "f64", 2,
                                     "  (store out 0 (add (f64 0.1) (f64 0.2)))\n"
                                     "  (store out 1 (div (f64 1) (f64 0)))\n");
    volatile double x = 0.1, y = 0.2;
    CHECK(d[0] == f64_bits(x + y));
    CHECK(d[1] == f64_bits(std::numeric_limits<double>::infinity()));
}

TEMPLATE_LIST_TEST_CASE("floats: canonical NaN on store, min/max lose to NaN", "[conformance][float]", backend_list) {
    TestType b;
    auto f = run_body<std::uint32_t>(b, "f32", 7,
                                     "  (store out 0 (f32 0x7fc00001))\n"
                                     "  (store out 1 (f32 0xffffffff))\n"
                                     "  (store out 2 (sub (f32 inf) (f32 inf)))\n"
                                     "  (store out 3 (min (f32 nan) (f32 2)))\n"
                                     "  (store out 4 (max (f32 3) (f32 nan)))\n"
                                     "  (store out 5 (min (f32 -0) (f32 0)))\n"
                                     "  (store out 6 (max (f32 -0) (f32 0)))\n");
    CHECK(f[0] == 0x7fc00000u);
    CHECK(f[1] == 0x7fc00000u);
    CHECK(f[2] == 0x7fc00000u);
    CHECK(f[3] == f32_bits(2.0f));
    CHECK(f[4] == f32_bits(3.0f));
    CHECK(f[5] == 0x80000000u);
    CHECK(f[6] == 0u);
    auto d = run_body<std::uint64_t>(b, "f64", 1, "  (store out 0 (f64 0xfff0000000000001))\n");
    CHECK(d[0] == 0x7ff8000000000000ull);
    // bitcast does not canonicalize, but the store does
    auto u = run_body<std::uint32_t>(b, "u32", 1, "  (store out 0 (bitcast u32 (f32 0x7fc00001)))\n");
    CHECK(u[0] == 0x7fc00001u);
}

TEMPLATE_LIST_TEST_CASE("narrow storage types widen on load and narrow on store", "[conformance][storage]",
                        backend_list) {
    TestType b;
    const char* prog =
        "(program narrow (workgroup 1 1 1)\n"
        "  (buffer a 0 read u8 0)\n  (buffer s 1 read i8 0)\n  (buffer h 2 read f16 0)\n  (buffer bh 3 read bf16 0)\n"
        "  (buffer o8 4 output u8 2)\n  (buffer oi16 5 output i16 2)\n  (buffer oh 6 output f16 4)\n"
        "  (buffer obh 7 output bf16 2)\n  (buffer wide 8 output i32 4)\n"
        "  (store wide 0 (cast i32 (load a 0)))\n"
        "  (store wide 1 (load s 0))\n"
        "  (store wide 2 (bitcast i32 (load h 0)))\n"
        "  (store wide 3 (bitcast i32 (load bh 0)))\n"
        "  (store o8 0 300)\n  (store o8 1 (add (load a 0) 1))\n"
        "  (store oi16 0 (i32 -70000))\n  (store oi16 1 (load s 0))\n"
        "  (store oh 0 (f32 1.0009765625))\n"      // exactly representable
        "  (store oh 1 (f32 1.00048828125))\n"     // halfway: ties to even (down)
        "  (store oh 2 (f32 100000))\n"            // overflow to inf
        "  (store oh 3 (f32 nan))\n"
        "  (store obh 0 (f32 1.00390625))\n"       // halfway: ties to even (down)
        "  (store obh 1 (f32 1.01171875)))\n";     // halfway: ties to even (up)
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
    std::vector<bytes> in = {bytes{200}, bytes{0xfe}, bytes{0x00, 0x3c} /* f16 1.0 */, bytes{0x80, 0x3f} /* bf16 1.0 */};
    auto out = run(b, prog, in, c);
    REQUIRE(out.size() == 5);
    CHECK(out[0] == bytes{44, 201});
    CHECK(from_bytes<std::int16_t>(out[1]) == std::vector<std::int16_t>{static_cast<std::int16_t>(-70000), -2});
    CHECK(from_bytes<std::uint16_t>(out[2]) == std::vector<std::uint16_t>{0x3c01, 0x3c00, 0x7c00, 0x7e00});
    CHECK(from_bytes<std::uint16_t>(out[3]) == std::vector<std::uint16_t>{0x3f80, 0x3f82});
    auto w = from_bytes<std::int32_t>(out[4]);
    CHECK(w[0] == 200);
    CHECK(w[1] == -2);
    CHECK(static_cast<std::uint32_t>(w[2]) == f32_bits(1.0f));
    CHECK(static_cast<std::uint32_t>(w[3]) == f32_bits(1.0f));
}

TEMPLATE_LIST_TEST_CASE("out-of-bounds loads read zero, stores and atomics do nothing", "[conformance][oob]",
                        backend_list) {
    TestType b;
    const char* prog =
        "(program oob (workgroup 1 1 1)\n"
        "  (buffer a 0 read u32 0)\n  (buffer out 1 output u32 4)\n"
        "  (store out 0 (load a 100))\n"
        "  (store out 9 7)\n"
        "  (let old (atomic_add out 4 5))\n"
        "  (store out 1 (add old 1))\n"
        "  (store out 2 (len a))\n"
        "  (store out 3 (load a 1)))\n";
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
    auto out = run(b, prog, {to_bytes<std::uint32_t>({10, 20})}, c);
    CHECK(from_bytes<std::uint32_t>(out[0]) == std::vector<std::uint32_t>{0, 1, 2, 20});
}

TEMPLATE_LIST_TEST_CASE("every atomic returns the old value", "[conformance][atomic]", backend_list) {
    TestType b;
    const char* prog =
        "(program atom (workgroup 1 1 1)\n"
        "  (buffer x 0 read_write u32 0)\n  (buffer y 1 read_write i32 0)\n  (buffer old 2 output u32 9)\n"
        "  (store old 0 (atomic_add x 0 5))\n"
        "  (store old 1 (atomic_sub x 1 1))\n"
        "  (store old 2 (atomic_and x 2 6))\n"
        "  (store old 3 (atomic_or x 3 1))\n"
        "  (store old 4 (atomic_xor x 4 3))\n"
        "  (store old 5 (atomic_exchange x 5 42))\n"
        "  (store old 6 (atomic_cas x 6 9 11))\n"
        "  (store old 7 (atomic_cas x 7 0 11))\n"
        "  (store old 8 (bitcast u32 (atomic_min y 0 (i32 -5))))\n"
        "  (let m (atomic_max y 1 (i32 -5))))\n";
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
    auto out = run(b, prog, {to_bytes<std::uint32_t>({1, 0, 12, 4, 5, 6, 9, 8}), to_bytes<std::int32_t>({3, -9})}, c);
    CHECK(from_bytes<std::uint32_t>(out[0]) == std::vector<std::uint32_t>{6, 4294967295u, 4, 5, 6, 42, 11, 8});
    CHECK(from_bytes<std::int32_t>(out[1]) == std::vector<std::int32_t>{-5, -5});
    CHECK(from_bytes<std::uint32_t>(out[2]) == std::vector<std::uint32_t>{1, 0, 12, 4, 5, 6, 9, 8, 3});
}

TEMPLATE_LIST_TEST_CASE("atomics from many invocations are exact", "[conformance][atomic]", backend_list) {
    TestType b;
    const char* prog =
        "(program count (workgroup 64 1 1)\n"
        "  (buffer data 0 read u32 0)\n  (buffer total 1 output u64 1)\n  (buffer hits 2 output u32 1)\n"
        "  (let i (gid x))\n"
        "  (if (lt i (len data))\n"
        "    ((let a (atomic_add total 0 (cast u64 (load data i))))\n"
        "     (let h (atomic_add hits 0 1)))))\n";
    std::vector<std::uint32_t> data(1000);
    std::uint64_t sum = 0;
    for (std::uint32_t i = 0; i < 1000; ++i) sum += data[i] = i * 2654435761u;
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{16, 1, 1};
    auto out = run(b, prog, {to_bytes(data)}, c);
    CHECK(from_bytes<std::uint64_t>(out[0])[0] == sum);
    CHECK(from_bytes<std::uint32_t>(out[1])[0] == 1000);
}

TEMPLATE_LIST_TEST_CASE("every atomic from many workgroups at once gives the exact combined value",
                        "[conformance][atomic]", backend_list) {
    TestType b;
    // 4096 invocations in 64 workgroups hit the same few elements; each
    // operation is commutative, so the final values are exact.
    const char* prog =
        "(program many (workgroup 64 1 1)\n"
        "  (buffer acc 0 read_write u32 0)\n  (buffer sacc 1 read_write i32 0)\n  (buffer wide 2 read_write u64 0)\n"
        "  (let i (gid x))\n"
        "  (let a (atomic_or acc 0 (shl 1 (mod i 32))))\n"
        "  (let c (atomic_xor acc 1 i))\n"
        "  (let d (atomic_max acc 2 i))\n"
        "  (let e (atomic_min acc 3 i))\n"
        "  (let f (atomic_and acc 4 (bitnot (shl 1 (mod i 32)))))\n"
        "  (let g (atomic_sub acc 5 1))\n"
        "  (let h (atomic_min sacc 0 (sub (i32 0) (cast i32 i))))\n"
        "  (let k (atomic_max sacc 1 (sub (cast i32 i) (i32 5000))))\n"
        "  (let l (atomic_add wide 0 (cast u64 i))))\n";
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{64, 1, 1};
    auto out = run(b, prog,
                   {to_bytes<std::uint32_t>({0, 0, 0, 0xffffffffu, 0xffffffffu, 0}),
                    to_bytes<std::int32_t>({0, -100000}), to_bytes<std::uint64_t>({1ull << 40})},
                   c);
    std::uint32_t x = 0;
    for (std::uint32_t i = 0; i < 4096; ++i) x ^= i;
    CHECK(from_bytes<std::uint32_t>(out[0]) == std::vector<std::uint32_t>{0xffffffffu, x, 4095, 0, 0, 0u - 4096u});
    CHECK(from_bytes<std::int32_t>(out[1]) == std::vector<std::int32_t>{-4095, 4095 - 5000});
    CHECK(from_bytes<std::uint64_t>(out[2]) == std::vector<std::uint64_t>{(1ull << 40) + 4095ull * 4096 / 2});
}

TEMPLATE_LIST_TEST_CASE("barriers: workgroup reduction in shared memory", "[conformance][barrier]", backend_list) {
    TestType b;
    const char* prog =
        "(program reduce (workgroup 64 1 1)\n"
        "  (buffer in 0 read u32 0)\n  (buffer sums 1 output u32 4)\n  (buffer tile 2 workgroup u32 64)\n"
        "  (let l (lid x))\n"
        "  (store tile l (load in (gid x)))\n"
        "  (barrier)\n"
        "  (loop k 0 6\n"
        "    (let stride (shl 1 k))\n"
        "    (if (eq (mod l (shl stride 1)) 0)\n"
        "      ((store tile l (add (load tile l) (load tile (add l stride))))))\n"
        "    (barrier))\n"
        "  (if (eq l 0) ((store sums (wgid x) (load tile 0)))))\n";
    std::vector<std::uint32_t> in(256);
    std::vector<std::uint32_t> expect(4, 0);
    for (std::uint32_t i = 0; i < 256; ++i) {
        in[i] = i * 7 + 1;
        expect[i / 64] += in[i];
    }
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{4, 1, 1};
    auto out = run(b, prog, {to_bytes(in)}, c);
    CHECK(from_bytes<std::uint32_t>(out[0]) == expect);
}

TEMPLATE_LIST_TEST_CASE("a divergent barrier is an error", "[conformance][barrier]", backend_list) {
    TestType b;
    auto p = vyre::test::parse_checked(
        "(program div (workgroup 4 1 1)\n  (buffer out 0 output u32 4)\n"
        "  (if (lt (lid x) 2) ((barrier)) ((barrier)))\n  (store out (lid x) 1))\n");
    auto r = vyre::dispatch(b, p, {});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == error_code::dispatch_failed);
    CHECK_THAT(r.error().message(), Catch::Contains("divergent barrier"));
    // An invocation that skips the barrier and reaches the end of the program
    // has not returned: it diverges from those that wait (spec: every invocation
    // that has not returned reaches the same barrier the same number of times).
    for (const char* skip : {"  (if (lt (lid x) 2) ((barrier)))\n",
                             "  (barrier)\n  (if (ge (lid x) 1) ((barrier)))\n"}) {
        auto p2 = vyre::test::parse_checked(std::string("(program skip (workgroup 4 1 1)\n  (buffer out 0 output u32 4)\n") +
                                            skip + "  (store out (lid x) 1))\n");
        auto r2 = vyre::dispatch(b, p2, {});
        REQUIRE_FALSE(r2.has_value());
        CHECK(r2.error().code() == error_code::dispatch_failed);
        CHECK_THAT(r2.error().message(), Catch::Contains("divergent barrier") && Catch::Contains("end of the program"));
    }
    // Invocations that return early are excused.
    auto ok = run(b,
                  "(program early (workgroup 4 1 1)\n  (buffer out 0 output u32 4)\n"
                  "  (if (ge (lid x) 2) ((return)))\n  (barrier)\n  (store out (lid x) 1))\n");
    CHECK(from_bytes<std::uint32_t>(ok[0]) == std::vector<std::uint32_t>{1, 1, 0, 0});
    // ... also after barriers they took part in, and when all reach the end together.
    auto ok2 = run(b,
                   "(program late (workgroup 4 1 1)\n  (buffer out 0 output u32 4)\n  (barrier)\n"
                   "  (if (eq (lid x) 3) ((return)))\n  (barrier)\n  (store out (lid x) 2))\n");
    CHECK(from_bytes<std::uint32_t>(ok2[0]) == std::vector<std::uint32_t>{2, 2, 2, 0});
}

TEMPLATE_LIST_TEST_CASE("grid: default from the largest output, override, built-ins", "[conformance][grid]",
                        backend_list) {
    TestType b;
    const char* prog =
        "(program ids (workgroup 4 1 1)\n"
        "  (buffer out 0 output u32 10)\n  (buffer meta 1 output u32 3)\n"
        "  (store out (gid x) (add (mul (wgid x) 100) (lid x)))\n"
        "  (if (eq (gid x) 0) ((store meta 0 (ngroups x)) (store meta 1 (wgsize x)) (store meta 2 (ngroups y)))))\n";
    auto out = run(b, prog);
    CHECK(from_bytes<std::uint32_t>(out[0]) == std::vector<std::uint32_t>{0, 1, 2, 3, 100, 101, 102, 103, 200, 201});
    CHECK(from_bytes<std::uint32_t>(out[1]) == std::vector<std::uint32_t>{3, 4, 1});
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 2, 1};
    auto out2 = run(b, prog, {}, c);
    CHECK(from_bytes<std::uint32_t>(out2[0]) == std::vector<std::uint32_t>{0, 1, 2, 3, 0, 0, 0, 0, 0, 0});
    CHECK(from_bytes<std::uint32_t>(out2[1]) == std::vector<std::uint32_t>{1, 4, 2});
    // Without outputs, E is the largest input.
    auto out3 = run(b,
                    "(program rw (workgroup 2 1 1)\n  (buffer a 0 read u32 0)\n  (buffer x 1 read_write u32 0)\n"
                    "  (store x (gid x) (add (load x (gid x)) (load a (gid x)))))\n",
                    {to_bytes<std::uint32_t>({1, 2, 3}), to_bytes<std::uint32_t>({10, 10, 10})});
    CHECK(from_bytes<std::uint32_t>(out3[0]) == std::vector<std::uint32_t>{11, 12, 13});
    // Workgroup override from the dispatch config.
    dispatch_config w;
    w.workgroup = std::array<std::uint32_t, 3>{10, 1, 1};
    auto out4 = run(b, prog, {}, w);
    CHECK(from_bytes<std::uint32_t>(out4[1]) == std::vector<std::uint32_t>{1, 10, 1});
}

TEMPLATE_LIST_TEST_CASE("grid: beyond the backend's max_workgroups on an axis is refused", "[conformance][grid]",
                        backend_list) {
    TestType b;
    const auto p = vyre::test::parse_checked("(program g (workgroup 1 1 1)\n  (buffer out 0 output u32 1)\n"
                                 "  (if (eq (gid x) 0) ((store out 0 7))))\n");
    const auto l = b.limits();
    int checked = 0;
    for (int a = 0; a < 3; ++a) {
        if (l.max_workgroups[a] == 0xffffffffu) continue;  // (no grid can exceed it)
        std::array<std::uint32_t, 3> g{1, 1, 1};
        g[a] = l.max_workgroups[a] + 1;
        dispatch_config c;
        c.grid = g;
        auto r = vyre::dispatch(b, p, {}, c);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == vyre::error_code::invalid_argument);
        CHECK_THAT(r.error().message(), Catch::Contains("exceeds the backend's maximum of " + std::to_string(l.max_workgroups[a])));
        ++checked;
    }
    CHECK(checked > 0);  // (every backend limits y and z to 65535 today)
    dispatch_config ok;
    ok.grid = std::array<std::uint32_t, 3>{2, 1, 1};
    CHECK(from_bytes<std::uint32_t>(run(b, "(program g (workgroup 1 1 1)\n  (buffer out 0 output u32 1)\n"
                                          "  (if (eq (gid x) 0) ((store out 0 7))))\n", {}, ok)[0]) ==
          std::vector<std::uint32_t>{7});
}

TEMPLATE_LIST_TEST_CASE("control flow: loops, if/else, return, scopes, select evaluates both", "[conformance][control]",
                        backend_list) {
    TestType b;
    auto u = run_body<std::uint32_t>(b, "u32", 4,
                                     "  (let acc 0)\n"
                                     "  (loop i 1 11 (set acc (add acc i)))\n"
                                     "  (store out 0 acc)\n"
                                     "  (loop j 5 5 (set acc 0))\n"
                                     "  (if (gt acc 50) ((store out 1 1)) ((store out 1 2)))\n"
                                     "  (block (let t 7) (store out 2 t))\n"
                                     "  (let s (select true (atomic_add out 3 1) (atomic_add out 3 10)))\n"
                                     "  (return)\n"
                                     "  (store out 0 99)\n");
    CHECK(u == std::vector<std::uint32_t>{55, 1, 7, 11});
}

TEMPLATE_LIST_TEST_CASE("dispatch ABI: inputs in declaration order, sizes checked", "[conformance][abi]",
                        backend_list) {
    TestType b;
    auto p = vyre::test::parse_checked(
        "(program abi (workgroup 1 1 1)\n"
        "  (buffer a 0 read u32 0)\n  (buffer o 1 output u32 2)\n  (buffer u 2 uniform u32 1)\n"
        "  (buffer rw 3 read_write u32 2)\n"
        "  (store o 0 (load a 0))\n  (store o 1 (load u 0))\n  (store rw 0 (add (load rw 0) 1)))\n");
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
    auto ok = vyre::dispatch(b, p, {to_bytes<std::uint32_t>({5}), to_bytes<std::uint32_t>({6}),
                                    to_bytes<std::uint32_t>({7, 8})}, c);
    REQUIRE(ok.has_value());
    REQUIRE(ok->size() == 2);  // outputs: o, rw
    CHECK(from_bytes<std::uint32_t>((*ok)[0]) == std::vector<std::uint32_t>{5, 6});
    CHECK(from_bytes<std::uint32_t>((*ok)[1]) == std::vector<std::uint32_t>{8, 8});

    auto missing = vyre::dispatch(b, p, {to_bytes<std::uint32_t>({5}), to_bytes<std::uint32_t>({6})}, c);
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().code() == error_code::invalid_argument);
    auto extra = vyre::dispatch(b, p, {bytes(4), bytes(4), bytes(8), bytes(4)}, c);
    REQUIRE_FALSE(extra.has_value());
    auto ragged = vyre::dispatch(b, p, {bytes(5), bytes(4), bytes(8)}, c);
    REQUIRE_FALSE(ragged.has_value());
    CHECK_THAT(ragged.error().message(), Catch::Contains("'a'"));
    auto wrong_count = vyre::dispatch(b, p, {bytes(4), bytes(4), bytes(4)}, c);
    REQUIRE_FALSE(wrong_count.has_value());
    CHECK_THAT(wrong_count.error().message(), Catch::Contains("'rw'"));
}

TEMPLATE_LIST_TEST_CASE("an invalid program is an error with diagnostics, never run", "[conformance][abi]",
                        backend_list) {
    TestType b;
    ir::program p("bad");
    p.buffer("a", 0, ir::access::read, ir::scalar_type::u32).add(ir::dsl::store("a", ir::dsl::lit(0u), ir::dsl::lit(1u)));
    auto r = vyre::dispatch(b, p, {bytes(4)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == error_code::invalid_program);
    CHECK_THAT(r.error().message(), Catch::Contains("V0"));
}

TEMPLATE_LIST_TEST_CASE("step budget stops an endless loop", "[conformance][limits]", backend_list) {
    TestType b;
    auto p = vyre::test::parse_checked(
        "(program spin (workgroup 1 1 1)\n  (buffer o 0 output u32 1)\n"
        "  (loop i 0 4294967295 (loop j 0 4294967295 (store o 0 j))))\n");
    dispatch_config c;
    c.step_budget = 100000;
    auto r = vyre::dispatch(b, p, {}, c);
    REQUIRE_FALSE(r.has_value());
    CHECK_THAT(r.error().message(), Catch::Contains("step budget"));
    // The budget holds to the step, however a backend splits the workgroups:
    // 4096 invocations of a start and one statement are 8192 steps.
    auto q = vyre::test::parse_checked(
        "(program each (workgroup 1 1 1)\n  (buffer o 0 output u32 4096)\n  (store o (gid x) 1))\n");
    c.step_budget = 8191;
    auto over = vyre::dispatch(b, q, {}, c);
    REQUIRE_FALSE(over.has_value());
    CHECK_THAT(over.error().message(), Catch::Contains("step budget"));
    c.step_budget = 8192;
    CHECK(vyre::dispatch(b, q, {}, c).has_value());
}

TEMPLATE_LIST_TEST_CASE("transcendentals stay within the ULP budget", "[conformance][float]", backend_list) {
    // The spec lets them differ from the reference by the ULP budget (4 by
    // default), so no byte-for-byte check here: each is checked against the
    // correctly rounded value and against cpu-ref, within the budget.
    TestType b;
    const std::string body = "  (store out 0 (exp (f32 1)))\n  (store out 1 (log (f32 10)))\n"
                             "  (store out 2 (sin (f32 0.5)))\n  (store out 3 (cos (f32 0.5)))\n"
                             "  (store out 4 (tanh (f32 0.5)))\n";
    auto f = run_body<std::uint32_t>(b, "f32", 5, body, against_reference::none);
    vyre::cpu_ref ref;
    auto r = run_body<std::uint32_t>(ref, "f32", 5, body);
    const double want[] = {std::exp(1.0), std::log(10.0), std::sin(0.5), std::cos(0.5), std::tanh(0.5)};
    for (int i = 0; i < 5; ++i) {
        INFO("value " << i);
        auto exact = static_cast<std::int64_t>(f32_bits(static_cast<float>(want[i])));
        CHECK(std::llabs(static_cast<std::int64_t>(f[i]) - exact) <= 4);
        CHECK(std::llabs(static_cast<std::int64_t>(f[i]) - static_cast<std::int64_t>(r[i])) <= 4);
    }
}
