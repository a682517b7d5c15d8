#pragma once
/// \file weir/ifds/summaries.hpp
/// Counting the summary edges a fixed point used, from its path-edge bitset
/// alone (so solvers that keep no summary table report the same number as
/// `tabulation_solver`): distinct (call edge, fact d at the site, fact d5 at
/// the return site) such that some caller context reaches (site, d), the
/// callee's context d3 ∈ callflow(d) reaches (exit, d4), and d5 ∈ retflow(d4).

#include <cstdint>
#include <span>
#include <vector>

#include <weir/ifds/layout.hpp>

namespace weir::ifds {

/// Summary edges implied by a path-edge bitset over `L`.
inline std::uint64_t count_summary_edges(const layout& L, std::span<const std::uint32_t> pe) {
    auto test = [&](std::uint32_t n, std::uint64_t bit) {
        return (pe[L.pe_word[n] + bit / 32] >> (bit % 32)) & 1u;
    };
    std::uint64_t count = 0;
    std::vector<std::uint8_t> seen;
    const auto nce = static_cast<std::uint32_t>(L.ce_site.size());
    for (std::uint32_t ce = 0; ce < nce; ++ce) {
        const std::uint32_t site = L.ce_site[ce], q = L.ce_callee[ce];
        const std::uint32_t fc = L.node_fact_count[site];
        const std::uint32_t xq = L.proc_exit[q], fq = L.node_fact_count[xq];
        for (std::uint32_t d = 0; d < fc; ++d) {
            bool reached = false;
            for (std::uint32_t c = 0; c < fc && !reached; ++c) reached = test(site, std::uint64_t(c) * fc + d);
            if (!reached) continue;
            seen.assign(fc, 0);
            const std::uint32_t row = L.row_base[site] + d;
            for (std::uint32_t e = L.call_off[row]; e < L.call_off[row + 1]; ++e) {
                if (L.call_ce[e] != ce) continue;
                const std::uint32_t d3 = L.call_fact[e];
                for (std::uint32_t d4 = 0; d4 < fq; ++d4) {
                    if (!test(xq, std::uint64_t(d3) * fq + d4)) continue;
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
    return count;
}

} // namespace weir::ifds
