#pragma once
/// \file weir/llvm/compile.hpp
/// `compile_problem`: turns an `ifds_analysis` over a `program` into a weir
/// IFDS problem through the builder (`compile_ide_problem`: an
/// `ide_analysis` into a weir IDE problem, the same way). Problem nodes are the program's ICFG
/// nodes (same ids), procedures are its procedures (same indices), facts are
/// what the analysis's flow functions mention (`fact_table`, same ids).

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/builder.hpp>
#include <weir/ifds/prune_facts.hpp>
#include <weir/ide/problem.hpp>
#include <weir/llvm/analysis.hpp>
#include <weir/llvm/ide_analysis.hpp>

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

namespace detail {

/// What `compile_into` tells a recorder that keeps more than the IFDS
/// problem (edge functions): nothing, for an IFDS analysis.
struct ignore_terms {
    template <class Flow>
    void normal(weir::ifds::node_id, const std::vector<std::uint32_t>&, Flow&) {}
    template <class Flow>
    void call(weir::ifds::node_id, std::uint32_t, Flow&, Flow&) {}
    template <class Flow>
    void ctr(weir::ifds::node_id, Flow&) {}
};

/// The compilation both `compile_problem` and `compile_ide_problem` run:
/// analysis `a` writes flow functions of type `Flow`; `rec` sees each one
/// before the builder takes it; `seed(b, cx)` adds the analysis's seeds.
/// Throws `std::logic_error` if the result is not a well-formed problem.
template <class Flow, class A, class Record, class Seed>
weir::ifds::problem compile_into(const program& prog, A& a, fact_table& facts, Record& rec, Seed&& seed) {
    using weir::ifds::node_id;
    facts.use_slots_of(prog);
    analysis_context cx(prog, facts);
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
    if (prog.root() != ~0u) root_calls.emplace_back(0, prog.root_entry());
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
                    Flow cf, rf;
                    a.call_flow(cx, *call, *f, cf);
                    a.return_flow(cx, *call, *f, rf);
                    rec.call(site, q, cf, rf);
                    b.callflow(site, q, cf.take());
                    b.retflow(site, q, rf.take());
                }
                Flow ctr;
                a.call_to_return_flow(cx, *call, ctr);
                rec.ctr(site, ctr);
                if (!ctr.is_identity()) b.ctrflow(site, ctr.take());
            } else {
                Flow f;
                a.normal_flow(cx, i, f);
                const auto succ = prog.successors(site);
                if (succ.empty()) break;
                rec.normal(site, succ, f);
                auto fn = f.take();
                for (std::size_t k = 0; k + 1 < succ.size(); ++k) b.flow(site, succ[k], fn);
                b.flow(site, succ.back(), std::move(fn));
            }
            break;
        }
        }
    }

    std::vector<std::pair<const ::llvm::Function*, fact_id>> seeds = seed(cx);  // (null: the program's start)
    // Root calls last: their flows carry the objects some other flow mentions.
    for (auto [site, f] : root_calls) {
        const auto q = prog.procedure_of(*f);
        b.call(site, q, prog.successors(site)[0]);
        flow cf, rf, ctr;
        root_call_flows(prog, facts, *f, cf, rf, ctr);
        b.callflow(site, q, cf.take());
        b.retflow(site, q, rf.take());
        if (!ctr.is_identity()) b.ctrflow(site, ctr.take());
    }
    std::vector<node_id> starts;  // the program's start: the root (for main), and each other entry
    if (prog.root() != ~0u) starts.push_back(prog.start_node(prog.root()));
    for (const auto* e : prog.entries())
        if (e != prog.root_entry()) starts.push_back(prog.start_node(prog.procedure_of(*e)));
    std::set<std::pair<node_id, fact_id>> seeded;  // a seed once (the builder refuses repeats; values join later)
    auto seed_at = [&](node_id s, fact_id f) {
        if (seeded.insert({s, f}).second) b.seed(s, f);
    };
    for (node_id s : starts) seed_at(s, zero_fact);
    for (const auto& [fn, fact] : seeds) {
        if (!fn) {
            for (node_id s : starts) seed_at(s, fact);
            continue;
        }
        const auto p = prog.procedure_of(*fn);
        if (p == ~0u) continue;
        seed_at(prog.start_node(p), fact);
    }
    for (std::size_t k = 1; k <= facts.size(); ++k) b.fact(name('f', k));
    auto pb = std::move(b).finish();
    if (!pb) throw std::logic_error("weir::llvm::compile_problem: the analysis wrote an ill-formed problem: " + pb.error().what());
    return std::move(*pb);
}

} // namespace detail

/// Compiles analysis `a` over `prog` into a weir problem. When the analysis
/// has `void demanded_facts(const fact_table&, std::vector<fact_id>&) const`
/// (the facts its findings read), the facts that cannot lead to those are
/// pruned (`weir::ifds::prune_to_demand`): they hold nowhere, and every
/// other fact's result is unchanged. Throws
/// `std::logic_error` if the result is not a well-formed problem (a bug in
/// the analysis or here, never bad input).
template <ifds_analysis A>
compiled_problem compile_problem(const program& prog, A& a) {
    compiled_problem out;
    detail::ignore_terms rec;
    out.problem = detail::compile_into<flow>(prog, a, out.facts, rec, [&](analysis_context& cx) {
        seed_list seeds;
        a.initial_seeds(cx, seeds);
        std::vector<std::pair<const ::llvm::Function*, fact_id>> out_seeds;
        for (const seed_fact& s : seeds) out_seeds.emplace_back(s.function, s.fact);
        return out_seeds;
    });
    // An analysis that reads its result only for some facts (`demanded_facts`)
    // needs only the facts that can lead to them.
    if constexpr (requires(const A& x, const fact_table& t, std::vector<fact_id>& v) { x.demanded_facts(t, v); }) {
        std::vector<fact_id> demanded;
        a.demanded_facts(out.facts, demanded);
        weir::ifds::prune_to_demand(out.problem, demanded);
    }
    return out;
}

/// A compiled IDE analysis: the weir IDE problem and what its facts mean.
template <weir::ide::edge_function_family F>
struct compiled_ide_problem {
    weir::ide::problem<F> problem;  ///< nodes and procedures as the program's ICFG
    fact_table facts;               ///< what each fact of the problem stands for
};

/// Compiles IDE analysis `a` over `prog` into a weir IDE problem: the IFDS
/// problem `compile_problem` would make, with the edge functions and seed
/// values the analysis gave.
template <ide_analysis A>
compiled_ide_problem<typename A::family> compile_ide_problem(const program& prog, A& a) {
    using F = typename A::family;
    using weir::ifds::node_id;
    struct recorder {
        std::map<std::pair<node_id, node_id>, weir::ide::edge_terms<F>> flows, calls, rets;
        std::map<node_id, weir::ide::edge_terms<F>> ctrs;
        void normal(node_id site, const std::vector<std::uint32_t>& succ, ide_flow<F>& f) {
            auto t = f.take_terms();
            if (t.empty()) return;
            for (std::uint32_t s : succ) flows[{site, s}] = t;
        }
        void call(node_id site, std::uint32_t q, ide_flow<F>& cf, ide_flow<F>& rf) {
            if (auto t = cf.take_terms(); !t.empty()) calls[{site, q}] = std::move(t);
            if (auto t = rf.take_terms(); !t.empty()) rets[{site, q}] = std::move(t);
        }
        void ctr(node_id site, ide_flow<F>& f) {
            if (auto t = f.take_terms(); !t.empty()) ctrs[site] = std::move(t);
        }
    } rec;
    std::map<std::pair<const ::llvm::Function*, fact_id>, typename F::value> values;
    compiled_ide_problem<F> out;
    out.problem.graph = detail::compile_into<ide_flow<F>>(prog, a, out.facts, rec, [&](analysis_context& cx) {
        ide_seed_list<F> seeds;
        a.initial_seeds(cx, seeds);
        std::vector<std::pair<const ::llvm::Function*, fact_id>> out_seeds;
        for (const auto& s : seeds) {
            out_seeds.emplace_back(s.function, s.fact);
            auto [it, fresh] = values.try_emplace({s.function, s.fact}, s.value);
            if (!fresh) it->second = F::join_values(it->second, s.value);
        }
        return out_seeds;
    });
    auto& pb = out.problem;
    const auto& g = pb.graph;
    pb.fill_defaults();
    for (std::size_t i = 0; i < g.flows.size(); ++i)
        if (auto it = rec.flows.find({g.flows[i].from, g.flows[i].to}); it != rec.flows.end()) pb.flow_functions[i] = it->second;
    for (std::size_t i = 0; i < g.calls.size(); ++i) {
        const std::pair<node_id, node_id> k{g.calls[i].site, g.calls[i].callee};
        if (auto it = rec.calls.find(k); it != rec.calls.end()) pb.call_functions[i] = it->second;
        if (auto it = rec.rets.find(k); it != rec.rets.end()) pb.return_functions[i] = it->second;
    }
    for (auto& [site, t] : rec.ctrs)
        if (g.ctrflows.count(site)) pb.ctr_functions[site] = std::move(t);
    // Seed values by (procedure of the seed's node, fact): the program's start seeds are the null function's.
    for (std::size_t i = 0; i < g.seeds.size(); ++i) {
        const auto& sd = g.seeds[i];
        if (sd.fact == zero_fact) continue;  // (bottom, as fill_defaults left it)
        const ::llvm::Function* fn = prog.procedures()[g.nodes[sd.node].proc];
        typename F::value v = F::top_value();
        bool found = false;
        for (const ::llvm::Function* key : {fn, static_cast<const ::llvm::Function*>(nullptr)})
            if (auto it = values.find({key, sd.fact}); it != values.end()) {
                v = found ? F::join_values(v, it->second) : it->second;
                found = true;
            }
        pb.seed_values[i] = found ? v : F::bottom_value();
    }
    return out;
}

} // namespace weir::llvm
