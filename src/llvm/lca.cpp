// Linear constant propagation (lca.hpp; spec: analyze.md, "lca").

#include <weir/llvm/lca.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <weir/llvm/taint_config.hpp>

#include "flow_rules.hpp"
#include "names.hpp"

namespace weir::llvm {

namespace L = ::llvm;
using lin = weir::ide::linear;

namespace {

/// True for an integer alloca or an integer global: a variable of the analysis.
bool integer_variable(const L::Value* site) {
    if (const auto* a = L::dyn_cast_or_null<L::AllocaInst>(site))
        return a->getAllocatedType()->isIntegerTy() && !a->isArrayAllocation();  // (a VLA is no scalar)
    if (const auto* g = L::dyn_cast_or_null<L::GlobalVariable>(site)) return g->getValueType()->isIntegerTy();
    return false;
}

/// The function a `static` local belongs to (its debug scope), or null for a true global.
const L::DISubprogram* static_scope(const L::GlobalVariable& g) {
    L::SmallVector<L::DIGlobalVariableExpression*, 1> exprs;
    g.getDebugInfo(exprs);
    for (auto* e : exprs)
        if (const auto* v = L::dyn_cast_or_null<L::DIGlobalVariable>(e->getRawVariable()))
            if (const auto* scope = L::dyn_cast_or_null<L::DILocalScope>(v->getRawScope())) return scope->getSubprogram();
    return nullptr;
}

/// The integer type of a variable's site.
const L::Type* variable_type(const L::Value* site) {
    if (const auto* a = L::dyn_cast_or_null<L::AllocaInst>(site)) return a->getAllocatedType();
    if (const auto* g = L::dyn_cast_or_null<L::GlobalVariable>(site)) return g->getValueType();
    return nullptr;
}

/// The signed value of the low `bits` bits of `u`.
std::int64_t sign_extend(std::uint64_t u, unsigned bits) {
    if (bits >= 64) return static_cast<std::int64_t>(u);
    const std::uint64_t m = std::uint64_t{1} << (bits - 1);
    u &= (m << 1) - 1;
    return static_cast<std::int64_t>((u ^ m) - m);
}

/// Integer cast `op` (trunc, sext or zext from `from` to `to` bits) of a
/// value held exactly modulo 2^from, as the machine computes it (read
/// signed in `to` bits, as every value is kept).
std::int64_t extended(unsigned op, std::int64_t c, unsigned from, unsigned to) {
    const auto u = static_cast<std::uint64_t>(c);
    if (op == L::Instruction::ZExt && from < 64) return sign_extend(u & ((std::uint64_t{1} << from) - 1), to);
    if (op == L::Instruction::Trunc) return sign_extend(u, to);
    return sign_extend(u, from);  // sext
}

/// The value of an integer constant of at most 64 bits, sign-extended.
std::optional<std::int64_t> constant_of(const L::Value* v) {
    if (const auto* c = L::dyn_cast<L::ConstantInt>(v); c && c->getBitWidth() <= 64) return c->getSExtValue();
    return std::nullopt;
}

/// `a / b` and `a % b` of constants as the instruction computes them, when defined.
std::optional<std::int64_t> fold_division(unsigned opcode, std::int64_t a, std::int64_t b, unsigned bits) {
    if (b == 0) return std::nullopt;
    switch (opcode) {
    case L::Instruction::SDiv:
    case L::Instruction::SRem:
        if (a == std::numeric_limits<std::int64_t>::min() && b == -1) return std::nullopt;
        if (bits < 64 && a == -(std::int64_t{1} << (bits - 1)) && b == -1) return std::nullopt;  // MIN / -1 of the type
        return opcode == L::Instruction::SDiv ? a / b : a % b;
    case L::Instruction::UDiv:
    case L::Instruction::URem: {
        const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
        const std::uint64_t ua = static_cast<std::uint64_t>(a) & mask, ub = static_cast<std::uint64_t>(b) & mask;
        if (ub == 0) return std::nullopt;
        return sign_extend(opcode == L::Instruction::UDiv ? ua / ub : ua % ub, bits);
    }
    default: return std::nullopt;
    }
}

/// The value solution `s` holds for fact `f` at node `n` (before its
/// instruction, over every context), or null where `f` does not hold there.
const lin::value* held_at(const weir::ide::solution<lin>& s, std::uint32_t n, fact_id f) {
    if (n >= s.at.size()) return nullptr;
    const auto& held = s.at[n];
    auto it = std::lower_bound(held.begin(), held.end(), f, [](const auto& e, fact_id k) { return e.first < k; });
    return it != held.end() && it->first == f ? &it->second : nullptr;
}

/// `f` after the edge is bottom, whatever it was (a write the analysis does not follow).
void set_bottom(ide_flow<lin>& out, fact_id f) {
    out.kill(f);
    out.gen(f, lin::bottom());
}

} // namespace

lca_analysis::lca_analysis(const program& prog) : prog_(&prog) {
    const points_to& pts = prog.pointers();
    variable_.assign(pts.objects().size(), 0);
    type_.assign(pts.objects().size(), nullptr);
    for (object_id o = 0; o < pts.objects().size(); ++o)
        if (integer_variable(pts.objects()[o].site)) {
            const object_id g = pts.group_of(o);
            const L::Type* t = variable_type(pts.objects()[o].site);
            // one type per group, or none (then every access is bottom: `typed` fails)
            type_[g] = variable_[g] && type_[g] != t ? nullptr : t;
            variable_[pts.group_of(o)] = 1;
            if (pts.objects()[o].kind == object_kind::global) globals_.push_back(pts.group_of(o));
        }
    std::sort(globals_.begin(), globals_.end());
    globals_.erase(std::unique(globals_.begin(), globals_.end()), globals_.end());
}

void lca_analysis::globals_pass(analysis_context& cx, flow& out) const {
    for (object_id o : globals_) {
        const fact_id f = cx.facts().object(o);
        out.transfer(f, f);
    }
}

lca_analysis::operand lca_analysis::operand_of(analysis_context& cx, const L::Value* v) const {
    operand a;
    if (auto c = constant_of(v)) {
        a.kind = operand::constant;
        a.c = *c;
    } else if (v->getType()->isIntegerTy()) {
        if (auto f = cx.value_fact(v)) {
            a.kind = operand::fact;
            a.f = *f;
        }
    }
    return a;
}

void lca_analysis::assign(ide_flow<family>& out, fact_id x, const operand& a) {
    if (a.kind == operand::constant) out.gen(x, lin::constant(a.c));
    else if (a.kind == operand::fact) out.transfer(a.f, x, lin::identity());
    else out.gen(x, lin::bottom());
}

void lca_analysis::initial_seeds(analysis_context& cx, ide_seed_list<family>& seeds) {
    const points_to& pts = cx.pointers();
    // Globals: their initial values (a group of several joins them: compile_ide_problem joins repeated seeds).
    for (object_id o = 0; o < pts.objects().size(); ++o) {
        const auto* g = L::dyn_cast_or_null<L::GlobalVariable>(pts.objects()[o].site);
        if (!g || !integer_variable(g)) continue;
        const auto init = g->hasDefinitiveInitializer() ? constant_of(g->getInitializer()) : std::nullopt;
        seeds.push_back({nullptr, cx.facts().object(pts.group_of(o)), init ? lin::constant_value(*init) : lin::bottom_value()});
    }
    // The entries' integer parameters come from outside: not constants.
    for (const L::Function* e : prog_->entries())
        for (const L::Argument& a : e->args())
            if (a.getType()->isIntegerTy()) seeds.push_back({e, cx.facts().value(&a), lin::bottom_value()});
}

void lca_analysis::external_call(analysis_context& cx, const L::CallBase& c, ide_flow<family>& out) {
    const points_to& pts = cx.pointers();
    if (c.getType()->isIntegerTy())  // its result: not a constant we follow (intrinsics' too: ctpop, abs, ...)
        if (auto x = cx.value_fact(&c)) set_bottom(out, *x);
    if (const L::Function* f = c.getCalledFunction(); f && f->isIntrinsic() && !f->getName().startswith("llvm.mem"))
        return;  // debug info, lifetimes, bit counts: no memory changes
    // What it may modify (the variables its pointer arguments reach, unless
    // the argument is read-only) becomes bottom.
    for (unsigned k = 0; k < c.arg_size(); ++k)
        if (c.getArgOperand(k)->getType()->isPointerTy() && !c.onlyReadsMemory(k))
            for (object_id o : pts.reachable_from(c.getArgOperand(k)))
                if (variable(o)) set_bottom(out, cx.facts().object(o));
}

void lca_analysis::normal_flow(analysis_context& cx, const L::Instruction& i, ide_flow<family>& out) {
    const points_to& pts = cx.pointers();
    out.identity();
    if (const auto* st = L::dyn_cast<L::StoreInst>(&i)) {
        const L::Value* p = st->getPointerOperand();
        const L::Value* v = st->getValueOperand();
        const operand a = v->getType()->isIntegerTy() ? operand_of(cx, v) : operand{};
        const bool strong = (L::isa<L::AllocaInst>(p) || L::isa<L::GlobalVariable>(p)) && pts.pointees(p).count() == 1;
        for (object_id o : pts.pointees(p)) {
            if (!variable(o)) continue;
            const fact_id f = cx.facts().object(o);
            if (strong && pts.group_size(o) == 1) out.kill(f);  // weak otherwise: the old value joins the new
            assign(out, f, typed(o, v->getType()) ? a : operand{});  // a part or a wider store: bottom
        }
        return;
    }
    if (const auto* ld = L::dyn_cast<L::LoadInst>(&i)) {
        if (!ld->getType()->isIntegerTy()) return;
        const fact_id x = cx.facts().value(ld);
        out.kill(x);
        bool only_variables = true, any = false;
        for (object_id o : pts.pointees(ld->getPointerOperand())) {
            any = true;
            if (variable(o) && typed(o, ld->getType())) out.transfer(cx.facts().object(o), x, lin::identity());
            else only_variables = false;
        }
        if (!any || !only_variables) out.gen(x, lin::bottom());  // memory the analysis does not follow
        return;
    }
    if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
        external_call(cx, *c, out);
        return;
    }
    if (L::isa<L::AtomicRMWInst>(&i) || L::isa<L::AtomicCmpXchgInst>(&i)) {  // a write we do not follow
        for (object_id o : pts.pointees(i.getOperand(0)))
            if (variable(o)) set_bottom(out, cx.facts().object(o));
        if (auto x = cx.value_fact(&i); x && i.getType()->isIntegerTy()) set_bottom(out, *x);
        return;
    }
    if (const auto* ret = L::dyn_cast<L::ReturnInst>(&i)) {
        if (const L::Value* v = ret->getReturnValue(); v && v->getType()->isIntegerTy()) {
            const fact_id r = cx.facts().returned(ret->getFunction());
            out.kill(r);
            assign(out, r, operand_of(cx, v));
        }
        return;
    }
    if (!i.getType()->isIntegerTy()) return;  // pointers, floats, void: no variable changes
    const auto x0 = cx.value_fact(&i);
    if (!x0) return;
    const fact_id x = *x0;
    out.kill(x);
    if (const auto* b = L::dyn_cast<L::BinaryOperator>(&i)) {
        const operand a = operand_of(cx, b->getOperand(0)), c = operand_of(cx, b->getOperand(1));
        const unsigned op = b->getOpcode();
        const unsigned bits = b->getType()->getIntegerBitWidth();
        if (a.kind == operand::constant && c.kind == operand::constant) {
            const __int128 l = a.c, r = c.c;
            std::optional<__int128> v;
            if (op == L::Instruction::Add) v = l + r;
            else if (op == L::Instruction::Sub) v = l - r;
            else if (op == L::Instruction::Mul) v = l * r;
            else if (auto d = fold_division(op, a.c, c.c, bits)) v = *d;
            if (v)  // in the instruction's width, as the machine computes it (add, sub, mul wrap)
                out.gen(x, lin::constant(sign_extend(static_cast<std::uint64_t>(*v), bits)));
            else
                out.gen(x, lin::bottom());
            return;
        }
        // x = k*y + c with y the fact operand
        std::optional<lin::function> f;
        const operand* y = nullptr;
        if (a.kind == operand::fact && c.kind == operand::constant) {
            y = &a;
            if (op == L::Instruction::Add) f = lin::affine(1, c.c);
            else if (op == L::Instruction::Sub && c.c != std::numeric_limits<std::int64_t>::min()) f = lin::affine(1, -c.c);
            else if (op == L::Instruction::Mul) f = lin::affine(c.c, 0);
        } else if (a.kind == operand::constant && c.kind == operand::fact) {
            y = &c;
            if (op == L::Instruction::Add) f = lin::affine(1, a.c);
            else if (op == L::Instruction::Sub) f = lin::affine(-1, a.c);
            else if (op == L::Instruction::Mul) f = lin::affine(a.c, 0);
        }
        if (f && y) {
            out.transfer(y->f, x, *f);
            return;
        }
        out.gen(x, lin::bottom());
        return;
    }
    if (const auto* cast = L::dyn_cast<L::CastInst>(&i); cast && cast->getSrcTy()->isIntegerTy()) {
        // Casts between integer types are linear. A value is exact modulo
        // 2^width, so a trunc is the identity; a sext or zext is the identity
        // until `settle_extensions` finds its operand holding a constant that
        // the extension changes (then the constant it extends to, or bottom).
        const operand a = operand_of(cx, cast->getOperand(0));
        const unsigned op = cast->getOpcode();
        if (op != L::Instruction::Trunc && op != L::Instruction::SExt && op != L::Instruction::ZExt) {
            out.gen(x, lin::bottom());  // (an integer to pointer or float cast has no integer result here)
            return;
        }
        if (a.kind == operand::constant) {
            out.gen(x, lin::constant(extended(op, a.c, cast->getSrcTy()->getIntegerBitWidth(), i.getType()->getIntegerBitWidth())));
            return;
        }
        const auto settled = op == L::Instruction::Trunc ? extensions_.end() : extensions_.find(&i);
        if (settled == extensions_.end()) assign(out, x, a);
        else out.gen(x, settled->second.result ? lin::constant(*settled->second.result) : lin::bottom());
        return;
    }
    if (const auto* phi = L::dyn_cast<L::PHINode>(&i)) {
        for (const L::Use& in : phi->incoming_values()) assign(out, x, operand_of(cx, in.get()));
        return;
    }
    if (const auto* sel = L::dyn_cast<L::SelectInst>(&i)) {
        assign(out, x, operand_of(cx, sel->getTrueValue()));
        assign(out, x, operand_of(cx, sel->getFalseValue()));
        return;
    }
    out.gen(x, lin::bottom());  // comparisons, bit operations, loads of other kinds: not a constant we follow
}

void lca_analysis::call_flow(analysis_context& cx, const L::CallBase& c, const L::Function& callee, ide_flow<family>& out) {
    for (unsigned k = 0; k < callee.arg_size() && k < c.arg_size(); ++k) {
        if (!callee.getArg(k)->getType()->isIntegerTy()) continue;
        const operand a = operand_of(cx, c.getArgOperand(k));
        assign(out, cx.facts().value(callee.getArg(k)), a);
    }
    detail::accessed_objects_pass(cx, callee, [&](object_id o) { return variable(o); }, out);
    globals_pass(cx, out);  // every integer global flows through the callee (the spec's "globals flow through calls")
}

void lca_analysis::return_flow(analysis_context& cx, const L::CallBase& c, const L::Function& callee, ide_flow<family>& out) {
    detail::returned_value_and_objects(cx, c, callee, [&](object_id o) { return variable(o); }, out);
    globals_pass(cx, out);
}

void lca_analysis::call_to_return_flow(analysis_context& cx, const L::CallBase& c, ide_flow<family>& out) {
    detail::call_to_return(cx, c, [&](object_id o) { return variable(o); }, [&](flow&) { external_call(cx, c, out); }, out);
    if (!cx.prog().may_call_external(c))  // the globals went through the callees (else they also go around)
        for (object_id o : globals_) out.kill(cx.facts().object(o));
}

std::size_t lca_analysis::settle_extensions(analysis_context& cx, const weir::ide::solution<family>& s) {
    std::size_t changed = 0;
    for (const L::Function* fn : prog_->procedures()) {
        if (!fn) continue;
        for (const L::BasicBlock& b : *fn)
            for (const L::Instruction& i : b) {
                const auto* cast = L::dyn_cast<L::CastInst>(&i);
                if (!cast || !cast->getSrcTy()->isIntegerTy()) continue;
                const unsigned op = cast->getOpcode();
                if (op != L::Instruction::SExt && op != L::Instruction::ZExt) continue;
                const auto f = cx.value_fact(cast->getOperand(0));
                if (!f) continue;
                const lin::value* v = held_at(s, prog_->node_of(i), *f);  // the operand's value before the cast
                if (!v) continue;                                          // not reached
                const bool one = v->k == lin::kind::constant;
                const std::int64_t result = extended(op, v->c, cast->getSrcTy()->getIntegerBitWidth(), i.getType()->getIntegerBitWidth());
                const auto found = extensions_.find(&i);
                if (found == extensions_.end()) {
                    if (!one || result == v->c) continue;  // the identity extends it right
                    extensions_[&i] = {v->c, result};
                    ++changed;
                } else if (found->second.result && (!one || v->c != found->second.operand)) {
                    found->second.result.reset();  // the operand moved under the settled function: bottom
                    ++changed;
                }
            }
    }
    return changed;
}

std::vector<lca_value> lca_analysis::values(analysis_context& cx, const weir::ide::solution<family>& s) const {
    const points_to& pts = cx.pointers();
    // The integer globals, and each function's integer locals: (fact, name, bit width).
    struct var {
        fact_id fact;
        std::string name;
        unsigned bits;
        bool is_unsigned;
    };
    std::vector<var> globals;
    std::map<const L::Function*, std::vector<var>> locals;
    for (object_id o = 0; o < pts.objects().size(); ++o) {
        const memory_object& obj = pts.objects()[o];
        if (!integer_variable(obj.site)) continue;
        const auto f = cx.facts().find_object(pts.group_of(o));
        // Source variables only: an alloca with a debug name (not clang's `retval`
        // slot), a global by its debug name or, when the module only declares it
        // (`extern`: no debug information here), by its name (demangled); not the
        // globals the compiler makes (guard variables: defined, no debug name).
        std::string name = debug_name(*obj.site);
        if (const auto* g = L::dyn_cast<L::GlobalVariable>(obj.site); name.empty() && g && g->isDeclaration() && g->hasName())
            name = demangle(g->getName());
        if (!f || name.empty()) continue;
        const var v{*f, name, variable_type(obj.site)->getIntegerBitWidth(), debug_unsigned(*obj.site)};
        if (obj.kind == object_kind::global) {
            const L::DISubprogram* sp = static_scope(*L::cast<L::GlobalVariable>(obj.site));
            if (!sp) {
                globals.push_back(v);
                continue;
            }
            for (const L::Function* fn : prog_->procedures())  // a static local: visible in its function only
                if (fn && fn->getSubprogram() == sp) locals[fn].push_back(v);
        } else if (obj.owner) {
            locals[obj.owner].push_back(v);
        }
    }
    auto constant_at = [&](std::uint32_t node, fact_id f) -> std::optional<std::int64_t> {
        const lin::value* v = held_at(s, node, f);
        if (!v || v->k != lin::kind::constant) return std::nullopt;
        return v->c;
    };
    std::vector<lca_value> out;
    for (const L::Function* fn : prog_->procedures()) {
        if (!fn) continue;
        // Per (file, line): its last instruction, and whether it branches.
        struct line_info {
            const L::Instruction* last = nullptr;
            bool branches = false;
        };
        std::map<std::pair<std::string, unsigned>, line_info> lines;
        for (const L::BasicBlock& b : *fn)
            for (const L::Instruction& i : b) {
                if (program::skipped(i) || !i.getDebugLoc() || i.getDebugLoc().getLine() == 0) continue;
                const source_location l = location_of(i);
                line_info& li = lines[{l.file, l.line}];
                li.last = &i;
                if (i.isTerminator() && !L::isa<L::ReturnInst>(i)) li.branches = true;
            }
        const auto loc = locals.find(fn);
        for (const auto& entry : lines) {
            const line_info& li = entry.second;  // (not a structured binding: the lambda below captures it)
            if (li.branches) continue;
            const std::uint32_t n = prog_->node_of(*li.last);
            if (n == ~0u) continue;
            const auto succ = prog_->successors(n);
            // After a `ret` the variables are as at it (the exit node joins every way out).
            const std::uint32_t after = L::isa<L::ReturnInst>(li.last) ? n : succ.size() == 1 ? succ[0] : ~0u;
            if (after == ~0u) continue;
            auto report = [&](const std::vector<var>& vars) {
                for (const var& v : vars)
                    if (auto c = constant_at(after, v.fact)) {
                        lca_value x;
                        x.where = location_of(*li.last);
                        x.where.column = 0;
                        x.display_name = demangle(fn->getName());
                        x.variable = v.name;
                        // The exact value modulo 2^width is the machine's (add, sub and
                        // mul by constants wrap alike), read as the variable's type reads it.
                        std::int64_t value = sign_extend(static_cast<std::uint64_t>(*c), v.bits);
                        if (v.is_unsigned && v.bits < 64 && value < 0) value += std::int64_t{1} << v.bits;
                        x.value = value;
                        x.is_unsigned = v.is_unsigned && v.bits >= 64;  // (its bits, past INT64_MAX where negative)
                        out.push_back(std::move(x));
                    }
            };
            if (loc != locals.end()) report(loc->second);
            report(globals);
        }
    }
    std::sort(out.begin(), out.end(), [](const lca_value& a, const lca_value& b) {
        return std::tie(a.where.file, a.where.line, a.where.function, a.variable) <
               std::tie(b.where.file, b.where.line, b.where.function, b.variable);
    });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace weir::llvm
