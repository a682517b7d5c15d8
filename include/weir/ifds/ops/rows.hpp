#pragma once
/// \file weir/ifds/ops/rows.hpp
/// Row-wise IFDS expansion, the step of the `ifds_rows_solve` op
/// (weir/ifds/ops/solve.hpp): an entry carries up to 32 facts of one row of
/// the path-edge bitset at once, so identity-like flow functions cost one
/// word operation per 32 facts instead of one step per fact.
///
/// Row tables: the 25 graph tables of `tables.hpp` are followed by the 10
/// row tables of `weir::ifds::row_tables` (edge_dst, edge_mask_off,
/// edge_mask, edge_x_off, edge_x_src, edge_x_dst, then the call tables
/// site_call_off, ce_info and ret_mask, and node_info). Of the 25, the row
/// code never reads intra_off, intra_node and intra_fact, nor call_off,
/// call_ce and call_fact when every call site has a site row (weir then
/// leaves them out, `weir::ifds::detail::left_out_with_rows`).
///
/// `node_info` holds `node_info_words` words per node (`node_field`): its
/// facts, bitset word, edge range (into edge_dst), kind, return site, site
/// row and procedure, which the ops read there rather than from seven
/// tables. A call site's site row (~0u: none) indexes `site_call_off`, which holds the site's
/// F + 1 offsets (word positions in `site_call_off` itself) followed by its
/// (call edge, callee fact) pairs, two words each: fact d's pairs lie in
/// [off[d], off[d+1]). Without a site row the op reads the graph's
/// `call_off`/`call_ce`/`call_fact`. `ce_info` holds `ce_info_words` words
/// per call edge (`ce_field`); `ret_mask` holds, for a call edge with
/// `ce_mask_words` = w > 0, the return flow as masks: w words over the
/// caller's facts per callee fact, from `ce_mask_first` (w = 0: the op maps
/// through `ret_off`/`ret_fact`); with w = 1 and 32 words from
/// `ce_mask_first` in the table (weir's row tables pad it with 31 zero
/// words), the op maps a whole row chunk at once (`select_masks`).
///
/// An entry is 4 words: node, context, chunk k, and a mask of the facts
/// 32k..32k+31 of row (node, context) that are new.

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <vyre/core/result.hpp>
#include <weir/ifds/ops/return_memo.hpp>
#include <weir/ifds/ops/tables.hpp>
#include <vyre/ops/op_info.hpp>

namespace weir::ops::ifds_rows {

using ifds::tables;
using ifds::words;

/// Row-table indices, after the 25 graph tables.
enum row_table : std::uint32_t {
    edge_dst, edge_mask_off, edge_mask, edge_x_off, edge_x_src, edge_x_dst,
    site_call_off, ce_info, ret_mask, node_info,
    row_table_count
};
/// The row tables' parameter names, in `row_table` order (weir binds its
/// buffers under the same names, `weir::ifds::row_table_buffers`).
inline constexpr std::array<std::string_view, row_table_count> row_table_names = {
    "edge_dst", "edge_mask_off", "edge_mask", "edge_x_off", "edge_x_src", "edge_x_dst",
    "site_call_off", "ce_info", "ret_mask", "node_info"};
/// The fields of a call edge's `ce_info` record.
enum ce_field : std::uint32_t {
    ce_start,         ///< the callee's start node
    ce_exit,          ///< the callee's exit node
    ce_callee_facts,  ///< the callee's fact count
    ce_exit_word,     ///< `pe_word` of the exit node
    ce_mask_first,    ///< first word of the edge's return masks in `ret_mask`
    ce_mask_words,    ///< words per return mask (the caller's facts / 32, rounded up), 0: no masks
    ce_retsite,       ///< the return site
    ce_site_facts,    ///< the caller's fact count
    ce_info_words
};
/// The fields of a node's `node_info` record: what an expansion of the
/// node, or a chunk added to it, reads about it, in one place.
enum node_field : std::uint32_t {
    ni_facts,       ///< the node's fact count
    ni_pe_word,     ///< its first word in the path-edge bitset
    ni_edge_begin,  ///< its edges out: [edge_begin, edge_end) of edge_dst
    ni_edge_end,
    ni_kind,        ///< node_kind
    ni_retsite,     ///< a call site's return site
    ni_site_row,    ///< a call site's first word in site_call_off, else ~0u
    ni_proc,        ///< its procedure
    node_info_words
};
/// Argument positions: the row tables after the 25 graph tables, then the path-edge bitset.
inline constexpr std::uint32_t arg_rows = ifds::table_count, arg_pe = arg_rows + row_table_count;
/// Words per entry.
inline constexpr std::uint32_t entry_words = 4;

/// Bounds-checked views of the row tables.
struct rows {
    std::array<const std::uint32_t*, row_table_count> p{};
    std::array<std::uint64_t, row_table_count> n{};
    explicit rows(std::span<const op_arg> args) {
        for (std::uint32_t i = 0; i < row_table_count; ++i) {
            p[i] = reinterpret_cast<const std::uint32_t*>(args[arg_rows + i].bytes.data());
            n[i] = args[arg_rows + i].bytes.size() / 4;
        }
    }
    WEIR_INLINE std::uint32_t operator()(row_table t, std::uint64_t i) const { return i < n[t] ? p[t][i] : 0u; }
    /// Node `node`'s `node_info` record, or nullptr when the table has none.
    WEIR_INLINE const std::uint32_t* node(std::uint64_t node) const {
        return (node + 1) * node_info_words <= n[node_info] ? p[node_info] + node * node_info_words : nullptr;
    }
    /// Entries [off[i], off[i+1]) of offset table `off`, clipped to the length of `elems`.
    WEIR_INLINE std::pair<std::uint32_t, std::uint32_t> range(row_table off, std::uint64_t i, row_table elems) const {
        return ifds::clip_range((*this)(off, i), (*this)(off, i + 1), n[elems]);
    }
};

/// The fact count in node record `info`, or 0 when the bitset could not hold
/// so many (as `tables::facts`).
WEIR_INLINE std::uint32_t node_facts(const tables& T, const std::uint32_t* info) {
    return info[ni_facts] <= T.max_facts ? info[ni_facts] : 0u;
}

/// Call edge `ce`'s record field `f` (0 when out of range).
WEIR_INLINE std::uint32_t ce_at(const rows& R, std::uint32_t ce, ce_field f) {
    return R(ce_info, std::uint64_t(ce) * ce_info_words + f);
}

/// Reads `len` (≤ 32) bits at global bit position `pos` of the bitset.
inline std::uint32_t read_bits(const words& pe, std::uint64_t pos, std::uint32_t len) {
    const std::uint64_t w = pos >> 5;
    const std::uint32_t s = pos & 31;
    auto ld = [&](std::uint64_t i) {
        // seq_cst: pairs with or_word's read-modify-write (see vyre/ops/ifds_solve.hpp); a plain load on x86
        return i < pe.n ? std::atomic_ref<std::uint32_t>(pe.p[i]).load(std::memory_order_seq_cst) : 0u;
    };
    std::uint64_t v = ld(w) >> s;
    if (s + len > 32) v |= std::uint64_t(ld(w + 1)) << (32 - s);
    return static_cast<std::uint32_t>(v) & (len == 32 ? ~0u : ((1u << len) - 1));
}


/// Reads bit `pos` of the bitset (0 out of range), sequentially consistent as `read_bits`.
WEIR_INLINE bool test_bit(const words& pe, std::uint64_t pos) {
    const std::uint64_t w = pos >> 5;
    return w < pe.n && ((std::atomic_ref<std::uint32_t>(pe.p[w]).load(std::memory_order_seq_cst) >> (pos & 31)) & 1u);
}

/// Sets the bits of `mask` at bit position `pos`; returns those that were not set before.
template <bool Atomic>
WEIR_INLINE std::uint32_t or_bits(const words& pe, std::uint64_t pos, std::uint32_t mask) {
    const std::uint64_t w = pos >> 5;
    const std::uint32_t s = pos & 31;
    const std::uint32_t lo = mask << s, hi = s ? static_cast<std::uint32_t>(std::uint64_t(mask) >> (32 - s)) : 0u;
    const std::uint32_t old_lo = ifds::or_word<Atomic>(pe, w, lo), old_hi = ifds::or_word<Atomic>(pe, w + 1, hi);
    const std::uint32_t old = static_cast<std::uint32_t>((std::uint64_t(old_lo) >> s) | (s ? std::uint64_t(old_hi) << (32 - s) : 0));
    return mask & ~old;
}

/// Where chunk k of row ctx starts in the bitset, for a node of F facts
/// whose block starts at word `pe_word`.
WEIR_INLINE std::uint64_t chunk_pos(std::uint32_t pe_word, std::uint32_t F, std::uint32_t ctx, std::uint32_t k) {
    return std::uint64_t(pe_word) * 32 + std::uint64_t(ctx) * F + 32ull * k;
}
/// Where chunk k of row (node, ctx) starts in the bitset, from the node's
/// `node_info` record (F from `node_facts`).
WEIR_INLINE std::uint64_t row_pos(const std::uint32_t* info, std::uint32_t F, std::uint32_t ctx, std::uint32_t k) {
    return chunk_pos(info[ni_pe_word], F, ctx, k);
}
/// How many facts chunk k (facts 32k .. 32k+31) of a row of F facts holds.
inline std::uint32_t chunk_len(std::uint32_t F, std::uint32_t k) { return std::min<std::uint32_t>(32, F - 32 * k); }
/// The bits of chunk k of a row of F facts that are facts (all 32 but in the last chunk).
WEIR_INLINE std::uint32_t chunk_mask(std::uint32_t F, std::uint32_t k) {
    const std::uint32_t len = chunk_len(F, k);
    return len == 32 ? ~0u : (1u << len) - 1;
}

/// ORs into `out` (`words` words over the caller's facts, F of them) the
/// caller facts that call edge `ce` returns callee fact `d4` to: from its
/// return mask when it has masks, else through the graph's `ret_off`/`ret_fact`.
/// Returns whether it added any bit.
WEIR_INLINE bool map_return(const ifds::tables& T, const rows& R, std::uint32_t ce, std::uint32_t d4,
                                 std::uint32_t mask_first, std::uint32_t mask_words, std::uint32_t* out,
                                 std::uint32_t words, std::uint32_t F) {
    std::uint32_t any = 0;
    if (mask_words != 0) {
        const std::uint64_t at = std::uint64_t(mask_first) + std::uint64_t(d4) * mask_words;
        for (std::uint32_t j = 0; j < std::min(mask_words, words); ++j) {
            const std::uint32_t m = R(ret_mask, at + j) & chunk_mask(F, j);
            out[j] |= m, any |= m;
        }
        return any != 0;
    }
    const std::uint64_t rr = std::uint64_t(T(ifds::ret_row, ce)) + d4;
    for (auto [t, t_end] = T.range(ifds::ret_off, rr, ifds::ret_fact); t < t_end; ++t) {
        const std::uint32_t d5 = T(ifds::ret_fact, t);
        if (d5 < F) out[d5 / 32] |= 1u << (d5 % 32), any = 1;
    }
    return any != 0;
}

/// The OR of the masks `mk[b]` that the bits b of `x` select (32 masks):
/// the facts a one-word return flow maps the facts of `x` to, with no branch
/// per bit (a loop over the set bits ends at a place the branch predictor
/// cannot know; this one is a few vector instructions).
WEIR_INLINE std::uint32_t select_masks(const std::uint32_t* mk, std::uint32_t x) {
    std::uint32_t r = 0;
    for (std::uint32_t b = 0; b < 32; ++b) r |= mk[b] & (0u - ((x >> b) & 1u));
    return r;
}

/// The 32 one-word return masks of a call edge from `mask_first` in
/// `ret_mask`, when the edge has one-word masks and 32 of them lie in the
/// table (the row tables pad `ret_mask` so that they do); else null.
WEIR_INLINE const std::uint32_t* one_word_masks(const rows& R, std::uint32_t mask_first, std::uint32_t mask_words) {
    return mask_words == 1 && std::uint64_t(mask_first) + 32 <= R.n[ret_mask] ? R.p[ret_mask] + mask_first : nullptr;
}

/// Per-thread scratch for one entry's expansion: masks over a procedure's
/// facts (`b`, and `a` for the extra pairs of an edge), or a list of facts
/// (`a` in the exit case: the caller facts that enter the context).
struct scratch {
    std::vector<std::uint32_t> a, b, c;
    return_memo memo;  ///< the call sites' mapped callee summaries
    std::array<std::uint32_t, 4> small_a{}, small_b{}, small_c{};  ///< used instead of a, b, c for masks of up to 128 facts
};

/// `W` zeroed words: `small` when they fit (no heap work per entry), else `big`.
WEIR_INLINE std::uint32_t* zeroed_words(std::uint32_t W, std::array<std::uint32_t, 4>& small, std::vector<std::uint32_t>& big) {
    if (W <= small.size()) {
        small = {};
        return small.data();
    }
    big.assign(W, 0);
    return big.data();
}

/// Expands one entry. `sink.add(node, ctx, k, mask)` receives every row chunk to OR in.
template <class Sink>
void expand_entry(const tables& T, const rows& R, const words& pe, const std::uint32_t* e, Sink& sink, scratch& sc) {
    using namespace ifds;
    const std::uint32_t n = e[0], c = e[1], k = e[2], delta = e[3];
    const std::uint32_t* info = R.node(n);
    if (info == nullptr) return;
    const std::uint32_t F = node_facts(T, info);
    if (F == 0 || 32ull * k >= F || c >= F) return;
    const std::uint32_t W = (F + 31) / 32;
    // intraprocedural edges: identity part chunk-wise, extra pairs one by one
    for (auto [ed, ed_end] = ifds::clip_range(info[ni_edge_begin], info[ni_edge_end], R.n[edge_dst]); ed < ed_end; ++ed) {
        const std::uint32_t m = R(edge_dst, ed);
        const std::uint32_t idm = R(edge_mask, std::uint64_t(R(edge_mask_off, ed)) + k) & delta;
        const auto [x0, x1] = R.range(edge_x_off, ed, edge_x_src);
        if (x0 == x1) {
            if (idm) sink.add(m, c, k, idm);
            continue;
        }
        std::uint32_t* out = zeroed_words(W, sc.small_a, sc.a);
        out[k] = idm;
        for (std::uint32_t x = x0; x < x1; ++x) {
            const std::uint32_t s = R(edge_x_src, x), d = R(edge_x_dst, x);
            if (s / 32 == k && ((delta >> (s % 32)) & 1u) && d < F) out[d / 32] |= 1u << (d % 32);
        }
        for (std::uint32_t j = 0; j < W; ++j)
            if (out[j]) sink.add(m, c, j, out[j]);
    }
    const std::uint32_t kind = info[ni_kind];
    if (kind & 1u) {  // call site: enter the callees, apply their known summaries
        const std::uint32_t r = info[ni_retsite];
        std::uint32_t* ret = zeroed_words(W, sc.small_b, sc.b);  // facts to add at the return site, context c
        bool any = false;
        const std::uint32_t sr = info[ni_site_row];  // the site's rows in site_call_off (~0u: the graph's call_off)
        // call edge ce maps the site's fact to callee fact d3: enter, and return what its exit has
        auto call = [&](std::uint32_t ce, std::uint32_t d3) WEIR_LAMBDA_INLINE {
            const std::uint32_t sq = ce_at(R, ce, ce_start), fq = ce_at(R, ce, ce_callee_facts);
            if (d3 >= fq || fq > T.max_facts) return;
            sink.add(sq, d3, d3 / 32, 1u << (d3 % 32));
            // a sink that indexes caller contexts (ifds_solve's) records this one before reading the exit
            if constexpr (requires { sink.enter(ce, d3, c); }) sink.enter(ce, d3, c);
            const std::uint64_t exit_row = std::uint64_t(ce_at(R, ce, ce_exit_word)) * 32 + std::uint64_t(d3) * fq;
            const std::uint32_t mask_first = ce_at(R, ce, ce_mask_first), mask_words = ce_at(R, ce, ce_mask_words);
            if (const std::uint32_t* mk = one_word_masks(R, mask_first, mask_words); mk != nullptr && W == 1 && fq <= 32) {
                const std::uint32_t back = select_masks(mk, read_bits(pe, exit_row, fq)) & chunk_mask(F, 0);
                ret[0] |= back;
                any |= back != 0;
                return;
            }
            const std::uint32_t wq = (fq + 31) / 32;
            // a row of few facts is mapped directly: cheaper than a lookup in the memo
            const std::uint32_t enough = sc.memo.min_facts();
            std::uint32_t held = 0;
            for (std::uint32_t j = 0; j < wq && held < enough; ++j)
                for (std::uint32_t x = read_bits(pe, exit_row + 32ull * j, chunk_len(fq, j)); x && held < enough; x &= x - 1)
                    ++held;
            std::uint32_t* memo = nullptr;
            if (held >= enough && (memo = sc.memo.find(ce, d3, F)) == nullptr) memo = sc.memo.insert(ce, d3, fq, F);
            if (memo == nullptr) {
                for (std::uint32_t j = 0; j < wq; ++j) {
                    for (std::uint32_t x = read_bits(pe, exit_row + 32ull * j, chunk_len(fq, j)); x; x &= x - 1) {
                        const std::uint32_t d4 = 32 * j + static_cast<std::uint32_t>(std::countr_zero(x));
                        any |= map_return(T, R, ce, d4, mask_first, mask_words, ret, W, F);
                    }
                }
                return;
            }
            // map only the exit bits new since the snapshot (all of them for a new record)
            std::uint32_t* mapped = memo + wq;
            for (std::uint32_t j = 0; j < wq; ++j) {
                const std::uint32_t fresh = read_bits(pe, exit_row + 32ull * j, chunk_len(fq, j)) & ~memo[j];
                memo[j] |= fresh;
                for (std::uint32_t x = fresh; x; x &= x - 1) {
                    const std::uint32_t d4 = 32 * j + static_cast<std::uint32_t>(std::countr_zero(x));
                    map_return(T, R, ce, d4, mask_first, mask_words, mapped, W, F);
                }
            }
            for (std::uint32_t j = 0; j < W; ++j) ret[j] |= mapped[j], any |= mapped[j] != 0;
        };
        for (std::uint32_t bits = delta; bits; bits &= bits - 1) {
            const std::uint32_t d = 32 * k + static_cast<std::uint32_t>(std::countr_zero(bits));
            if (sr != ~0u) {  // the site's own pairs, next to its offsets
                auto [i, end] = ifds::clip_range(R(site_call_off, std::uint64_t(sr) + d),
                                                 R(site_call_off, std::uint64_t(sr) + d + 1), R.n[site_call_off]);
                for (; i + 1 < end; i += 2) call(R.p[site_call_off][i], R.p[site_call_off][i + 1]);
            } else {
                for (auto [i, end] = T.range(call_off, std::uint64_t(T(row_base, n)) + d, call_ce); i < end; ++i)
                    call(T(call_ce, i), T(call_fact, i));
            }
        }
        if (any)
            for (std::uint32_t j = 0; j < W; ++j)
                if (ret[j]) sink.add(r, c, j, ret[j]);
    }
    if (kind & 2u) {  // exit: return to every caller context that reaches a matching call
        const std::uint32_t p = info[ni_proc];
        for (auto [k3, k3_end] = T.range(callers_off, p, callers_ce); k3 < k3_end; ++k3) {
            const std::uint32_t ce3 = T(callers_ce, k3), r3 = ce_at(R, ce3, ce_retsite);
            const std::uint32_t fcs = ce_at(R, ce3, ce_site_facts), ws = (fcs + 31) / 32;
            if (fcs > T.max_facts) continue;
            // with a sink that indexes them (ifds_solve's), the caller contexts that entered context c
            std::uint32_t* entered = nullptr;
            if constexpr (requires(std::uint32_t* o) { sink.entered_row(ce3, c, o, ws); }) {
                std::uint32_t* words = ws <= sc.small_c.size() ? sc.small_c.data() : (sc.c.resize(ws), sc.c.data());
                if (sink.entered_row(ce3, c, words, ws)) {
                    if (std::all_of(words, words + ws, [](std::uint32_t w) { return w == 0; })) continue;
                    entered = words;
                }
            }
            // facts to add at the return site
            std::uint32_t* ret3 = zeroed_words(ws, sc.small_b, sc.b);
            bool any = false;
            const std::uint32_t mask_first = ce_at(R, ce3, ce_mask_first), mask_words = ce_at(R, ce3, ce_mask_words);
            if (const std::uint32_t* mk = one_word_masks(R, mask_first, mask_words); mk != nullptr && W == 1 && ws == 1) {
                ret3[0] = select_masks(mk, delta) & chunk_mask(fcs, 0);  // W == 1: chunk k = 0
                any = ret3[0] != 0;
            } else {
                for (std::uint32_t bits = delta; bits; bits &= bits - 1) {
                    const std::uint32_t d = 32 * k + static_cast<std::uint32_t>(std::countr_zero(bits));
                    any |= map_return(T, R, ce3, d, mask_first, mask_words, ret3, ws, fcs);
                }
            }
            if (!any) continue;
            if (entered != nullptr) {  // return to the contexts that entered
                for (std::uint32_t i = 0; i < ws; ++i)
                    for (std::uint32_t bits = entered[i]; bits; bits &= bits - 1) {
                        const std::uint32_t d0 = 32 * i + static_cast<std::uint32_t>(std::countr_zero(bits));
                        if (d0 >= fcs) break;
                        for (std::uint32_t j = 0; j < ws; ++j)
                            if (ret3[j]) sink.add(r3, d0, j, ret3[j]);
                    }
                continue;
            }
            // caller facts d4 at the site whose call enters this context
            sc.a.clear();
            const std::uint64_t rr3 = std::uint64_t(T(rcall_row, ce3)) + c;
            for (auto [j, j_end] = T.range(rcall_off, rr3, rcall_fact); j < j_end; ++j)
                if (const std::uint32_t d4 = T(rcall_fact, j); d4 < fcs) sc.a.push_back(d4);
            if (sc.a.empty()) continue;
            // every caller context d0 with a path edge (site, d0, d4) for one of them
            const std::uint32_t site = T(ce_site, ce3);
            const std::uint64_t sbase = std::uint64_t(T(pe_word, site)) * 32;
            for (std::uint32_t d0 = 0; d0 < fcs; ++d0) {
                const std::uint64_t row = sbase + std::uint64_t(d0) * fcs;
                bool hit = false;
                for (std::size_t i = 0; i < sc.a.size() && !hit; ++i) hit = test_bit(pe, row + sc.a[i]);
                if (!hit) continue;
                for (std::uint32_t j = 0; j < ws; ++j)
                    if (ret3[j]) sink.add(r3, d0, j, ret3[j]);
            }
        }
    }
}

/// The parameters of the 25 graph tables and the 10 row tables.
inline std::vector<param> table_params() {
    std::vector<param> ps = ifds::table_params();
    for (auto n : row_table_names) ps.push_back({param_kind::buffer, n, false, ir::scalar_type::u32});
    return ps;
}

} // namespace weir::ops::ifds_rows
