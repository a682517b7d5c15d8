// The taint analysis (taint.hpp; spec: analyze.md, "taint").

#include <weir/llvm/taint.hpp>

#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "flow_rules.hpp"
#include "names.hpp"

namespace weir::llvm {

namespace L = ::llvm;

namespace {
/// Calls `visit(o)` for the objects whose data an argument hands to a
/// function without a body: what it points to, and for a `va_list` what it
/// reaches (the variadic arguments behind it).
template <class Visit>
void for_each_argument_object(const points_to& pts, const L::Value* a, Visit&& visit) {
    if (is_va_list(a)) {
        for (object_id o : pts.reachable_from(a)) visit(o);
    } else {
        for (object_id o : pts.pointees(a)) visit(o);
    }
}

/// True when a config variable's `scope` names `f`: its IR name, its
/// demangled name, or that name without its parameter list.
bool in_scope(const L::Function& f, const std::string& scope) {
    if (f.getName() == scope) return true;
    const std::string d = demangle(f.getName());
    return d == scope || (d.size() > scope.size() && d.compare(0, scope.size(), scope) == 0 && d[scope.size()] == '(');
}

/// Argument indices a tag list names for a call with `n` arguments.
std::vector<unsigned> tagged_args(const std::vector<unsigned>& listed, bool all, int from, unsigned n) {
    std::vector<unsigned> out;
    for (unsigned k = 0; k < n; ++k)
        if (all || (from >= 0 && k >= static_cast<unsigned>(from)) || std::find(listed.begin(), listed.end(), k) != listed.end())
            out.push_back(k);
    return out;
}
} // namespace

taint_analysis::taint_analysis(const program& prog, taint_config config) : prog_(&prog), config_(std::move(config)) {
    const points_to& pts = prog.pointers();
    relevant_.assign(pts.objects().size(), 0);
    auto mark = [&](const object_set& s) {
        for (object_id o : s) relevant_[o] = 1;
    };
    for (const L::Function& f : prog.module())
        for (const L::BasicBlock& b : f)
            for (const L::Instruction& i : b) {
                if (const auto* st = L::dyn_cast<L::StoreInst>(&i)) {
                    if (!L::isa<L::Constant>(st->getValueOperand())) mark(pts.pointees(st->getPointerOperand()));
                } else if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
                    for (const L::Function* t : pts.callees(*c)) {
                        unsigned dst = 0, src = 1;
                        if (detail::copies_into(*t, dst, src) && c->arg_size() > dst) mark(pts.pointees(c->getArgOperand(dst)));
                        if (const function_tags* tags = tags_of(*t))
                            for (unsigned k : tagged_args(tags->source_params, tags->all_params_source, tags->source_params_from,
                                                          c->arg_size()))
                                for_each_argument_object(pts, c->getArgOperand(k), [&](object_id o) { relevant_[o] = 1; });
                    }
                    if (const L::Function* t = direct_callee(*c); t && t->getName() == "__cxa_throw") mark(pts.pointees(c->getArgOperand(0)));
                }
            }
    for (object_id o = 0; o < pts.objects().size(); ++o)
        if (pts.objects()[o].kind == object_kind::external) relevant_[pts.group_of(o)] = 1;
    // What the configuration's variables taint (initial_seeds comes after
    // the flow functions; a defined function's `source` parameters point to
    // objects its callers' arguments point to, marked above, or, for an
    // entry, to external objects).
    for_each_source_variable([&](const L::Function*, object_id o) { relevant_[o] = 1; });
}

template <class Visit>
void taint_analysis::for_each_source_variable(Visit&& visit) const {
    const points_to& pts = prog_->pointers();
    for (const variable_tag& v : config_.variables) {
        if (v.cat != "source") continue;
        for (object_id o = 0; o < pts.objects().size(); ++o) {
            const memory_object& obj = pts.objects()[o];
            if (obj.kind == object_kind::global && (v.scope.empty() || v.scope == "global" || v.scope == "::") &&
                has_source_name(*obj.site, v.name))
                visit(static_cast<const L::Function*>(nullptr), pts.group_of(o));
            else if (obj.kind == object_kind::stack && obj.owner && in_scope(*obj.owner, v.scope) &&
                     has_source_name(*obj.site, v.name))
                visit(obj.owner, pts.group_of(o));
        }
    }
}

void taint_analysis::initial_seeds(analysis_context& cx, seed_list& seeds) {
    const points_to& pts = cx.pointers();
    for (const L::Function* e : prog_->entries()) {
        if (!(config_.untrusted_command_line && e->getName() == "main")) continue;
        for (const L::Argument& a : e->args()) {
            seeds.push_back({e, cx.facts().value(&a)});
            if (a.getType()->isPointerTy())
                for (object_id o : pts.reachable_from(&a)) seeds.push_back({e, cx.facts().object(o)});
        }
    }
    // Parameters tagged `source` of entries with a body (elsewhere each call
    // into the function taints them, in its caller's context: call_flow).
    for (const L::Function* f : prog_->entries()) {
        const function_tags* tags = tags_of(*f);
        if (!tags) continue;
        for (unsigned k : tagged_args(tags->source_params, tags->all_params_source, tags->source_params_from,
                                      static_cast<unsigned>(f->arg_size()))) {
            seeds.push_back({f, cx.facts().value(f->getArg(k))});
            for (object_id o : pts.pointees(f->getArg(k))) seeds.push_back({f, cx.facts().object(o)});
        }
    }
    // Variables tagged `source`: tainted from the start of their scope (globals: of every entry).
    for_each_source_variable([&](const L::Function* scope, object_id o) {
        if (scope) seeds.push_back({scope, cx.facts().object(o)});
        else
            for (const L::Function* e : prog_->entries()) seeds.push_back({e, cx.facts().object(o)});
    });
}

void taint_analysis::external_call(analysis_context& cx, const L::CallBase& c, flow& out) {
    const points_to& pts = cx.pointers();
    std::optional<fact_id> x;
    if (!c.getType()->isVoidTy()) x = cx.value_fact(&c);
    if (x) out.kill(*x);
    auto targets = detail::external_targets(*prog_, c);
    const bool unresolved = pts.callees(c).empty();
    bool result_default = unresolved;  // untagged, uncopying targets: the result follows the arguments
    for (const L::Function* t : targets) {
        if (t->isIntrinsic() && !t->getName().startswith("llvm.mem")) {
            result_default = true;
            continue;
        }
        unsigned dst = 0, src = 1;
        const function_tags* tags = tags_of(*t);
        if (detail::copies_into(*t, dst, src) && c.arg_size() > dst) {
            // What the source arguments point to, and every tainted argument
            // (a size or a flag too), goes into the destination's memory.
            const bool all = detail::copies_all_following(*t);
            for (unsigned k = 0; k < c.arg_size(); ++k) {
                if (k == dst) continue;
                const L::Value* a = c.getArgOperand(k);
                const bool source_data = k == src || (all && k > src);
                for (object_id d : pts.pointees(c.getArgOperand(dst))) {
                    if (!relevant(d)) continue;
                    const fact_id df = cx.facts().object(d);
                    if (auto af = cx.value_fact(a)) out.transfer(*af, df);
                    if (source_data)
                        for_each_argument_object(pts, a, [&](object_id s) {
                            if (relevant(s)) out.transfer(cx.facts().object(s), df);
                        });
                }
            }
            if (x) {  // strcpy returns its destination
                if (auto df = cx.value_fact(c.getArgOperand(dst))) out.transfer(*df, *x);
            }
        } else if (!tags) {
            result_default = true;
        }
        if (!tags) continue;
        if (tags->ret_source && x) out.gen(*x);
        gen_source_arguments(cx, c, *tags, nullptr, out);
        for (object_id o : sanitized_objects(c, *tags)) out.kill(cx.facts().object(o));
    }
    if (result_default && x) {
        for (const L::Use& a : c.args()) {
            if (auto af = cx.value_fact(a.get())) out.transfer(*af, *x);
            for_each_argument_object(pts, a.get(), [&](object_id o) {
                if (relevant(o)) out.transfer(cx.facts().object(o), *x);
            });
        }
    }
}

void taint_analysis::normal_flow(analysis_context& cx, const L::Instruction& i, flow& out) {
    const points_to& pts = cx.pointers();
    out.identity();
    if (const auto* st = L::dyn_cast<L::StoreInst>(&i)) {
        const L::Value* p = st->getPointerOperand();
        // A strong update when p is the variable itself: what was there is gone.
        if (L::isa<L::AllocaInst>(p) || L::isa<L::GlobalVariable>(p))
            if (const object_id o = pts.object_of(p); o != ~0u && pts.group_size(o) == 1 && relevant(o))
                out.kill(cx.facts().object(o));
        if (auto v = cx.value_fact(st->getValueOperand()))
            for (object_id o : pts.pointees(p))
                if (relevant(o)) out.transfer(*v, cx.facts().object(o));
        return;
    }
    if (const auto* ld = L::dyn_cast<L::LoadInst>(&i)) {
        const fact_id x = cx.facts().value(ld);
        out.kill(x);
        if (auto pf = cx.value_fact(ld->getPointerOperand())) out.transfer(*pf, x);
        for (object_id o : pts.pointees(ld->getPointerOperand()))
            if (relevant(o)) out.transfer(cx.facts().object(o), x);
        return;
    }
    if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
        external_call(cx, *c, out);
        return;
    }
    if (L::isa<L::AllocaInst>(&i)) return;
    if (L::isa<L::AtomicRMWInst>(&i) || L::isa<L::AtomicCmpXchgInst>(&i)) {
        const L::Value* p = i.getOperand(0);
        const fact_id x = cx.facts().value(&i);
        out.kill(x);
        for (object_id o : pts.pointees(p)) {
            if (!relevant(o)) continue;
            out.transfer(cx.facts().object(o), x);
            for (unsigned k = 1; k < i.getNumOperands(); ++k)
                if (auto v = cx.value_fact(i.getOperand(k))) out.transfer(*v, cx.facts().object(o));
        }
        return;
    }
    if (const auto* ret = L::dyn_cast<L::ReturnInst>(&i)) {
        if (const L::Value* v = ret->getReturnValue())
            if (auto f = cx.value_fact(v)) out.transfer(*f, cx.facts().returned(ret->getFunction()));
        return;
    }
    detail::operands_to_result(cx, i, out);
}

void taint_analysis::call_flow(analysis_context& cx, const L::CallBase& c, const L::Function& callee, flow& out) {
    detail::arguments_to_parameters(cx, c, callee, out);
    detail::accessed_objects_pass(cx, callee, [&](object_id o) { return relevant(o); }, out);
    // The callee's `source` parameters are tainted at its entry, and so is
    // what this call's arguments point to, in this caller's context: what
    // the callee leaves tainted there comes back after the return
    // (`initial_seeds` seeds them at an entry, which no call opens).
    if (const function_tags* tags = tags_of(callee)) gen_source_arguments(cx, c, *tags, &callee, out);
    // A variadic callee's extra arguments: its varargs object, which va_arg reads.
    if (const object_id v = cx.pointers().varargs_object(callee); v != ~0u && relevant(v))
        for (unsigned k = static_cast<unsigned>(callee.arg_size()); k < c.arg_size(); ++k)
            if (auto af = cx.value_fact(c.getArgOperand(k))) out.transfer(*af, cx.facts().object(v));
}

void taint_analysis::gen_source_arguments(analysis_context& cx, const L::CallBase& c, const function_tags& tags,
                                          const L::Function* body, flow& out) const {
    const std::size_t n = body ? std::min<std::size_t>(body->arg_size(), c.arg_size()) : c.arg_size();
    for (unsigned k : tagged_args(tags.source_params, tags.all_params_source, tags.source_params_from, static_cast<unsigned>(n))) {
        if (body) out.gen(cx.facts().value(body->getArg(k)));
        for_each_argument_object(cx.pointers(), c.getArgOperand(k), [&](object_id o) {  // (vscanf: what its va_list reaches)
            if (relevant(o)) out.gen(cx.facts().object(o));
        });
    }
}

std::vector<object_id> taint_analysis::sanitized_objects(const L::CallBase& c, const function_tags& tags) const {
    std::vector<object_id> out;
    // Only a call with one possible target sanitizes for sure.
    if (prog_->pointers().callees(c).size() != 1) return out;
    for (unsigned k : tags.sanitizer_params)
        if (k < c.arg_size())
            for (object_id o : prog_->pointers().pointees(c.getArgOperand(k)))
                if (relevant(o)) out.push_back(o);
    return out;
}

void taint_analysis::return_flow(analysis_context& cx, const L::CallBase& c, const L::Function& callee, flow& out) {
    // The returned value and the objects the callee may access come back,
    // except where its tags decide over its body: a sanitizer's result, and
    // the objects its sanitizing arguments point to, come back clean.
    const function_tags* tags = tags_of(callee);
    if (!(tags && tags->ret_sanitizer) && !c.getType()->isVoidTy())
        out.transfer(cx.facts().returned(&callee), cx.facts().value(&c));
    std::vector<object_id> clean = tags ? sanitized_objects(c, *tags) : std::vector<object_id>{};
    // The callee's variadic arguments end with its frame, unless an older
    // frame of it may still read them (a recursive callee) or the group
    // holds other objects too (unification).
    if (const object_id v = cx.pointers().varargs_object(callee);
        v != ~0u && cx.pointers().group_size(v) == 1 && !prog_->recursive(callee))
        clean.push_back(v);
    detail::accessed_objects_pass(
        cx, callee, [&](object_id o) { return relevant(o) && std::find(clean.begin(), clean.end(), o) == clean.end(); }, out);
}

void taint_analysis::call_to_return_flow(analysis_context& cx, const L::CallBase& c, flow& out) {
    detail::call_to_return(cx, c, [&](object_id o) { return relevant(o); }, [&](flow& f) { external_call(cx, c, f); }, out);
    // The tags of targets with a body apply at the call as they do for
    // targets without one (a `source()` defined in the program is a source).
    for (const L::Function* t : prog_->defined_callees(c)) {
        const function_tags* tags = tags_of(*t);
        if (!tags) continue;
        if (tags->ret_source && !c.getType()->isVoidTy()) out.gen(cx.facts().value(&c));
        for (object_id o : sanitized_objects(c, *tags)) out.kill(cx.facts().object(o));
    }
}

template <class Visit>
void taint_analysis::for_each_sink_argument(Visit&& visit) const {
    for (std::uint32_t n = 0; n < prog_->nodes().size(); ++n) {
        const icfg_node& node = prog_->nodes()[n];
        if (node.role != node_role::instruction) continue;
        const auto* c = L::dyn_cast<L::CallBase>(node.inst);
        if (!c) continue;
        for (const L::Function* t : prog_->pointers().callees(*c))
            if (const function_tags* tags = tags_of(*t))
                for (unsigned k : tagged_args(tags->sink_params, tags->all_params_sink, -1, c->arg_size()))
                    visit(n, *c, *t, k, c->getArgOperand(k));
    }
}

void taint_analysis::demanded_facts(const fact_table& facts, std::vector<fact_id>& out) const {
    const points_to& pts = prog_->pointers();
    for_each_sink_argument([&](std::uint32_t, const L::CallBase&, const L::Function&, unsigned, const L::Value* a) {
        if (auto f = facts.find_value(a)) out.push_back(*f);
        for (object_id o : pts.pointees(a))
            if (auto f = facts.find_object(o)) out.push_back(*f);
    });
}

std::vector<finding> taint_analysis::findings(analysis_context& cx, const ifds_result& r) const {
    std::vector<finding> out;
    const points_to& pts = cx.pointers();
    for_each_sink_argument([&](std::uint32_t n, const L::CallBase& c, const L::Function& t, unsigned k, const L::Value* a) {
        if (!r.reached(n)) return;
        std::optional<fact_id> why;
        if (auto f = cx.facts().find_value(a); f && r.holds(n, *f)) why = *f;
        if (!why)
            for (object_id o : pts.pointees(a))
                if (auto f = cx.facts().find_object(o); f && r.holds(n, *f)) {
                    why = *f;
                    break;
                }
        if (!why) return;
        // One finding per call and argument (several tagged targets may
        // name the same one). Nodes are visited in order, so this
        // node's findings are the last ones: look only at those.
        for (auto it = out.rbegin(); it != out.rend() && it->node == n; ++it)
            if (it->argument == int(k)) return;
        finding fd;
        fd.rule = "taint";
        fd.where = location_of(c);
        fd.display_name = demangle(c.getFunction()->getName());
        fd.callee = t.getName().str();
        fd.argument = static_cast<int>(k);
        fd.message = "tainted value reaches argument " + std::to_string(k) + " of " + short_function_name(t.getName());
        fd.node = n;
        fd.fact = *why;
        out.push_back(std::move(fd));
    });
    return out;
}

} // namespace weir::llvm
