#pragma once
// Names for values and functions in findings (internal to libweir-llvm).

#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/Value.h>

namespace weir::llvm {

/// The source-level name of a variable: the debug information's name of an
/// alloca or global (or of a value `llvm.dbg.value` describes), else its IR
/// name (`%5` for an unnamed instruction: this prints the function's slots,
/// so it is for findings, not for loops over many values).
std::string source_name(const ::llvm::Value& v);

/// True when `source_name(v)` would be `name` (without printing slots: a
/// config's variable name never names an unnamed value).
bool has_source_name(const ::llvm::Value& v, ::llvm::StringRef name);

/// The debug information's name of an alloca or global (or of a value
/// `llvm.dbg.value` describes); empty when it names none.
std::string debug_name(const ::llvm::Value& v);

/// True when the debug information gives an alloca's or global's variable an
/// unsigned integer type (through typedefs and qualifiers).
bool debug_unsigned(const ::llvm::Value& v);

/// A function's demangled name without its parameter list (`ns::f` for `_ZN2ns1fEi`).
std::string short_function_name(::llvm::StringRef ir_name);

} // namespace weir::llvm
