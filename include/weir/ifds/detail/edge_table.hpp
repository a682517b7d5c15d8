#pragma once
/// \file weir/ifds/detail/edge_table.hpp
/// A table of relations per edge, as `layout::intra_edge_*`, `row_tables`'
/// edges and `derived_rows`' entries hold them, and the join of such tables
/// built in parts (`node_parts.hpp`).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weir::ifds::detail {

/// The arrays of a table of relations: the items of each owner (a node's
/// edges, a group's entries) from `off` (one more entry than owners, from
/// 0), each item's `dst`, its identity mask (at `mask_off`, in `mask`) and
/// its other pairs ([x_off[i], x_off[i+1]) of `xs`/`xd`; `x_off` starts
/// with 0).
struct edge_table_ref {
    std::vector<std::uint32_t>& off;
    std::vector<std::uint32_t>& dst;
    std::vector<std::uint32_t>& mask_off;
    std::vector<std::uint32_t>& mask;
    std::vector<std::uint32_t>& x_off;
    std::vector<std::uint32_t>& xs;
    std::vector<std::uint32_t>& xd;
};

/// A table of relations that owns its arrays (a part of one being built).
struct edge_table {
    std::vector<std::uint32_t> off{0}, dst, mask_off, mask, x_off{0}, xs, xd;
    /// Its arrays.
    edge_table_ref ref() { return {off, dst, mask_off, mask, x_off, xs, xd}; }
};

/// Appends `v`'s entries from index `from` on to `to`, each plus `shift`
/// (room reserved by the caller: `table_sizes`).
inline void append_shifted(std::vector<std::uint32_t>& to, const std::vector<std::uint32_t>& v, std::size_t from,
                           std::uint32_t shift) {
    for (std::size_t i = from; i < v.size(); ++i) to.push_back(v[i] + shift);
}

/// The sizes of a table's arrays (to reserve room for parts before they
/// are appended: one growth, not a doubling per part).
struct table_sizes {
    std::size_t n[7] = {};
    /// Adds `t`'s sizes.
    void add(const edge_table_ref& t) {
        const std::vector<std::uint32_t>* v[7] = {&t.off, &t.dst, &t.mask_off, &t.mask, &t.x_off, &t.xs, &t.xd};
        for (int i = 0; i < 7; ++i) n[i] += v[i]->size();
    }
    /// Reserves room in `t` for its own entries and these.
    void reserve_in(edge_table_ref t) const {
        std::vector<std::uint32_t>* v[7] = {&t.off, &t.dst, &t.mask_off, &t.mask, &t.x_off, &t.xs, &t.xd};
        for (int i = 0; i < 7; ++i) v[i]->reserve(v[i]->size() + n[i]);
    }
};

/// Appends table `part` (the owners after `to`'s, its offsets from 0) to
/// `to`: the result is the table one pass over all the owners would have
/// built. Offsets are u32 (the caller checks that the sizes fit).
inline void append_edge_table(edge_table_ref to, const edge_table_ref& part) {
    append_shifted(to.off, part.off, 1, static_cast<std::uint32_t>(to.dst.size()));
    append_shifted(to.mask_off, part.mask_off, 0, static_cast<std::uint32_t>(to.mask.size()));
    append_shifted(to.x_off, part.x_off, 1, static_cast<std::uint32_t>(to.xs.size()));
    to.dst.insert(to.dst.end(), part.dst.begin(), part.dst.end());
    to.mask.insert(to.mask.end(), part.mask.begin(), part.mask.end());
    to.xs.insert(to.xs.end(), part.xs.begin(), part.xs.end());
    to.xd.insert(to.xd.end(), part.xd.begin(), part.xd.end());
}

} // namespace weir::ifds::detail
