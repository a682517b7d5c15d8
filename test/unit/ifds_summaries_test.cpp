// Counting from a solved path-edge bitset: summary edges with and without
// the return masks (equal to each other and to the tabulation solver's
// count), the masks themselves against the layout's return flows, and the
// resident solver's parallel host pass (`weir/ifds/host_pass.hpp`) against
// plain serial counts.

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <weir/ifds/format.hpp>
#include <weir/ifds/host_pass.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/summaries.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#include "support/ifds_gen.hpp"

using namespace weir::ifds;

namespace {

/// Random problems of a few procedures, some of them over 32 facts (whose
/// call edges get no masks).
weir::test::gen_options options_for(std::uint64_t seed) {
    weir::test::gen_options o;
    o.procs = 2 + static_cast<std::uint32_t>(seed % 7);
    o.facts = 2 + static_cast<std::uint32_t>(seed % 11) + (seed % 5 == 0 ? 60 : 0);
    o.max_nodes = 4 + static_cast<std::uint32_t>(seed % 6);
    o.p_call = 0.5;
    return o;
}

} // namespace

TEST_CASE("return masks: mask d4 of a call edge holds exactly the caller facts its return flow maps d4 to",
          "[ifds][summaries][random]") {
    std::uint64_t masked = 0, unmasked = 0;
    for (std::uint64_t seed = 0; seed < 80; ++seed) {
        INFO("seed " << seed);
        const layout L = make_layout(weir::test::random_problem(seed, options_for(seed)));
        const return_masks rm = make_return_masks(L, ~std::uint64_t{0});
        REQUIRE(rm.first.size() == L.ce_site.size());
        for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
            const std::uint32_t fc = L.node_fact_count[L.ce_site[ce]];
            const std::uint32_t fq = L.node_fact_count[L.proc_exit[L.ce_callee[ce]]];
            if (fc > 32) {  // no masks past one word over the caller's facts
                CHECK(rm.first[ce] == return_masks::none);
                ++unmasked;
                continue;
            }
            REQUIRE(rm.first[ce] != return_masks::none);
            ++masked;
            const std::uint64_t padded = (std::uint64_t(fq) + 31) / 32 * 32;
            REQUIRE(rm.first[ce] + padded <= rm.masks.size());
            for (std::uint32_t d4 = 0; d4 < padded; ++d4) {
                std::uint32_t expect = 0;
                if (d4 < fq)
                    for (std::uint32_t k = L.ret_off[L.ret_row[ce] + d4]; k < L.ret_off[L.ret_row[ce] + d4 + 1]; ++k)
                        if (L.ret_fact[k] < fc) expect |= 1u << L.ret_fact[k];
                CHECK(rm.masks[rm.first[ce] + d4] == expect);
            }
        }
    }
    CHECK(masked > 100);
    CHECK(unmasked > 0);
}

TEST_CASE("return masks: the call pairs of a call edge are its call flow, in the order of the caller's facts",
          "[ifds][summaries][random]") {
    std::uint64_t paired = 0, masked_wide_callee = 0, pairs = 0;
    for (std::uint64_t seed = 0; seed < 80; ++seed) {
        INFO("seed " << seed);
        const layout L = make_layout(weir::test::random_problem(seed, options_for(seed)));
        const return_masks rm = make_return_masks(L, ~std::uint64_t{0});
        REQUIRE(rm.pair_off.size() == L.ce_site.size() + 1);
        CHECK(rm.pair_off.front() == 0);
        CHECK(rm.pair_off.back() == rm.pairs.size());
        for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
            INFO("call edge " << ce);
            const std::uint32_t site = L.ce_site[ce], fc = L.node_fact_count[site];
            const std::uint32_t fq = L.node_fact_count[L.proc_exit[L.ce_callee[ce]]];
            REQUIRE(rm.pair_off[ce] <= rm.pair_off[ce + 1]);
            const bool expect_paired = rm.first[ce] != return_masks::none && fq <= 32;
            CHECK(rm.paired(ce, fq) == expect_paired);
            masked_wide_callee += rm.first[ce] != return_masks::none && fq > 32;
            // (d, d3, last) as the layout's call relation gives them
            std::vector<std::array<std::uint32_t, 3>> expect;
            if (expect_paired)
                for (std::uint32_t d = 0; d < fc; ++d) {
                    const std::uint32_t row = L.row_base[site] + d;
                    for (std::uint32_t e = L.call_off[row]; e < L.call_off[row + 1]; ++e)
                        if (L.call_ce[e] == ce && L.call_fact[e] < fq) expect.push_back({d, L.call_fact[e], 0});
                    if (!expect.empty() && expect.back()[0] == d) expect.back()[2] = 1;
                }
            std::vector<std::array<std::uint32_t, 3>> got;
            for (std::uint32_t k = rm.pair_off[ce]; k < rm.pair_off[ce + 1]; ++k) {
                const std::uint32_t p = rm.pairs[k];
                got.push_back({p & 31u, p >> 6, (p >> 5) & 1u});
            }
            CHECK(got == expect);
            paired += expect_paired;
            pairs += got.size();
        }
    }
    CHECK(paired > 100);
    CHECK(pairs > paired);
    CHECK(masked_wide_callee == 0);  // these problems give every procedure the same facts
}

TEST_CASE("summary edges: a caller of at most 32 facts calling one of more (masks, no call pairs)", "[ifds][summaries]") {
    // main knows a, b, c; wide knows 40 facts w0..w39 (gets a and b as w0 and
    // w1, generates the others), moves w0 to w39; returns w39 as c, w20 as b
    std::string text = "ifds 1\nfacts a b c";
    for (int i = 0; i < 40; ++i) text += " w" + std::to_string(i);
    text += "\nproc main main.s main.e\nnode call main\nnode after main\nflow main.s call gen:a gen:b\n"
            "call call wide after\ncallflow call wide a>w0 b>w1\nretflow call wide w39>c w20>b\nctrflow call id\n"
            "flow after main.e id\nproc wide wide.s wide.e\nflow wide.s wide.e w0>w39 w1>w1";
    for (int i = 2; i < 40; ++i) text += " gen:w" + std::to_string(i);
    text += "\nseed main.s 0\n";
    auto pb = weir::ifds::load_problem(text);
    REQUIRE(pb.has_value());
    const layout L = make_layout(*pb);
    REQUIRE(L.ce_site.size() == 1);
    const std::uint32_t fc = L.node_fact_count[L.ce_site[0]], fq = L.node_fact_count[L.proc_exit[L.ce_callee[0]]];
    REQUIRE(fc <= 32);
    REQUIRE(fq > 32);
    const return_masks rm = make_return_masks(L, ~std::uint64_t{0});
    CHECK(rm.first[0] != return_masks::none);
    CHECK_FALSE(rm.paired(0, fq));
    CHECK(rm.pair_off == std::vector<std::uint32_t>{0, 0});
    const auto solved = tabulation_solver(L).solve().value();
    CHECK(solved.stats.summary_edges > 0);
    CHECK(count_summary_edges(L, solved.path_edges, &rm) == solved.stats.summary_edges);
    CHECK(count_summary_edges(L, solved.path_edges) == solved.stats.summary_edges);
}

TEST_CASE("return masks: a word budget leaves the later call edges without masks", "[ifds][summaries]") {
    const layout L = make_layout(weir::test::random_problem(3, options_for(3)));
    REQUIRE(L.ce_site.size() > 2);
    const return_masks all = make_return_masks(L, ~std::uint64_t{0});
    const return_masks none = make_return_masks(L, 0);
    CHECK(none.masks.empty());
    for (const std::uint64_t f : none.first) CHECK(f == return_masks::none);
    // a budget of the first edge's masks only
    const std::uint64_t first = (std::uint64_t(L.node_fact_count[L.proc_exit[L.ce_callee[0]]]) + 31) / 32 * 32;
    const return_masks one = make_return_masks(L, first);
    CHECK(one.first[0] == 0);
    CHECK(one.masks.size() == first);
    for (std::size_t ce = 1; ce < one.first.size(); ++ce) CHECK(one.first[ce] == return_masks::none);
    CHECK(all.bytes() > none.bytes());
}

TEST_CASE("summary edges: counted with masks, with some, or without, as the tabulation solver counts them",
          "[ifds][summaries][random]") {
    std::uint64_t total = 0;
    for (std::uint64_t seed = 0; seed < 120; ++seed) {
        INFO("seed " << seed);
        const layout L = make_layout(weir::test::random_problem(seed, options_for(seed)));
        const auto solved = tabulation_solver(L).solve().value();
        const auto& pe = solved.path_edges;
        const return_masks all = make_return_masks(L, ~std::uint64_t{0});
        const return_masks half = make_return_masks(L, all.masks.size() / 2);
        CHECK(count_summary_edges(L, pe) == solved.stats.summary_edges);
        CHECK(count_summary_edges(L, pe, &all) == solved.stats.summary_edges);
        CHECK(count_summary_edges(L, pe, &half) == solved.stats.summary_edges);
        // in ranges of call edges, as the resident solver's threads count them
        const auto ces = static_cast<std::uint32_t>(L.ce_site.size());
        std::uint64_t sum = 0;
        for (std::uint32_t c0 = 0; c0 < ces; c0 += 3) sum += detail::count_summary_edges(L, pe, c0, std::min(ces, c0 + 3), &all);
        CHECK(sum == solved.stats.summary_edges);
        total += solved.stats.summary_edges;
    }
    CHECK(total > 100);
}

TEST_CASE("host pass: assign_zeroed gives n zeros on one or more threads, fresh or reused", "[ifds][host_pass]") {
    for (const unsigned threads : {1u, 2u, 3u}) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 18, (std::size_t{1} << 19) + 7}) {
            INFO("threads " << threads << ", n " << n);
            std::vector<std::uint32_t> v;
            detail::assign_zeroed(v, n, threads);
            REQUIRE(v.size() == n);
            CHECK(std::all_of(v.begin(), v.end(), [](std::uint32_t w) { return w == 0; }));
            // again over old contents: capacity kept, every word zero
            std::fill(v.begin(), v.end(), 0xA5A5A5A5u);
            const auto* before = v.data();
            detail::assign_zeroed(v, n / 2 + 1, threads);
            CHECK(v.data() == before);
            REQUIRE(v.size() == n / 2 + 1);
            CHECK(std::all_of(v.begin(), v.end(), [](std::uint32_t w) { return w == 0; }));
        }
    }
}

TEST_CASE("host pass: contexts and path edges counted on several threads equal a serial count",
          "[ifds][host_pass][random]") {
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        INFO("seed " << seed);
        auto o = options_for(seed);
        o.procs = 3 + static_cast<std::uint32_t>(seed % 5);
        const layout L = make_layout(weir::test::random_problem(seed, o));
        auto pe = tabulation_solver(L).solve().value().path_edges;
        // large enough for the threads to split it: the same bits repeated
        // past the layout's words (procedures read the layout's part only)
        const std::size_t words = pe.size();
        pe.resize(std::max<std::size_t>(words, 1) * ((std::size_t{1} << 18) / std::max<std::size_t>(words, 1) + 1));
        for (std::size_t i = words; i < pe.size(); ++i) pe[i] = pe[i % std::max<std::size_t>(words, 1)];
        std::uint64_t contexts = 0, bits = 0;
        for (std::uint32_t p = 0; p < L.num_procs; ++p) {
            const std::uint32_t s = L.proc_start[p], f = L.node_fact_count[s];
            for (std::uint32_t c = 0; c < f; ++c) {
                const std::uint64_t bit = std::uint64_t(c) * f + c;
                contexts += pe[L.pe_word[s] + bit / 32] >> (bit % 32) & 1u;
            }
        }
        for (const std::uint32_t w : pe) bits += static_cast<std::uint64_t>(std::popcount(w));
        for (const unsigned threads : {1u, 2u, 3u}) {
            const auto t = detail::count_contexts_and_bits(L, pe, threads);
            CHECK(t.contexts == contexts);
            CHECK(t.bits == bits);
        }
    }
}
