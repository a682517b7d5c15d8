#pragma once
/// \file weir/ifds/kernels.hpp
/// The resident IFDS solver's kernels, written as vyre IR programs so that
/// they run on every vyre backend (and any `ifds_resident_dispatch`).
///
/// All kernels share one buffer list (`kernel_buffers`): the layout's tables
/// (read), the path-edge bitset `pe`, the frontier in/out (pairs of u32:
/// node, `ctx * F + fact`) and `counters` = [in_count, out_count, out_capacity, 0].
///
/// `propagate(n, c, d)` is the heart: test-and-set the path-edge bit with
/// `atomic_or`; the invocation that flips it appends the edge to the next
/// frontier with `atomic_add` on out_count. When the frontier is full, it
/// clears the bit again so the host can grow the frontier and re-run the round
/// (the bit was set by this invocation alone, so nothing is lost).

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/ir/builder.hpp>
#include <vyre/ir/program.hpp>
#include <weir/core/ir_namer.hpp>
#include <weir/ifds/ops/register.hpp>
#include <weir/ifds/ops/rows.hpp>

namespace weir::ifds {

/// Names of the kernels' buffers, in binding (= resource) order.
inline constexpr std::array<std::string_view, 29> kernel_buffers = {
    // graph tables (layout fields), uploaded once
    "node_kind", "node_fc", "pe_word", "row_base", "node_proc", "retsite",
    "intra_off", "intra_node", "intra_fact",
    "call_off", "call_ce", "call_fact",
    "ce_site", "ce_callee", "ce_retsite",
    "proc_start", "proc_exit",
    "ret_row", "ret_off", "ret_fact",
    "rcall_row", "rcall_off", "rcall_fact",
    "callers_off", "callers_ce",
    // per-solve state
    "pe", "fin", "fout", "counters"};

/// Number of graph-table buffers (the first entries of `kernel_buffers`).
inline constexpr std::size_t graph_buffer_count = 25;

namespace detail {

using namespace vyre::ir;
using namespace vyre::ir::dsl;

/// Fresh variable names (weir/core/ir_namer.hpp).
using namer = weir::ir_namer;

inline program kernel_shell(const char* name) {
    program p(name);
    p.workgroup(64);
    std::uint32_t binding = 0;
    for (auto b : kernel_buffers) {
        vyre::ir::access a = vyre::ir::access::read;
        if (b == "pe" || b == "fout" || b == "counters") a = vyre::ir::access::read_write;
        p.buffer(std::string(b), binding++, a, scalar_type::u32);
    }
    return p;
}

/// Test-and-set path edge (n, c, d) and append it to the next frontier if new.
inline std::vector<stmt> propagate(namer& nm, expr n, expr c, expr d) {
    auto N = nm("n"), F = nm("f"), B = nm("bit"), W = nm("w"), M = nm("m"), O = nm("old"), S = nm("slot"),
         U = nm("undo");
    return {
        let(N, std::move(n)),
        let(F, load("node_fc", var(N))),
        let(B, add(mul(std::move(c), var(F)), std::move(d))),
        let(W, add(load("pe_word", var(N)), shr(var(B), lit(5u)))),
        let(M, shl(lit(1u), bitand_(var(B), lit(31u)))),
        let(O, atomic(op_code::atomic_or, "pe", var(W), var(M))),
        if_(eq(bitand_(var(O), var(M)), lit(0u)),
            {let(S, atomic(op_code::atomic_add, "counters", lit(1u), lit(1u))),
             if_(lt(var(S), load("counters", lit(2u))),
                 {store("fout", mul(var(S), lit(2u)), var(N)),
                  store("fout", add(mul(var(S), lit(2u)), lit(1u)), var(B))},
                 {let(U, atomic(op_code::atomic_and, "pe", var(W), bitnot(var(M))))})}),
    };
}

/// True when path-edge bit `bit` of the block starting at word `base` is set.
inline expr pe_test(expr base, expr bit) {
    return ne(bitand_(shr(load("pe", add(std::move(base), shr(bit, lit(5u)))), bitand_(bit, lit(31u))), lit(1u)),
              lit(0u));
}

/// Wraps `body(idx)` in a grid-stride loop over the indices below `count`
/// (evaluated once, into a variable named after `count_name`): the
/// invocations share them out, however many were launched.
template <class Body>
std::vector<stmt> over_range(namer& nm, const char* count_name, expr count, Body body) {
    auto IN = nm(count_name), ST = nm("stride"), IT = nm("it"), IDX = nm("idx");
    std::vector<stmt> inner = {let(IDX, add(gid(), mul(var(IT), var(ST))))};
    inner.push_back(if_(lt(var(IDX), var(IN)), body(var(IDX))));
    return {let(IN, std::move(count)),
            let(ST, mul(ngroups(), wgsize())),
            loop(IT, lit(0u), div(add(var(IN), sub(var(ST), lit(1u))), var(ST)), std::move(inner))};
}

/// Wraps `body(idx)` in a grid-stride loop over the `counters[0]` frontier entries.
template <class Body>
std::vector<stmt> over_frontier(namer& nm, Body body) {
    return over_range(nm, "n_in", load("counters", lit(0u)), std::move(body));
}

template <class V>
void append(std::vector<stmt>& to, V&& from) {
    for (auto& s : from) to.push_back(std::move(s));
}

} // namespace detail

/// Seeds: every frontier entry (n, c*F+d) becomes path edge (n, c, d) if new.
inline vyre::ir::program seed_kernel() {
    using namespace detail;
    namer nm;
    auto p = kernel_shell("weir_ifds_seed");
    append(p.body, over_frontier(nm, [&](expr idx) {
        std::vector<stmt> b = {let("n", load("fin", mul(idx, lit(2u)))),
                               let("cd", load("fin", add(mul(idx, lit(2u)), lit(1u)))),
                               let("fc", load("node_fc", var("n")))};
        append(b, propagate(nm, var("n"), div(var("cd"), var("fc")), mod(var("cd"), var("fc"))));
        return b;
    }));
    return p;
}

/// One round of the tabulation in bulk: expands every frontier path edge
/// <s_p, c> -> <n, d> through intraprocedural and call-to-return edges, into
/// callees (with the summaries already known at their exits), and, at exits,
/// back to every caller context that reaches the call.
inline vyre::ir::program expand_kernel() {
    using namespace detail;
    namer nm;
    auto p = kernel_shell("weir_ifds_expand");
    append(p.body, over_frontier(nm, [&](expr idx) {
        std::vector<stmt> b = {
            let("n", load("fin", mul(idx, lit(2u)))),
            let("cd", load("fin", add(mul(idx, lit(2u)), lit(1u)))),
            let("fc", load("node_fc", var("n"))),
            let("c", div(var("cd"), var("fc"))),
            let("d", mod(var("cd"), var("fc"))),
            let("kind", load("node_kind", var("n"))),
            let("row", add(load("row_base", var("n")), var("d"))),
        };
        // 1. intraprocedural and call-to-return edges
        b.push_back(loop("e", load("intra_off", var("row")), load("intra_off", add(var("row"), lit(1u))),
                         propagate(nm, load("intra_node", var("e")), var("c"), load("intra_fact", var("e")))));
        // 2. call site: enter callees, apply known summaries
        {
            std::vector<stmt> per_fact = {
                let("bit4", add(mul(var("d3"), var("fq")), var("d4"))),
                if_(pe_test(var("ebase"), var("bit4")),
                    {let("rr", add(load("ret_row", var("ce")), var("d4"))),
                     loop("k", load("ret_off", var("rr")), load("ret_off", add(var("rr"), lit(1u))),
                          propagate(nm, var("r"), var("c"), load("ret_fact", var("k"))))})};
            std::vector<stmt> per_edge = {
                let("ce", load("call_ce", var("e2"))),
                let("d3", load("call_fact", var("e2"))),
                let("q", load("ce_callee", var("ce"))),
                let("sq", load("proc_start", var("q"))),
                let("xq", load("proc_exit", var("q"))),
                let("fq", load("node_fc", var("sq"))),
            };
            append(per_edge, propagate(nm, var("sq"), var("d3"), var("d3")));
            per_edge.push_back(let("ebase", load("pe_word", var("xq"))));
            per_edge.push_back(loop("d4", lit(0u), var("fq"), std::move(per_fact)));
            b.push_back(if_(ne(bitand_(var("kind"), lit(1u)), lit(0u)),
                            {let("r", load("retsite", var("n"))),
                             loop("e2", load("call_off", var("row")), load("call_off", add(var("row"), lit(1u))),
                                  std::move(per_edge))}));
        }
        // 3. exit: return to each caller context that reaches a call with a matching entry fact
        {
            std::vector<stmt> per_ctx = {
                let("bit0", add(mul(var("d0"), var("fcs")), var("d4b"))),
                if_(pe_test(var("sbase"), var("bit0")),
                    {let("rr4", add(load("ret_row", var("ce3")), var("d"))),
                     loop("k4", load("ret_off", var("rr4")), load("ret_off", add(var("rr4"), lit(1u))),
                          propagate(nm, var("r3"), var("d0"), load("ret_fact", var("k4"))))})};
            std::vector<stmt> per_caller_fact = {let("d4b", load("rcall_fact", var("j"))),
                                                 loop("d0", lit(0u), var("fcs"), std::move(per_ctx))};
            std::vector<stmt> per_caller = {
                let("ce3", load("callers_ce", var("k3"))),
                let("site", load("ce_site", var("ce3"))),
                let("r3", load("ce_retsite", var("ce3"))),
                let("fcs", load("node_fc", var("site"))),
                let("sbase", load("pe_word", var("site"))),
                let("rr3", add(load("rcall_row", var("ce3")), var("c"))),
                loop("j", load("rcall_off", var("rr3")), load("rcall_off", add(var("rr3"), lit(1u))),
                     std::move(per_caller_fact)),
            };
            b.push_back(if_(ne(bitand_(var("kind"), lit(2u)), lit(0u)),
                            {let("p", load("node_proc", var("n"))),
                             loop("k3", load("callers_off", var("p")), load("callers_off", add(var("p"), lit(1u))),
                                  std::move(per_caller))}));
        }
        return b;
    }));
    return p;
}

/// Names of the row tables (`weir::ifds::row_tables`), bound after the 25 graph tables in row mode.
inline constexpr auto row_table_buffers = weir::ops::ifds_rows::row_table_names;

/// weir's extension op `ifds_rows_solve` (weir/ifds/ops/solve.hpp) as a
/// program: the whole fixed point in one dispatch. Buffers: the 25 graph tables, the 10 row tables, then pe,
/// fin (the seed entries) and counters.
inline vyre::ir::program rows_solve_kernel() {
    using namespace detail;
    program p("weir_ifds_rows_solve_op");
    p.workgroup(64);
    std::vector<std::string_view> names(kernel_buffers.begin(), kernel_buffers.begin() + graph_buffer_count);
    names.insert(names.end(), row_table_buffers.begin(), row_table_buffers.end());
    names.insert(names.end(), {"pe", "fin", "counters"});
    std::uint32_t binding = 0;
    std::vector<expr> args;
    for (auto b : names) {
        bool w = b == "pe" || b == "counters";
        p.buffer(std::string(b), binding++, w ? vyre::ir::access::read_write : vyre::ir::access::read,
                 vyre::ir::scalar_type::u32);
        args.push_back(var(std::string(b)));
    }
    p.add(op("ifds_rows_solve", std::move(args)));
    return p;
}

/// `dst[i] = src[i]`: grows a frontier buffer (catalogue op `copy`).
inline vyre::ir::program copy_kernel() {
    using namespace vyre::ir;
    program p("weir_copy");
    p.buffer("src", 0, access::read, scalar_type::u32)
        .buffer("dst", 1, access::read_write, scalar_type::u32)
        .add(dsl::op("copy", {dsl::var("src"), dsl::var("dst")}));
    return p;
}

/// Zeroes a u32 buffer (catalogue op `fill`): resets the path-edge bitset between solves.
inline vyre::ir::program clear_kernel() {
    using namespace vyre::ir;
    program p("weir_clear");
    p.buffer("dst", 0, access::read_write, scalar_type::u32).add(dsl::op("fill", {dsl::var("dst"), dsl::lit(0u)}));
    return p;
}

} // namespace weir::ifds
