// Source-level names (names.hpp) and source locations (findings.hpp).

#include "names.hpp"

#include <cstdlib>

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IntrinsicInst.h>

#include <weir/llvm/findings.hpp>
#include <weir/llvm/taint_config.hpp>

namespace weir::llvm {

namespace L = ::llvm;

std::string source_name(const L::Value& v) {
    auto* mv = const_cast<L::Value*>(&v);
    if (const auto* g = L::dyn_cast<L::GlobalVariable>(&v)) {
        L::SmallVector<L::DIGlobalVariableExpression*, 1> exprs;
        g->getDebugInfo(exprs);
        for (auto* e : exprs)
            if (auto* var = e->getVariable(); var && !var->getName().empty()) return var->getName().str();
        return g->getName().str();
    }
    for (L::DbgVariableIntrinsic* d : L::FindDbgAddrUses(mv))
        if (auto* var = d->getVariable(); var && !var->getName().empty()) return var->getName().str();
    L::SmallVector<L::DbgValueInst*, 2> values;
    L::findDbgValues(values, mv);
    for (auto* d : values)
        if (auto* var = d->getVariable(); var && !var->getName().empty()) return var->getName().str();
    if (v.hasName()) return v.getName().str();
    return "<unnamed>";
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
    if (const L::DISubprogram* sp = f.getSubprogram()) {
        loc.file = sp->getFilename().str();
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
    if (const auto* scope = L::dyn_cast<L::DIScope>(dl.getScope())) loc.file = scope->getFilename().str();
    loc.line = dl.getLine();
    loc.column = dl.getCol();
    return loc;
}

} // namespace weir::llvm
