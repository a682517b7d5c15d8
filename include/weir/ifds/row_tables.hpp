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
/// default). The *solved* nodes are the start nodes, call sites, exits and
/// return sites (the solver's interprocedural steps read and write their
/// rows). Every other node is *derived*: each path from a start node to it
/// passes a last solved node, its *root*, and then only derived nodes, so
/// its rows are the union, over its roots, of the root's rows through the
/// union of the flow functions composed along those stretches (around a
/// loop among derived nodes: the least fixed point, which the passes over
/// the loop reach). Nothing the solver does reads a derived node's rows. So
/// the row tables give each solved node its edges composed through the
/// derived nodes to the next solved ones, and `derived_rows` lists how each
/// derived node's rows follow from each of its roots once the solve is done
/// (`derive_rows`). Limits keep building the tables cheap on any input: a
/// node fed by more than `detail::max_roots_per_derived_node` roots, a node
/// whose relation would exceed `detail::max_relation_pairs(F)` pairs and the
/// heads of a loop that has not settled after `detail::max_loop_passes`
/// passes are solved too. On the taint-like benchmark problems about three
/// quarters of the nodes are derived (straight lines, branches and their
/// joins, loops), and the solver expands about a quarter of the row chunks
/// it expands over every node.
///
/// All tables are u32 arrays; masks are ceil(F/32) words per edge, F the
/// procedure's fact count.
///
/// The *call tables* (`site_row`, `site_call_off`, `ce_info`, `ret_mask`)
/// hold what a call site's and an exit's expansion read per call edge, close
/// together: a call site's own rows of the call relation, offsets and
/// (call edge, callee fact) pairs side by side (the layout's `call_off` is
/// indexed by every row, 18 MB at 10,000 benchmark procedures, of which the
/// call sites' are a tenth, and its pairs lie in two more arrays), each call
/// edge's callee, exit and fact counts in one record, and its return flow as
/// masks over the caller's facts. `node_info` holds, per node, what an
/// expansion reads about the node itself (facts, bitset position, edge
/// range, kind, return site, site row, procedure) in one 32-byte record
/// instead of seven arrays: one cache line read instead of several, which
/// is what bounds the solve (see bench/README.md). They are the same for
/// both row forms.
///
/// The *packed bitset* (`bitset_packing`): the solve sets no bit of a
/// derived node, so its bitset holds only the solved nodes' blocks, side by
/// side in node order (a quarter of the layout's bitset on the benchmark
/// problems): the op's working set shrinks by as much, and clearing and
/// downloading it cost less. The row tables' bitset positions (`node_info`,
/// `ce_info`) and `bitset_packing::pe_word` (which a resident graph with row
/// tables uploads in place of the layout's `pe_word`) are in that bitset;
/// `unpack_bitset` moves a downloaded one to the layout's positions.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <weir/ifds/ops/rows.hpp>

#include <weir/ifds/detail/edge_table.hpp>
#include <weir/ifds/detail/node_parts.hpp>
#include <weir/ifds/layout.hpp>

namespace weir::ifds {

/// How each derived node's rows follow from its roots: the derived nodes in
/// groups, one per root, each with the union of the composed flow functions
/// of the paths from the root to it, in row form (a node fed by several
/// roots is in several groups; its rows are the union). Host memory (it is
/// not uploaded, and `resident_graph::bytes()` does not count it).
struct derived_rows {
    std::vector<std::uint32_t> root;       ///< per group: the solved node its rows come from
    std::vector<std::uint32_t> group_off;  ///< size groups+1: the group's entries
    std::vector<std::uint32_t> node;       ///< per entry: the derived node
    std::vector<std::uint32_t> mask_off;   ///< per entry: first word of its identity mask
    std::vector<std::uint32_t> mask;       ///< identity masks, ceil(F/32) words each
    std::vector<std::uint32_t> x_off;      ///< size entries+1: extra pairs of each entry
    std::vector<std::uint32_t> x_src, x_dst;  ///< an entry's pairs sorted by source, then target
    std::vector<std::uint8_t> shared;      ///< per entry: 1 when its node has roots in other chunks too
    /// The groups in the order the host pass after a solve takes them: by
    /// their roots' procedures (stably). The groups themselves are in their
    /// roots' node order, and a problem may number all its start and exit
    /// nodes before the bodies (the benchmark's generator does), which would
    /// put a procedure's groups far apart.
    std::vector<std::uint32_t> order;
    /// The chunks that the host pass hands to one thread at a time: chunk k
    /// is groups `order[chunk_off[k], chunk_off[k+1])`. A chunk ends between
    /// two procedures once it holds `detail::finish_group_chunk` groups (or,
    /// inside a procedure, at `detail::finish_chunk_most`), so that a derived
    /// node usually has all its roots (all in its own procedure) in one chunk
    /// and one thread writes its words.
    std::vector<std::uint32_t> chunk_off;

    /// Number of entries: (root, derived node) pairs.
    std::size_t size() const { return node.size(); }
};

/// A run of solved nodes whose blocks lie together both in the packed
/// bitset and in the layout's: `words` words from word `packed` of the one,
/// from word `unpacked` of the other.
struct block_run {
    std::uint32_t packed = 0, unpacked = 0, words = 0;
    /// Member-wise equality.
    bool operator==(const block_run&) const = default;
};

/// Where the solve's bitset keeps each node's block (see the file comment).
struct bitset_packing {
    /// Per node, and one past: the first word of the node's block in the
    /// packed bitset; a derived node's is `words` (it has no block there).
    std::vector<std::uint32_t> pe_word;
    /// Words of the packed bitset (the layout's `pe_words` when no node is derived).
    std::uint32_t words = 0;
    /// The solved nodes' blocks, in node order, runs of adjacent ones merged.
    std::vector<block_run> runs;
};

/// Row form of a layout's intraprocedural edges.
struct row_tables {
    std::vector<std::uint32_t> edge_off;       ///< size num_nodes+1: edges out of node n
    std::vector<std::uint32_t> edge_dst;       ///< target node of each edge
    std::vector<std::uint32_t> edge_mask_off;  ///< first word of each edge's identity mask
    std::vector<std::uint32_t> edge_mask;      ///< identity masks, ceil(F/32) words each
    std::vector<std::uint32_t> edge_x_off;     ///< size edges+1: extra pairs of each edge
    std::vector<std::uint32_t> edge_x_src, edge_x_dst;
    // the call tables (see the file comment; field order: weir::ops::ifds_rows::ce_field)
    std::vector<std::uint32_t> site_row;       ///< per node: a call site's first offset in site_call_off, else ~0u
    std::vector<std::uint32_t> site_call_off;  ///< per call site: F+1 offsets (into this table), then its (ce, d3) pairs
    std::vector<std::uint32_t> ce_info;        ///< per call edge, `call_edge_info_words` words
    std::vector<std::uint32_t> ret_mask;       ///< per call edge with masks: callee facts × mask words
    std::vector<std::uint32_t> node_info;      ///< per node, `node_info_words` words (weir::ops::ifds_rows::node_field)
    /// The derived nodes (empty with `row_form::all_nodes`): the solver sets
    /// none of their bits; `derive_rows` does, after the solve.
    derived_rows derived;
    /// The solve's bitset: the solved nodes' blocks only (`node_info` and
    /// `ce_info` give positions in it).
    bitset_packing packing;

    /// The tables the `ifds_rows_*` ops take, in their order (`edge_off` and
    /// `site_row` are not among them: the ops read both in `node_info`).
    std::array<const std::vector<std::uint32_t>*, weir::ops::ifds_rows::row_table_count> tables() const {
        return {&edge_dst, &edge_mask_off, &edge_mask, &edge_x_off, &edge_x_src, &edge_x_dst,
                &site_call_off, &ce_info, &ret_mask, &node_info};
    }
    /// The same tables, to move from (a resident graph hands them over to a
    /// host-visible backend without a copy).
    std::array<std::vector<std::uint32_t>*, weir::ops::ifds_rows::row_table_count> tables() {
        return {&edge_dst, &edge_mask_off, &edge_mask, &edge_x_off, &edge_x_src, &edge_x_dst,
                &site_call_off, &ce_info, &ret_mask, &node_info};
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

/// `a` then `b` (d → e when d → d' in a and d' → e in b) into `r`, whose
/// storage is reused (`r` is neither `a` nor `b`); `b.x` sorted, as
/// `normalise` leaves it.
inline void compose_into(const row_relation& a, const row_relation& b, row_relation& r) {
    r.id.resize(a.id.size());
    for (std::size_t j = 0; j < r.id.size(); ++j) r.id[j] = a.id[j] & b.id[j];
    r.x.clear();
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
}

/// `a` then `b`, as a new relation (see `compose_into`).
inline row_relation compose(const row_relation& a, const row_relation& b) {
    row_relation r;
    compose_into(a, b, r);
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
    if (!L.has_intra_rows()) {  // intra_form::per_edge: the layout has them in this form already
        t.edge_off = L.intra_edge_off;
        t.edge_dst = L.intra_edge_dst;
        t.edge_mask_off = L.intra_edge_mask_off;
        t.edge_mask = L.intra_edge_mask;
        t.edge_x_off = L.intra_edge_x_off;
        t.edge_x_src = L.intra_edge_x_src;
        t.edge_x_dst = L.intra_edge_x_dst;
        return t;
    }
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
        // by target, stably; a node with one target (most of them) is in order already
        auto by_target = [](const entry& a, const entry& b) { return a.m < b.m; };
        if (!std::is_sorted(es.begin(), es.end(), by_target)) std::stable_sort(es.begin(), es.end(), by_target);
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

/// Reads relation i (W words) of a table of relations into `r` (its storage
/// reused): the mask at `mask_off[i]` in `mask`, the pairs [x_off[i],
/// x_off[i+1]) of `xs`/`xd` (an edge's or a derived entry's;
/// `append_relation` writes them).
inline void read_relation(const std::vector<std::uint32_t>& mask_off, const std::vector<std::uint32_t>& mask,
                          const std::vector<std::uint32_t>& x_off, const std::vector<std::uint32_t>& xs,
                          const std::vector<std::uint32_t>& xd, std::uint32_t i, std::uint32_t W, row_relation& r) {
    r.id.assign(mask.begin() + mask_off[i], mask.begin() + mask_off[i] + W);
    r.x.clear();
    for (std::uint32_t x = x_off[i]; x < x_off[i + 1]; ++x) r.x.push_back({xs[x], xd[x]});
    normalise(r);
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

/// At most this many solved nodes (roots) feed one derived node; a node
/// that more would feed is solved instead, so the derived relations stay
/// linear in the procedure's size (a chain of joins, each adding a root,
/// would otherwise give its k-th node k relations).
inline constexpr std::uint32_t max_roots_per_derived_node = 8;
/// At most this many passes over a loop's nodes (in depth-first order most
/// loops settle in two or three; moves that need several turns around the
/// loop take one pass per turn: a shift x0>x1, x1>x2, ... one per step); a
/// loop that has not settled by then has its heads solved instead.
inline constexpr std::uint32_t max_loop_passes = 8;
/// At most this many pairs in a derived relation over F facts; a node whose
/// relation from a root would hold more is solved instead (moves without
/// kills along a line or around a loop compose to up to F² pairs).
constexpr std::size_t max_relation_pairs(std::uint32_t F) { return 4 * std::size_t(F) + 64; }
/// Rounds of planning and building before `make_row_tables` gives up on
/// derived nodes and returns every edge as it is.
inline constexpr int max_derivation_rounds = 4;
/// Groups of `derived_rows` that the resident solver's parallel pass after a
/// solve hands to one thread at a time, at least (`derived_rows::chunk_off`);
/// a node with roots in two chunks can be written by two threads at once
/// (`derived_rows::shared`, hence `derive_groups`'s `atomic`).
inline constexpr std::size_t finish_group_chunk = 64;
/// The most groups of one chunk: a procedure with more roots than this is
/// cut inside, so that one large procedure still spreads over the threads.
inline constexpr std::size_t finish_chunk_most = 4 * finish_group_chunk;

/// Which nodes of `L` are solved and, for each solved node (a *root*), the
/// derived nodes it reaches through derived nodes only, given the edges as
/// they are (see the file comment).
struct derivation {
    std::vector<char> solved;          ///< per node
    std::vector<char> head;            ///< per node: target of a back edge of the depth-first walk (a loop head)
    std::vector<std::uint32_t> comp;   ///< per derived node: its strongly connected component among the derived nodes
    std::vector<char> cyclic;          ///< per component: more than one node, or a self-loop
    grouping group;                    ///< by root: the derived nodes it reaches (indices into `group_node`); components
                                       ///< in topological order, each in depth-first order
    std::vector<std::uint32_t> group_node;
    grouping in;                       ///< incoming edges (ids) by target node
    std::vector<std::uint32_t> src;    ///< the source node of each edge
};

/// The plan; the nodes marked in `also_solved` (size num_nodes, or empty)
/// are solved whatever their kind. Intraprocedural edges never leave a
/// procedure, so the procedures are planned in parts of consecutive
/// procedures on up to `threads` threads (0: every core; one below
/// `min_parallel_nodes` nodes), each part walked as the whole graph would
/// be: the plan is the same for any number of parts (component numbers
/// aside, which only tell components apart).
inline derivation derive_plan(const layout& L, const row_tables& all, const std::vector<char>& also_solved = {},
                              unsigned threads = 1, std::uint32_t min_parallel_nodes = default_min_parallel_nodes) {
    const std::uint32_t N = L.num_nodes, P = L.num_procs;
    constexpr std::uint32_t none = ~0u;
    derivation dv;
    dv.in = group_by_key(all.edge_dst, N);
    dv.src.resize(all.edge_dst.size());
    for (std::uint32_t n = 0; n < N; ++n)
        for (std::uint32_t ed = all.edge_off[n]; ed < all.edge_off[n + 1]; ++ed) dv.src[ed] = n;
    // nodes the solver must expand whatever their predecessors
    auto& solved = dv.solved;
    solved.assign(N, 0);
    for (std::uint32_t n = 0; n < N; ++n)
        solved[n] = (L.node_kind[n] & (kind_start | kind_call_site | kind_exit)) != 0 || (!also_solved.empty() && also_solved[n]);
    for (std::uint32_t r : L.ce_retsite) solved[r] = 1;
    for (std::uint32_t r : L.node_retsite)
        if (r < N) solved[r] = 1;
    // each procedure's nodes in node order, procedures in order
    const grouping by_proc = group_by_key(L.node_proc, P);
    // Per part: one depth-first walk over the other nodes and the edges among
    // them, entered from the solved nodes first: its postorder, the targets
    // of its back edges (loop heads), and Tarjan's strongly connected
    // components (numbered sinks first, from 0 in each part); then each
    // component's roots, components in topological order (descending
    // number), members in reverse postorder; a component fed by too many
    // roots is solved. The per-node arrays are shared, each part writing its
    // own nodes only.
    auto& comp = dv.comp;
    comp.assign(N, none);
    dv.head.assign(N, 0);
    std::vector<std::uint32_t> index(N, none), low(N, 0);
    std::vector<char> on_path(N, 0);
    struct part_plan {
        std::uint32_t ncomp = 0;
        std::vector<char> cyclic;                            ///< per component of the part
        std::vector<std::uint32_t> pair_root, group_node;   ///< (root, derived node) pairs in order
    };
    auto plan_part = [&](std::span<const std::uint32_t> nodes, part_plan& out) {
        std::vector<std::uint32_t> post, stack;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> path;  // (node, next edge)
        std::uint32_t counter = 0, ncomp = 0;
        auto open = [&](std::uint32_t v) {
            index[v] = low[v] = counter++;
            stack.push_back(v);
            on_path[v] = 1;
            path.push_back({v, all.edge_off[v]});
        };
        auto walk = [&](std::uint32_t v0) {
            if (solved[v0] || index[v0] != none) return;
            open(v0);
            while (!path.empty()) {
                const std::uint32_t n = path.back().first, ed = path.back().second;
                if (ed < all.edge_off[n + 1]) {
                    path.back().second++;
                    const std::uint32_t m = all.edge_dst[ed];
                    if (solved[m]) continue;
                    if (index[m] == none) {
                        open(m);
                        continue;
                    }
                    if (on_path[m]) dv.head[m] = 1;                            // a back edge
                    if (comp[m] == none) low[n] = std::min(low[n], index[m]);  // m still on the stack
                    continue;
                }
                path.pop_back();
                on_path[n] = 0;
                post.push_back(n);
                if (!path.empty()) low[path.back().first] = std::min(low[path.back().first], low[n]);
                if (low[n] != index[n]) continue;
                std::uint32_t w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    comp[w] = ncomp;
                } while (w != n);
                ++ncomp;
            }
        };
        for (const std::uint32_t n : nodes)
            if (solved[n])
                for (std::uint32_t ed = all.edge_off[n]; ed < all.edge_off[n + 1]; ++ed) walk(all.edge_dst[ed]);
        for (const std::uint32_t n : nodes) walk(n);
        std::vector<std::uint32_t> by_rpo(post.rbegin(), post.rend());
        std::vector<std::uint32_t> rkeys(by_rpo.size());
        for (std::size_t i = 0; i < by_rpo.size(); ++i) rkeys[i] = ncomp - 1 - comp[by_rpo[i]];
        const grouping members = group_by_key(rkeys, ncomp);  // items index by_rpo
        out.ncomp = ncomp;
        out.cyclic.assign(ncomp, 0);
        std::vector<std::uint32_t> roots_begin(ncomp, 0), roots_end(ncomp, 0), roots, here;
        for (std::uint32_t t = 0; t < ncomp; ++t) {
            const std::uint32_t c = ncomp - 1 - t;
            here.clear();
            for (std::uint32_t i = members.off[t]; i < members.off[t + 1]; ++i) {
                const std::uint32_t m = by_rpo[members.items[i]];
                for (std::uint32_t k = dv.in.off[m]; k < dv.in.off[m + 1]; ++k) {
                    const std::uint32_t p = dv.src[dv.in.items[k]];
                    if (p == m || comp[p] == c) out.cyclic[c] = 1;
                    else if (solved[p]) here.push_back(p);
                    else here.insert(here.end(), roots.begin() + roots_begin[comp[p]], roots.begin() + roots_end[comp[p]]);
                }
            }
            std::sort(here.begin(), here.end());
            here.erase(std::unique(here.begin(), here.end()), here.end());
            roots_begin[c] = static_cast<std::uint32_t>(roots.size());
            if (here.size() > max_roots_per_derived_node) {
                for (std::uint32_t i = members.off[t]; i < members.off[t + 1]; ++i) solved[by_rpo[members.items[i]]] = 1;
                here.clear();
            }
            roots.insert(roots.end(), here.begin(), here.end());
            roots_end[c] = static_cast<std::uint32_t>(roots.size());
            for (std::uint32_t i = members.off[t]; i < members.off[t + 1]; ++i)
                for (std::uint32_t r : here) out.pair_root.push_back(r), out.group_node.push_back(by_rpo[members.items[i]]);
        }
    };
    // parts of consecutive procedures of about equal node counts
    const unsigned nt = threads_for(N, threads, min_parallel_nodes);
    const unsigned parts = nt == 1 ? 1 : std::min<unsigned>(nt * parts_per_thread, std::max(P, 1u));
    const auto cuts = cut_by_cost(P, parts, [&](std::uint32_t p) { return std::uint64_t{by_proc.off[p]}; });
    std::vector<part_plan> plans(parts);
    auto nodes_of = [&](unsigned k) {
        return std::span<const std::uint32_t>(by_proc.items.data() + by_proc.off[cuts[k]], by_proc.off[cuts[k + 1]] - by_proc.off[cuts[k]]);
    };
    for_each_part(parts, nt, [&](unsigned k, unsigned) { plan_part(nodes_of(k), plans[k]); });
    // components numbered apart across the parts; the pairs joined in part order (a root's
    // pairs all come from its own part, in their order there)
    std::uint32_t ncomp = 0;
    std::size_t pairs = 0;
    for (const part_plan& pp : plans) pairs += pp.pair_root.size();
    std::vector<std::uint32_t> pair_root;
    pair_root.reserve(pairs);
    dv.group_node.reserve(pairs);
    for (unsigned k = 0; k < parts; ++k) {
        part_plan& pp = plans[k];
        if (ncomp != 0)
            for (const std::uint32_t n : nodes_of(k))
                if (comp[n] != none) comp[n] += ncomp;
        ncomp += pp.ncomp;
        dv.cyclic.insert(dv.cyclic.end(), pp.cyclic.begin(), pp.cyclic.end());
        pair_root.insert(pair_root.end(), pp.pair_root.begin(), pp.pair_root.end());
        dv.group_node.insert(dv.group_node.end(), pp.group_node.begin(), pp.group_node.end());
        pp = part_plan{};
    }
    for (std::uint32_t n = 0; n < N; ++n)
        if (solved[n]) comp[n] = none;
    dv.group = group_by_key(pair_root, N);
    return dv;
}

/// Sets `dr`'s `order`, `chunk_off` and `shared` (see `derived_rows`).
inline void chunk_groups(const layout& L, derived_rows& dr) {
    const auto groups = static_cast<std::uint32_t>(dr.root.size());
    auto proc = [&](std::uint32_t g) { return L.node_proc[dr.root[g]]; };
    dr.order.resize(groups);
    for (std::uint32_t g = 0; g < groups; ++g) dr.order[g] = g;
    auto by_proc = [&](std::uint32_t a, std::uint32_t b) { return proc(a) < proc(b); };
    if (!std::is_sorted(dr.order.begin(), dr.order.end(), by_proc)) std::stable_sort(dr.order.begin(), dr.order.end(), by_proc);
    dr.chunk_off.assign(1, 0);
    for (std::uint32_t i = 0; i < groups; ++i) {
        const std::size_t in = i - dr.chunk_off.back();
        if (in >= finish_chunk_most || (in >= finish_group_chunk && proc(dr.order[i]) != proc(dr.order[i - 1])))
            dr.chunk_off.push_back(i);
    }
    if (groups) dr.chunk_off.push_back(groups);
    // which entries' nodes have roots in other chunks too (their words may be
    // written by two threads at once)
    constexpr std::uint32_t unseen = ~0u, several = ~0u - 1;
    std::vector<std::uint32_t> chunk_of(L.num_nodes, unseen);
    for (std::uint32_t k = 0; k + 1 < dr.chunk_off.size(); ++k)
        for (std::uint32_t i = dr.chunk_off[k]; i < dr.chunk_off[k + 1]; ++i)
            for (std::uint32_t e = dr.group_off[dr.order[i]]; e < dr.group_off[dr.order[i] + 1]; ++e) {
                std::uint32_t& c = chunk_of[dr.node[e]];
                c = c == unseen || c == k ? k : several;
            }
    dr.shared.resize(dr.node.size());
    for (std::size_t e = 0; e < dr.node.size(); ++e) dr.shared[e] = chunk_of[dr.node[e]] == several;
}

/// Per-node scratch of `skip_derived_range`, for one thread's parts in turn
/// (a mark is a root's id, so none needs clearing between roots or parts).
struct skip_scratch {
    std::vector<std::uint32_t> at_root;  ///< per node: the root whose group it is in, as far as known
    std::vector<std::uint32_t> pos;      ///< per node: where in that group
};

/// `skip_derived_row_tables` for the nodes [n0, n1) only: appends their
/// edges and their groups to `t` (as one pass from node n0 on would), and
/// the nodes that break a limit to `unfit`.
inline void skip_derived_range(const layout& L, const row_tables& all, const derivation& dv, std::uint32_t n0,
                               std::uint32_t n1, row_tables& t, std::vector<std::uint32_t>& unfit, skip_scratch& sc) {
    const std::uint32_t N = L.num_nodes;
    constexpr std::uint32_t none = ~0u;
    derived_rows& dr = t.derived;
    if (sc.at_root.size() != N) sc.at_root.assign(N, none), sc.pos.assign(N, 0);
    std::vector<std::uint32_t>& at_root = sc.at_root;  // a derived node in the current root's group: where
    std::vector<std::uint32_t>& pos = sc.pos;
    std::vector<row_relation> rel;                     // from the current root to each node of its group
    std::vector<std::uint32_t> nodes;
    t.edge_off.reserve(t.edge_off.size() + (n1 - n0));
    std::vector<std::pair<std::uint32_t, row_relation>> outs;
    row_relation edge_rel;  // `through`'s edge before it is composed
    row_relation r, e;      // a derived node's relation being built, and one incoming edge's
    for (std::uint32_t n = n0; n < n1; ++n) {
        if (dv.solved[n]) {
            const std::uint32_t F = L.node_fact_count[n], W = (F + 31) / 32;
            nodes.clear();
            for (std::uint32_t i = dv.group.off[n]; i < dv.group.off[n + 1]; ++i) {
                const std::uint32_t m = dv.group_node[dv.group.items[i]];
                at_root[m] = n, pos[m] = static_cast<std::uint32_t>(nodes.size());
                nodes.push_back(m);
            }
            rel.resize(std::max(rel.size(), nodes.size()));
            for (std::size_t i = 0; i < nodes.size(); ++i) rel[i].id.assign(W, 0), rel[i].x.clear();
            // from n to the target of edge ed out of p (n or a node of its group) into
            // `out` (not an element of `rel`); false: not from n
            auto through = [&](std::uint32_t p, std::uint32_t ed, row_relation& out) {
                if (p != n && at_root[p] != n) return false;
                row_relation& edge = p == n ? out : edge_rel;
                read_relation(all.edge_mask_off, all.edge_mask, all.edge_x_off, all.edge_x_src, all.edge_x_dst, ed, W, edge);
                if (p != n) compose_into(rel[pos[p]], edge, out);
                return true;
            };
            // each derived node's relation: the union over its incoming edges; a
            // component with a cycle again until nothing changes
            for (std::size_t i = 0; i < nodes.size();) {
                const std::uint32_t c = dv.comp[nodes[i]];
                std::size_t j = i;
                while (j < nodes.size() && dv.comp[nodes[j]] == c) ++j;
                bool changed = true;
                for (std::uint32_t pass = 0; changed && pass < max_loop_passes; ++pass) {
                    changed = false;
                    for (std::size_t k = i; k < j; ++k) {
                        r.id.assign(W, 0), r.x.clear();
                        for (std::uint32_t q = dv.in.off[nodes[k]]; q < dv.in.off[nodes[k] + 1]; ++q)
                            if (through(dv.src[dv.in.items[q]], dv.in.items[q], e)) unite(r, e);
                        if (r.x.size() > max_relation_pairs(F)) {
                            unfit.push_back(nodes[k]);
                            r.x.clear();  // keeps this round's remaining work small; its tables are dropped
                        }
                        if (r.id != rel[k].id || r.x != rel[k].x) std::swap(rel[k], r), changed = dv.cyclic[c];
                    }
                }
                if (changed)  // the loop has not settled: its heads are to be solved
                    for (std::size_t k = i; k < j; ++k)
                        if (dv.head[nodes[k]]) unfit.push_back(nodes[k]);
                i = j;
            }
            for (std::size_t i = 0; i < nodes.size(); ++i) {
                dr.node.push_back(nodes[i]);
                append_relation(rel[i], dr.mask_off, dr.mask, dr.x_off, dr.x_src, dr.x_dst);
            }
            if (!nodes.empty()) {
                dr.root.push_back(n);
                dr.group_off.push_back(static_cast<std::uint32_t>(dr.node.size()));
            }
            // n's edges to solved nodes, composed through its group; one per target
            std::size_t n_outs = 0;  // outs[0, n_outs) are this root's; the rest keep storage to reuse
            auto out_of = [&](std::uint32_t p) {
                for (std::uint32_t ed = all.edge_off[p]; ed < all.edge_off[p + 1]; ++ed)
                    if (dv.solved[all.edge_dst[ed]]) {
                        if (n_outs == outs.size()) outs.emplace_back();
                        if (through(p, ed, outs[n_outs].second)) outs[n_outs++].first = all.edge_dst[ed];
                    }
            };
            out_of(n);
            for (std::uint32_t m : nodes) out_of(m);
            // by target, stably; a root with one edge out (most of them) is in order already
            const auto outs_end = outs.begin() + static_cast<std::ptrdiff_t>(n_outs);
            auto by_dst = [](const auto& a, const auto& b) { return a.first < b.first; };
            if (!std::is_sorted(outs.begin(), outs_end, by_dst)) std::stable_sort(outs.begin(), outs_end, by_dst);
            for (std::size_t i = 0; i < n_outs;) {
                std::size_t j = i + 1;
                for (; j < n_outs && outs[j].first == outs[i].first; ++j) unite(outs[i].second, outs[j].second);
                t.edge_dst.push_back(outs[i].first);
                append_relation(outs[i].second, t.edge_mask_off, t.edge_mask, t.edge_x_off, t.edge_x_src, t.edge_x_dst);
                i = j;
            }
        }
        t.edge_off.push_back(static_cast<std::uint32_t>(t.edge_dst.size()));
    }
}

/// Row tables with no nodes yet (the offset arrays' leading zeros).
inline row_tables empty_row_tables() {
    row_tables t;
    t.edge_off.push_back(0);
    t.edge_x_off.push_back(0);
    t.derived.group_off.push_back(0);
    t.derived.x_off.push_back(0);
    return t;
}

/// The edge arrays of `t`.
inline edge_table_ref edges_of(row_tables& t) {
    return {t.edge_off, t.edge_dst, t.edge_mask_off, t.edge_mask, t.edge_x_off, t.edge_x_src, t.edge_x_dst};
}
/// The derived entries of `d`, by group (`root` aside).
inline edge_table_ref entries_of(derived_rows& d) {
    return {d.group_off, d.node, d.mask_off, d.mask, d.x_off, d.x_src, d.x_dst};
}

/// `row_form::skip_derived` from the edges as they are, by plan `dv`. One
/// solved node (a root) at a time: the relations from it to the derived
/// nodes it reaches (each from its predecessors', already computed, a
/// component at a time; a loop's up to its least fixed point), then its
/// edges composed through them. Every temporary is short-lived. Nodes that
/// break a limit (`max_loop_passes`, `max_relation_pairs`) go to `unfit`,
/// and the tables are then incomplete: plan again with them solved. With
/// `min_parallel_nodes` nodes or more, the nodes are cut into a part per
/// thread (`threads`; 0: one per hardware thread), built at once and
/// joined: the same tables, word for word.
inline row_tables skip_derived_row_tables(const layout& L, const row_tables& all, const derivation& dv,
                                          std::vector<std::uint32_t>& unfit, unsigned threads = 1,
                                          std::uint32_t min_parallel_nodes = default_min_parallel_nodes) {
    const std::uint32_t N = L.num_nodes;
    row_tables t = empty_row_tables();
    const unsigned nt = threads_for(N, threads, min_parallel_nodes);
    if (nt <= 1) {
        skip_scratch sc;
        skip_derived_range(L, all, dv, 0, N, t, unfit, sc);
    } else {
        // parts of about equal size (edges out and derived nodes reached),
        // handed out in turn; part 0 builds into t itself
        const unsigned parts = nt * parts_per_thread;
        const auto cuts = cut_by_cost(N, parts, [&](std::uint32_t i) {
            return std::uint64_t{all.edge_off[i]} + dv.group.off[i];
        });
        std::vector<row_tables> rest(parts - 1, empty_row_tables());
        std::vector<std::vector<std::uint32_t>> rest_unfit(parts - 1);
        std::vector<skip_scratch> scratch(nt);
        for_each_part(parts, nt, [&](unsigned k, unsigned th) {
            if (k == 0) skip_derived_range(L, all, dv, cuts[0], cuts[1], t, unfit, scratch[th]);
            else skip_derived_range(L, all, dv, cuts[k], cuts[k + 1], rest[k - 1], rest_unfit[k - 1], scratch[th]);
        });
        table_sizes edges, entries;
        std::size_t roots = 0;
        for (row_tables& p : rest) edges.add(edges_of(p)), entries.add(entries_of(p.derived)), roots += p.derived.root.size();
        edges.reserve_in(edges_of(t));
        entries.reserve_in(entries_of(t.derived));
        t.derived.root.reserve(t.derived.root.size() + roots);
        for (unsigned k = 1; k < parts; ++k) {
            row_tables& p = rest[k - 1];
            append_edge_table(edges_of(t), edges_of(p));
            append_edge_table(entries_of(t.derived), entries_of(p.derived));
            t.derived.root.insert(t.derived.root.end(), p.derived.root.begin(), p.derived.root.end());
            unfit.insert(unfit.end(), rest_unfit[k - 1].begin(), rest_unfit[k - 1].end());
            p = row_tables{};  // (its memory back before the next part's copy)
        }
    }
    chunk_groups(L, t.derived);
    return t;
}

/// Whether every offset into `t`'s arrays fits the u32 that the tables hold
/// (`append_relation` and the composed edges store sizes as u32). Only an
/// input of billions of composed pairs could break it; `make_row_tables` then
/// keeps the all-node tables, which are exact and stay within the layout's own
/// (checked) sizes.
inline bool offsets_fit(const row_tables& t) {
    constexpr std::size_t most = std::numeric_limits<std::uint32_t>::max();
    const derived_rows& d = t.derived;
    for (const auto* v : t.tables())
        if (v->size() > most) return false;
    return d.node.size() <= most && d.mask.size() <= most && d.x_src.size() <= most;
}

} // namespace detail

/// Words per call edge in `row_tables::ce_info`, in the order of
/// `weir::ops::ifds_rows::ce_field`: start, exit, callee facts, exit's
/// pe_word, first mask word, mask words, return site, caller facts.
inline constexpr std::uint32_t call_edge_info_words = weir::ops::ifds_rows::ce_info_words;
/// Words per node in `row_tables::node_info`, in the order of
/// `weir::ops::ifds_rows::node_field`.
inline constexpr std::uint32_t node_info_words = weir::ops::ifds_rows::node_info_words;

namespace detail {
/// The most words of return masks a call edge may have per callee fact: up
/// to 64 caller facts. A caller with more maps through the layout's
/// `ret_off`/`ret_fact` instead (masks would take more room than the pairs).
inline constexpr std::uint32_t max_ret_mask_words = 2;

/// Packs the bitset of `t`'s solve: the blocks of the nodes that
/// `t.derived` does not list, in node order (see the file comment).
inline bitset_packing pack_bitset(const layout& L, const derived_rows& dr) {
    const std::uint32_t N = L.num_nodes;
    std::vector<char> derived(N, 0);
    for (const std::uint32_t n : dr.node) derived[n] = 1;
    bitset_packing b;
    b.pe_word.resize(std::size_t(N) + 1);
    std::uint32_t w = 0;  // at most L.pe_words: no overflow
    for (std::uint32_t n = 0; n < N; ++n) {
        if (derived[n]) continue;
        const std::uint32_t size = L.pe_word[n + 1] - L.pe_word[n];
        b.pe_word[n] = w;
        if (size == 0) continue;
        // the last run always ends at w in the packed bitset: it extends when it
        // also ends where this block starts in the layout's
        if (!b.runs.empty() && b.runs.back().unpacked + b.runs.back().words == L.pe_word[n])
            b.runs.back().words += size;
        else
            b.runs.push_back({w, L.pe_word[n], size});
        w += size;
    }
    for (std::uint32_t n = 0; n < N; ++n)
        if (derived[n]) b.pe_word[n] = w;
    b.pe_word[N] = b.words = w;
    return b;
}

/// Fills `t`'s call tables from `L` (see the file comment); `t.packing` must be set.
inline void add_call_tables(const layout& L, row_tables& t) {
    namespace f = weir::ops::ifds_rows;
    constexpr std::uint64_t most = std::numeric_limits<std::uint32_t>::max();
    const std::uint32_t N = L.num_nodes;
    t.site_row.assign(N, ~0u);
    t.site_call_off.clear();
    // per call site: F + 1 offsets, then its (call edge, callee fact) pairs
    auto site_pairs = [&](std::uint32_t n) {
        const std::uint32_t* rows = L.call_off.data() + L.row_base[n];
        return std::pair{rows[0], rows[L.node_fact_count[n]]};
    };
    std::uint64_t site_words = 0;
    for (std::uint32_t n = 0; n < N; ++n)
        if (L.node_kind[n] & kind_call_site) {
            const auto [b, e] = site_pairs(n);
            site_words += std::uint64_t(L.node_fact_count[n]) + 1 + 2ull * (e - b);
        }
    if (site_words < most) {  // else every site keeps ~0u: the op reads the layout's call_off
        t.site_call_off.reserve(site_words);
        for (std::uint32_t n = 0; n < N; ++n) {
            if (!(L.node_kind[n] & kind_call_site)) continue;
            const std::uint32_t sr = static_cast<std::uint32_t>(t.site_call_off.size()), F = L.node_fact_count[n];
            const std::uint32_t* rows = L.call_off.data() + L.row_base[n];
            const auto [b, e] = site_pairs(n);
            t.site_row[n] = sr;
            for (std::uint32_t d = 0; d <= F; ++d) t.site_call_off.push_back(sr + F + 1 + 2 * (rows[d] - b));
            for (std::uint32_t i = b; i < e; ++i) t.site_call_off.insert(t.site_call_off.end(), {L.call_ce[i], L.call_fact[i]});
        }
    }
    const std::size_t edges = L.ce_site.size();
    t.ce_info.assign(edges * call_edge_info_words, 0);
    std::uint64_t mask_total = 0;
    for (std::size_t ce = 0; ce < edges; ++ce) {
        const std::uint32_t q = L.ce_callee[ce], sq = L.proc_start[q], xq = L.proc_exit[q];
        const std::uint32_t fq = L.node_fact_count[sq], fc = L.node_fact_count[L.ce_site[ce]], wc = (fc + 31) / 32;
        const bool masks = wc <= max_ret_mask_words && mask_total + std::uint64_t(fq) * wc < most;
        std::uint32_t* info = t.ce_info.data() + ce * call_edge_info_words;
        info[f::ce_start] = sq, info[f::ce_exit] = xq, info[f::ce_callee_facts] = fq;
        info[f::ce_exit_word] = t.packing.pe_word[xq];
        info[f::ce_mask_first] = masks ? static_cast<std::uint32_t>(mask_total) : 0, info[f::ce_mask_words] = masks ? wc : 0;
        info[f::ce_retsite] = L.ce_retsite[ce], info[f::ce_site_facts] = fc;
        if (masks) mask_total += std::uint64_t(fq) * wc;
    }
    t.node_info.assign(std::size_t(N) * node_info_words, 0);
    for (std::uint32_t n = 0; n < N; ++n) {
        std::uint32_t* info = t.node_info.data() + std::size_t(n) * node_info_words;
        info[f::ni_facts] = L.node_fact_count[n], info[f::ni_pe_word] = t.packing.pe_word[n];
        info[f::ni_edge_begin] = t.edge_off[n], info[f::ni_edge_end] = t.edge_off[n + 1];
        info[f::ni_kind] = L.node_kind[n], info[f::ni_retsite] = L.node_retsite[n];
        info[f::ni_site_row] = t.site_row[n], info[f::ni_proc] = L.node_proc[n];
    }
    // 31 zero words after the last masks: every edge with one-word masks has
    // 32 words from its first (the op reads a row chunk's 32 at once)
    t.ret_mask.assign(mask_total ? mask_total + 31 : 0, 0);
    for (std::size_t ce = 0; ce < edges; ++ce) {
        const std::uint32_t* info = t.ce_info.data() + ce * call_edge_info_words;
        const std::uint32_t fq = info[f::ce_callee_facts], wc = info[f::ce_mask_words], fc = info[f::ce_site_facts];
        if (wc == 0) continue;
        detail::write_return_masks(L, static_cast<std::uint32_t>(ce), fc, fq, wc, t.ret_mask.data() + info[f::ce_mask_first]);
    }
}

} // namespace detail

/// True when every call site of `L` has its own rows in `t.site_call_off`
/// (`make_row_tables` leaves them all out only when they would not fit u32
/// offsets); the row ops then never read the layout's call relation.
inline bool every_site_has_pairs(const layout& L, const row_tables& t) {
    for (std::uint32_t n = 0; n < L.num_nodes; ++n)
        if ((L.node_kind[n] & kind_call_site) && (n >= t.site_row.size() || t.site_row[n] == ~0u)) return false;
    return true;
}

/// How `make_row_tables` works. The tables depend on `form` only: the
/// same, word for word, on any number of threads.
struct row_table_options {
    /// Which nodes the tables route the solve through.
    row_form form = row_form::skip_derived;
    /// Threads for the per-node work; 0: one per hardware thread.
    unsigned threads = 0;
    /// Layouts of fewer nodes are built on one thread.
    std::uint32_t min_parallel_nodes = detail::default_min_parallel_nodes;
};

namespace detail {
/// `make_row_tables` without the call tables.
inline row_tables intra_row_tables(const layout& L, const row_table_options& opt) {
    row_tables all = detail::all_node_row_tables(L);
    if (opt.form == row_form::all_nodes) return all;
    // plan, build; nodes that broke a limit are solved in the next round
    std::vector<char> also_solved;
    std::vector<std::uint32_t> unfit;
    for (int round = 0; round < detail::max_derivation_rounds; ++round) {
        unfit.clear();
        row_tables t = detail::skip_derived_row_tables(
            L, all, detail::derive_plan(L, all, also_solved, opt.threads, opt.min_parallel_nodes), unfit, opt.threads,
            opt.min_parallel_nodes);
        if (!detail::offsets_fit(t)) return all;  // a u32 offset would have wrapped: solve every node
        if (unfit.empty()) return t;
        also_solved.resize(L.num_nodes, 0);
        for (std::uint32_t m : unfit) also_solved[m] = 1;
    }
    return all;  // every node solved: always exact
}
} // namespace detail

/// Derives the row form from the layout's intraprocedural edges, and the
/// call tables.
inline row_tables make_row_tables(const layout& L, const row_table_options& opt) {
    row_tables t = detail::intra_row_tables(L, opt);
    t.packing = detail::pack_bitset(L, t.derived);
    detail::add_call_tables(L, t);
    return t;
}

/// `make_row_tables` in `form` with the default options.
inline row_tables make_row_tables(const layout& L, row_form form = row_form::skip_derived) {
    return make_row_tables(L, row_table_options{.form = form});
}

/// Moves a packed bitset (as a solve over row tables with packing `p`
/// leaves it) to the layout's positions, in place: `pe` has the layout's
/// `pe_words` words, the packed bitset's `p.words` first and zeros after
/// them. Afterwards every word outside the solved nodes' blocks is zero
/// (the derived nodes' blocks included, for `derive_rows` to fill).
inline void unpack_bitset(const bitset_packing& p, std::span<std::uint32_t> pe) {
    // Back to front: a block never moves down (packed ≤ unpacked), and the
    // blocks after it have left already, so no move overwrites a block not yet moved.
    for (auto r = p.runs.rbegin(); r != p.runs.rend(); ++r)
        if (r->packed != r->unpacked)
            std::memmove(pe.data() + r->unpacked, pe.data() + r->packed, std::size_t(r->words) * 4);
    // Then zero what lies between the moved blocks, within the packed words.
    std::uint32_t at = 0;
    for (const block_run& r : p.runs) {
        if (at >= p.words) break;
        if (at < r.unpacked) std::fill(pe.data() + at, pe.data() + std::min(r.unpacked, p.words), 0u);
        at = r.unpacked + r.words;
    }
    if (at < p.words) std::fill(pe.data() + at, pe.data() + p.words, 0u);
}

namespace detail {
/// `derive_rows` for groups `dr.order[i0, i1)` only; `atomic`: so that
/// threads may complete disjoint chunks (`dr.chunk_off`) at once, a derived
/// node fed by roots in several chunks (`dr.shared`) is written with atomic
/// ORs. The others are in one chunk only, so one thread writes their
/// words, and no two nodes share a word (each node's rows start a word).
inline void derive_groups(const layout& L, const derived_rows& dr, std::span<std::uint32_t> pe, std::size_t i0,
                          std::size_t i1, bool atomic) {
    std::vector<std::uint32_t> ctx, rows, out, wide;  // the solved node's non-empty rows; one entry's result
    std::vector<std::uint32_t> bits, bits_off, touched, sparse_out;  // rows of several words as their set bits
    for (std::size_t i = i0; i < i1; ++i) {
        const std::uint32_t g = dr.order[i], n = dr.root[g], F = L.node_fact_count[n], W = (F + 31) / 32;
        // the non-empty rows, kept without a branch (about half are empty, in no pattern)
        rows.resize(std::size_t(F) * W), ctx.resize(F);
        std::size_t k = 0;
        for (std::uint32_t c = 0; c < F; ++c) {
            const std::uint64_t pos = row_start(L, n, c);
            std::uint32_t any = 0;
            for (std::uint32_t j = 0; j < W; ++j) any |= rows[k * W + j] = read_row_bits(pe, pos + 32 * j, chunk_len(F, j));
            ctx[k] = c;
            k += any != 0;
        }
        if (k == 0) continue;
        rows.resize(k * W), ctx.resize(k);
        out.resize(W), wide.resize(ctx.size());
        if (W > 1) {  // (wide rows are sparse: most procedures' contexts hold a few facts)
            bits.clear(), bits_off.assign(1, 0);
            for (std::size_t r = 0; r < k; ++r) {
                for (std::uint32_t j = 0; j < W; ++j)
                    for (std::uint32_t m = rows[r * W + j]; m; m &= m - 1)
                        bits.push_back(32 * j + static_cast<std::uint32_t>(std::countr_zero(m)));
                bits_off.push_back(static_cast<std::uint32_t>(bits.size()));
            }
            sparse_out.assign(W, 0);
        }
        for (std::uint32_t e = dr.group_off[g]; e < dr.group_off[g + 1]; ++e) {
            const std::uint32_t s = dr.node[e];
            const std::uint32_t* id = dr.mask.data() + dr.mask_off[e];
            const bool atomic_or = atomic && (e >= dr.shared.size() || dr.shared[e]);
            const std::uint32_t x0 = dr.x_off[e], x1 = dr.x_off[e + 1];
            if (W == 1 && L.node_fact_count[s] == F) {
                // one word per row (procedures of up to 32 facts, the common case):
                // each step over all the root's rows at once (loops the compiler
                // vectorises), the node's block found once
                const std::size_t nc = ctx.size();
                for (std::size_t i = 0; i < nc; ++i) wide[i] = rows[i] & id[0];
                for (std::uint32_t x = x0; x < x1; ++x) {
                    const std::uint32_t a = dr.x_src[x], b = dr.x_dst[x];
                    if (a >= F || b >= F) continue;
                    for (std::size_t i = 0; i < nc; ++i) wide[i] |= ((rows[i] >> a) & 1u) << b;
                }
                const std::uint64_t base = row_start(L, s, 0);
                if (atomic_or) {
                    for (std::size_t i = 0; i < nc; ++i)
                        if (wide[i]) or_row_bits<true>(pe, base + std::uint64_t(ctx[i]) * F, wide[i]);
                    continue;
                }
                // The node's block, words [base / 32, end), is this thread's alone
                // (and no other node's), so each row is ORed in without a branch:
                // both words it may span, zeros included, within the block.
                const std::uint64_t end = (base + std::uint64_t(F) * F + 31) / 32;
                for (std::size_t i = 0; i < nc; ++i) {
                    const std::uint64_t pos = base + std::uint64_t(ctx[i]) * F, w = pos / 32;
                    const std::uint64_t v = std::uint64_t(wide[i]) << (pos % 32);
                    pe[w] |= static_cast<std::uint32_t>(v);
                    if (w + 1 < end) pe[w + 1] |= static_cast<std::uint32_t>(v >> 32);
                }
                continue;
            }
            const std::uint32_t* xs0 = dr.x_src.data() + x0;
            const std::uint32_t* xs1 = dr.x_src.data() + x1;
            for (std::size_t i = 0; i < ctx.size(); ++i) {
                const std::uint32_t* row = rows.data() + i * W;
                const std::uint32_t h0 = W > 1 ? bits_off[i] : 0, h1 = W > 1 ? bits_off[i + 1] : 0;
                if (W > 1 && std::uint64_t{h1 - h0} * 4 <= 2ull * W + (x1 - x0)) {
                    // a few facts in a wide row: each one's image (its pairs, sorted by source,
                    // looked up), and only the words it sets written
                    touched.clear();
                    auto set = [&](std::uint32_t b) {
                        if (!sparse_out[b / 32]) touched.push_back(b / 32);
                        sparse_out[b / 32] |= 1u << (b % 32);
                    };
                    for (std::uint32_t h = h0; h < h1; ++h) {
                        const std::uint32_t a = bits[h];
                        if ((id[a / 32] >> (a % 32)) & 1u) set(a);
                        if (x0 == x1) continue;
                        for (const std::uint32_t* q = std::lower_bound(xs0, xs1, a); q != xs1 && *q == a; ++q)
                            if (const std::uint32_t b = dr.x_dst[q - dr.x_src.data()]; b < F) set(b);
                    }
                    const std::uint64_t pos = row_start(L, s, ctx[i]);
                    for (const std::uint32_t j : touched) {
                        if (atomic_or) or_row_bits<true>(pe, pos + 32 * j, sparse_out[j]);
                        else or_row_bits(pe, pos + 32 * j, sparse_out[j]);
                        sparse_out[j] = 0;
                    }
                    continue;
                }
                for (std::uint32_t j = 0; j < W; ++j) out[j] = row[j] & id[j];
                for (std::uint32_t x = x0; x < x1; ++x) {
                    const std::uint32_t a = dr.x_src[x], b = dr.x_dst[x];
                    if (a < F && b < F && ((row[a / 32] >> (a % 32)) & 1u)) out[b / 32] |= 1u << (b % 32);
                }
                const std::uint64_t pos = row_start(L, s, ctx[i]);
                for (std::uint32_t j = 0; j < W; ++j) {
                    if (!out[j]) continue;
                    if (atomic_or) or_row_bits<true>(pe, pos + 32 * j, out[j]);
                    else or_row_bits(pe, pos + 32 * j, out[j]);
                }
            }
        }
    }
}
} // namespace detail

/// Completes a path-edge bitset solved over `make_row_tables(L)`'s tables:
/// sets every derived node's rows from its roots' (the solved rows are
/// final, so the derived ones are exact). `pe` has `L.pe_words` words.
inline void derive_rows(const layout& L, const derived_rows& dr, std::span<std::uint32_t> pe) {
    detail::derive_groups(L, dr, pe, 0, dr.order.size(), false);
}

} // namespace weir::ifds
