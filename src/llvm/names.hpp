#pragma once
// Names for values and functions in findings (internal to libweir-llvm).

#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/Value.h>

namespace weir::llvm {

/// The source-level name of a variable: the debug information's name of an
/// alloca or global (or of a value `llvm.dbg.value` describes), else its IR name.
std::string source_name(const ::llvm::Value& v);

/// The debug information's name of an alloca or global (or of a value
/// `llvm.dbg.value` describes); empty when it names none.
std::string debug_name(const ::llvm::Value& v);

/// True when the debug information gives an alloca's or global's variable an
/// unsigned integer type (through typedefs and qualifiers).
bool debug_unsigned(const ::llvm::Value& v);

/// A function's demangled name without its parameter list (`ns::f` for `_ZN2ns1fEi`).
std::string short_function_name(::llvm::StringRef ir_name);

} // namespace weir::llvm
