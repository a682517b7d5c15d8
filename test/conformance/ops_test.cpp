// Conformance: every catalogue operation, through `(op NAME ARG...)`
// programs, on every enabled backend.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

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

namespace {

/// Program text for one call of catalogue op `name`, one buffer per
/// parameter (read-only ones `read`, writable ones `read_write`, all sized by
/// their inputs).
std::string op_call_program(std::string_view name) {
    const auto* op = ops::find_op(name);
    REQUIRE(op != nullptr);
    std::string text = "(program call (workgroup 1 1 1)\n", call = "  (op " + std::string(name);
    for (std::size_t i = 0; i < op->params.size(); ++i) {
        const std::string b = "b" + std::to_string(i);
        text += "  (buffer " + b + " " + std::to_string(i) + (op->params[i].writable ? " read_write" : " read") + " u32 0)\n";
        call += " " + b;
    }
    return text + call + "))\n";
}

/// Inputs for an IFDS op whose CSR offset tables claim ranges of 2^32 - 1
/// entries over element tables of 8, with every other table small and
/// in range: without clipping, each loop would run four billion times.
std::vector<bytes> corrupt_ifds_inputs(std::string_view name) {
    namespace fi = ops::ifds;
    namespace fr = ops::ifds_rows;
    const auto* op = ops::find_op(name);
    const u32s huge_offsets = {0, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    std::vector<bytes> in;
    for (std::size_t i = 0; i < op->params.size(); ++i) {
        u32s v(8, 0);
        if (i == fi::node_kind) v.assign(8, 3);  // every node a call site and an exit
        if (i == fi::node_fc) v.assign(8, 2);
        if (i == fi::intra_off || i == fi::call_off || i == fi::ret_off || i == fi::rcall_off || i == fi::callers_off ||
            i == fr::arg_rows + fr::edge_x_off || i == fr::arg_rows + fr::site_call_off)
            v = huge_offsets;
        if (i == fr::arg_rows + fr::node_info) {  // 8 nodes as node_kind/node_fc say, each with edges [0, 2^32 - 1)
            v.clear();
            for (std::uint32_t n = 0; n < 8; ++n) {
                u32s rec(fr::node_info_words, 0);
                rec[fr::ni_facts] = 2, rec[fr::ni_kind] = 3, rec[fr::ni_edge_end] = 0xffffffffu;
                v.insert(v.end(), rec.begin(), rec.end());  // pe_word, retsite, site row and procedure 0
            }
        }
        if (i == fr::arg_rows + fr::edge_mask) v.assign(8, 0xffffffffu);
        if (i == fr::arg_rows + fr::edge_x_dst) v.assign(8, 1);
        in.push_back(to_bytes<std::uint32_t>(v));
    }
    return in;
}

/// Where parameter `i` of op `name` lands among a dispatch's outputs (the
/// writable buffers, in declaration order).
std::size_t output_of(std::string_view name, std::size_t i) {
    const auto& ps = ops::find_op(name)->params;
    return static_cast<std::size_t>(std::count_if(ps.begin(), ps.begin() + static_cast<std::ptrdiff_t>(i),
                                                  [](const ops::param& q) { return q.writable; }));
}

} // namespace

TEMPLATE_LIST_TEST_CASE("IFDS ops clip corrupt offset tables to their element tables (no 2^32-step loops)",
                        "[conformance][ops][ifds][reliability]", backend_list) {
    namespace fi = ops::ifds;
    namespace fr = ops::ifds_rows;
    namespace fs = ops::ifds_solve;
    TestType b;
    const auto supported = vyre::supported_ops(b);
    if (std::find(supported.begin(), supported.end(), "ifds_expand") == supported.end()) {
        // A backend without the IFDS op kernels (cuda) refuses them: an unsupported-op error, not a run.
        auto r = vyre::dispatch(b, parse_checked(op_call_program("ifds_expand")), corrupt_ifds_inputs("ifds_expand"));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == error_code::unsupported);
        return;
    }
    {  // pair rounds: one entry (node 0, context 0, fact 0)
        auto in = corrupt_ifds_inputs("ifds_expand");
        in[fi::arg_pe] = to_bytes<std::uint32_t>(u32s(64, 0));
        in[fi::arg_fin] = to_bytes<std::uint32_t>({0, 0});
        in[fi::arg_fout] = to_bytes<std::uint32_t>(u32s(128, 0));
        in[fi::arg_counters] = to_bytes<std::uint32_t>({1, 0, 64, 0});
        auto r = vyre::dispatch(b, parse_checked(op_call_program("ifds_expand")), in);
        REQUIRE(r.has_value());
        CHECK(from_bytes<std::uint32_t>(r->at(output_of("ifds_expand", fi::arg_counters)))[1] <= 64);
    }
    {  // row rounds: one entry (node 0, context 0, chunk 0, facts {0, 1})
        auto in = corrupt_ifds_inputs("ifds_rows_expand");
        in[fr::arg_pe] = to_bytes<std::uint32_t>(u32s(64, 0));
        in[fr::arg_fin] = to_bytes<std::uint32_t>({0, 0, 0, 3});
        in[fr::arg_fout] = to_bytes<std::uint32_t>(u32s(256, 0));
        in[fr::arg_counters] = to_bytes<std::uint32_t>({1, 0, 64, 0});
        auto r = vyre::dispatch(b, parse_checked(op_call_program("ifds_rows_expand")), in);
        REQUIRE(r.has_value());
        CHECK(from_bytes<std::uint32_t>(r->at(output_of("ifds_rows_expand", fr::arg_counters)))[1] <= 64);
    }
    {  // the whole fixed point: the bitset it reaches is the reference's
        auto in = corrupt_ifds_inputs("ifds_rows_solve");
        in[fs::arg_pe] = to_bytes<std::uint32_t>(u32s(64, 0));
        in[fs::arg_seeds] = to_bytes<std::uint32_t>({0, 0, 0, 1});
        in[fs::arg_counters] = to_bytes<std::uint32_t>({1, 0});
        const auto p = parse_checked(op_call_program("ifds_rows_solve"));
        auto r = vyre::dispatch(b, p, in);
        REQUIRE(r.has_value());
        cpu_ref ref;
        auto expect = vyre::dispatch(ref, p, in);
        REQUIRE(expect.has_value());
        CHECK(r->at(output_of("ifds_rows_solve", fs::arg_pe)) == expect->at(output_of("ifds_rows_solve", fs::arg_pe)));
        CHECK(from_bytes<std::uint32_t>(r->at(output_of("ifds_rows_solve", fs::arg_pe))) != u32s(64, 0));
    }
}

TEST_CASE("ifds_rows::select_masks is the OR of the masks a word's bits select", "[ops][ifds]") {
    // law against the loop over set bits, on masks and words from a fixed LCG
    std::uint64_t state = 12345;
    auto next = [&] { return static_cast<std::uint32_t>((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 32); };
    for (int round = 0; round < 200; ++round) {
        std::uint32_t mk[32];
        for (auto& m : mk) m = next();
        const std::uint32_t x = round == 0 ? 0u : round == 1 ? ~0u : next() & next();  // sparse words too
        std::uint32_t expect = 0;
        for (std::uint32_t bits = x; bits; bits &= bits - 1) expect |= mk[std::countr_zero(bits)];
        CHECK(ops::ifds_rows::select_masks(mk, x) == expect);
    }
}
