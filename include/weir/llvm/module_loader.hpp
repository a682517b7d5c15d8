#pragma once
/// \file weir/llvm/module_loader.hpp
/// Loading what `weir analyze` reads into one LLVM module: `.ll`/`.bc` files,
/// C/C++ sources compiled through the `clang-14` executable, and the
/// translation units of a `compile_commands.json` (spec: analyze.md,
/// "Command"). Several inputs are linked as `llvm-link` would; the result is
/// verified. Every failure is an `input_error` naming the file (and line).

#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <weir/llvm/error.hpp>

namespace weir::llvm {

/// What to load.
struct load_options {
    /// `.ll`, `.bc`, `.c`, `.cc`, `.cpp`, `.cxx` files, in order.
    std::vector<std::string> inputs;
    /// Flags for clang after the frontend's own (`-- FLAGS` on the command line).
    std::vector<std::string> clang_flags;
    /// A directory holding `compile_commands.json` (`-p DIR`); empty: none.
    std::string compile_commands_dir;
    /// The clang executable; empty: `$WEIR_CLANG`, else `clang-14` on the PATH.
    std::string clang;
};

/// The flags every source is compiled with (before `load_options::clang_flags`).
std::vector<std::string> default_clang_flags();

/// Loads, compiles and links the inputs into one verified module in `ctx`.
/// Throws `input_error` (file, line where known) on any failure.
std::unique_ptr<::llvm::Module> load_module(const load_options& opt, ::llvm::LLVMContext& ctx);

/// Parses IR text or bitcode held in memory (`name` is used in errors);
/// throws `input_error` with the line of the first parse error. For fuzzing
/// and tests.
std::unique_ptr<::llvm::Module> parse_module(const std::string& bytes, const std::string& name, ::llvm::LLVMContext& ctx);

/// For command-line tools: makes LLVM's own fatal errors (which end the
/// process from inside LLVM on some malformed inputs the loader cannot check
/// beforehand) print `TOOL: LLVM could not read the input: REASON` and exit
/// with status 2, as bad input does, instead of aborting.
void stop_on_llvm_fatal_errors(const char* tool);

} // namespace weir::llvm
