// Conformance: weir's extension op `ifds_rows_solve` through `(op ...)`
// programs on every enabled backend, and the row helpers' laws.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "support/backends.hpp"
#include "support/ifds_gen.hpp"

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/ops/register.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/row_tables.hpp>

using namespace vyre;
using vyre::test::backend_list;
using vyre::test::from_bytes;
using vyre::test::parse_checked;
using vyre::test::to_bytes;

using u32s = std::vector<std::uint32_t>;

namespace {

/// Program text for one call of op `name`, one buffer per parameter
/// (read-only ones `read`, writable ones `read_write`, all sized by their
/// inputs).
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

/// Inputs for `ifds_rows_solve` whose CSR offset tables claim ranges of
/// 2^32 - 1 entries over element tables of 8, with every other table small
/// and in range: without clipping, each loop would run four billion times.
std::vector<bytes> corrupt_inputs() {
    namespace fi = weir::ops::ifds;
    namespace fr = weir::ops::ifds_rows;
    const auto* op = ops::find_op("ifds_rows_solve");
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

TEST_CASE("weir registers ifds_rows_solve with vyre: found by name, native on cpu only", "[ops][ifds][extension]") {
    REQUIRE(weir::ops::register_ops().has_value());
    REQUIRE(weir::ops::register_ops().has_value());  // twice: nothing changes
    const auto* op = ops::find_op("ifds_rows_solve");
    REQUIRE(op != nullptr);
    CHECK(op->params.size() == weir::ops::ifds_solve::arg_count);
    CHECK(op->reference == &weir::ops::rows_solve_op::reference);
    CHECK(ops::native_for<vyre::cpu>(*op) != nullptr);
    for (auto names : {vyre::supported_ops(vyre::cpu{}), vyre::supported_ops(vyre::cpu_ref{})})
        CHECK(std::count(names.begin(), names.end(), "ifds_rows_solve") == 1);
    // the text form round-trips a program that names it
    const auto p = parse_checked(op_call_program("ifds_rows_solve"));
    CHECK(ir::parse(ir::print(p)).value() == p);
}

TEMPLATE_LIST_TEST_CASE("ifds_rows_solve clips corrupt offset tables to their element tables (no 2^32-step loops)",
                        "[conformance][ops][ifds][reliability]", backend_list) {
    namespace fs = weir::ops::ifds_solve;
    TestType b;
    const auto p = parse_checked(op_call_program("ifds_rows_solve"));
    auto in = corrupt_inputs();
    in[fs::arg_pe] = to_bytes<std::uint32_t>(u32s(64, 0));
    in[fs::arg_seeds] = to_bytes<std::uint32_t>({0, 0, 0, 1});
    in[fs::arg_counters] = to_bytes<std::uint32_t>({1, 0});
    const auto supported = vyre::supported_ops(b);
    if (std::find(supported.begin(), supported.end(), "ifds_rows_solve") == supported.end()) {
        // A backend without an implementation (cuda) refuses it: an unsupported-op error, not a run.
        auto r = vyre::dispatch(b, p, in);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == error_code::unsupported);
        return;
    }
    // the whole fixed point: the bitset it reaches is the reference's
    auto r = vyre::dispatch(b, p, in);
    REQUIRE(r.has_value());
    cpu_ref ref;
    auto expect = vyre::dispatch(ref, p, in);
    REQUIRE(expect.has_value());
    CHECK(r->at(output_of("ifds_rows_solve", fs::arg_pe)) == expect->at(output_of("ifds_rows_solve", fs::arg_pe)));
    CHECK(from_bytes<std::uint32_t>(r->at(output_of("ifds_rows_solve", fs::arg_pe))) != u32s(64, 0));
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
        CHECK(weir::ops::ifds_rows::select_masks(mk, x) == expect);
    }
}

namespace {

/// The packed path-edge bitset that `ifds_rows_solve`'s loop reaches on one
/// thread from `L`'s seeds over its row tables, with or without the op's
/// index of the caller contexts that entered each callee context, and with a
/// memo of mapped summaries of at most `memo_words` words (0: none) that
/// records rows of `memo_min_facts` facts or more.
u32s solve_rows(const weir::ifds::layout& L, bool with_entered,
                std::uint64_t memo_words = weir::ops::ifds_rows::return_memo::default_max_words,
                std::uint32_t memo_min_facts = weir::ops::ifds_rows::return_memo::default_min_facts) {
    namespace fs = weir::ops::ifds_solve;
    namespace fi = weir::ops::ifds;
    auto rt = weir::ifds::make_row_tables(L);
    const auto graph = weir::ifds::detail::graph_tables(L);
    std::vector<u32s> buffers;
    for (std::size_t i = 0; i < graph.size(); ++i) buffers.push_back(i == fi::pe_word ? rt.packing.pe_word : *graph[i]);
    for (const auto* t : std::as_const(rt).tables()) buffers.push_back(*t);
    buffers.push_back(u32s(std::max<std::uint64_t>(rt.packing.words, 1), 0));  // pe
    std::vector<ops::op_arg> args;
    for (auto& b : buffers) {
        if (b.empty()) b.push_back(0);
        args.push_back({std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(b.data()), b.size() * 4)});
    }
    const fi::tables T(args, buffers.back().size());
    const weir::ops::ifds_rows::rows R(args);
    const fi::words pe(args.back());
    fs::entered_contexts entered(T, fs::entered_max_words(pe));
    if (with_entered) REQUIRE_FALSE(entered.edges.empty());  // the index fits: "with" is not the fallback too
    std::vector<fs::entry> stack;
    fs::stack_sink<false> sink{T, R, pe, &stack, with_entered ? &entered : nullptr};
    for (std::size_t i = 0; i < L.seed_node.size(); ++i)
        sink.add(L.seed_node[i], L.seed_fact[i], L.seed_fact[i] / 32, 1u << (L.seed_fact[i] % 32));
    weir::ops::ifds_rows::scratch sc;
    sc.memo = weir::ops::ifds_rows::return_memo(memo_words, memo_min_facts);
    for (fs::entry e{}; sink.pop(e);) weir::ops::ifds_rows::expand_entry(T, R, pe, e.data(), sink, sc);
    return buffers.back();
}

} // namespace

TEST_CASE("ifds_rows_solve's index of entered contexts changes no path edge", "[ops][ifds]") {
    // The index replaces testing every context of the call site against the
    // facts that enter the exit's context (what the op does without it, when
    // it would take more words than the bitset): with or without it, the op
    // must reach the same bits. The parity tests hold the indexed op to the
    // tabulation solver.
    weir::test::gen_options o;
    o.procs = 40;
    o.facts = 70;  // three chunks a row
    o.max_nodes = 8;
    o.seeds = 4;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        INFO("seed " << seed);
        const auto L = weir::ifds::make_layout(weir::test::random_problem(seed, o));
        const u32s with = solve_rows(L, true);
        CHECK(std::any_of(with.begin(), with.end(), [](std::uint32_t w) { return w != 0; }));
        CHECK(solve_rows(L, false) == with);
    }
}

TEST_CASE("ifds_rows::return_memo keeps one zeroed record per key, checks its call site's facts and forgets when full", "[ops][ifds]") {
    using weir::ops::ifds_rows::return_memo;
    return_memo m(256);
    CHECK(m.find(3, 5, 70) == nullptr);     // none yet
    std::uint32_t* r = m.insert(3, 5, 40, 70);  // 2 words of snapshot, 3 mapped
    REQUIRE(r != nullptr);
    CHECK(std::all_of(r, r + 5, [](std::uint32_t w) { return w == 0; }));
    std::fill(r, r + 5, 7u);
    REQUIRE(m.find(3, 5, 70) != nullptr);
    CHECK(m.find(3, 5, 70)[4] == 7u);        // the same record again
    CHECK(m.insert(3, 5, 40, 70) == nullptr);    // and no second one
    CHECK(m.insert(3, 6, 40, 70)[0] == 0u);      // another callee context: its own record
    CHECK(m.find(3, 5, 71) == nullptr);      // the same key from a call site of other facts: no record
    CHECK(m.insert(4, 0, 2000, 2000) == nullptr);  // larger than a quarter of the bound
    CHECK(m.size() == 2);
    for (std::uint32_t d = 0; d < 150; ++d) REQUIRE(m.insert(9, d, 32, 32) != nullptr);  // 2 words each: passes 256
    CHECK(m.size() < 152);                       // it forgot what it held
    CHECK(m.find(3, 5, 70) == nullptr);
    CHECK(return_memo(0).insert(0, 0, 1, 1) == nullptr);  // a memo of no words holds nothing
}

TEST_CASE("ifds_rows_solve's memo of mapped summaries changes no path edge", "[ops][ifds]") {
    // A call site maps only the callee exit bits that are new since its last
    // visit of the same (call edge, callee context) and ORs in the rest from
    // the memo. Without masks (70 facts), with two-word masks (40 facts), a
    // memo that never fits (0 words), one that records every row (from one
    // fact) and one that also forgets all the time (64 words) must reach the
    // same bits.
    weir::test::gen_options o;
    o.procs = 40;
    o.max_nodes = 8;
    o.seeds = 4;
    for (std::uint32_t facts : {70u, 40u}) {
        o.facts = facts;
        for (std::uint64_t seed = 1; seed <= 12; ++seed) {
            INFO("facts " << facts << ", seed " << seed);
            const auto L = weir::ifds::make_layout(weir::test::random_problem(seed, o));
            const u32s with = solve_rows(L, true);
            CHECK(std::any_of(with.begin(), with.end(), [](std::uint32_t w) { return w != 0; }));
            CHECK(solve_rows(L, true, 0) == with);
            CHECK(solve_rows(L, true, weir::ops::ifds_rows::return_memo::default_max_words, 1) == with);
            CHECK(solve_rows(L, true, 64, 1) == with);
        }
    }
}
