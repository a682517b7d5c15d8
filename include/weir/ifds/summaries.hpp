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
inline std::uint64_t count_summary_edges(const layout& L, std::span<const std::uint32_t> pe, std::uint32_t ce0,
                                         std::uint32_t ce1) {
    std::uint64_t count = 0;
    std::vector<std::uint8_t> seen;
    std::vector<std::uint32_t> reached;  // facts d at the site that some caller context reaches
    std::uint32_t reached_site = ~0u;
    for (std::uint32_t ce = ce0; ce < ce1; ++ce) {
        const std::uint32_t site = L.ce_site[ce], q = L.ce_callee[ce];
        const std::uint32_t fc = L.node_fact_count[site];
        const std::uint32_t xq = L.proc_exit[q], fq = L.node_fact_count[xq];
        if (site != reached_site) {  // the call edges of one site are usually adjacent
            reached_site = site;
            reached.assign((fc + 31) / 32, 0);
            for (std::uint32_t c = 0; c < fc; ++c)
                for (std::uint32_t j = 0; 32 * j < fc; ++j)
                    reached[j] |= detail::read_row_bits(pe, detail::row_start(L, site, c) + 32 * j,
                                                        std::min<std::uint32_t>(32, fc - 32 * j));
        }
        for (std::uint32_t d = 0; d < fc; ++d) {
            if (!((reached[d / 32] >> (d % 32)) & 1u)) continue;
            seen.assign(fc, 0);
            const std::uint32_t row = L.row_base[site] + d;
            for (std::uint32_t e = L.call_off[row]; e < L.call_off[row + 1]; ++e) {
                if (L.call_ce[e] != ce) continue;
                const std::uint32_t d3 = L.call_fact[e];
                if (d3 >= fq) continue;
                for (std::uint32_t j = 0; 32 * j < fq; ++j) {
                    const std::uint64_t pos = detail::row_start(L, xq, d3) + 32 * j;
                    for (std::uint32_t x = detail::read_row_bits(pe, pos, std::min<std::uint32_t>(32, fq - 32 * j)); x; x &= x - 1) {
                        const std::uint32_t d4 = 32 * j + static_cast<std::uint32_t>(std::countr_zero(x));
                        const std::uint32_t rr = L.ret_row[ce] + d4;
                        for (std::uint32_t k = L.ret_off[rr]; k < L.ret_off[rr + 1]; ++k)
                            if (!seen[L.ret_fact[k]]) {
                                seen[L.ret_fact[k]] = 1;
                                ++count;
                            }
                    }
                }
            }
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
