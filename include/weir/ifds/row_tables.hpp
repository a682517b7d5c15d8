#pragma once
/// \file weir/ifds/row_tables.hpp
/// The intraprocedural edges of a layout in *row form*, for solvers that move
/// whole rows of facts at once: for every edge n → m (flow and call-to-return
/// edges), an identity mask (the local facts d with d → d; same procedure, so
/// the same local numbering) and the extra pairs d → d' (d' ≠ d: gens from the
/// zero fact, moves). Applying the edge to a row of facts R is
/// `(R & id_mask) | { d' : (d, d') extra, d ∈ R }` — one word operation per
/// 32 facts for the common identity-with-kills-and-gens functions.
///
/// All tables are u32 arrays; masks are ceil(F/32) words per edge, F the
/// procedure's fact count.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <weir/ifds/layout.hpp>

namespace weir::ifds {

/// Row form of a layout's intraprocedural edges.
struct row_tables {
    std::vector<std::uint32_t> edge_off;       ///< size num_nodes+1: edges out of node n
    std::vector<std::uint32_t> edge_dst;       ///< target node of each edge
    std::vector<std::uint32_t> edge_mask_off;  ///< first word of each edge's identity mask
    std::vector<std::uint32_t> edge_mask;      ///< identity masks, ceil(F/32) words each
    std::vector<std::uint32_t> edge_x_off;     ///< size edges+1: extra pairs of each edge
    std::vector<std::uint32_t> edge_x_src, edge_x_dst;

    /// The tables in the order the `ifds_rows_*` ops take them.
    std::array<const std::vector<std::uint32_t>*, 7> tables() const {
        return {&edge_off, &edge_dst, &edge_mask_off, &edge_mask, &edge_x_off, &edge_x_src, &edge_x_dst};
    }
};

/// Derives the row form from the layout's per-fact intraprocedural CSR.
inline row_tables make_row_tables(const layout& L) {
    row_tables t;
    t.edge_off.reserve(L.num_nodes + 1);
    t.edge_off.push_back(0);
    t.edge_x_off.push_back(0);
    struct entry {
        std::uint32_t m, d, dd;
    };
    std::vector<entry> es;
    for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
        const std::uint32_t F = L.node_fact_count[n], W = (F + 31) / 32;
        es.clear();
        for (std::uint32_t d = 0; d < F; ++d) {
            const std::uint32_t row = L.row_base[n] + d;
            for (std::uint32_t e = L.intra_off[row]; e < L.intra_off[row + 1]; ++e)
                es.push_back({L.intra_node[e], d, L.intra_fact[e]});
        }
        std::stable_sort(es.begin(), es.end(), [](const entry& a, const entry& b) { return a.m < b.m; });
        for (std::size_t i = 0; i < es.size();) {
            const std::uint32_t m = es[i].m;
            t.edge_dst.push_back(m);
            t.edge_mask_off.push_back(static_cast<std::uint32_t>(t.edge_mask.size()));
            const std::size_t mask0 = t.edge_mask.size();
            t.edge_mask.resize(mask0 + W, 0);
            for (; i < es.size() && es[i].m == m; ++i) {
                if (es[i].d == es[i].dd) {
                    t.edge_mask[mask0 + es[i].d / 32] |= 1u << (es[i].d % 32);
                } else {
                    t.edge_x_src.push_back(es[i].d);
                    t.edge_x_dst.push_back(es[i].dd);
                }
            }
            t.edge_x_off.push_back(static_cast<std::uint32_t>(t.edge_x_src.size()));
        }
        t.edge_off.push_back(static_cast<std::uint32_t>(t.edge_dst.size()));
    }
    return t;
}

} // namespace weir::ifds
