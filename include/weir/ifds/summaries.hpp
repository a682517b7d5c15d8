#pragma once
/// \file weir/ifds/summaries.hpp
/// Counting the summary edges a fixed point used, from its path-edge bitset
/// alone (so solvers that keep no summary table report the same number as
/// `tabulation_solver`): distinct (call edge, fact d at the site, fact d5 at
/// the return site) such that some caller context reaches (site, d), the
/// callee's context d3 ∈ callflow(d) reaches (exit, d4), and d5 ∈ retflow(d4).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include <vyre/core/popcount.hpp>
#include <weir/ifds/ops/rows.hpp>

#include <weir/ifds/layout.hpp>

namespace weir::ifds {

/// The return flows of a layout's call edges as masks, for counting summary
/// edges without a step per returned fact. A call edge whose caller has at
/// most 32 facts gets 32 masks per 32 facts of its callee's exit: mask d4 is
/// one word, the caller facts the edge returns exit fact d4 to (zero past
/// the exit's facts), so the facts returned for an exit row chunk are an OR
/// of the masks its bits select, a loop without branches.
///
/// A call edge with masks whose callee has at most 32 facts also gets its
/// call flow as a list of *call pairs* (caller fact d, callee fact d3), in
/// the order of d: the count then walks that list with no other branch
/// than the loop's (instead of a loop over the reached facts and, per fact,
/// over the call relation's row of every call edge of the site).
struct return_masks {
    /// `first`'s value for a call edge without masks.
    static constexpr std::uint64_t none = ~std::uint64_t{0};
    std::vector<std::uint64_t> first;  ///< per call edge: its first mask in `masks`, or `none`
    std::vector<std::uint32_t> masks;
    /// Size call edges + 1: call edge ce's call pairs are
    /// `pairs[pair_off[ce], pair_off[ce + 1])` (none without masks, or with a
    /// callee of more than 32 facts).
    std::vector<std::uint32_t> pair_off;
    /// Call pairs as `d | last << 5 | d3 << 6`, `last` set on the last pair
    /// of each d (d, d3 < 32).
    std::vector<std::uint16_t> pairs;

    /// Whether call edge `ce` has call pairs: masks, and a callee exit of `fq` ≤ 32 facts.
    bool paired(std::uint32_t ce, std::uint32_t fq) const {
        return ce < first.size() && first[ce] != none && fq <= 32 && ce + 1 < pair_off.size();
    }
    /// Host bytes held.
    std::uint64_t bytes() const { return first.size() * 8 + masks.size() * 4 + pair_off.size() * 4 + pairs.size() * 2; }
};

/// `return_masks` of `L`: the call edges in order until the masks would
/// take more than `max_words` words; the rest have none (the count then
/// maps their facts through `ret_off`/`ret_fact`).
inline return_masks make_return_masks(const layout& L, std::uint64_t max_words) {
    return_masks rm;
    rm.first.assign(L.ce_site.size(), return_masks::none);
    for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
        const std::uint32_t fc = L.node_fact_count[L.ce_site[ce]], fq = L.node_fact_count[L.proc_exit[L.ce_callee[ce]]];
        const std::uint64_t words = (std::uint64_t(fq) + 31) / 32 * 32;
        if (fc > 32) continue;
        if (rm.masks.size() + words > max_words) break;
        rm.first[ce] = rm.masks.size();
        rm.masks.resize(rm.masks.size() + words, 0u);
        detail::write_return_masks(L, ce, fc, fq, 1, rm.masks.data() + rm.first[ce]);
    }
    rm.pair_off.assign(1, 0);
    for (std::uint32_t ce = 0; ce < L.ce_site.size(); ++ce) {
        const std::uint32_t site = L.ce_site[ce], fc = L.node_fact_count[site];
        const std::uint32_t fq = L.node_fact_count[L.proc_exit[L.ce_callee[ce]]];
        if (rm.first[ce] != return_masks::none && fq <= 32)
            for (std::uint32_t d = 0; d < fc; ++d) {
                const std::size_t before = rm.pairs.size();
                const std::uint32_t row = L.row_base[site] + d;
                for (std::uint32_t e = L.call_off[row]; e < L.call_off[row + 1]; ++e)
                    if (const std::uint32_t d3 = L.call_fact[e]; L.call_ce[e] == ce && d3 < fq)
                        rm.pairs.push_back(static_cast<std::uint16_t>(d | d3 << 6));
                if (rm.pairs.size() > before) rm.pairs.back() |= 1u << 5;
            }
        rm.pair_off.push_back(static_cast<std::uint32_t>(rm.pairs.size()));
    }
    return rm;
}

namespace detail {
/// The facts that call edge `ce` returns for callee context `d3`, from its
/// masks (`rm.first[ce]` ≠ none): the OR of the masks of the exit row's bits.
inline std::uint32_t returned_by_masks(const layout& L, std::span<const std::uint32_t> pe, const return_masks& rm,
                                       std::uint32_t ce, std::uint32_t xq, std::uint32_t fq, std::uint32_t d3) {
    const std::uint32_t* masks = rm.masks.data() + rm.first[ce];
    std::uint32_t r = 0;
    for (std::uint32_t j = 0; 32 * j < fq; ++j)
        r |= weir::ops::ifds_rows::select_masks(masks + 32 * j, read_row_bits(pe, row_start(L, xq, d3) + 32 * j, chunk_len(fq, j)));
    return r;
}

/// The summary edges of call edges [ce0, ce1) (see `count_summary_edges`),
/// with `rm` for those it has masks for (may be null).
/// Per call edge and reached fact d: the facts d5 it returns, as a mask over
/// the site's facts (a word per 32), counted once each by a popcount.
inline std::uint64_t count_summary_edges(const layout& L, std::span<const std::uint32_t> pe, std::uint32_t ce0,
                                         std::uint32_t ce1, const return_masks* rm = nullptr) {
    std::uint64_t count = 0;
    std::vector<std::uint32_t> reached;  // facts d at the site that some caller context reaches
    std::vector<std::uint32_t> ret;      // facts d5 returned for one d
    std::uint32_t reached_site = ~0u;
    for (std::uint32_t ce = ce0; ce < ce1; ++ce) {
        const std::uint32_t site = L.ce_site[ce], q = L.ce_callee[ce];
        const std::uint32_t fc = L.node_fact_count[site], wc = (fc + 31) / 32;
        const std::uint32_t xq = L.proc_exit[q], fq = L.node_fact_count[xq];
        if (site != reached_site) {  // the call edges of one site are usually adjacent
            reached_site = site;
            held_facts(L, pe, site, reached);
        }
        if (rm != nullptr && rm->paired(ce, fq)) {  // fc ≤ 32: one word of reached facts
            // per pair, the facts its exit row returns, if d is reached; summed at d's last pair
            const std::uint32_t* masks = rm->masks.data() + rm->first[ce];
            std::uint32_t acc = 0;
            for (std::uint32_t k = rm->pair_off[ce]; k < rm->pair_off[ce + 1]; ++k) {
                const std::uint32_t p = rm->pairs[k], d = p & 31u, last = (p >> 5) & 1u, d3 = p >> 6;
                const std::uint32_t r = weir::ops::ifds_rows::select_masks(masks, read_row_bits(pe, row_start(L, xq, d3), fq));
                acc |= r & (0u - ((reached[0] >> d) & 1u));
                count += static_cast<std::uint64_t>(vyre::popcount(acc)) * last;
                acc &= last - 1u;
            }
            continue;
        }
        ret.resize(wc);
        const bool masked = rm != nullptr && ce < rm->first.size() && rm->first[ce] != return_masks::none;
        for (std::uint32_t i = 0; i < wc; ++i)
            for (std::uint32_t bits = reached[i]; bits; bits &= bits - 1) {
                const std::uint32_t row = L.row_base[site] + 32 * i + static_cast<std::uint32_t>(std::countr_zero(bits));
                if (masked) {  // one word over the caller's facts (wc == 1)
                    std::uint32_t r = 0;
                    for (std::uint32_t e = L.call_off[row]; e < L.call_off[row + 1]; ++e)
                        if (const std::uint32_t d3 = L.call_fact[e]; L.call_ce[e] == ce && d3 < fq)
                            r |= returned_by_masks(L, pe, *rm, ce, xq, fq, d3);
                    count += static_cast<std::uint64_t>(vyre::popcount(r));
                    continue;
                }
                std::fill(ret.begin(), ret.end(), 0u);
                for (std::uint32_t e = L.call_off[row]; e < L.call_off[row + 1]; ++e) {
                    const std::uint32_t d3 = L.call_fact[e];
                    if (L.call_ce[e] != ce || d3 >= fq) continue;
                    for (std::uint32_t j = 0; 32 * j < fq; ++j)
                        for (std::uint32_t x = read_row_bits(pe, row_start(L, xq, d3) + 32 * j, chunk_len(fq, j)); x; x &= x - 1) {
                            const std::uint32_t rr = L.ret_row[ce] + 32 * j + static_cast<std::uint32_t>(std::countr_zero(x));
                            for (std::uint32_t k = L.ret_off[rr]; k < L.ret_off[rr + 1]; ++k)
                                if (const std::uint32_t d5 = L.ret_fact[k]; d5 < fc) ret[d5 / 32] |= 1u << (d5 % 32);
                        }
                }
                for (const std::uint32_t w : ret) count += static_cast<std::uint64_t>(vyre::popcount(w));
            }
    }
    return count;
}
} // namespace detail

/// Summary edges implied by a path-edge bitset over `L`; `rm`, when given
/// (`make_return_masks(L, ...)`), makes the count faster.
inline std::uint64_t count_summary_edges(const layout& L, std::span<const std::uint32_t> pe,
                                         const return_masks* rm = nullptr) {
    return detail::count_summary_edges(L, pe, 0, static_cast<std::uint32_t>(L.ce_site.size()), rm);
}

} // namespace weir::ifds
