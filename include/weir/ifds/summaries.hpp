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

#include <weir/ifds/layout.hpp>

namespace weir::ifds {

namespace detail {
/// The summary edges of call edges [ce0, ce1) (see `count_summary_edges`).
/// Per call edge and reached fact d: the facts d5 it returns, as a mask over
/// the site's facts (a word per 32), counted once each by a popcount.
inline std::uint64_t count_summary_edges(const layout& L, std::span<const std::uint32_t> pe, std::uint32_t ce0,
                                         std::uint32_t ce1) {
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
            reached.assign(wc, 0);
            for (std::uint32_t c = 0; c < fc; ++c)
                for (std::uint32_t j = 0; j < wc; ++j)
                    reached[j] |= read_row_bits(pe, row_start(L, site, c) + 32 * j, chunk_len(fc, j));
        }
        ret.resize(wc);
        for (std::uint32_t i = 0; i < wc; ++i)
            for (std::uint32_t bits = reached[i]; bits; bits &= bits - 1) {
                const std::uint32_t row = L.row_base[site] + 32 * i + static_cast<std::uint32_t>(std::countr_zero(bits));
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
                for (const std::uint32_t w : ret) count += static_cast<std::uint64_t>(std::popcount(w));
            }
    }
    return count;
}
} // namespace detail

/// Summary edges implied by a path-edge bitset over `L`.
inline std::uint64_t count_summary_edges(const layout& L, std::span<const std::uint32_t> pe) {
    return detail::count_summary_edges(L, pe, 0, static_cast<std::uint32_t>(L.ce_site.size()));
}

} // namespace weir::ifds
