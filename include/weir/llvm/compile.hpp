#pragma once
/// \file weir/llvm/compile.hpp
/// `compile_problem`: turns an `ifds_analysis` over a `program` into a weir
/// IFDS problem through the builder. Problem nodes are the program's ICFG
/// nodes (same ids), procedures are its procedures (same indices), facts are
/// what the analysis's flow functions mention (`fact_table`, same ids).

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/builder.hpp>
#include <weir/llvm/analysis.hpp>

namespace weir::llvm {

/// A compiled analysis: the weir problem and what its facts mean.
struct compiled_problem {
    weir::ifds::problem problem;  ///< nodes and procedures as the program's ICFG
    fact_table facts;             ///< what each fact of the problem stands for
};

namespace detail {
/// The root procedure's flows for a call to `callee`: the objects the callee
/// may access pass into it and back; the others go around it.
inline void root_call_flows(const program& prog, const fact_table& facts, const ::llvm::Function& callee,
                            flow& call, flow& ret, flow& ctr) {
    ctr.identity();
    for (object_id o : prog.accessed_by(callee))
        if (auto f = facts.find_object(o)) {
            call.transfer(*f, *f);
            ret.transfer(*f, *f);
            ctr.kill(*f);
        }
}
} // namespace detail

/// Compiles analysis `a` over `prog` into a weir problem. Throws
/// `std::logic_error` if the result is not a well-formed problem (a bug in
/// the analysis or here, never bad input).
template <ifds_analysis A>
compiled_problem compile_problem(const program& prog, A& a) {
    using weir::ifds::node_id;
    compiled_problem out;
    out.facts.use_slots_of(prog);
    analysis_context cx(prog, out.facts);
    weir::ifds::problem_builder b;
    const auto& nodes = prog.nodes();
    const auto name = [](char c, std::size_t k) { return std::string(1, c) + std::to_string(k); };
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const icfg_node& node = nodes[n];
        if (node.role == node_role::start || node.role == node_role::program_start) {
            const auto p = b.proc(name('p', node.proc), name('n', n), name('n', n + 1));
            if (p != node.proc || b.start_of(p) != n) throw std::logic_error("weir::llvm::compile_problem: node order");
            ++n;  // the exit node came with the procedure
        } else {
            b.node(name('n', n), node.proc);
        }
    }

    std::vector<std::pair<node_id, const ::llvm::Function*>> root_calls;
    for (const auto* f : prog.constructors()) root_calls.emplace_back(0, f);
    if (prog.root() != ~0u) root_calls.emplace_back(0, prog.entries()[0]);
    for (const auto* f : prog.destructors()) root_calls.emplace_back(0, f);
    std::size_t next_root_call = 0;

    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const icfg_node& node = nodes[n];
        const auto site = static_cast<node_id>(n);
        switch (node.role) {
        case node_role::exit:
        case node_role::program_exit: break;
        case node_role::start:
        case node_role::invoke_return:
        case node_role::program_start:
            for (std::uint32_t s : prog.successors(site)) b.flow(site, s, weir::ifds::flow_function::id());
            break;
        case node_role::program_call:
            root_calls[next_root_call++].first = site;
            break;
        case node_role::instruction: {
            const ::llvm::Instruction& i = *node.inst;
            const auto* call = ::llvm::dyn_cast<::llvm::CallBase>(&i);
            const auto targets = call ? prog.defined_callees(*call) : std::vector<const ::llvm::Function*>{};
            if (!targets.empty()) {
                const node_id ret = prog.return_node(*call);
                for (const ::llvm::Function* f : targets) {
                    const auto q = prog.procedure_of(*f);
                    b.call(site, q, ret);
                    flow cf, rf;
                    a.call_flow(cx, *call, *f, cf);
                    a.return_flow(cx, *call, *f, rf);
                    b.callflow(site, q, cf.take());
                    b.retflow(site, q, rf.take());
                }
                flow ctr;
                a.call_to_return_flow(cx, *call, ctr);
                if (!ctr.is_identity()) b.ctrflow(site, ctr.take());
            } else {
                flow f;
                a.normal_flow(cx, i, f);
                const auto succ = prog.successors(site);
                if (succ.empty()) break;
                auto fn = f.take();
                for (std::size_t k = 0; k + 1 < succ.size(); ++k) b.flow(site, succ[k], fn);
                b.flow(site, succ.back(), std::move(fn));
            }
            break;
        }
        }
    }

    seed_list seeds;
    a.initial_seeds(cx, seeds);
    // Root calls last: their flows carry the objects some other flow mentions.
    for (auto [site, f] : root_calls) {
        const auto q = prog.procedure_of(*f);
        b.call(site, q, prog.successors(site)[0]);
        flow cf, rf, ctr;
        detail::root_call_flows(prog, out.facts, *f, cf, rf, ctr);
        b.callflow(site, q, cf.take());
        b.retflow(site, q, rf.take());
        if (!ctr.is_identity()) b.ctrflow(site, ctr.take());
    }
    if (prog.root() != ~0u) {
        b.seed(prog.start_node(prog.root()), zero_fact);
    } else {
        for (const auto* e : prog.entries()) b.seed(prog.start_node(prog.procedure_of(*e)), zero_fact);
    }
    for (const seed_fact& s : seeds) {
        const auto p = prog.procedure_of(*s.function);
        if (p == ~0u) continue;
        b.seed(prog.start_node(p), s.fact);
    }
    for (std::size_t k = 1; k <= out.facts.size(); ++k) b.fact(name('f', k));
    auto pb = std::move(b).finish();
    if (!pb) throw std::logic_error("weir::llvm::compile_problem: the analysis wrote an ill-formed problem: " + pb.error().what());
    out.problem = std::move(*pb);
    return out;
}

} // namespace weir::llvm
