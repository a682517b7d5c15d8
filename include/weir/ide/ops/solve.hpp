#pragma once
/// \file weir/ide/ops/solve.hpp
/// `ide_solve_<family>`, weir's IDE extension op (vyre/ops/extension.hpp),
/// one per edge-function family `F` (`ide_solve_op<F>`): both phases of the
/// IDE solution in one dispatch, over resident buffers, on the path edges
/// that an IFDS solve of the same graph found.
///
/// Why the IFDS solve first: the jump functions that are not `top` sit
/// exactly on the IFDS path edges of the graph without its edge functions
/// (spec: ide-format.md), so once the path-edge bitset is known the jump
/// functions need no hash table: path edge i (in bit order) keeps its
/// function in words [i·W, (i+1)·W) of `jf` (W = `F::encoded_words`), found
/// from its bit by a rank (a prefix count of the bitset's words).
///
/// Arguments (all u32): the 25 graph tables of `weir::ops::ifds::table`
/// (the full ones: the op reads `intra_*`, `call_*`, `rcall_*`, `ret_*`), the
/// function tables of `weir::ide::layout` (`intra_fn`, `call_fn`, `rcall_fn`,
/// `ret_fn`, `functions`), then `pe` (the layout's whole path-edge bitset,
/// read), `seeds` (entries of 2 + V words: start node, local fact, encoded
/// value; V = `F::encoded_value_words`), `jf` (read_write: W words per path
/// edge), `values` (read_write: V words per row (node, local fact): the
/// value of every fact that holds, `top` elsewhere) and `counters` =
/// [seed_count, path edges, contexts, jump-function updates] (read_write; the
/// op reads the first and writes the others).
///
/// Semantics: phase 1 joins, from the identity at each seed, every jump
/// function JF(c; n, d) over the exploded edges (a call's summary formed as
/// f_ret ∘ (JF_exit ∘ f_call) before it is composed after the caller's jump
/// function, as the spec's parentheses say); phase 2 joins the entry value
/// of every context (p, c) (the seeds', then f_call of the value at each call
/// site) and writes val(n, d) = ⊔_c JF(c; n, d)(entry(p, c)). Both are
/// least fixed points of monotone equations, so the worklist order does not
/// change the result: it equals `weir::ide::tabulation_solver`'s, bit for bit.
/// Malformed tables give wrong values, never a read out of bounds or a hang
/// (every table read is bounds-checked, as in weir/ifds/ops/tables.hpp).

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/core/popcount.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ops/op_info.hpp>
#include <weir/ide/edge_function_family.hpp>
#include <weir/ifds/ops/tables.hpp>

namespace weir::ops::ide_solve {

using ifds::tables;
using ifds::words;

/// Argument positions after the 25 graph tables.
enum arg : std::uint32_t {
    arg_intra_fn = ifds::table_count, arg_call_fn, arg_rcall_fn, arg_ret_fn, arg_functions,
    arg_pe, arg_seeds, arg_jf, arg_values, arg_counters,
    arg_count
};
/// Words of `counters`: seed_count (read), then what the op writes.
enum counter : std::uint32_t { c_seeds, c_path_edges, c_contexts, c_updates, counter_count };

/// The op signature: 25 graph tables, 5 function tables, pe, seeds, jf, values, counters.
inline std::vector<param> signature() {
    std::vector<param> ps = ifds::table_params();
    for (std::string_view n : {"intra_fn", "call_fn", "rcall_fn", "ret_fn", "functions", "pe", "seeds"})
        ps.push_back({param_kind::buffer, n, false, ir::scalar_type::u32});
    for (std::string_view n : {"jf", "values", "counters"}) ps.push_back({param_kind::buffer, n, true, ir::scalar_type::u32});
    return ps;
}

/// The op's name for family `F`: `ide_solve_` followed by `F::name`.
template <class F>
struct op_name {
    static constexpr std::string_view prefix = "ide_solve_";
    static constexpr auto chars = [] {
        constexpr std::string_view family = F::name;
        std::array<char, prefix.size() + family.size()> a{};
        std::copy(prefix.begin(), prefix.end(), a.begin());
        std::copy(family.begin(), family.end(), a.begin() + prefix.size());
        return a;
    }();
    static constexpr std::string_view value{chars.data(), chars.size()};
};

/// The solve over one set of bound arguments (see the file comment).
template <weir::ide::edge_function_family F>
class solver {
public:
    using function = typename F::function;
    using value = typename F::value;
    static constexpr std::size_t W = F::encoded_words, V = F::encoded_value_words;

    explicit solver(std::span<op_arg> a)
        : T_(a, a[arg_pe].bytes.size() / 4), pe_(a[arg_pe]), jf_(a[arg_jf]), values_(a[arg_values]),
          seeds_(a[arg_seeds]), counters_(a[arg_counters]) {
        for (std::uint32_t i = 0; i < 5; ++i) fn_[i] = words(a[arg_intra_fn + i]);
    }

    /// Runs both phases; fails on buffers too small for what they must hold.
    result<void> run() {
        VYRE_TRY(check());
        jump_functions();
        values();
        counters_.p[c_path_edges] = path_edges_;
        counters_.p[c_contexts] = static_cast<std::uint32_t>(ctx_c_.size());
        counters_.p[c_updates] = static_cast<std::uint32_t>(std::min<std::uint64_t>(updates_, ~0u));
        return {};
    }

private:
    // ---- buffers --------------------------------------------------------------
    result<void> check() {
        const std::string who(op_name<F>::value);
        if (counters_.n < counter_count)
            return fail(error_code::invalid_argument,
                        who + ": counters has " + std::to_string(counters_.n) + " words, needs " +
                            std::to_string(counter_count) + " (seed_count, path edges, contexts, updates)",
                        "bind a counters buffer of at least 4 u32");
        rank_.resize(pe_.n + 1);
        std::uint64_t total = 0;
        for (std::uint64_t w = 0; w < pe_.n; ++w) {
            rank_[w] = static_cast<std::uint32_t>(total);
            total += vyre::popcount(pe_.p[w]);
            if (total > 0xffffffffull / W)
                return fail(error_code::out_of_memory, who + ": more path edges than 32-bit jump-function indices reach",
                            "split the problem or its seeds");
        }
        rank_[pe_.n] = static_cast<std::uint32_t>(total);
        path_edges_ = static_cast<std::uint32_t>(total);
        if (jf_.n < total * W)
            return fail(error_code::invalid_argument,
                        who + ": jf has " + std::to_string(jf_.n) + " words, the bitset's " + std::to_string(total) +
                            " path edges need " + std::to_string(total * W),
                        "size jf to encoded_words words per set bit of pe");
        const std::uint64_t rows = T_(ifds::row_base, T_.n[ifds::row_base] ? T_.n[ifds::row_base] - 1 : 0);
        if (values_.n < rows * V)
            return fail(error_code::invalid_argument,
                        who + ": values has " + std::to_string(values_.n) + " words, the " + std::to_string(rows) +
                            " rows need " + std::to_string(rows * V),
                        "size values to encoded_value_words words per row (row_base's last entry)");
        return {};
    }

    /// Function `i` of the pool (bottom when the pool has no such function).
    function fn(std::uint32_t table, std::uint64_t k) const {
        const words& t = fn_[table];
        const std::uint32_t i = k < t.n ? t.p[k] : 0u;
        if (i == 0) return F::identity();
        const words& pool = fn_[4];
        if ((std::uint64_t(i) + 1) * W > pool.n) return F::bottom();
        return F::decode(pool.p + std::uint64_t(i) * W);
    }
    /// True when function table `table` gives entry k the identity.
    bool is_identity(std::uint32_t table, std::uint64_t k) const { return k >= fn_[table].n || fn_[table].p[k] == 0; }

    /// The bit of path edge (n, c, d), or ~0 when n's block has no such bit.
    std::uint64_t bit(std::uint32_t n, std::uint32_t c, std::uint32_t d) const {
        const std::uint32_t f = T_.facts(n);
        if (c >= f || d >= f) return ~std::uint64_t{0};
        const std::uint64_t pos = std::uint64_t(T_(ifds::pe_word, n)) * 32 + std::uint64_t(c) * f + d;
        return (pos >> 5) < pe_.n && (pe_.p[pos >> 5] >> (pos & 31) & 1u) ? pos : ~std::uint64_t{0};
    }
    /// The jump-function slot of bit `pos` (a set bit).
    std::uint64_t slot(std::uint64_t pos) const {
        const std::uint32_t w = pe_.p[pos >> 5] & ((1u << (pos & 31)) - 1u);
        return std::uint64_t(rank_[pos >> 5]) + vyre::popcount(w);
    }
    function jf_at(std::uint64_t s) const { return F::decode(jf_.p + s * W); }
    /// JF(c; n, d), `top` when (n, c, d) is no path edge.
    function jf(std::uint32_t n, std::uint32_t c, std::uint32_t d) const {
        const std::uint64_t pos = bit(n, c, d);
        return pos == ~std::uint64_t{0} ? F::top() : jf_at(slot(pos));
    }

    // ---- phase 1: jump functions ------------------------------------------------
    struct item {
        std::uint32_t n, c, d;
    };

    void propagate(std::uint32_t n, std::uint32_t c, std::uint32_t d, const function& f) {
        if (f == F::top()) return;
        const std::uint64_t pos = bit(n, c, d);
        if (pos == ~std::uint64_t{0}) return;  // not an IFDS path edge: the tables disagree with pe
        const std::uint64_t s = slot(pos);
        const function old = jf_at(s);
        const function j = F::join(old, f);
        if (j == old) return;
        F::encode(j, jf_.p + s * W);
        ++updates_;
        if (!(queued_[s >> 6] >> (s & 63) & 1u)) {
            queued_[s >> 6] |= std::uint64_t{1} << (s & 63);
            work_.push_back({n, c, d});
        }
    }

    void jump_functions() {
        std::array<std::uint32_t, W> top{};
        F::encode(F::top(), top.data());
        for (std::uint64_t s = 0; s < path_edges_; ++s) std::copy(top.begin(), top.end(), jf_.p + s * W);
        queued_.assign((std::uint64_t(path_edges_) + 63) / 64, 0);
        const std::uint64_t nseeds = std::min<std::uint64_t>(counters_.p[c_seeds], seeds_.n / (2 + V));
        for (std::uint64_t i = 0; i < nseeds; ++i) {
            const std::uint32_t* e = seeds_.p + i * (2 + V);
            propagate(e[0], e[1], e[1], F::identity());
        }
        while (!work_.empty()) {
            const item k = work_.back();
            work_.pop_back();
            const std::uint64_t pos = bit(k.n, k.c, k.d);
            const std::uint64_t s = slot(pos);
            queued_[s >> 6] &= ~(std::uint64_t{1} << (s & 63));
            const function j = jf_at(s);
            const std::uint32_t kind = T_(ifds::node_kind, k.n);
            const std::uint64_t row = std::uint64_t(T_(ifds::row_base, k.n)) + k.d;
            if (kind & 1u) at_call(k, row, j);
            // intra edges: a flow edge's pairs, or a call site's call-to-return pairs
            const auto [b, e] = T_.range(ifds::intra_off, row, ifds::intra_fact);
            for (std::uint32_t x = b; x < e; ++x) {
                const std::uint32_t to = T_(ifds::intra_node, x), t = T_(ifds::intra_fact, x);
                propagate(to, k.c, t, is_identity(0, x) ? j : F::compose(fn(0, x), j));
            }
            if (kind & 2u) at_exit(k, j);
        }
    }

    /// (c; call site, d) with jump function j: into each callee, and the
    /// callees' summaries so far (their exit rows' jump functions) to the return site.
    void at_call(const item& k, std::uint64_t row, const function& j) {
        const auto [b, e] = T_.range(ifds::call_off, row, ifds::call_fact);
        for (std::uint32_t x = b; x < e; ++x) {
            const std::uint32_t ce = T_(ifds::call_ce, x), d3 = T_(ifds::call_fact, x);
            const std::uint32_t q = T_(ifds::ce_callee, ce);
            const std::uint32_t start = T_(ifds::proc_start, q), exit = T_(ifds::proc_exit, q);
            propagate(start, d3, d3, F::identity());
            const function f_call = fn(1, x);
            for_each_jf_in_row(exit, d3, [&](std::uint32_t d4, const function& callee) {
                if (!(callee == F::top())) apply_summary(ce, k.c, j, f_call, callee, d4);
            });
        }
    }

    /// (d₃; exit of q, d₄) with jump function `callee`: the summary to each
    /// caller row (site, c, d) with a jump function whose call flow enters d₃.
    void at_exit(const item& k, const function& callee) {
        const std::uint32_t q = T_(ifds::node_proc, k.n);
        const auto [b, e] = T_.range(ifds::callers_off, q, ifds::callers_ce);
        for (std::uint32_t i = b; i < e; ++i) {
            const std::uint32_t ce = T_(ifds::callers_ce, i), site = T_(ifds::ce_site, ce);
            const auto [rb, re] = T_.range(ifds::rcall_off, std::uint64_t(T_(ifds::rcall_row, ce)) + k.c, ifds::rcall_fact);
            for (std::uint32_t x = rb; x < re; ++x) {
                const std::uint32_t d = T_(ifds::rcall_fact, x);
                const function f_call = fn(2, x);
                for (std::uint32_t c = 0, fs = T_.facts(site); c < fs; ++c) {
                    const function caller = jf(site, c, d);
                    if (!(caller == F::top())) apply_summary(ce, c, caller, f_call, callee, k.d);
                }
            }
        }
    }

    /// JF(c; r, t) ⊒ (f_ret ∘ (callee ∘ f_call)) ∘ caller for each t that
    /// call edge `ce`'s return flow relates d₄ to.
    void apply_summary(std::uint32_t ce, std::uint32_t c, const function& caller, const function& f_call,
                       const function& callee, std::uint32_t d4) {
        const function inner = F::compose(callee, f_call);
        const std::uint32_t r = T_(ifds::ce_retsite, ce);
        const auto [b, e] = T_.range(ifds::ret_off, std::uint64_t(T_(ifds::ret_row, ce)) + d4, ifds::ret_fact);
        for (std::uint32_t x = b; x < e; ++x) {
            const function summary = is_identity(3, x) ? inner : F::compose(fn(3, x), inner);
            propagate(r, c, T_(ifds::ret_fact, x), F::compose(summary, caller));
        }
    }

    // ---- phase 2: values ------------------------------------------------------
    void values() {
        const std::uint32_t procs = static_cast<std::uint32_t>(std::min(T_.n[ifds::proc_start], T_.n[ifds::proc_exit]));
        // the contexts of each procedure: start facts c with a path edge (start, c, c)
        ctx_off_.assign(procs + 1, 0);
        for (std::uint32_t p = 0; p < procs; ++p) {
            const std::uint32_t s = T_(ifds::proc_start, p);
            for (std::uint32_t c = 0, f = T_.facts(s); c < f; ++c)
                if (!(jf(s, c, c) == F::top())) ctx_c_.push_back(c);
            ctx_off_[p + 1] = static_cast<std::uint32_t>(ctx_c_.size());
        }
        entry_.assign(ctx_c_.size(), F::top_value());
        has_entry_.assign(ctx_c_.size(), 0);
        // the call sites of each procedure
        const std::uint32_t nodes = static_cast<std::uint32_t>(T_.n[ifds::node_proc]);
        std::vector<std::uint32_t> site_off(procs + 1, 0), sites;
        for (std::uint32_t n = 0; n < nodes; ++n)
            if ((T_(ifds::node_kind, n) & 1u) && T_(ifds::node_proc, n) < procs) ++site_off[T_(ifds::node_proc, n) + 1];
        for (std::uint32_t p = 0; p < procs; ++p) site_off[p + 1] += site_off[p];
        sites.resize(site_off[procs]);
        {
            std::vector<std::uint32_t> pos(site_off.begin(), site_off.end() - 1);
            for (std::uint32_t n = 0; n < nodes; ++n)
                if ((T_(ifds::node_kind, n) & 1u) && T_(ifds::node_proc, n) < procs) sites[pos[T_(ifds::node_proc, n)]++] = n;
        }
        std::vector<std::uint32_t> work;  // context indices
        std::vector<std::uint8_t> queued(ctx_c_.size(), 0);
        auto raise = [&](std::uint32_t p, std::uint32_t c, const value& v) {
            const std::uint32_t i = context(p, c);
            if (i == ~0u) return;
            const value x = c == 0 ? F::bottom_value() : v;  // local fact 0 is the zero fact: its value is bottom
            if (has_entry_[i]) {
                const value j = F::join_values(entry_[i], x);
                if (j == entry_[i]) return;
                entry_[i] = j;
            } else {
                entry_[i] = x;
                has_entry_[i] = 1;
            }
            if (!queued[i]) queued[i] = 1, work.push_back(i);
        };
        const std::uint64_t nseeds = std::min<std::uint64_t>(counters_.p[c_seeds], seeds_.n / (2 + V));
        for (std::uint64_t i = 0; i < nseeds; ++i) {
            const std::uint32_t* e = seeds_.p + i * (2 + V);
            raise(T_(ifds::node_proc, e[0]), e[1], F::decode_value(e + 2));
        }
        while (!work.empty()) {
            const std::uint32_t i = work.back();
            work.pop_back();
            queued[i] = 0;
            const std::uint32_t p = static_cast<std::uint32_t>(std::upper_bound(ctx_off_.begin(), ctx_off_.end(), i) - ctx_off_.begin() - 1);
            const std::uint32_t c = ctx_c_[i];
            for (std::uint32_t si = site_off[p]; si < site_off[p + 1]; ++si) {
                const std::uint32_t n = sites[si];
                // the facts d that context c reaches at the site: its value there, into the callees
                for_each_jf_in_row(n, c, [&](std::uint32_t d, const function&) {
                    const value v = value_at(n, p, d);
                    const std::uint64_t row = std::uint64_t(T_(ifds::row_base, n)) + d;
                    const auto [b, e] = T_.range(ifds::call_off, row, ifds::call_fact);
                    for (std::uint32_t x = b; x < e; ++x)
                        raise(T_(ifds::ce_callee, T_(ifds::call_ce, x)), T_(ifds::call_fact, x), F::apply(fn(1, x), v));
                });
            }
        }
        // every row's value: val(n, d) = ⊔ over the contexts c of p with an entry
        // value of JF(c; n, d)(entry), top where none (a fact that holds only in
        // contexts without an entry value is top too). A node's block is read
        // context by context, its set bits only, so each path edge is read once.
        std::vector<value> row;
        for (std::uint32_t n = 0; n < nodes; ++n) {
            const std::uint32_t p = T_(ifds::node_proc, n);
            const std::uint64_t base = T_(ifds::row_base, n);
            const std::uint32_t f = T_.facts(n);
            row.assign(f, F::top_value());
            if (p < procs)
                for (std::uint32_t i = ctx_off_[p]; i < ctx_off_[p + 1]; ++i)
                    if (has_entry_[i])
                        for_each_jf_in_row(n, ctx_c_[i], [&](std::uint32_t d, const function& j) {
                            row[d] = F::join_values(row[d], F::apply(j, entry_[i]));
                        });
            for (std::uint32_t d = 0; d < f && (base + d + 1) * V <= values_.n; ++d)
                F::encode_value(row[d], values_.p + (base + d) * V);
        }
    }

    /// Calls `fn(d, JF(c; n, d))` for each d with a path edge (n, c, d), in
    /// ascending d: the set bits of row c of n's block, their slots counted
    /// on from the first one (no rank per bit).
    template <class Fn>
    void for_each_jf_in_row(std::uint32_t n, std::uint32_t c, Fn&& fn) const {
        const std::uint32_t f = T_.facts(n);
        if (c >= f) return;
        const std::uint64_t first = std::uint64_t(T_(ifds::pe_word, n)) * 32 + std::uint64_t(c) * f;
        if (((first + f + 31) >> 5) > pe_.n) return;  // a block past the bitset (malformed tables): no bits
        std::uint64_t s = ~std::uint64_t{0};
        for (std::uint64_t pos = first; pos < first + f;) {
            const std::uint64_t w = pos >> 5, end = std::min<std::uint64_t>(first + f, (w + 1) * 32);
            std::uint32_t bits = pe_.p[w] >> (pos & 31);
            if (end - pos < 32) bits &= (1u << (end - pos)) - 1u;
            while (bits) {
                const std::uint32_t k = static_cast<std::uint32_t>(std::countr_zero(bits));
                const std::uint64_t at = pos + k;
                s = s == ~std::uint64_t{0} ? slot(at) : s + 1;
                fn(static_cast<std::uint32_t>(at - first), jf_at(s));
                bits &= bits - 1;
            }
            pos = end;
        }
    }

    /// The index of context (p, c), or ~0 when p has no such context.
    std::uint32_t context(std::uint32_t p, std::uint32_t c) const {
        if (std::uint64_t(p) + 1 >= ctx_off_.size()) return ~0u;  // (64-bit: p may be ~0u in a malformed table)
        const auto b = ctx_c_.begin() + ctx_off_[p], e = ctx_c_.begin() + ctx_off_[p + 1];
        const auto it = std::lower_bound(b, e, c);
        return it != e && *it == c ? static_cast<std::uint32_t>(it - ctx_c_.begin()) : ~0u;
    }

    /// val(n, d) = ⊔ over the contexts c of p with an entry value of JF(c; n, d)(entry(p, c)).
    value value_at(std::uint32_t n, std::uint32_t p, std::uint32_t d) const {
        value v = F::top_value();
        for (std::uint32_t i = ctx_off_[p]; i < ctx_off_[p + 1]; ++i) {
            if (!has_entry_[i]) continue;
            const function j = jf(n, ctx_c_[i], d);
            if (!(j == F::top())) v = F::join_values(v, F::apply(j, entry_[i]));
        }
        return v;
    }

    tables T_;
    words pe_, jf_, values_, seeds_, counters_;
    std::array<words, 5> fn_{words(op_arg{}), words(op_arg{}), words(op_arg{}), words(op_arg{}), words(op_arg{})};
    std::vector<std::uint32_t> rank_;     ///< set bits of pe before each word
    std::uint32_t path_edges_ = 0;
    std::vector<std::uint64_t> queued_;   ///< per path edge: waiting in work_
    std::vector<item> work_;
    std::uint64_t updates_ = 0;
    std::vector<std::uint32_t> ctx_off_, ctx_c_;  ///< the contexts of each procedure (start facts, ascending)
    std::vector<value> entry_;                    ///< entry value per context
    std::vector<std::uint8_t> has_entry_;
};

/// Runs the op (the reference: `cpu_ref`; `cpu` runs the same code natively).
template <weir::ide::edge_function_family F>
result<void> run(std::span<op_arg> args) {
    try {
        return solver<F>(args).run();
    } catch (const std::bad_alloc&) {
        return fail(error_code::out_of_memory, std::string(op_name<F>::value) + ": the worklist ran out of host memory",
                    "free memory or solve fewer seeds at once");
    }
}

} // namespace weir::ops::ide_solve

namespace weir::ops {

/// The op `ide_solve_<F::name>` as vyre sees it (`vyre::ops::op_definition`):
/// registered by `weir::ops::register_ide_ops<F>` (weir/ide/ops/register.hpp).
template <weir::ide::edge_function_family F>
struct ide_solve_op {
    static constexpr std::string_view name = ide_solve::op_name<F>::value;
    static constexpr std::string_view summary =
        "both phases of an IDE solve on the path edges of an IFDS solve (weir/ide/ops/solve.hpp)";
    static std::vector<param> signature() { return ide_solve::signature(); }
    static result<void> reference(std::span<op_arg> args) { return ide_solve::run<F>(args); }
};

} // namespace weir::ops
