// Source-level names (names.hpp) and source locations (findings.hpp).

#include "names.hpp"

#include <cstdlib>

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/raw_ostream.h>

#include <weir/llvm/findings.hpp>
#include <weir/llvm/taint_config.hpp>

namespace weir::llvm {

namespace L = ::llvm;

namespace {
// Debug information is read defensively: a module may verify with odd
// operands there (the casts in LLVM's accessors assert on them).
std::string string_of(const L::Metadata* m) {
    const auto* s = L::dyn_cast_or_null<L::MDString>(m);
    return s ? s->getString().str() : std::string();
}
std::string file_of(const L::DIScope* scope) {
    const auto* f = scope ? L::dyn_cast_or_null<L::DIFile>(scope->getRawFile()) : nullptr;
    return f ? string_of(f->getRawFilename()) : std::string();
}
std::string name_of(const L::DIVariable* var) { return var ? string_of(var->getRawName()) : std::string(); }
} // namespace

namespace {
/// The first variable with a name that the debug information gives an
/// alloca or global (or a value `llvm.dbg.value` describes), or null.
const L::DIVariable* debug_variable(const L::Value& v) {
    auto* mv = const_cast<L::Value*>(&v);
    auto named = [](const L::DIVariable* var) { return !name_of(var).empty(); };
    if (const auto* g = L::dyn_cast<L::GlobalVariable>(&v)) {
        L::SmallVector<L::DIGlobalVariableExpression*, 1> exprs;
        g->getDebugInfo(exprs);
        for (auto* e : exprs)
            if (const auto* var = L::dyn_cast_or_null<L::DIGlobalVariable>(e->getRawVariable()); named(var)) return var;
        return nullptr;
    }
    for (L::DbgVariableIntrinsic* d : L::FindDbgAddrUses(mv))
        if (const auto* var = L::dyn_cast_or_null<L::DILocalVariable>(d->getRawVariable()); named(var)) return var;
    L::SmallVector<L::DbgValueInst*, 2> values;
    L::findDbgValues(values, mv);
    for (auto* d : values)
        if (const auto* var = L::dyn_cast_or_null<L::DILocalVariable>(d->getRawVariable()); named(var)) return var;
    return nullptr;
}
} // namespace

std::string debug_name(const L::Value& v) { return name_of(debug_variable(v)); }

bool debug_unsigned(const L::Value& v) {
    const L::DIVariable* var = debug_variable(v);
    const L::DIType* t = var ? L::dyn_cast_or_null<L::DIType>(var->getRawType()) : nullptr;
    for (int depth = 0; t && depth < 16; ++depth) {  // through typedefs, const, volatile, _Atomic
        if (const auto* b = L::dyn_cast<L::DIBasicType>(t)) {
            const unsigned e = b->getEncoding();
            return e == L::dwarf::DW_ATE_unsigned || e == L::dwarf::DW_ATE_unsigned_char || e == L::dwarf::DW_ATE_boolean;
        }
        const auto* d = L::dyn_cast<L::DIDerivedType>(t);
        if (!d) return false;
        t = L::dyn_cast_or_null<L::DIType>(d->getRawBaseType());
    }
    return false;
}

std::string source_name(const L::Value& v) {
    if (std::string n = debug_name(v); !n.empty()) return n;
    if (v.hasName()) return v.getName().str();
    // An unnamed value's IR name is its slot: `%5` (or `@0` for a global).
    std::string out;
    L::raw_string_ostream os(out);
    v.printAsOperand(os, /*PrintType=*/false);
    return os.str();
}

bool has_source_name(const L::Value& v, L::StringRef name) {
    if (const L::DIVariable* var = debug_variable(v)) return name_of(var) == name;
    return v.hasName() && v.getName() == name;
}

std::string short_function_name(L::StringRef ir_name) {
    if (ir_name.startswith("_Z")) {
        L::ItaniumPartialDemangler d;
        const std::string s = ir_name.str();
        if (!d.partialDemangle(s.c_str()))
            if (char* fn = d.getFunctionName(nullptr, nullptr)) {
                std::string out = fn;
                std::free(fn);
                return out;
            }
    }
    return ir_name.str();
}

source_location location_of(const L::Function& f) {
    source_location loc;
    loc.function = f.getName().str();
    if (const auto* sp = L::dyn_cast_or_null<L::DISubprogram>(f.getMetadata(L::LLVMContext::MD_dbg))) {
        loc.file = file_of(sp);
        loc.line = sp->getLine();
    }
    return loc;
}

source_location location_of(const L::Instruction& i) {
    const L::DebugLoc& dl = i.getDebugLoc();
    if (!dl) {
        source_location loc = location_of(*i.getFunction());
        loc.line = 0;
        return loc;
    }
    source_location loc;
    loc.function = i.getFunction()->getName().str();
    if (const auto* scope = L::dyn_cast_or_null<L::DIScope>(dl->getRawScope())) loc.file = file_of(scope);
    loc.line = dl.getLine();
    loc.column = dl.getCol();
    return loc;
}

} // namespace weir::llvm
