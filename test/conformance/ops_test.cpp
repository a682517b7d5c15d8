// Conformance: every catalogue operation, through `(op NAME ARG...)`
// programs, on every enabled backend.

#include <algorithm>
#include <cstdint>

#include "support/backends.hpp"

using namespace vyre;
using vyre::test::backend_list;
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
