// The uninitialized-variables analysis (uninit.hpp; spec: analyze.md, "uninit").

#include <weir/llvm/uninit.hpp>

#include <weir/llvm/taint_config.hpp>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "flow_rules.hpp"
#include "names.hpp"

namespace weir::llvm {

namespace L = ::llvm;

namespace {
/// An `undef` (or `poison`) operand that stands for an uninitialized scalar,
/// not the placeholder aggregate that `insertvalue` chains start from.
bool uninit_constant(const L::Instruction& i, unsigned k) {
    const L::Value* v = i.getOperand(k);
    if (!L::isa<L::UndefValue>(v)) return false;
    if (v->getType()->isAggregateType() || v->getType()->isVectorTy()) return false;
    if ((L::isa<L::InsertValueInst>(&i) || L::isa<L::InsertElementInst>(&i) || L::isa<L::ShuffleVectorInst>(&i)) && k == 0)
        return false;
    return true;
}
} // namespace

uninit_analysis::uninit_analysis(const program& prog) : prog_(&prog) {
    const points_to& pts = prog.pointers();
    relevant_.assign(pts.objects().size(), 0);
    for (object_id o = 0; o < pts.objects().size(); ++o)
        if (pts.objects()[o].kind == object_kind::stack) relevant_[pts.group_of(o)] = 1;
    // Objects that may receive an uninitialized value.
    for (const L::Function& f : prog.module())
        for (const L::BasicBlock& b : f)
            for (const L::Instruction& i : b)
                if (const auto* st = L::dyn_cast<L::StoreInst>(&i))
                    if (!L::isa<L::Constant>(st->getValueOperand()) || L::isa<L::UndefValue>(st->getValueOperand()))
                        for (object_id o : pts.pointees(st->getPointerOperand())) relevant_[o] = 1;
}

void uninit_analysis::initial_seeds(analysis_context&, seed_list&) {}

void uninit_analysis::external_call(analysis_context& cx, const L::CallBase& c, flow& out) {
    const points_to& pts = cx.pointers();
    // What the callee receives the address of (directly or through pointers) it initializes.
    for (const L::Use& a : c.args())
        if (a->getType()->isPointerTy())
            for (object_id o : pts.reachable_from(a.get()))
                if (relevant(o)) out.kill(cx.facts().object(o));
    detail::operands_to_result(cx, c, out);
}

void uninit_analysis::normal_flow(analysis_context& cx, const L::Instruction& i, flow& out) {
    const points_to& pts = cx.pointers();
    out.identity();
    if (const auto* a = L::dyn_cast<L::AllocaInst>(&i)) {
        // A fresh frame's variable is uninitialized. Under unification an
        // alloca may share its group with other objects (its address went
        // where theirs did); the group is then not made uninitialized as a
        // whole, which would flood every object of it. One object stands
        // for every frame of its function: in a recursive function whose
        // callees may reach the variable (its address was passed on), a
        // new frame would make the older frames' copies, which it may read
        // through pointers, uninitialized too; it is not generated there.
        const object_id o = pts.object_of(a);
        if (o == ~0u || pts.group_size(o) != 1) return;
        const L::Function& f = *a->getFunction();
        if (cx.prog().recursive(f) && cx.prog().accessed_by(f).test(o)) return;
        out.gen(cx.facts().object(o));
        return;
    }
    if (const auto* st = L::dyn_cast<L::StoreInst>(&i)) {
        const L::Value* v = st->getValueOperand();
        const auto vf = cx.value_fact(v);
        for (object_id o : pts.pointees(st->getPointerOperand())) {
            if (!relevant(o)) continue;
            const fact_id of = cx.facts().object(o);
            out.kill(of);
            // An uninitialized value stored makes the object uninitialized;
            // not a group of several objects (under unification), where one
            // such store would make all of them so.
            if (pts.group_size(o) > 1) continue;
            if (vf) out.transfer(*vf, of);
            if (uninit_constant(i, 0)) out.gen(of);
        }
        return;
    }
    if (const auto* ld = L::dyn_cast<L::LoadInst>(&i)) {
        const fact_id x = cx.facts().value(ld);
        out.kill(x);
        if (auto pf = cx.value_fact(ld->getPointerOperand())) out.transfer(*pf, x);
        // Through a pointer that may address several objects, a load is not
        // taken to read an uninitialized one (that needs all of them to be,
        // which a distributive flow cannot say; `findings` checks it).
        const object_set& pt = pts.pointees(ld->getPointerOperand());
        if (pt.count() == 1)
            for (object_id o : pt)
                if (relevant(o)) out.transfer(cx.facts().object(o), x);
        return;
    }
    if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
        external_call(cx, *c, out);
        return;
    }
    if (const auto* ret = L::dyn_cast<L::ReturnInst>(&i)) {
        if (const L::Value* v = ret->getReturnValue()) {
            const fact_id r = cx.facts().returned(ret->getFunction());
            if (auto f = cx.value_fact(v)) out.transfer(*f, r);
            if (uninit_constant(i, 0)) out.gen(r);
        }
        return;
    }
    detail::operands_to_result(cx, i, out);
    if (!i.getType()->isVoidTy())
        for (unsigned k = 0; k < i.getNumOperands(); ++k)
            if (uninit_constant(i, k)) out.gen(cx.facts().value(&i));
}

void uninit_analysis::call_flow(analysis_context& cx, const L::CallBase& c, const L::Function& callee, flow& out) {
    detail::arguments_to_parameters(cx, c, callee, out);
    for (unsigned k = 0; k < callee.arg_size() && k < c.arg_size(); ++k)
        if (uninit_constant(c, k)) out.gen(cx.facts().value(callee.getArg(k)));
    detail::accessed_objects_pass(cx, callee, [&](object_id o) { return relevant(o); }, out);
}

void uninit_analysis::return_flow(analysis_context& cx, const L::CallBase& c, const L::Function& callee, flow& out) {
    detail::returned_value_and_objects(cx, c, callee, [&](object_id o) { return relevant(o); }, out);
}

void uninit_analysis::call_to_return_flow(analysis_context& cx, const L::CallBase& c, flow& out) {
    detail::call_to_return(cx, c, [&](object_id o) { return relevant(o); }, [&](flow& f) { external_call(cx, c, f); }, out);
}

std::vector<finding> uninit_analysis::findings(analysis_context& cx, const ifds_result& r) const {
    std::vector<finding> out;
    const points_to& pts = cx.pointers();
    for (std::uint32_t n = 0; n < prog_->nodes().size(); ++n) {
        const icfg_node& node = prog_->nodes()[n];
        if (node.role != node_role::instruction) continue;
        const L::Instruction& i = *node.inst;
        if (L::isa<L::PHINode>(&i) || !r.reached(n)) continue;
        std::optional<fact_id> why;
        std::string variable;
        // Operands: a store's value only propagates.
        for (unsigned k = 0; k < i.getNumOperands() && !why; ++k) {
            if (L::isa<L::StoreInst>(&i) && k == 0) continue;
            const L::Value* op = i.getOperand(k);
            if (auto f = cx.facts().find_value(op); f && r.holds(n, *f)) {
                why = *f;
                // A loaded value is named after the variable it came from.
                const L::Value* named = op;
                if (const auto* ld = L::dyn_cast<L::LoadInst>(op)) named = ld->getPointerOperand()->stripPointerCasts();
                variable = source_name(*named);
            } else if (uninit_constant(i, k) && !L::isa<L::StoreInst>(&i)) {
                why = zero_fact;
                variable = "undef";
            }
        }
        // A load from uninitialized memory: every object the pointer may
        // address is uninitialized here.
        const L::LoadInst* ld = L::dyn_cast<L::LoadInst>(&i);
        bool all_uninit = ld && !pts.pointees(ld->getPointerOperand()).empty();
        if (ld)
            for (object_id o : pts.pointees(ld->getPointerOperand())) {
                auto f = cx.facts().find_object(o);
                all_uninit = all_uninit && f && r.holds(n, *f);
            }
        if (!why && all_uninit)
            for (object_id o : pts.pointees(ld->getPointerOperand()))
                if (auto f = cx.facts().find_object(o); f && r.holds(n, *f)) {
                        why = *f;
                        // The variable loaded, when the load names it; else the object (group).
                        const L::Value* base = ld->getPointerOperand()->stripPointerCasts();
                        const memory_object& obj = pts.objects()[o];
                        variable = L::isa<L::AllocaInst>(base) || L::isa<L::GlobalVariable>(base) ? source_name(*base)
                                   : obj.site                                                  ? source_name(*obj.site)
                                                                                               : obj.name;
                        break;
                    }
        if (!why) continue;
        finding fd;
        fd.rule = "uninit";
        fd.where = location_of(i);
        fd.display_name = demangle(i.getFunction()->getName());
        fd.variable = variable;
        fd.message = "use of uninitialized value '" + variable + "'";
        fd.node = n;
        fd.fact = *why;
        out.push_back(std::move(fd));
    }
    return out;
}

} // namespace weir::llvm
