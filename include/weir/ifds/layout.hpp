#pragma once
/// \file weir/ifds/layout.hpp
/// The solver's view of a `problem`: dense ids, per-procedure fact sets, and
/// flat CSR tables over (edge, fact), all as u32 arrays that upload as they are.
///
/// Path edges. A path edge <s_p, c> -> <n, d> of procedure p is stored as one
/// bit in node n's block of the path-edge bitset: the block is F_p x F_p bits
/// (F_p = |fact set of p|), bit index `c * F_p + d` from bit `32 * pe_word[n]`,
/// with c and d *local* fact indices of p. Local index 0 is always the zero fact.
///
/// Rows. A (node n, local fact d) pair is row `row_base[n] + d`.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>

#include <weir/ifds/problem.hpp>

namespace weir::ifds {

/// The form of a layout's intraprocedural edges (`make_layout`).
enum class intra_form {
    /// The per-row CSR (`layout::intra_off`, `intra_node`, `intra_fact`):
    /// what every solver reads.
    per_row,
    /// Only the per-edge relations (`layout::intra_edge_off` ...): what the
    /// row-wise solve reads (`kernel_mode::row_solve`, on the host backends),
    /// in a fraction of the memory (a mask of ceil(F/32) words and the
    /// non-identity pairs per edge, against an entry per (row, target)). The
    /// tabulation solver and the per-fact kernels refuse such a layout.
    per_edge,
};

/// Node roles (bit flags in `layout::node_kind`).
enum node_kind_bits : std::uint32_t { kind_call_site = 1, kind_exit = 2, kind_start = 4 };

/// The flat solver layout of a problem (see the file comment for encodings).
struct layout {
    std::uint32_t num_nodes = 0;
    std::uint32_t num_procs = 0;
    std::uint32_t num_facts = 0;   ///< global facts including zero
    std::uint32_t num_rows = 0;    ///< Σ_n F_proc(n)
    std::uint32_t pe_words = 0;    ///< u32 words of the path-edge bitset

    // per procedure
    std::vector<std::uint32_t> proc_start, proc_exit;
    std::vector<std::uint32_t> proc_fact_off;  ///< size num_procs+1, into proc_facts
    std::vector<std::uint32_t> proc_facts;     ///< global fact id of each local fact (local 0 = fact 0)

    // per node
    std::vector<std::uint32_t> node_proc;
    std::vector<std::uint32_t> node_kind;      ///< node_kind_bits
    std::vector<std::uint32_t> node_fact_count;///< F_p of the node's procedure (copy, for kernels)
    std::vector<std::uint32_t> row_base;       ///< size num_nodes+1
    std::vector<std::uint32_t> pe_word;        ///< size num_nodes+1: first word of the node's block
    std::vector<std::uint32_t> node_retsite;   ///< return site of a call site, else ~0u

    // intraprocedural edges (flow and call-to-return), by source row:
    // targets (node, local fact)
    std::vector<std::uint32_t> intra_off;      ///< size num_rows+1
    std::vector<std::uint32_t> intra_node, intra_fact;
    // the same edges per edge (`intra_form::per_edge` only, which leaves the
    // CSR above empty; `row_tables`' encoding): node n's edges are
    // [intra_edge_off[n], intra_edge_off[n+1]), by target node; each has its
    // target, an identity mask (ceil(F/32) words from intra_edge_mask_off:
    // the local facts d with d -> d) and its other pairs (d, d'), from
    // intra_edge_x_off
    std::vector<std::uint32_t> intra_edge_off;       ///< size num_nodes+1 (per_edge), else empty
    std::vector<std::uint32_t> intra_edge_dst, intra_edge_mask_off, intra_edge_mask;
    std::vector<std::uint32_t> intra_edge_x_off;     ///< size edges+1 (per_edge), else empty
    std::vector<std::uint32_t> intra_edge_x_src, intra_edge_x_dst;

    // call edges, one per (site, callee), in problem.calls order
    std::vector<std::uint32_t> ce_site, ce_callee, ce_retsite;
    // call relation by caller row (site, d): entries (call edge, local fact in callee)
    std::vector<std::uint32_t> call_off;       ///< size num_rows+1
    std::vector<std::uint32_t> call_ce, call_fact;
    // return relation per call edge, keyed by ret_row[ce] + d (d local in callee):
    // local facts in the caller
    std::vector<std::uint32_t> ret_row;        ///< size ce+1
    std::vector<std::uint32_t> ret_off, ret_fact;
    // reverse call relation per call edge, keyed by rcall_row[ce] + d3 (d3 local in callee):
    // caller-local facts d with callflow(d) ∋ d3
    std::vector<std::uint32_t> rcall_row;      ///< size ce+1
    std::vector<std::uint32_t> rcall_off, rcall_fact;
    // call edges into each procedure
    std::vector<std::uint32_t> callers_off;    ///< size num_procs+1
    std::vector<std::uint32_t> callers_ce;

    // seeds as (start node, local fact); duplicates removed
    std::vector<std::uint32_t> seed_node, seed_fact;

    /// True when the per-row CSR of the intraprocedural edges is there
    /// (`intra_form::per_row`), which the tabulation solver and the per-fact
    /// kernels read.
    bool has_intra_rows() const { return intra_off.size() == std::size_t{num_rows} + 1; }
    /// F_p of procedure p.
    std::uint32_t fact_count(std::uint32_t p) const { return proc_fact_off[p + 1] - proc_fact_off[p]; }
    /// Global fact id of local fact d of procedure p.
    fact_id global_fact(std::uint32_t p, std::uint32_t d) const { return proc_facts[proc_fact_off[p] + d]; }
};

namespace detail {
/// "No such index" marker (a fact outside a fact set).
inline constexpr std::uint32_t no_index = ~0u;

/// Local index of global fact `g` in the sorted fact set `set`, or `no_index`.
inline std::uint32_t local_index(std::span<const fact_id> set, fact_id g) {
    auto it = std::lower_bound(set.begin(), set.end(), g);
    if (it == set.end() || *it != g) return no_index;
    return static_cast<std::uint32_t>(it - set.begin());
}

/// Local index of global fact `g` in procedure `p`'s fact set, or `no_index`.
inline std::uint32_t local_fact(const layout& L, std::uint32_t p, fact_id g) {
    return local_index(std::span<const fact_id>(L.proc_facts.data() + L.proc_fact_off[p], L.fact_count(p)), g);
}

/// True when per-edge edge `e` keeps local fact d (d -> d, its identity mask).
inline bool intra_edge_keeps(const layout& L, std::uint32_t e, std::uint32_t d) {
    return L.intra_edge_mask[L.intra_edge_mask_off[e] + d / 32] >> (d % 32) & 1u;
}

/// The positions [first, second) in `intra_edge_x_src` of per-edge edge
/// `e`'s pairs (d, d') with source d (make_layout sorts them by (d, d')).
inline std::pair<std::uint32_t, std::uint32_t> intra_pairs_from(const layout& L, std::uint32_t e, std::uint32_t d) {
    const std::uint32_t* xs = L.intra_edge_x_src.data();
    const auto [b, f] = std::equal_range(xs + L.intra_edge_x_off[e], xs + L.intra_edge_x_off[e + 1], d);
    return {static_cast<std::uint32_t>(b - xs), static_cast<std::uint32_t>(f - xs)};
}

/// Calls `fn(t, d2)` for each intraprocedural or call-to-return edge from
/// (node n, local fact d) to (t, d2), in either of the layout's forms
/// (`intra_form`), in the same order: by edge, then by d2. For readers that
/// visit a few rows (witnesses, whose first derivations follow this order);
/// the solvers read their own form directly.
template <class Fn>
inline void for_each_intra_target(const layout& L, std::uint32_t n, std::uint32_t d, Fn&& fn) {
    if (L.has_intra_rows()) {
        const std::uint32_t row = L.row_base[n] + d;
        for (std::uint32_t i = L.intra_off[row]; i < L.intra_off[row + 1]; ++i) fn(L.intra_node[i], L.intra_fact[i]);
        return;
    }
    for (std::uint32_t e = L.intra_edge_off[n]; e < L.intra_edge_off[n + 1]; ++e) {
        const std::uint32_t t = L.intra_edge_dst[e];
        // d -> d (the mask) in its place among the pairs d -> d' (d' != d)
        bool keep = intra_edge_keeps(L, e, d);
        const auto [x0, x1] = intra_pairs_from(L, e, d);
        for (std::uint32_t k = x0; k < x1; ++k) {
            const std::uint32_t d2 = L.intra_edge_x_dst[k];
            if (keep && d2 > d) fn(t, d), keep = false;
            fn(t, d2);
        }
        if (keep) fn(t, d);
    }
}

/// True when an intraprocedural or call-to-return edge leads from (node m,
/// local fact d1) to (n, d), in either form.
inline bool has_intra_edge(const layout& L, std::uint32_t m, std::uint32_t d1, std::uint32_t n, std::uint32_t d) {
    if (L.has_intra_rows()) {
        const std::uint32_t row = L.row_base[m] + d1;
        for (std::uint32_t i = L.intra_off[row]; i < L.intra_off[row + 1]; ++i)
            if (L.intra_node[i] == n && L.intra_fact[i] == d) return true;
        return false;
    }
    for (std::uint32_t e = L.intra_edge_off[m]; e < L.intra_edge_off[m + 1]; ++e) {
        if (L.intra_edge_dst[e] != n) continue;
        if (d1 == d) {
            if (intra_edge_keeps(L, e, d)) return true;
            continue;  // the pairs hold d -> d' with d' != d only
        }
        const auto [x0, x1] = intra_pairs_from(L, e, d1);
        if (std::binary_search(L.intra_edge_x_dst.begin() + x0, L.intra_edge_x_dst.begin() + x1, d)) return true;
    }
    return false;
}

/// Calls `fn(t)` for each node t that an intraprocedural or call-to-return
/// edge from node n reaches with some fact, in either form (a node may come
/// more than once).
template <class Fn>
inline void for_each_intra_successor(const layout& L, std::uint32_t n, Fn&& fn) {
    if (L.has_intra_rows()) {
        for (std::uint32_t i = L.intra_off[L.row_base[n]]; i < L.intra_off[L.row_base[n + 1]]; ++i) fn(L.intra_node[i]);
        return;
    }
    for (std::uint32_t e = L.intra_edge_off[n]; e < L.intra_edge_off[n + 1]; ++e) fn(L.intra_edge_dst[e]);
}

/// The first bit of row (node n, context c) in the path-edge bitset.
inline std::uint64_t row_start(const layout& L, std::uint32_t n, std::uint32_t c) {
    return std::uint64_t(L.pe_word[n]) * 32 + std::uint64_t(c) * L.node_fact_count[n];
}
/// How many facts chunk j (facts 32j .. 32j+31) of a row of F facts holds.
inline std::uint32_t chunk_len(std::uint32_t F, std::uint32_t j) { return std::min<std::uint32_t>(32, F - 32 * j); }
/// `len` (≤ 32) bits of a path-edge bitset from bit `pos` (in range).
inline std::uint32_t read_row_bits(std::span<const std::uint32_t> pe, std::uint64_t pos, std::uint32_t len) {
    const std::uint64_t w = pos / 32;
    const std::uint32_t s = pos % 32;
    std::uint64_t v = pe[w] >> s;
    if (s + len > 32) v |= std::uint64_t(pe[w + 1]) << (32 - s);
    return static_cast<std::uint32_t>(v) & (len == 32 ? ~0u : (1u << len) - 1);
}
/// The local facts that some context reaches at node `n`: the OR of the
/// node's rows, as (F + 31) / 32 words in `out` (F its fact count).
/// (Each chunk is ORed in a local: `pe`'s words may alias `out`'s, so an OR
/// into `out` would be stored after every row. Only the node's own words are
/// read: threads may be writing other nodes' blocks meanwhile.)
inline void held_facts(const layout& L, std::span<const std::uint32_t> pe, std::uint32_t n, std::vector<std::uint32_t>& out) {
    const std::uint32_t F = L.node_fact_count[n], W = (F + 31) / 32;
    out.resize(W);
    const std::uint32_t* const bits = pe.data();
    const std::uint64_t end = std::min<std::uint64_t>(L.pe_word[n + 1], pe.size());  // past the node's block
    const std::uint64_t two = end > 0 ? 32 * (end - 1) : 0;  // a chunk from a bit below this may take two words
    for (std::uint32_t j = 0; j < W; ++j) {
        std::uint32_t m = 0;
        std::uint64_t pos = row_start(L, n, 0) + 32 * j;
        std::uint32_t c = 0;
        for (; c < F && pos < two; ++c, pos += F) {  // 32 bits from pos (those past the chunk masked below)
            std::uint64_t v;
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(&v, bits + pos / 32, 8);  // two words in one load
            } else {
                v = bits[pos / 32] | std::uint64_t{bits[pos / 32 + 1]} << 32;
            }
            m |= static_cast<std::uint32_t>(v >> (pos % 32));
        }
        for (; c < F; ++c, pos += F)  // chunks in the block's last word
            m |= bits[pos / 32] >> (pos % 32);
        const std::uint32_t len = chunk_len(F, j);
        out[j] = len == 32 ? m : m & ((1u << len) - 1);
    }
}
/// Writes call edge `ce`'s return flow as masks: for each callee exit fact
/// d4 < `fq`, `words` words at `out + d4 * words` (zeroed by the caller) get
/// the caller facts d5 < `fc` that the edge returns d4 to. Shared by the row
/// tables' `ret_mask` and the summary count's `return_masks`.
inline void write_return_masks(const layout& L, std::uint32_t ce, std::uint32_t fc, std::uint32_t fq, std::uint32_t words,
                               std::uint32_t* out) {
    for (std::uint32_t d4 = 0; d4 < fq; ++d4) {
        const std::uint32_t rr = L.ret_row[ce] + d4;
        for (std::uint32_t k = L.ret_off[rr]; k < L.ret_off[rr + 1]; ++k)
            if (const std::uint32_t d5 = L.ret_fact[k]; d5 < fc) out[std::size_t(d4) * words + d5 / 32] |= 1u << (d5 % 32);
    }
}
/// Sets the bits of `mask` (a row chunk, in range) from bit `pos`; `Atomic`:
/// with atomic ORs, for threads that may share a word.
template <bool Atomic = false>
inline void or_row_bits(std::span<std::uint32_t> pe, std::uint64_t pos, std::uint32_t mask) {
    auto put = [&](std::uint64_t w, std::uint32_t bits) {
        if constexpr (Atomic) std::atomic_ref<std::uint32_t>(pe[w]).fetch_or(bits, std::memory_order_relaxed);
        else pe[w] |= bits;
    };
    const std::uint64_t w = pos / 32;
    const std::uint32_t s = pos % 32;
    put(w, mask << s);
    if (s && (mask >> (32 - s))) put(w + 1, mask >> (32 - s));
}
} // namespace detail

/// Why a layout without its per-row intraprocedural CSR
/// (`intra_form::per_edge`) cannot serve `who`, which reads it.
inline std::string missing_intra_rows(const std::string& who) {
    return who + ": the layout has its intraprocedural edges per edge only (intra_form::per_edge), and this solver "
                 "reads them per row";
}

/// Fails with `invalid_argument` when `L` lacks the per-row CSR that `who` reads.
inline vyre::result<void> check_intra_rows(const layout& L, const std::string& who) {
    if (L.has_intra_rows()) return {};
    return vyre::fail(vyre::error_code::invalid_argument, missing_intra_rows(who),
                      "make the layout with make_layout(pb) (intra_form::per_row), or solve it with the row-wise "
                      "solve of a host backend (kernel_mode::row_solve)");
}

/// Checks seeds given in layout terms (start nodes, local facts of their
/// procedures); `who` names the caller in the message.
inline vyre::result<void> check_seeds(const layout& L, std::span<const std::uint32_t> seed_node,
                                      std::span<const std::uint32_t> seed_fact, const std::string& who) {
    if (seed_node.size() != seed_fact.size())
        return vyre::fail(vyre::error_code::invalid_argument,
                          who + ": seed nodes and facts differ in number (" + std::to_string(seed_node.size()) +
                              " nodes, " + std::to_string(seed_fact.size()) + " facts)",
                          "pass one local fact per seed node");
    for (std::size_t i = 0; i < seed_node.size(); ++i) {
        const auto n = seed_node[i];
        if (n >= L.num_nodes || !(L.node_kind[n] & kind_start))
            return vyre::fail(vyre::error_code::invalid_argument,
                              who + ": seed " + std::to_string(i) + " is not at a start node (node " + std::to_string(n) + ")",
                              "seed only start nodes of procedures");
        if (seed_fact[i] >= L.node_fact_count[n])
            return vyre::fail(vyre::error_code::invalid_argument,
                              who + ": seed " + std::to_string(i) + " has local fact " + std::to_string(seed_fact[i]) +
                                  " outside its procedure's fact set of " + std::to_string(L.node_fact_count[n]) + " facts",
                              "use local fact indices of the seed's procedure");
    }
    return {};
}

} // namespace weir::ifds
