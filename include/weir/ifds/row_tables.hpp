#pragma once
/// \file weir/ifds/row_tables.hpp
/// The intraprocedural edges of a layout in *row form*, for solvers that move
/// whole rows of facts at once: for every edge n → m (flow and call-to-return
/// edges, or, by default, those edges composed through derived nodes; see
/// below), an identity mask (the local facts d with d → d; same procedure, so
/// the same local numbering) and the extra pairs d → d' (d' ≠ d: gens from the
/// zero fact, moves). Applying the edge to a row of facts R is
/// `(R & id_mask) | { d' : (d, d') extra, d ∈ R }` — one word operation per
/// 32 facts for the common identity-with-kills-and-gens functions.
///
/// Most nodes are left out of the solve (`row_form::skip_derived`, the
/// default). A node is *derived* when all its rows come from one *root* node
/// through an acyclic stretch of the procedure: it is not a start node, a
/// call site, an exit, a return site or a loop head (the target of a back
/// edge in a depth-first walk from the start), it is reachable, and each of
/// its intraprocedural predecessors is that root or derived from it. Straight
/// lines and if/else diamonds are derived; every other node is *solved*.
/// Nothing the solver does reads a derived node's rows, and they are the
/// root's rows through the union of the composed flow functions along the
/// stretch. So the row tables give each solved node its edges composed
/// through the derived nodes to the next solved ones, and `derived_rows`
/// lists how each derived node's rows follow from its root once the solve is
/// done (`derive_rows`). On the taint-like benchmark problems about two thirds
/// of the nodes are derived, and the solver expands about a third of the row
/// chunks it expanded before.
///
/// All tables are u32 arrays; masks are ceil(F/32) words per edge, F the
/// procedure's fact count.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <weir/ifds/layout.hpp>

namespace weir::ifds {

/// How each derived node's rows follow from its root: the derived nodes in
/// groups, one per root, each with the union of the composed flow functions
/// of the paths from the root to it, in row form. Host memory (it is not
/// uploaded, and `resident_graph::bytes()` does not count it).
struct derived_rows {
    std::vector<std::uint32_t> root;       ///< per group: the solved node its rows come from
    std::vector<std::uint32_t> group_off;  ///< size groups+1: the group's entries
    std::vector<std::uint32_t> node;       ///< per entry: the derived node
    std::vector<std::uint32_t> mask_off;   ///< per entry: first word of its identity mask
    std::vector<std::uint32_t> mask;       ///< identity masks, ceil(F/32) words each
    std::vector<std::uint32_t> x_off;      ///< size entries+1: extra pairs of each entry
    std::vector<std::uint32_t> x_src, x_dst;

    /// Number of derived nodes.
    std::size_t size() const { return node.size(); }
};

/// Row form of a layout's intraprocedural edges.
struct row_tables {
    std::vector<std::uint32_t> edge_off;       ///< size num_nodes+1: edges out of node n
    std::vector<std::uint32_t> edge_dst;       ///< target node of each edge
    std::vector<std::uint32_t> edge_mask_off;  ///< first word of each edge's identity mask
    std::vector<std::uint32_t> edge_mask;      ///< identity masks, ceil(F/32) words each
    std::vector<std::uint32_t> edge_x_off;     ///< size edges+1: extra pairs of each edge
    std::vector<std::uint32_t> edge_x_src, edge_x_dst;
    /// The derived nodes (empty with `row_form::all_nodes`): the solver sets
    /// none of their bits; `derive_rows` does, after the solve.
    derived_rows derived;

    /// The tables in the order the `ifds_rows_*` ops take them.
    std::array<const std::vector<std::uint32_t>*, 7> tables() const {
        return {&edge_off, &edge_dst, &edge_mask_off, &edge_mask, &edge_x_off, &edge_x_src, &edge_x_dst};
    }
};

/// Which nodes the row tables route the solve through.
enum class row_form {
    all_nodes,     ///< every edge as it is: the solve sets every node's bits
    skip_derived,  ///< edges into derived nodes composed onwards; `derive_rows` completes the result
};

namespace detail {

/// A flow function in row form over F local facts: identity mask (W words)
/// and extra pairs (src, dst), src ≠ dst, sorted and unique.
struct row_relation {
    std::vector<std::uint32_t> id;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> x;
};

inline bool has_bit(const std::vector<std::uint32_t>& m, std::uint32_t d) { return (m[d / 32] >> (d % 32)) & 1u; }

/// Pairs d → d go into the identity mask; the rest sorted and unique.
inline void normalise(row_relation& r) {
    std::erase_if(r.x, [&](const auto& p) {
        if (p.first != p.second) return false;
        r.id[p.first / 32] |= 1u << (p.first % 32);
        return true;
    });
    std::sort(r.x.begin(), r.x.end());
    r.x.erase(std::unique(r.x.begin(), r.x.end()), r.x.end());
}

/// `a` then `b` (d → e when d → d' in a and d' → e in b); `b.x` sorted, as
/// `normalise` leaves it.
inline row_relation compose(const row_relation& a, const row_relation& b) {
    row_relation r;
    r.id.resize(a.id.size());
    for (std::size_t j = 0; j < r.id.size(); ++j) r.id[j] = a.id[j] & b.id[j];
    auto from = [&](std::uint32_t d) {  // b's pairs out of d
        return std::equal_range(b.x.begin(), b.x.end(), std::pair<std::uint32_t, std::uint32_t>{d, 0},
                                [](const auto& p, const auto& q) { return p.first < q.first; });
    };
    for (const auto& [s, d] : a.x) {
        if (has_bit(b.id, d)) r.x.push_back({s, d});
        for (auto [i, e] = from(d); i != e; ++i) r.x.push_back({s, i->second});
    }
    for (const auto& [d, e] : b.x)
        if (has_bit(a.id, d)) r.x.push_back({d, e});
    normalise(r);
    return r;
}

/// `a` ∪ `b` into `a`.
inline void unite(row_relation& a, const row_relation& b) {
    for (std::size_t j = 0; j < a.id.size(); ++j) a.id[j] |= b.id[j];
    a.x.insert(a.x.end(), b.x.begin(), b.x.end());
    normalise(a);
}

/// Every edge as it is (`row_form::all_nodes`), from the layout's per-fact CSR.
inline row_tables all_node_row_tables(const layout& L) {
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

/// Relation i (W words) of a table of relations: the mask at `mask_off[i]`
/// in `mask`, the pairs [x_off[i], x_off[i+1]) of `xs`/`xd` (an edge's or a
/// derived entry's; `append_relation` writes them).
inline row_relation read_relation(const std::vector<std::uint32_t>& mask_off, const std::vector<std::uint32_t>& mask,
                                  const std::vector<std::uint32_t>& x_off, const std::vector<std::uint32_t>& xs,
                                  const std::vector<std::uint32_t>& xd, std::uint32_t i, std::uint32_t W) {
    row_relation r;
    r.id.assign(mask.begin() + mask_off[i], mask.begin() + mask_off[i] + W);
    for (std::uint32_t x = x_off[i]; x < x_off[i + 1]; ++x) r.x.push_back({xs[x], xd[x]});
    normalise(r);
    return r;
}

/// Appends relation `r` (W words) as an edge or derived entry: mask to
/// `mask`/`mask_off`, pairs to `xs`/`xd`, and the new end to `x_off`.
inline void append_relation(const row_relation& r, std::vector<std::uint32_t>& mask_off, std::vector<std::uint32_t>& mask,
                            std::vector<std::uint32_t>& x_off, std::vector<std::uint32_t>& xs, std::vector<std::uint32_t>& xd) {
    mask_off.push_back(static_cast<std::uint32_t>(mask.size()));
    mask.insert(mask.end(), r.id.begin(), r.id.end());
    for (const auto& [s, d] : r.x) xs.push_back(s), xd.push_back(d);
    x_off.push_back(static_cast<std::uint32_t>(xs.size()));
}

/// The indices 0..keys.size()-1 grouped by key (a stable counting sort):
/// group k is items[off[k] .. off[k+1]); every key is below `groups`.
struct grouping {
    std::vector<std::uint32_t> off, items;
};
inline grouping group_by_key(std::span<const std::uint32_t> keys, std::uint32_t groups) {
    grouping g;
    g.off.assign(groups + 1, 0);
    g.items.resize(keys.size());
    for (std::uint32_t k : keys) g.off[k + 1]++;
    for (std::uint32_t k = 0; k < groups; ++k) g.off[k + 1] += g.off[k];
    std::vector<std::uint32_t> at(g.off.begin(), g.off.end() - 1);
    for (std::uint32_t i = 0; i < keys.size(); ++i) g.items[at[keys[i]]++] = i;
    return g;
}

/// The root of every derived node of `L` (~0u for a solved node), given its
/// edges as they are, and the derived nodes in an order where a node's
/// predecessors come before it (see the file comment).
struct derivation {
    std::vector<std::uint32_t> root;
    std::vector<std::uint32_t> order;
    grouping in;                  ///< incoming edges (ids) by target node
    std::vector<std::uint32_t> src;  ///< the source node of each edge
};

inline derivation derive_plan(const layout& L, const row_tables& all) {
    const std::uint32_t N = L.num_nodes;
    constexpr std::uint32_t none = ~0u;
    derivation dv;
    dv.in = group_by_key(all.edge_dst, N);
    dv.src.resize(all.edge_dst.size());
    for (std::uint32_t n = 0; n < N; ++n)
        for (std::uint32_t ed = all.edge_off[n]; ed < all.edge_off[n + 1]; ++ed) dv.src[ed] = n;
    const auto& in_off = dv.in.off;
    // nodes the solver must expand whatever their predecessors
    std::vector<char> forced(N, 0);
    for (std::uint32_t n = 0; n < N; ++n) forced[n] = (L.node_kind[n] & (kind_start | kind_call_site | kind_exit)) != 0;
    for (std::uint32_t r : L.ce_retsite) forced[r] = 1;
    for (std::uint32_t r : L.node_retsite)
        if (r < N) forced[r] = 1;
    // depth-first from every start node: targets of back edges (loop heads)
    // are forced too; every other edge goes forward in reverse postorder
    std::vector<char> state(N, 0);  // 0 unseen, 1 on the path, 2 done
    std::vector<std::uint32_t> post;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> path;  // (node, next edge)
    for (std::uint32_t s : L.proc_start) {
        if (s >= N || state[s]) continue;
        state[s] = 1;
        path.push_back({s, all.edge_off[s]});
        while (!path.empty()) {
            auto& [n, ed] = path.back();
            if (ed < all.edge_off[n + 1]) {
                const std::uint32_t m = all.edge_dst[ed++];
                if (state[m] == 0) {
                    state[m] = 1;
                    path.push_back({m, all.edge_off[m]});
                } else if (state[m] == 1) {
                    forced[m] = 1;
                }
            } else {
                state[n] = 2;
                post.push_back(n);
                path.pop_back();
            }
        }
    }
    dv.root.assign(N, none);
    for (auto it = post.rbegin(); it != post.rend(); ++it) {
        const std::uint32_t n = *it;
        if (forced[n] || in_off[n] == in_off[n + 1]) continue;
        std::uint32_t r = none;
        bool one_root = true;
        for (std::uint32_t i = in_off[n]; i < in_off[n + 1] && one_root; ++i) {
            const std::uint32_t p = dv.src[dv.in.items[i]];
            const std::uint32_t rp = state[p] != 2 ? none : dv.root[p] != none ? dv.root[p] : p;
            one_root = rp != none && (r == none || r == rp);
            r = rp;
        }
        if (one_root) dv.root[n] = r, dv.order.push_back(n);
    }
    return dv;
}

/// `row_form::skip_derived` from the edges as they are. One solved node at a
/// time: the relations of its group's derived nodes (each from its
/// predecessors', already computed, so every temporary is short-lived), then
/// its edges composed through them.
inline row_tables skip_derived_row_tables(const layout& L, const row_tables& all) {
    const std::uint32_t N = L.num_nodes;
    constexpr std::uint32_t none = ~0u;
    const derivation dv = derive_plan(L, all);
    // the derived nodes grouped by root, in their topological order: group i of
    // root n is dv.order[groups.items[i]] for i in [groups.off[n], groups.off[n+1])
    std::vector<std::uint32_t> order_root(dv.order.size());
    for (std::size_t i = 0; i < dv.order.size(); ++i) order_root[i] = dv.root[dv.order[i]];
    const grouping groups = group_by_key(order_root, N);
    const auto& group_off = groups.off;
    auto group = [&](std::uint32_t i) { return dv.order[groups.items[i]]; };
    row_tables t;
    derived_rows& dr = t.derived;
    std::vector<std::uint32_t> entry(N, none);  // a derived node's entry in dr
    // from the root to edge ed's target, for ed out of `from` (the root or a node of its group)
    auto through = [&](std::uint32_t from, std::uint32_t ed, std::uint32_t W) {
        row_relation e = read_relation(all.edge_mask_off, all.edge_mask, all.edge_x_off, all.edge_x_src, all.edge_x_dst, ed, W);
        if (entry[from] == none) return e;
        return compose(read_relation(dr.mask_off, dr.mask, dr.x_off, dr.x_src, dr.x_dst, entry[from], W), e);
    };
    t.edge_off.reserve(N + 1);
    t.edge_off.push_back(0);
    t.edge_x_off.push_back(0);
    dr.group_off.push_back(0);
    dr.x_off.push_back(0);
    std::vector<std::pair<std::uint32_t, row_relation>> outs;
    for (std::uint32_t n = 0; n < N; ++n) {
        if (dv.root[n] == none) {
            const std::uint32_t W = (L.node_fact_count[n] + 31) / 32;
            // the group of n: each derived node's relation, the union over its incoming edges
            for (std::uint32_t i = group_off[n]; i < group_off[n + 1]; ++i) {
                const std::uint32_t m = group(i);
                row_relation r;
                r.id.assign(W, 0);
                for (std::uint32_t k = dv.in.off[m]; k < dv.in.off[m + 1]; ++k)
                    unite(r, through(dv.src[dv.in.items[k]], dv.in.items[k], W));
                entry[m] = static_cast<std::uint32_t>(dr.node.size());
                dr.node.push_back(m);
                append_relation(r, dr.mask_off, dr.mask, dr.x_off, dr.x_src, dr.x_dst);
            }
            if (group_off[n] < group_off[n + 1]) {
                dr.root.push_back(n);
                dr.group_off.push_back(static_cast<std::uint32_t>(dr.node.size()));
            }
            // n's edges to solved nodes, composed through its group; one per target
            outs.clear();
            auto out_of = [&](std::uint32_t p) {
                for (std::uint32_t ed = all.edge_off[p]; ed < all.edge_off[p + 1]; ++ed)
                    if (dv.root[all.edge_dst[ed]] == none) outs.emplace_back(all.edge_dst[ed], through(p, ed, W));
            };
            out_of(n);
            for (std::uint32_t i = group_off[n]; i < group_off[n + 1]; ++i) out_of(group(i));
            std::stable_sort(outs.begin(), outs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            for (std::size_t i = 0; i < outs.size();) {
                std::size_t j = i + 1;
                for (; j < outs.size() && outs[j].first == outs[i].first; ++j) unite(outs[i].second, outs[j].second);
                t.edge_dst.push_back(outs[i].first);
                append_relation(outs[i].second, t.edge_mask_off, t.edge_mask, t.edge_x_off, t.edge_x_src, t.edge_x_dst);
                i = j;
            }
        }
        t.edge_off.push_back(static_cast<std::uint32_t>(t.edge_dst.size()));
    }
    return t;
}

} // namespace detail

/// Derives the row form from the layout's per-fact intraprocedural CSR.
inline row_tables make_row_tables(const layout& L, row_form form = row_form::skip_derived) {
    row_tables all = detail::all_node_row_tables(L);
    if (form == row_form::all_nodes) return all;
    return detail::skip_derived_row_tables(L, all);
}

/// Completes a path-edge bitset solved over `make_row_tables(L)`'s tables:
/// sets every derived node's rows from its group's solved node (the solved
/// rows are final, so the derived ones are exact). `pe` has `L.pe_words` words.
inline void derive_rows(const layout& L, const derived_rows& dr, std::span<std::uint32_t> pe) {
    std::vector<std::uint32_t> ctx, rows, out;  // the solved node's non-empty rows
    for (std::size_t g = 0; g < dr.root.size(); ++g) {
        const std::uint32_t n = dr.root[g], F = L.node_fact_count[n], W = (F + 31) / 32;
        auto chunk = [&](std::uint32_t j) { return std::min<std::uint32_t>(32, F - 32 * j); };
        ctx.clear(), rows.clear();
        for (std::uint32_t c = 0; c < F; ++c) {
            const std::uint64_t pos = detail::row_start(L, n, c);
            std::uint32_t any = 0;
            for (std::uint32_t j = 0; j < W; ++j) any |= rows.emplace_back(detail::read_row_bits(pe, pos + 32 * j, chunk(j)));
            if (any) ctx.push_back(c);
            else rows.resize(rows.size() - W);
        }
        if (ctx.empty()) continue;
        out.resize(W);
        for (std::uint32_t e = dr.group_off[g]; e < dr.group_off[g + 1]; ++e) {
            const std::uint32_t s = dr.node[e];
            const std::uint32_t* id = dr.mask.data() + dr.mask_off[e];
            for (std::size_t i = 0; i < ctx.size(); ++i) {
                const std::uint32_t* row = rows.data() + i * W;
                for (std::uint32_t j = 0; j < W; ++j) out[j] = row[j] & id[j];
                for (std::uint32_t x = dr.x_off[e]; x < dr.x_off[e + 1]; ++x) {
                    const std::uint32_t a = dr.x_src[x], b = dr.x_dst[x];
                    if (a < F && b < F && ((row[a / 32] >> (a % 32)) & 1u)) out[b / 32] |= 1u << (b % 32);
                }
                const std::uint64_t pos = detail::row_start(L, s, ctx[i]);
                for (std::uint32_t j = 0; j < W; ++j)
                    if (out[j]) detail::or_row_bits(pe, pos + 32 * j, out[j]);
            }
        }
    }
}

} // namespace weir::ifds
