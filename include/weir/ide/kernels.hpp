#pragma once
/// \file weir/ide/kernels.hpp
/// The IDE phases as vyre IR kernels (`ide::kernels<F>`), for a family with
/// IR forms of its operations (`ir_edge_function_family`): what the op
/// `ide_solve_<F>` (weir/ide/ops/solve.hpp) computes in one host dispatch,
/// here in bulk-synchronous rounds that run on every backend, `cuda`
/// through its lowering. The equations and the result are the op's.
///
/// Jump functions sit in `jf`, one slot of W words per path edge of stage
/// 1's bitset, found by `rank` (set bits before each word; a popcount kernel
/// and the catalogue's `exclusive_scan`). No two invocations ever write the
/// same slot, so no multi-word atomics are needed: a round is
///
/// 1. `expand`: every frontier path edge (or, in phase 2, context) writes
///    *proposals* (node, context, fact, function or value) for the slots it
///    reaches, reading the tables as they were after the last round; the
///    count may pass the capacity, then the host grows `props` and reruns it
///    (it changes nothing else);
/// 2. `keys`: each proposal's key, slot << 32 | index (~0 when the slot is
///    not a path edge), then the catalogue's `sort_u64`;
/// 3. `apply`: the first proposal of each slot's run joins the run into the
///    slot alone and, when the slot changed, puts it on the next frontier
///    (so a frontier never holds a slot twice: path edges bound its size).
///
/// Phase 1 joins the jump functions (frontier: path edges (n, c·F + d));
/// phase 2 joins the entry value of each context, kept in `entry` at the
/// slot of its path edge (start, c, c) (frontier: those path edges); then
/// `values` writes val(n, d) for every row.
///
/// Buffers (`buffer_names`, one list for every kernel): the 25 graph tables,
/// the 5 function tables, `pe`, `rank`, `jf`, `entry`, `values`, `fin`,
/// `fout`, `props` (R = 3 + max(W, V) words per proposal), `keys` (u64), the
/// call sites of each procedure (`sites_off`, `sites`) and `counters` =
/// [in_count, out_count, prop_count, prop_capacity, updates].

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/ir/builder.hpp>
#include <vyre/ir/program.hpp>
#include <weir/ide/ir_family.hpp>
#include <weir/ifds/kernels.hpp>

namespace weir::ide {

/// The words of `counters` in the IDE kernels.
enum kernel_counter : std::uint32_t { k_in, k_out, k_props, k_prop_capacity, k_updates, kernel_counter_count };

/// The IR kernels of the IDE phases for family `F` (see the file comment).
template <ir_edge_function_family F>
struct kernels {
    static constexpr std::uint32_t W = F::encoded_words, V = F::encoded_value_words;
    /// Words per proposal: node, context, fact, then a function or a value.
    static constexpr std::uint32_t R = 3 + std::max(W, V);

    /// Every kernel's buffers, in binding (= resource) order.
    static std::vector<std::string_view> buffer_names() {
        std::vector<std::string_view> v(ifds::kernel_buffers.begin(), ifds::kernel_buffers.begin() + ifds::graph_buffer_count);
        v.insert(v.end(), {"intra_fn", "call_fn", "rcall_fn", "ret_fn", "functions", "pe", "rank", "jf", "entry", "values",
                           "fin", "fout", "props", "keys", "sites_off", "sites", "counters"});
        return v;
    }

    /// Phase 1's round: proposals from each frontier path edge (see the file comment).
    static vyre::ir::program jf_expand() {
        ir_namer nm;
        auto p = shell("weir_ide_jf_expand");
        append(p.body, over_frontier(nm, [&](vyre::ir::expr idx) { return expand_path_edge(nm, std::move(idx)); }));
        return p;
    }
    /// Phase 2's round: proposals of entry values from each frontier context.
    static vyre::ir::program entry_expand() {
        ir_namer nm;
        auto p = shell("weir_ide_entry_expand");
        append(p.body, over_frontier(nm, [&](vyre::ir::expr idx) { return expand_context(nm, std::move(idx)); }));
        return p;
    }
    /// Each proposal's sort key (slot << 32 | index, ~0 past the count or off the bitset).
    static vyre::ir::program keys() {
        using namespace vyre::ir::dsl;
        using vyre::ir::scalar_type;
        ir_namer nm;
        auto p = shell("weir_ide_keys");
        p.add(let("count", min(load("counters", lit(std::uint32_t{k_props})),
                               load("counters", lit(std::uint32_t{k_prop_capacity})))));
        append(p.body, over_range(nm, "keys", len("keys"), [&](vyre::ir::expr idx) {
            stmts per = {let("i", std::move(idx)), let("key", lit(~std::uint64_t{0}))};
            stmts in_count = {let("base", mul(var("i"), lit(R)))};
            const auto [has, slot] = locate(nm, load("props", var("base")), load("props", add(var("base"), lit(1u))),
                                            load("props", add(var("base"), lit(2u))), in_count);
            in_count.push_back(if_(var(has), {set("key", bitor_(shl(cast(scalar_type::u64, var(slot)), lit(std::uint64_t{32})),
                                                                 cast(scalar_type::u64, var("i"))))}));
            per.push_back(if_(lt(var("i"), var("count")), std::move(in_count)));
            per.push_back(store("keys", var("i"), var("key")));
            return per;
        }));
        return p;
    }
    /// Phase 1's join: each slot's run of sorted proposals into `jf` (one invocation per proposal).
    static vyre::ir::program jf_apply() { return apply_kernel("weir_ide_jf_apply", "jf", W, false); }
    /// Phase 2's join: each context's run of sorted proposals into `entry`.
    static vyre::ir::program entry_apply() { return apply_kernel("weir_ide_entry_apply", "entry", V, true); }

    /// val(n, d) for every row: the join over the contexts c of n's
    /// procedure of JF(c; n, d)(entry(c)) (one node per invocation).
    static vyre::ir::program values() {
        using namespace vyre::ir::dsl;
        ir_namer nm;
        auto p = shell("weir_ide_values");
        std::vector<vyre::ir::stmt> node = {
            let("p", load("node_proc", var("n"))),
            let("s", load("proc_start", var("p"))),
            let("fs", select(lt(var("p"), min(len("proc_start"), len("proc_exit"))), load("node_fc", var("s")), lit(0u))),
            let("fn_", load("node_fc", var("n"))),
            let("base", load("row_base", var("n")))};
        std::vector<vyre::ir::stmt> row;
        const word_vars v = word_vars::zeros(nm, "v", V, row);
        std::vector<vyre::ir::stmt> per_ctx;
        contribute(nm, var("s"), var("c"), var("n"), var("d"), v, per_ctx);
        row.push_back(loop("c", lit(0u), var("fs"), std::move(per_ctx)));
        for (std::uint32_t i = 0; i < V; ++i)
            row.push_back(store("values", add(mul(add(var("base"), var("d")), lit(V)), lit(i)), v[i]));
        node.push_back(loop("d", lit(0u), var("fn_"), std::move(row)));
        append(p.body, over_range(nm, "nodes", len("node_proc"), [&](vyre::ir::expr idx) {
            stmts per = {let("n", std::move(idx))};
            append(per, std::move(node));
            return per;
        }));
        return p;
    }

    /// `cnt[w] = popcount(pe[w])` (0 past the bitset): the counts whose exclusive scan is `rank`.
    static vyre::ir::program count_bits() {
        using namespace vyre::ir;
        using namespace vyre::ir::dsl;
        program p("weir_ide_count_bits");
        p.workgroup(64);
        p.buffer("pe", 0, access::read, scalar_type::u32).buffer("cnt", 1, access::read_write, scalar_type::u32);
        ir_namer nm;
        append(p.body, over_range(nm, "words", len("cnt"), [](expr w) {
            return stmts{store("cnt", w, popcount(load("pe", w)))};
        }));
        return p;
    }
    /// `dst = exclusive_scan(src)` (catalogue op).
    static vyre::ir::program scan() { return two_buffer_op("weir_ide_scan", "exclusive_scan"); }
    /// Sorts `keys` ascending (catalogue op `sort_u64`).
    static vyre::ir::program sort() {
        using namespace vyre::ir;
        program p("weir_ide_sort");
        p.buffer("keys", 0, access::read_write, scalar_type::u64).add(dsl::op("sort_u64", {dsl::var("keys")}));
        return p;
    }

private:
    using stmts = std::vector<vyre::ir::stmt>;

    static vyre::ir::program shell(const char* name) {
        vyre::ir::program p(name);
        p.workgroup(64);
        std::uint32_t binding = 0;
        for (auto b : buffer_names()) {
            const bool w = b == "jf" || b == "entry" || b == "values" || b == "fout" || b == "props" || b == "keys" ||
                           b == "counters";
            p.buffer(std::string(b), binding++, w ? vyre::ir::access::read_write : vyre::ir::access::read,
                     b == "keys" ? vyre::ir::scalar_type::u64 : vyre::ir::scalar_type::u32);
        }
        return p;
    }
    static vyre::ir::program two_buffer_op(const char* name, const char* op) {
        using namespace vyre::ir;
        program p(name);
        p.buffer("src", 0, access::read, scalar_type::u32)
            .buffer("dst", 1, access::read_write, scalar_type::u32)
            .add(dsl::op(op, {dsl::var("src"), dsl::var("dst")}));
        return p;
    }
    static void append(stmts& to, stmts from) {
        for (auto& s : from) to.push_back(std::move(s));
    }
    template <class Body>
    static stmts over_frontier(ir_namer& nm, Body body) {
        return ifds::detail::over_frontier(nm, std::move(body));
    }
    template <class Body>
    static stmts over_range(ir_namer& nm, const char* count_name, vyre::ir::expr count, Body body) {
        return ifds::detail::over_range(nm, count_name, std::move(count), std::move(body));
    }

    /// Declares `has` (bool: (n, c, d) is a path edge) and `slot` (its jump-function slot).
    static std::pair<std::string, std::string> locate(ir_namer& nm, vyre::ir::expr n, vyre::ir::expr c,
                                                      vyre::ir::expr d, stmts& out) {
        using namespace vyre::ir::dsl;
        auto N = nm("n"), C = nm("c"), D = nm("d"), FC = nm("fc"), B = nm("bit"), WD = nm("w"), M = nm("m"), WORD = nm("word"),
             HAS = nm("has"), SLOT = nm("slot");
        append(out, {let(N, std::move(n)), let(C, std::move(c)), let(D, std::move(d)), let(FC, load("node_fc", var(N))),
                     let(B, add(mul(var(C), var(FC)), var(D))),
                     let(WD, add(load("pe_word", var(N)), shr(var(B), lit(5u)))),
                     let(M, shl(lit(1u), bitand_(var(B), lit(31u)))), let(WORD, load("pe", var(WD))),
                     let(HAS, and_(and_(lt(var(C), var(FC)), lt(var(D), var(FC))),
                                   and_(lt(var(WD), len("pe")), ne(bitand_(var(WORD), var(M)), lit(0u))))),
                     let(SLOT, add(load("rank", var(WD)), popcount(bitand_(var(WORD), sub(var(M), lit(1u))))))});
        return {HAS, SLOT};
    }
    /// K words of `table` at slot `slot`.
    static word_vars load_slot(ir_namer& nm, const char* table, std::uint32_t K, const std::string& slot, stmts& out) {
        using namespace vyre::ir::dsl;
        return word_vars::declare(nm, table, K, out, [&](std::size_t i) {
            return load(table, add(mul(var(slot), lit(K)), lit(static_cast<std::uint32_t>(i))));
        });
    }
    /// JF(c; n, d), top (zeros) when (n, c, d) is no path edge.
    static word_vars jf_at(ir_namer& nm, vyre::ir::expr n, vyre::ir::expr c, vyre::ir::expr d, stmts& out) {
        using namespace vyre::ir::dsl;
        const auto located = locate(nm, std::move(n), std::move(c), std::move(d), out);
        const std::string& has = located.first;  // (no structured binding: clang 14 lets no lambda capture one)
        const word_vars j = load_slot(nm, "jf", W, located.second, out);
        const word_vars r = word_vars::declare(nm, "j", W, out, [&](std::size_t i) { return select(var(has), j[i], lit(0u)); });
        return r;
    }
    /// Entry `k` of function table `table` as a function: the identity for
    /// index 0 (or past the table), `bottom` for an index past the pool.
    static word_vars table_fn(ir_namer& nm, const char* table, vyre::ir::expr k, stmts& out) {
        using namespace vyre::ir::dsl;
        const auto id = encoded<F>(F::identity()), bot = encoded<F>(F::bottom());
        auto FID = nm("fid"), OK = nm("in_pool");
        out.push_back(let(FID, load(table, std::move(k))));
        out.push_back(let(OK, le(mul(add(var(FID), lit(1u)), lit(W)), len("functions"))));
        return word_vars::declare(nm, "fn", W, out, [&](std::size_t i) {
            return select(eq(var(FID), lit(0u)), lit(id[i]),
                          select(var(OK), load("functions", add(mul(var(FID), lit(W)), lit(static_cast<std::uint32_t>(i)))),
                                 lit(bot[i])));
        });
    }
    /// A fresh function r = g ∘ f.
    static word_vars compose(ir_namer& nm, const word_vars& g, const word_vars& f, stmts& out) {
        const word_vars r = word_vars::zeros(nm, "cf", W, out);
        ir_ops<F>::compose(nm, g, f, r, out);
        return r;
    }
    /// Appends proposal (n, c, d, words) unless `words` is all zero (top).
    static stmts propose(ir_namer& nm, vyre::ir::expr n, vyre::ir::expr c, vyre::ir::expr d, const word_vars& w) {
        using namespace vyre::ir::dsl;
        auto I = nm("pi"), B = nm("pb");
        stmts body = {let(B, mul(var(I), lit(R))), store("props", var(B), std::move(n)),
                      store("props", add(var(B), lit(1u)), std::move(c)), store("props", add(var(B), lit(2u)), std::move(d))};
        for (std::uint32_t i = 0; i < w.size(); ++i) body.push_back(store("props", add(var(B), lit(3u + i)), w[i]));
        return {if_(not_(w.is_zero()),
                    {let(I, atomic(vyre::ir::op_code::atomic_add, "counters", lit(std::uint32_t{k_props}), lit(1u))),
                     if_(lt(var(I), load("counters", lit(std::uint32_t{k_prop_capacity}))), std::move(body))})};
    }

    /// JF(c; r, t) ⊒ (f_ret ∘ (callee ∘ f_call)) ∘ caller for each t that
    /// call edge `ce`'s return flow relates d4 to (variables named by the caller).
    static stmts summary(ir_namer& nm, const std::string& ce, vyre::ir::expr c, const word_vars& caller,
                         const word_vars& f_call, const word_vars& callee, vyre::ir::expr d4) {
        using namespace vyre::ir::dsl;
        auto RR = nm("rr"), X = nm("x"), CC = nm("cc");
        stmts out = {let(CC, std::move(c))};
        const word_vars inner = compose(nm, callee, f_call, out);
        out.push_back(let(RR, add(load("ret_row", var(ce)), std::move(d4))));
        stmts per;
        const word_vars f_ret = table_fn(nm, "ret_fn", var(X), per);
        const word_vars sum = compose(nm, f_ret, inner, per);
        const word_vars through = compose(nm, sum, caller, per);
        append(per, propose(nm, load("ce_retsite", var(ce)), var(CC), load("ret_fact", var(X)), through));
        out.push_back(loop(X, load("ret_off", var(RR)), load("ret_off", add(var(RR), lit(1u))), std::move(per)));
        return out;
    }

    /// Phase 1: the proposals of frontier path edge `idx`.
    static stmts expand_path_edge(ir_namer& nm, vyre::ir::expr idx) {
        using namespace vyre::ir::dsl;
        stmts b = {let("n", load("fin", mul(idx, lit(2u)))), let("cd", load("fin", add(mul(idx, lit(2u)), lit(1u)))),
                   let("fc", load("node_fc", var("n"))), let("c", div(var("cd"), var("fc"))),
                   let("d", mod(var("cd"), var("fc"))), let("kind", load("node_kind", var("n"))),
                   let("row", add(load("row_base", var("n")), var("d")))};
        const word_vars j = jf_at(nm, var("n"), var("c"), var("d"), b);
        // 1. intraprocedural and call-to-return edges
        {
            stmts per;
            const word_vars f = table_fn(nm, "intra_fn", var("e"), per);
            const word_vars out = compose(nm, f, j, per);
            append(per, propose(nm, load("intra_node", var("e")), var("c"), load("intra_fact", var("e")), out));
            b.push_back(loop("e", load("intra_off", var("row")), load("intra_off", add(var("row"), lit(1u))), std::move(per)));
        }
        // 2. a call site: into each callee, and its summaries so far to the return site
        {
            stmts per_edge = {let("ce", load("call_ce", var("e2"))), let("d3", load("call_fact", var("e2"))),
                              let("q", load("ce_callee", var("ce"))), let("sq", load("proc_start", var("q"))),
                              let("xq", load("proc_exit", var("q")))};
            const word_vars id = word_vars::declare(nm, "id", W, per_edge, [](std::size_t i) {
                return lit(encoded<F>(F::identity())[i]);
            });
            append(per_edge, propose(nm, var("sq"), var("d3"), var("d3"), id));
            const word_vars f_call = table_fn(nm, "call_fn", var("e2"), per_edge);
            stmts per_fact;
            const word_vars callee = jf_at(nm, var("xq"), var("d3"), var("d4"), per_fact);
            per_fact.push_back(if_(not_(callee.is_zero()), summary(nm, "ce", var("c"), j, f_call, callee, var("d4"))));
            per_edge.push_back(loop("d4", lit(0u), load("node_fc", var("xq")), std::move(per_fact)));
            b.push_back(if_(ne(bitand_(var("kind"), lit(1u)), lit(0u)),
                            {loop("e2", load("call_off", var("row")), load("call_off", add(var("row"), lit(1u))),
                                  std::move(per_edge))}));
        }
        // 3. an exit: the summary to each caller context that reaches a call entering c
        {
            stmts per_fact = {let("d0", load("rcall_fact", var("x3")))};
            const word_vars f_call = table_fn(nm, "rcall_fn", var("x3"), per_fact);
            stmts per_ctx;
            const word_vars caller = jf_at(nm, var("site"), var("c0"), var("d0"), per_ctx);
            per_ctx.push_back(if_(not_(caller.is_zero()), summary(nm, "ce3", var("c0"), caller, f_call, j, var("d"))));
            per_fact.push_back(loop("c0", lit(0u), load("node_fc", var("site")), std::move(per_ctx)));
            stmts per_caller = {let("ce3", load("callers_ce", var("k3"))), let("site", load("ce_site", var("ce3"))),
                                let("rr3", add(load("rcall_row", var("ce3")), var("c"))),
                                loop("x3", load("rcall_off", var("rr3")), load("rcall_off", add(var("rr3"), lit(1u))),
                                     std::move(per_fact))};
            b.push_back(if_(ne(bitand_(var("kind"), lit(2u)), lit(0u)),
                            {let("p", load("node_proc", var("n"))),
                             loop("k3", load("callers_off", var("p")), load("callers_off", add(var("p"), lit(1u))),
                                  std::move(per_caller))}));
        }
        return b;
    }

    /// v ⊔= JF(c; n, d)(entry(s, c)) when (s, c, c) is a context with an
    /// entry and (n, c, d) a path edge (s: the start node of n's procedure).
    static void contribute(ir_namer& nm, vyre::ir::expr s, vyre::ir::expr c, vyre::ir::expr n, vyre::ir::expr d,
                           const word_vars& v, stmts& out) {
        using namespace vyre::ir::dsl;
        auto S = nm("s"), C = nm("c");
        out.push_back(let(S, std::move(s)));
        out.push_back(let(C, std::move(c)));
        auto [has_ctx, ctx] = locate(nm, var(S), var(C), var(C), out);
        stmts in;
        const word_vars e = load_slot(nm, "entry", V, ctx, in);
        const word_vars j = jf_at(nm, std::move(n), var(C), std::move(d), in);
        const word_vars x = word_vars::zeros(nm, "x", V, in);
        ir_ops<F>::apply(nm, j, e, x, in);
        const word_vars t = word_vars::zeros(nm, "t", V, in);
        ir_ops<F>::join_values(nm, v, x, t, in);
        append(in, v.assign(t));
        out.push_back(if_(var(has_ctx), std::move(in)));
    }

    /// Phase 2: the proposals of frontier context (s, c): at each call site
    /// of s's procedure, each fact d that c reaches gets its value (over all
    /// contexts), which enters the callees through the call flow's function.
    static stmts expand_context(ir_namer& nm, vyre::ir::expr idx) {
        using namespace vyre::ir::dsl;
        const auto bot = encoded_value<F>(F::bottom_value());
        stmts b = {let("s", load("fin", mul(idx, lit(2u)))), let("cd", load("fin", add(mul(idx, lit(2u)), lit(1u)))),
                   let("fs", load("node_fc", var("s"))), let("c", div(var("cd"), var("fs"))),
                   let("p", load("node_proc", var("s")))};
        stmts per_fact;
        auto [reach, unused] = locate(nm, var("n"), var("c"), var("d"), per_fact);
        (void)unused;
        stmts reached;
        const word_vars v = word_vars::zeros(nm, "v", V, reached);
        stmts per_ctx;
        contribute(nm, var("s"), var("c2"), var("n"), var("d"), v, per_ctx);
        reached.push_back(loop("c2", lit(0u), var("fs"), std::move(per_ctx)));
        reached.push_back(let("row", add(load("row_base", var("n")), var("d"))));
        stmts per_call = {let("ce", load("call_ce", var("x"))), let("d3", load("call_fact", var("x")))};
        const word_vars f_call = table_fn(nm, "call_fn", var("x"), per_call);
        const word_vars w = word_vars::zeros(nm, "w", V, per_call);
        ir_ops<F>::apply(nm, f_call, v, w, per_call);
        // the zero fact's entry value is bottom
        per_call.push_back(if_(eq(var("d3"), lit(0u)), w.assign(bot)));
        append(per_call, propose(nm, load("proc_start", load("ce_callee", var("ce"))), var("d3"), var("d3"), w));
        reached.push_back(loop("x", load("call_off", var("row")), load("call_off", add(var("row"), lit(1u))),
                               std::move(per_call)));
        per_fact.push_back(if_(var(reach), std::move(reached)));
        stmts per_site = {let("n", load("sites", var("si"))), loop("d", lit(0u), load("node_fc", var("n")), std::move(per_fact))};
        b.push_back(loop("si", load("sites_off", var("p")), load("sites_off", add(var("p"), lit(1u))), std::move(per_site)));
        return b;
    }

    /// One invocation per sorted proposal; the first of each slot's run joins
    /// the run into `table` (K words per slot) and queues the slot's path
    /// edge when it changed.
    static vyre::ir::program apply_kernel(const char* name, const char* table, std::uint32_t K, bool values) {
        using namespace vyre::ir::dsl;
        using vyre::ir::scalar_type;
        ir_namer nm;
        auto p = shell(name);
        stmts b = {let("count", min(load("counters", lit(std::uint32_t{k_props})),
                                    load("counters", lit(std::uint32_t{k_prop_capacity})))),
                   let("i", gid())};
        stmts in = {let("key", load("keys", var("i"))),
                    let("slot", cast(scalar_type::u32, shr(var("key"), lit(std::uint64_t{32})))),
                    let("prev", cast(scalar_type::u32, shr(load("keys", sub(var("i"), lit(1u))), lit(std::uint64_t{32}))))};
        stmts head;
        const word_vars old = load_slot(nm, table, K, "slot", head);
        const word_vars acc = word_vars::declare(nm, "acc", K, head, [&](std::size_t i) { return old[i]; });
        // the run's end: store the join when it changed, queue the slot's path edge
        const auto finish = [&] {
            stmts f;
            stmts changed;
            for (std::uint32_t i = 0; i < K; ++i)
                changed.push_back(store(table, add(mul(var("slot"), lit(K)), lit(i)), acc[i]));
            auto U = nm("u"), O = nm("o"), RB = nm("rb"), N = nm("qn");
            append(changed, {let(U, atomic(vyre::ir::op_code::atomic_add, "counters", lit(std::uint32_t{k_updates}), lit(1u))),
                             let(O, atomic(vyre::ir::op_code::atomic_add, "counters", lit(std::uint32_t{k_out}), lit(1u))),
                             let(RB, mul(cast(scalar_type::u32, var("key")), lit(R))), let(N, load("props", var(RB))),
                             store("fout", mul(var(O), lit(2u)), var(N)),
                             store("fout", add(mul(var(O), lit(2u)), lit(1u)),
                                   add(mul(load("props", add(var(RB), lit(1u))), load("node_fc", var(N))),
                                       load("props", add(var(RB), lit(2u)))))});
            f.push_back(if_(not_(acc.equals(old)), std::move(changed)));
            return f;
        };
        stmts per;
        per.push_back(let("kt", load("keys", var("t"))));
        stmts same = {let("rec", mul(cast(scalar_type::u32, var("kt")), lit(R)))};
        const word_vars f = word_vars::declare(nm, "f", K, same, [&](std::size_t i) {
            return load("props", add(var("rec"), lit(3u + static_cast<std::uint32_t>(i))));
        });
        const word_vars joined = word_vars::zeros(nm, "jn", K, same);
        if (values) ir_ops<F>::join_values(nm, acc, f, joined, same);
        else ir_ops<F>::join(nm, acc, f, joined, same);
        append(same, acc.assign(joined));
        stmts end = finish();
        end.push_back(return_());
        per.push_back(if_(ne(cast(scalar_type::u32, shr(var("kt"), lit(std::uint64_t{32}))), var("slot")), std::move(end),
                          std::move(same)));
        head.push_back(loop("t", var("i"), var("count"), std::move(per)));
        append(head, finish());
        in.push_back(if_(and_(ne(var("slot"), lit(~0u)), or_(eq(var("i"), lit(0u)), ne(var("prev"), var("slot")))),
                         std::move(head)));
        b.push_back(if_(lt(var("i"), var("count")), std::move(in)));
        append(p.body, std::move(b));
        return p;
    }
};

} // namespace weir::ide
