#pragma once
// Flow rules the built-in analyses share (internal to libweir-llvm).

#include <string>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <weir/llvm/analysis.hpp>

namespace weir::llvm::detail {

/// Calls that copy memory: destination argument and the first argument whose
/// data (value and pointed-to memory) flows into the destination's memory.
inline bool copies_into(const ::llvm::Function& f, unsigned& dst, unsigned& first_src) {
    const ::llvm::StringRef n = f.getName();
    dst = 0;
    first_src = 1;
    if (n.startswith("llvm.memcpy") || n.startswith("llvm.memmove") || n == "memcpy" || n == "memmove" ||
        n == "strcpy" || n == "strncpy" || n == "strcat" || n == "strncat" || n == "stpcpy" || n == "stpncpy" ||
        n == "sprintf" || n == "vsprintf")
        return true;
    // glibc's fortified forms (-D_FORTIFY_SOURCE): the same, with sizes and flags after the source
    if (n == "__memcpy_chk" || n == "__memmove_chk" || n == "__strcpy_chk" || n == "__strncpy_chk" ||
        n == "__strcat_chk" || n == "__strncat_chk" || n == "__stpcpy_chk" || n == "__stpncpy_chk")
        return true;
    // from argument 2 on: snprintf's format and what it formats; the fortified
    // forms' flag and sizes, then those (constants, or tainted arguments)
    if (n == "snprintf" || n == "vsnprintf" || n == "__sprintf_chk" || n == "__vsprintf_chk" || n == "__snprintf_chk" ||
        n == "__vsnprintf_chk") {
        first_src = 2;
        return true;
    }
    return false;
}

/// Calls whose source operand is the only data they copy (memcpy: one
/// source; sprintf: every argument from `first_src`).
inline bool copies_all_following(const ::llvm::Function& f) {
    const ::llvm::StringRef n = f.getName();
    return n.contains("printf");
}

/// `i`'s operands' facts flow to its result.
inline void operands_to_result(analysis_context& cx, const ::llvm::Instruction& i, flow& out) {
    const auto x = cx.value_fact(&i);
    if (!x || i.getType()->isVoidTy()) return;
    out.kill(*x);
    for (const ::llvm::Use& op : i.operands())
        if (auto f = cx.value_fact(op.get())) out.transfer(*f, *x);
}

/// Actual arguments to formal parameters.
inline void arguments_to_parameters(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, flow& out) {
    for (unsigned k = 0; k < callee.arg_size() && k < c.arg_size(); ++k)
        if (auto a = cx.value_fact(c.getArgOperand(k))) out.transfer(*a, cx.facts().value(callee.getArg(k)));
}

/// The objects `callee` may access (and `relevant` accepts) pass unchanged.
template <class Relevant>
void accessed_objects_pass(analysis_context& cx, const ::llvm::Function& callee, Relevant&& relevant, flow& out) {
    for (object_id o : cx.prog().accessed_by(callee))
        if (relevant(o)) {
            const fact_id f = cx.facts().object(o);
            out.transfer(f, f);
        }
}

/// Around a call: everything but the result and the objects that every
/// callee may access (and may update strongly), unless some target has no
/// body. An object that one possible target leaves alone keeps its state
/// around the call (that target's effect); the targets that access it bring
/// their effect back on their return edges.
template <class Relevant>
void around_defined_callees(analysis_context& cx, const ::llvm::CallBase& c, Relevant&& relevant, flow& out) {
    out.identity();
    if (auto x = cx.value_fact(&c); x && !c.getType()->isVoidTy()) out.kill(*x);
    if (cx.prog().may_call_external(c)) return;  // an unknown target may leave them as they are
    const std::vector<const ::llvm::Function*> callees = cx.prog().defined_callees(c);
    if (callees.empty()) return;
    object_set every = cx.prog().accessed_by(*callees.front());
    for (std::size_t k = 1; k < callees.size(); ++k) every &= cx.prog().accessed_by(*callees[k]);
    for (object_id o : every)
        if (relevant(o)) out.kill(cx.facts().object(o));
}

/// Back from `callee`: its returned value to the call's result; the objects
/// it may access (and `relevant` accepts) unchanged.
template <class Relevant>
void returned_value_and_objects(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee,
                                Relevant&& relevant, flow& out) {
    if (!c.getType()->isVoidTy()) out.transfer(cx.facts().returned(&callee), cx.facts().value(&c));
    accessed_objects_pass(cx, callee, relevant, out);
}

/// The call-to-return edge: around the defined callees; plus what a target
/// without a body does (`external(out)`) when the call may reach one.
template <class Relevant, class External>
void call_to_return(analysis_context& cx, const ::llvm::CallBase& c, Relevant&& relevant, External&& external, flow& out) {
    around_defined_callees(cx, c, relevant, out);
    if (cx.prog().may_call_external(c)) external(out);
}

/// The functions without a body that a call may invoke (its direct callee or
/// resolved targets); empty for an unresolved indirect call.
inline std::vector<const ::llvm::Function*> external_targets(const program& prog, const ::llvm::CallBase& c) {
    std::vector<const ::llvm::Function*> out;
    for (const ::llvm::Function* f : prog.pointers().callees(c))
        if (f->isDeclaration()) out.push_back(f);
    return out;
}

} // namespace weir::llvm::detail
