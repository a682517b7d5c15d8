#pragma once
/// \file weir/ifds/ops/tables.hpp
/// What weir's IFDS ops (weir/ifds/ops/) read and write: bounds-checked
/// views of the flat tables of `weir::ifds::layout` as op arguments
/// (`tables`), mutable u32 views (`words`) and the bit operations on the
/// path-edge bitset. The ops are vyre extension ops (vyre/ops/extension.hpp):
/// weir defines them, with their reference implementations and a native one
/// for `vyre::cpu`.
///
/// The 25 graph tables come first among an op's arguments, in `table` order
/// (weir binds its buffers under the same names, `weir::ifds::kernel_buffers`).
/// Out-of-range table reads give 0 (as IR loads do), so malformed tables
/// cannot crash an op.

#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ir/types.hpp>
#include <vyre/ops/op_info.hpp>

/// Forces inlining of the tiny table accessors in the IFDS inner loops (g++
/// otherwise kept `tables::range` out of line: 5% of a solve).
#if defined(__GNUC__) || defined(__clang__)
#define WEIR_INLINE [[gnu::always_inline]] inline
#define WEIR_LAMBDA_INLINE __attribute__((always_inline))  ///< the same for a lambda (after its parameters)
#else
#define WEIR_INLINE inline
#define WEIR_LAMBDA_INLINE
#endif

namespace weir::ops {
using vyre::error_code;
using vyre::fail;
using vyre::result;
using vyre::ops::op_arg;
using vyre::ops::param;
using vyre::ops::param_kind;
namespace ir = vyre::ir;
} // namespace weir::ops

namespace weir::ops::ifds {

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

/// [b, e) clipped to [0, len) (empty when b >= e).
WEIR_INLINE std::pair<std::uint32_t, std::uint32_t> clip_range(std::uint32_t b, std::uint32_t e, std::uint64_t len) {
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
    WEIR_INLINE std::uint32_t operator()(table t, std::uint64_t i) const { return i < n[t] ? p[t][i] : 0u; }
    /// The facts of node `node` (0 when its count cannot be right, see above).
    WEIR_INLINE std::uint32_t facts(std::uint64_t node) const {
        const std::uint32_t f = (*this)(node_fc, node);
        return f <= max_facts ? f : 0u;
    }
    /// Entries [off[i], off[i+1]) of CSR offset table `off`, clipped to the
    /// length of its element table `elems`.
    WEIR_INLINE std::pair<std::uint32_t, std::uint32_t> range(table off, std::uint64_t i, table elems) const {
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
WEIR_INLINE std::uint32_t or_into(std::uint32_t& w, std::uint32_t m) {
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
WEIR_INLINE std::uint32_t or_word(const words& pe, std::uint64_t i, std::uint32_t m) {
    if (m == 0) return 0;
    if (i >= pe.n) return m;
    return or_into<Atomic>(pe.p[i], m);
}

/// The parameters of the 25 graph tables, the first arguments of every IFDS op.
inline std::vector<param> table_params() {
    static constexpr std::array<std::string_view, table_count> names = {
        "node_kind", "node_fc", "pe_word", "row_base", "node_proc", "retsite", "intra_off", "intra_node",
        "intra_fact", "call_off", "call_ce", "call_fact", "ce_site", "ce_callee", "ce_retsite", "proc_start",
        "proc_exit", "ret_row", "ret_off", "ret_fact", "rcall_row", "rcall_off", "rcall_fact", "callers_off",
        "callers_ce"};
    std::vector<param> ps;
    for (auto n : names) ps.push_back({param_kind::buffer, n, false, ir::scalar_type::u32});
    return ps;
}

} // namespace weir::ops::ifds
