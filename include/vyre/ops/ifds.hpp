#pragma once
/// \file vyre/ops/ifds.hpp
/// The catalogue's IFDS frontier ops, `ifds_seed` and `ifds_expand`: one
/// bulk-synchronous round of exact IFDS tabulation over the flat tables of
/// `weir::ifds::layout` (see weir/ifds/layout.hpp and weir/ifds/kernels.hpp,
/// whose vyre IR kernels compute the same thing invocation by invocation).
///
/// Arguments, in order (all u32): the 25 graph tables of
/// `weir::ifds::kernel_buffers` (read), then `pe` (path-edge bitset,
/// read_write), `fin` (frontier in: pairs node, ctx*F+fact; read), `fout`
/// (frontier out, read_write) and `counters` = [in_count, out_count,
/// out_capacity, 0] (read_write).
///
/// Semantics: every new path edge derived from the `in_count` entries of
/// `fin` has its bit set in `pe` and is counted in out_count; those that fit
/// (slot < out_capacity) are written to `fout`, in an unspecified order; the
/// bits of those that did not fit are cleared again, so the round can be
/// re-run into a larger `fout`. Out-of-range table reads give 0 (as IR loads
/// do), so malformed tables cannot crash the op.

#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ops/op_info.hpp>

/// Forces inlining of the tiny table accessors in the IFDS inner loops (g++
/// otherwise kept `tables::range` out of line: 5% of a solve).
#if defined(__GNUC__) || defined(__clang__)
#define VYRE_IFDS_INLINE [[gnu::always_inline]] inline
#define VYRE_IFDS_LAMBDA_INLINE __attribute__((always_inline))  ///< the same for a lambda (after its parameters)
#else
#define VYRE_IFDS_INLINE inline
#define VYRE_IFDS_LAMBDA_INLINE
#endif

namespace vyre::ops::ifds {

/// Table indices (the op's argument positions).
enum table : std::uint32_t {
    node_kind, node_fc, pe_word, row_base, node_proc, retsite,
    intra_off, intra_node, intra_fact,
    call_off, call_ce, call_fact,
    ce_site, ce_callee, ce_retsite,
    proc_start, proc_exit,
    ret_row, ret_off, ret_fact,
    rcall_row, rcall_off, rcall_fact,
    callers_off, callers_ce,
    table_count
};
/// Positions of the state arguments.
inline constexpr std::uint32_t arg_pe = table_count, arg_fin = table_count + 1, arg_fout = table_count + 2,
                               arg_counters = table_count + 3, arg_count = table_count + 4;

/// [b, e) clipped to [0, len) (empty when b >= e).
VYRE_IFDS_INLINE std::pair<std::uint32_t, std::uint32_t> clip_range(std::uint32_t b, std::uint32_t e, std::uint64_t len) {
    const std::uint32_t end = static_cast<std::uint32_t>(std::min<std::uint64_t>(e, len));
    return {std::min(b, end), end};
}

/// Bounds-checked read-only views of the graph tables. Whatever the tables
/// hold, every loop over them is bounded by their sizes: CSR ranges are
/// clipped to the element table (`range`), and a node claiming more facts than
/// the path-edge bitset of `pe_words` words could hold for it has none
/// (`facts`). Corrupt tables give wrong path edges, never a hang or a read
/// out of bounds.
struct tables {
    std::array<const std::uint32_t*, table_count> p{};
    std::array<std::uint64_t, table_count> n{};
    /// The most facts a node may have: F*F bits must fit in the bitset.
    std::uint64_t max_facts = 0;

    tables(std::span<const op_arg> args, std::uint64_t pe_words) {
        for (std::uint32_t i = 0; i < table_count; ++i) {
            p[i] = reinterpret_cast<const std::uint32_t*>(args[i].bytes.data());
            n[i] = args[i].bytes.size() / 4;
        }
        const std::uint64_t bits = pe_words * 32;
        max_facts = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(bits)));
        while (max_facts * max_facts > bits) --max_facts;
        while ((max_facts + 1) * (max_facts + 1) <= bits) ++max_facts;
    }
    /// Element i of table t, or 0 when out of range.
    VYRE_IFDS_INLINE std::uint32_t operator()(table t, std::uint64_t i) const { return i < n[t] ? p[t][i] : 0u; }
    /// The facts of node `node` (0 when its count cannot be right, see above).
    VYRE_IFDS_INLINE std::uint32_t facts(std::uint64_t node) const {
        const std::uint32_t f = (*this)(node_fc, node);
        return f <= max_facts ? f : 0u;
    }
    /// Entries [off[i], off[i+1]) of CSR offset table `off`, clipped to the
    /// length of its element table `elems`.
    VYRE_IFDS_INLINE std::pair<std::uint32_t, std::uint32_t> range(table off, std::uint64_t i, table elems) const {
        return clip_range((*this)(off, i), (*this)(off, i + 1), n[elems]);
    }
};

/// A mutable u32 view of an argument.
struct words {
    std::uint32_t* p = nullptr;
    std::uint64_t n = 0;
    explicit words(const op_arg& a) : p(reinterpret_cast<std::uint32_t*>(a.bytes.data())), n(a.bytes.size() / 4) {}
};

/// ORs `m` into `word`; returns its old value. Atomic: sequentially
/// consistent, and no write at all when the word holds the bits already.
template <bool Atomic>
VYRE_IFDS_INLINE std::uint32_t or_into(std::uint32_t& w, std::uint32_t m) {
    if constexpr (Atomic) {
        // An explicit compare-exchange loop: g++ 12 at -O1 and above dropped the
        // `| m` of `atomic_ref::fetch_or` in this function (seen in the
        // disassembly: the loop stored the old value back), so it is not used here.
        // Sequentially consistent, for `ifds_rows_solve`, whose threads read
        // each other's bits without a barrier (see vyre/ops/ifds_solve.hpp);
        // on x86 a locked compare-exchange costs the same either way.
        std::atomic_ref<std::uint32_t> word(w);
        std::uint32_t old = word.load(std::memory_order_relaxed);
        while ((old & m) != m && !word.compare_exchange_weak(old, old | m, std::memory_order_seq_cst)) {
        }
        return old;
    } else {
        const std::uint32_t old = w;
        if ((old & m) != m) w = old | m;  // a word already holding the bits is not dirtied
        return old;
    }
}

/// ORs `m` into word `i` (nothing when out of range); returns the word's old
/// value, or `m` itself when out of range (so those bits never count as new).
template <bool Atomic>
VYRE_IFDS_INLINE std::uint32_t or_word(const words& pe, std::uint64_t i, std::uint32_t m) {
    if (m == 0) return 0;
    if (i >= pe.n) return m;
    return or_into<Atomic>(pe.p[i], m);
}

/// The ops need counters = [in, out, capacity, ...].
inline result<void> check_counters(const words& counters, const char* op) {
    if (counters.n < 3)
        return fail(error_code::invalid_argument,
                    std::string(op) + " op: counters must hold at least 3 u32 (in, out, capacity)",
                    "allocate 16 bytes for counters");
    return {};
}

/// Expands one frontier entry (node n, cd = ctx*F + fact). `sink.propagate(n, bit)`
/// receives every derived path edge (node, bit index in its block); `pe_test`
/// reads the current path-edge set.
template <class Sink>
void expand_entry(const tables& T, const words& pe, std::uint32_t n, std::uint32_t cd, Sink& sink) {
    auto test = [&](std::uint32_t base, std::uint32_t bit) {
        std::uint64_t w = std::uint64_t(base) + (bit >> 5);
        return w < pe.n && ((std::atomic_ref<std::uint32_t>(pe.p[w]).load(std::memory_order_relaxed) >> (bit & 31)) & 1u);
    };
    auto prop = [&](std::uint32_t node, std::uint32_t c, std::uint32_t d) {
        sink.propagate(node, c * T.facts(node) + d);
    };
    const std::uint32_t fc = T.facts(n);
    if (fc == 0) return;
    const std::uint32_t c = cd / fc, d = cd % fc;
    const std::uint32_t kind = T(node_kind, n);
    const std::uint64_t row = std::uint64_t(T(row_base, n)) + d;
    for (auto [e, end] = T.range(intra_off, row, intra_node); e < end; ++e)
        prop(T(intra_node, e), c, T(intra_fact, e));
    if (kind & 1u) {
        const std::uint32_t r = T(retsite, n);
        for (auto [e, end] = T.range(call_off, row, call_ce); e < end; ++e) {
            const std::uint32_t ce = T(call_ce, e), d3 = T(call_fact, e), q = T(ce_callee, ce);
            const std::uint32_t sq = T(proc_start, q), xq = T(proc_exit, q), fq = T.facts(sq);
            prop(sq, d3, d3);
            const std::uint32_t ebase = T(pe_word, xq);
            for (std::uint32_t d4 = 0; d4 < fq; ++d4) {
                if (!test(ebase, d3 * fq + d4)) continue;
                const std::uint64_t rr = std::uint64_t(T(ret_row, ce)) + d4;
                for (auto [k, endk] = T.range(ret_off, rr, ret_fact); k < endk; ++k) prop(r, c, T(ret_fact, k));
            }
        }
    }
    if (kind & 2u) {
        const std::uint32_t p = T(node_proc, n);
        for (auto [k3, end3] = T.range(callers_off, p, callers_ce); k3 < end3; ++k3) {
            const std::uint32_t ce3 = T(callers_ce, k3), site = T(ce_site, ce3), r3 = T(ce_retsite, ce3);
            const std::uint32_t fcs = T.facts(site), sbase = T(pe_word, site);
            const std::uint64_t rr3 = std::uint64_t(T(rcall_row, ce3)) + c;
            for (auto [j, endj] = T.range(rcall_off, rr3, rcall_fact); j < endj; ++j) {
                const std::uint32_t d4b = T(rcall_fact, j);
                for (std::uint32_t d0 = 0; d0 < fcs; ++d0) {
                    if (!test(sbase, d0 * fcs + d4b)) continue;
                    const std::uint64_t rr4 = std::uint64_t(T(ret_row, ce3)) + d;
                    for (auto [k4, end4] = T.range(ret_off, rr4, ret_fact); k4 < end4; ++k4)
                        prop(r3, d0, T(ret_fact, k4));
                }
            }
        }
    }
}

/// The sequential sink of the reference implementation.
struct sequential_sink {
    const tables& T;
    words pe, fout, counters;
    void propagate(std::uint32_t node, std::uint32_t bit) {
        const std::uint64_t w = std::uint64_t(T(pe_word, node)) + (bit >> 5);
        const std::uint32_t m = 1u << (bit & 31);
        if (w >= pe.n || (pe.p[w] & m)) return;
        pe.p[w] |= m;
        const std::uint32_t slot = counters.p[1]++;
        if (slot < counters.p[2] && 2ull * slot + 1 < fout.n) {
            fout.p[2 * slot] = node;
            fout.p[2 * slot + 1] = bit;
        } else {
            pe.p[w] &= ~m;
        }
    }
};

/// Reference implementation shared by both ops: `seed` true treats each
/// entry as a path edge to add, false expands it.
inline result<void> run_reference(std::span<op_arg> a, bool seed) {
    tables T(a, a[arg_pe].bytes.size() / 4);
    words pe(a[arg_pe]), fin(a[arg_fin]), fout(a[arg_fout]), counters(a[arg_counters]);
    VYRE_TRY(check_counters(counters, "ifds"));
    sequential_sink sink{T, pe, fout, counters};
    const std::uint64_t n_in = std::min<std::uint64_t>(counters.p[0], fin.n / 2);
    for (std::uint64_t i = 0; i < n_in; ++i) {
        const std::uint32_t n = fin.p[2 * i], cd = fin.p[2 * i + 1];
        if (seed) sink.propagate(n, cd);
        else expand_entry(T, pe, n, cd, sink);
    }
    return {};
}

/// Reference implementation of `ifds_seed`.
inline result<void> seed_reference(std::span<op_arg> a) { return run_reference(a, true); }
/// Reference implementation of `ifds_expand`.
inline result<void> expand_reference(std::span<op_arg> a) { return run_reference(a, false); }

/// The op signature: 25 tables, pe, fin, fout, counters.
inline std::vector<param> signature() {
    static constexpr std::array<std::string_view, arg_count> names = {
        "node_kind", "node_fc", "pe_word", "row_base", "node_proc", "retsite", "intra_off", "intra_node",
        "intra_fact", "call_off", "call_ce", "call_fact", "ce_site", "ce_callee", "ce_retsite", "proc_start",
        "proc_exit", "ret_row", "ret_off", "ret_fact", "rcall_row", "rcall_off", "rcall_fact", "callers_off",
        "callers_ce", "pe", "fin", "fout", "counters"};
    std::vector<param> ps;
    for (std::uint32_t i = 0; i < arg_count; ++i) {
        bool w = i == arg_pe || i == arg_fout || i == arg_counters;
        ps.push_back({param_kind::buffer, names[i], w, ir::scalar_type::u32});
    }
    return ps;
}

} // namespace vyre::ops::ifds
