// Conformance: every catalogue operation, through `(op NAME ARG...)`
// programs, on every enabled backend; extension ops defined outside vyre.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

#include "support/backends.hpp"

using namespace vyre;
using vyre::test::backend_list;
using vyre::test::parse_checked;
using vyre::test::from_bytes;
using vyre::test::run;
using vyre::test::to_bytes;

using u32s = std::vector<std::uint32_t>;

TEMPLATE_LIST_TEST_CASE("catalogue: fill, copy, gather, scatter", "[conformance][ops]", backend_list) {
    TestType b;
    auto f = run(b, "(program f (workgroup 1 1 1)\n  (buffer d 0 output u32 3)\n  (op fill d 9))\n");
    CHECK(from_bytes<std::uint32_t>(f[0]) == u32s{9, 9, 9});
    auto c = run(b, "(program c (workgroup 1 1 1)\n  (buffer s 0 read u32 0)\n  (buffer d 1 output u32 2)\n  (op copy s d))\n",
                 {to_bytes<std::uint32_t>({4, 5, 6})});
    CHECK(from_bytes<std::uint32_t>(c[0]) == u32s{4, 5});
    auto g = run(b,
                 "(program g (workgroup 1 1 1)\n  (buffer s 0 read u32 0)\n  (buffer i 1 read u32 0)\n"
                 "  (buffer d 2 output u32 3)\n  (op gather s i d))\n",
                 {to_bytes<std::uint32_t>({10, 20, 30}), to_bytes<std::uint32_t>({2, 0, 7})});
    CHECK(from_bytes<std::uint32_t>(g[0]) == u32s{30, 10, 0});
    auto s = run(b,
                 "(program s (workgroup 1 1 1)\n  (buffer s 0 read u32 0)\n  (buffer i 1 read u32 0)\n"
                 "  (buffer d 2 output u32 3)\n  (op scatter s i d))\n",
                 {to_bytes<std::uint32_t>({1, 2, 3, 4}), to_bytes<std::uint32_t>({2, 0, 2, 9})});
    CHECK(from_bytes<std::uint32_t>(s[0]) == u32s{2, 0, 3});
}

TEMPLATE_LIST_TEST_CASE("catalogue: an op given one buffer twice gives its reference's result", "[conformance][ops]",
                        backend_list) {
    TestType b;
    const std::uint32_t n = 1u << 16;  // enough for a backend to split its loop over threads
    u32s a(n), shift_down(n), shift_up(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        a[i] = i + 1000;
        shift_down[i] = i ? i - 1 : 0;
        shift_up[i] = i + 1;
    }
    // The references, in ascending i: each step reads what the one before wrote.
    u32s gathered = a, scattered = a;
    for (std::uint32_t i = 0; i < n; ++i) gathered[i] = gathered[shift_down[i]];
    for (std::uint32_t i = 0; i < n; ++i)
        if (shift_up[i] < n) scattered[shift_up[i]] = scattered[i];
    // The host backends give the reference's bytes; a device backend may
    // refuse instead, as `unsupported` (cuda: its kernels run in parallel).
    constexpr bool host = std::is_same_v<TestType, vyre::cpu_ref> || std::is_same_v<TestType, vyre::cpu>;
    for (const auto& [op, idx, want] : {std::tuple{"gather", &shift_down, &gathered}, std::tuple{"scatter", &shift_up, &scattered}}) {
        INFO(op);
        auto p = parse_checked(std::string("(program g (workgroup 1 1 1)\n  (buffer a 0 read_write u32 0)\n") +
                               "  (buffer i 1 read u32 0)\n  (op " + op + " a i a))\n");
        auto r = vyre::dispatch(b, p, {to_bytes<std::uint32_t>(a), to_bytes<std::uint32_t>(*idx)});
        if (!host && !r && r.error().code() == error_code::unsupported) {
            CHECK_THAT(r.error().message(), Catch::Contains("twice"));
            continue;
        }
        REQUIRE(r.has_value());
        CHECK(from_bytes<std::uint32_t>((*r)[0]) == *want);
    }
}

TEMPLATE_LIST_TEST_CASE("catalogue: fill and copy over several MiB (split over threads where a backend does)",
                        "[conformance][ops]", backend_list) {
    TestType b;
    const std::uint32_t n = (3u << 18) + 5;  // 3 MiB and 5 words: blocks of 1 MiB, and a ragged end
    auto f = run(b, "(program f (workgroup 1 1 1)\n  (buffer d 0 output u32 " + std::to_string(n) + ")\n  (op fill d 7))\n");
    const auto filled = from_bytes<std::uint32_t>(f[0]);
    REQUIRE(filled.size() == n);
    CHECK(std::all_of(filled.begin(), filled.end(), [](std::uint32_t v) { return v == 7; }));
    u32s src(n + 3);
    for (std::uint32_t i = 0; i < src.size(); ++i) src[i] = i * 2654435761u;
    auto c = run(b, "(program c (workgroup 1 1 1)\n  (buffer s 0 read u32 0)\n  (buffer d 1 output u32 " + std::to_string(n) +
                        ")\n  (op copy s d))\n",
                 {to_bytes<std::uint32_t>(src)});
    CHECK(from_bytes<std::uint32_t>(c[0]) == u32s(src.begin(), src.begin() + n));
}

TEMPLATE_LIST_TEST_CASE("catalogue: scan, compaction, sort, unique", "[conformance][ops]", backend_list) {
    TestType b;
    auto sc = run(b, "(program s (workgroup 1 1 1)\n  (buffer s 0 read u32 0)\n  (buffer d 1 output u32 4)\n  (op exclusive_scan s d))\n",
                  {to_bytes<std::uint32_t>({3, 1, 4, 1})});
    CHECK(from_bytes<std::uint32_t>(sc[0]) == u32s{0, 3, 4, 8});
    auto cp = run(b,
                  "(program c (workgroup 1 1 1)\n  (buffer s 0 read u32 0)\n  (buffer f 1 read u32 0)\n"
                  "  (buffer d 2 output u32 4)\n  (buffer n 3 output u32 1)\n  (op compact s f d n))\n",
                  {to_bytes<std::uint32_t>({5, 6, 7, 8}), to_bytes<std::uint32_t>({1, 0, 2, 0})});
    CHECK(from_bytes<std::uint32_t>(cp[0]) == u32s{5, 7, 0, 0});
    CHECK(from_bytes<std::uint32_t>(cp[1]) == u32s{2});
    auto so = run(b, "(program s (workgroup 1 1 1)\n  (buffer k 0 read_write u32 0)\n  (op sort_u32 k))\n",
                  {to_bytes<std::uint32_t>({5, 1, 4, 1, 3})});
    CHECK(from_bytes<std::uint32_t>(so[0]) == u32s{1, 1, 3, 4, 5});
    auto s64 = run(b, "(program s (workgroup 1 1 1)\n  (buffer k 0 read_write u64 0)\n  (op sort_u64 k))\n",
                   {to_bytes<std::uint64_t>({1ull << 40, 3, 1ull << 33})});
    CHECK(from_bytes<std::uint64_t>(s64[0]) == std::vector<std::uint64_t>{3, 1ull << 33, 1ull << 40});
    auto un = run(b,
                  "(program u (workgroup 1 1 1)\n  (buffer k 0 read_write u32 0)\n  (buffer n 1 output u32 1)\n"
                  "  (op unique_u32 k n))\n",
                  {to_bytes<std::uint32_t>({1, 1, 3, 4, 4, 4})});
    CHECK(from_bytes<std::uint32_t>(un[0]) == u32s{1, 3, 4, 0, 0, 0});
    CHECK(from_bytes<std::uint32_t>(un[1]) == u32s{3});
}

TEMPLATE_LIST_TEST_CASE("catalogue: bitsets and CSR frontier expansion", "[conformance][ops]", backend_list) {
    TestType b;
    auto bu = run(b, "(program u (workgroup 1 1 1)\n  (buffer d 0 read_write u32 0)\n  (buffer s 1 read u32 0)\n  (op bitset_union d s))\n",
                  {to_bytes<std::uint32_t>({1, 2}), to_bytes<std::uint32_t>({4, 8})});
    CHECK(from_bytes<std::uint32_t>(bu[0]) == u32s{5, 10});
    auto ts = run(b,
                  "(program t (workgroup 1 1 1)\n  (buffer bits 0 read_write u32 0)\n  (buffer idx 1 read u32 0)\n"
                  "  (buffer was 2 output u32 4)\n  (op bitset_test_and_set bits idx was))\n",
                  {to_bytes<std::uint32_t>({1, 0}), to_bytes<std::uint32_t>({0, 33, 33, 64})});
    CHECK(from_bytes<std::uint32_t>(ts[0]) == u32s{1, 2});
    CHECK(from_bytes<std::uint32_t>(ts[1]) == u32s{1, 0, 1, 0});
    auto ce = run(b,
                  "(program e (workgroup 1 1 1)\n  (buffer off 0 read u32 0)\n  (buffer tgt 1 read u32 0)\n"
                  "  (buffer fr 2 read u32 0)\n  (buffer out 3 output u32 5)\n  (buffer n 4 output u32 1)\n"
                  "  (op csr_expand off tgt fr out n))\n",
                  {to_bytes<std::uint32_t>({0, 2, 2, 5}), to_bytes<std::uint32_t>({7, 8, 9, 10, 11}),
                   to_bytes<std::uint32_t>({2, 0, 1})});
    CHECK(from_bytes<std::uint32_t>(ce[0]) == u32s{9, 10, 11, 7, 8});
    CHECK(from_bytes<std::uint32_t>(ce[1]) == u32s{5});
}

TEMPLATE_LIST_TEST_CASE("catalogue: supported_ops lists what the backend runs", "[conformance][ops]", backend_list) {
    TestType b;
    auto ops = vyre::supported_ops(b);
    for (const char* need : {"fill", "copy", "gather", "scatter", "exclusive_scan", "compact", "sort_u32", "unique_u32",
                             "bitset_union", "bitset_test_and_set", "csr_expand"})
        CHECK(std::find(ops.begin(), ops.end(), need) != ops.end());
}

// ---- extension ops (vyre/ops/extension.hpp) ------------------------------------------

namespace {

/// A test op defined outside vyre: dst[i] = src[i] * k (wrapping u32).
struct scale_op {
    static constexpr std::string_view name = "test_scale";
    static constexpr std::string_view summary = "dst[i] = src[i] * k";
    static std::vector<ops::param> signature() {
        return {{ops::param_kind::buffer, "src", false, ir::scalar_type::u32},
                {ops::param_kind::buffer, "dst", true, ir::scalar_type::u32},
                {ops::param_kind::u32_literal, "k", false, ir::scalar_type::u32}};
    }
    static result<void> reference(std::span<ops::op_arg> a) {
        const std::size_t n = std::min(a[0].bytes.size(), a[1].bytes.size()) / 4;
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t v;
            std::memcpy(&v, a[0].bytes.data() + 4 * i, 4);
            v *= a[2].literal;
            std::memcpy(a[1].bytes.data() + 4 * i, &v, 4);
        }
        return {};
    }
};
/// How often the native implementation ran (it must, on cpu).
std::atomic<int> native_runs{0};

} // namespace

template <>
struct vyre::ops::native_op<vyre::cpu, scale_op> {
    static result<void> run(std::span<ops::op_arg> a, unsigned) {
        ++native_runs;
        return scale_op::reference(a);
    }
};

TEMPLATE_LIST_TEST_CASE("extension ops: registered outside vyre, dispatched by name, native where registered",
                        "[conformance][ops][extension]", backend_list) {
    static_assert(ops::op_definition<scale_op>);
    static_assert(ops::has_native_op<vyre::cpu, scale_op>);
    static_assert(!ops::has_native_op<vyre::cpu_ref, scale_op>);
    const std::string text = "(program s (workgroup 1 1 1)\n  (buffer a 0 read u32 0)\n  (buffer d 1 output u32 3)\n"
                             "  (op test_scale a d 3))\n";
    auto reg = ops::register_op<scale_op, vyre::cpu>();
    REQUIRE(reg.has_value());
    CHECK(ops::register_op<scale_op, vyre::cpu>().value() == *reg);  // idempotent: the same entry
    TestType b;
    const auto names = vyre::supported_ops(b);
    const bool listed = std::find(names.begin(), names.end(), "test_scale") != names.end();
    auto r = vyre::dispatch(b, parse_checked(text), {to_bytes<std::uint32_t>({1, 2, 0x80000000u})});
    if (!listed) {  // a backend with neither a native implementation nor the reference path (cuda)
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == error_code::unsupported);
        return;
    }
    const int before = native_runs.load();
    r = vyre::dispatch(b, parse_checked(text), {to_bytes<std::uint32_t>({1, 2, 0x80000000u})});
    REQUIRE(r.has_value());
    CHECK(from_bytes<std::uint32_t>((*r)[0]) == u32s{3, 6, 0x80000000u});
    CHECK(native_runs.load() - before == (std::is_same_v<TestType, vyre::cpu> ? 1 : 0));
}

namespace {
/// Clashes with the catalogue op `fill`.
struct fake_fill {
    static constexpr std::string_view name = "fill";
    static constexpr std::string_view summary = "clashes with the catalogue";
    static std::vector<ops::param> signature() { return {{ops::param_kind::buffer, "dst", true, ir::scalar_type::u32}}; }
    static result<void> reference(std::span<ops::op_arg>) { return {}; }
};
/// The name of scale_op, another signature.
struct other_scale {
    static constexpr std::string_view name = "test_scale";
    static constexpr std::string_view summary = "another signature";
    static std::vector<ops::param> signature() { return {{ops::param_kind::buffer, "dst", true, ir::scalar_type::u32}}; }
    static result<void> reference(std::span<ops::op_arg>) { return {}; }
};
} // namespace

TEST_CASE("extension ops: name clashes and unknown ops are errors", "[ops][extension]") {
    auto clash = ops::register_op<fake_fill>();
    REQUIRE_FALSE(clash.has_value());
    CHECK(clash.error().code() == error_code::invalid_argument);
    CHECK(clash.error().message().find("'fill'") != std::string::npos);

    REQUIRE(ops::register_op<scale_op>().has_value());
    auto other = ops::register_op<other_scale>();
    REQUIRE_FALSE(other.has_value());
    CHECK(other.error().message().find("another signature") != std::string::npos);
    CHECK(ops::find_op("test_scale")->params.size() == 3);  // the first registration stands

    auto diags = ir::validate(ir::parse("(program u (workgroup 1 1 1)\n  (buffer d 0 output u32 1)\n  (op not_registered d))\n").value());
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].code == "V032");
    CHECK(diags[0].fix.find("extension.hpp") != std::string::npos);
}
