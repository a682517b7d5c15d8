/// \file test/fuzz/llvm_ir_fuzz.cpp
/// Fuzz target `llvm_ir`: the IR loading path of `weir analyze` and the
/// analyses behind it. The input is LLVM IR text. Laws checked:
/// - `parse_module` never crashes; it returns a verified module or an
///   `input_error` naming the input (and a line within it when it has one);
/// - on a module that loads, the taint and uninit analyses build their
///   problems, the tabulation solver solves them, and the findings come out
///   sorted with locations, without a crash;
/// - the lca analysis compiles into an IDE problem that the host IDE solver
///   solves, and its values come out sorted, without a crash.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include <llvm/IR/LLVMContext.h>

#include <weir/ide/tabulation_solver.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/llvm/analyze.hpp>
#include <weir/llvm/compile.hpp>
#include <weir/llvm/lca.hpp>
#include <weir/llvm/program.hpp>
#include <weir/llvm/module_loader.hpp>

#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (text.find('\0') != std::string::npos) return 0;  // the text parser wants a C string
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    ::llvm::LLVMContext ctx;
    std::unique_ptr<::llvm::Module> m;
    try {
        m = weir::llvm::parse_module(text, "fuzz.ll", ctx);
    } catch (const weir::llvm::input_error& e) {
        if (e.file() != "fuzz.ll" || e.line() > lines || e.message().empty())
            vyre_fuzz::fail("llvm_ir", "a load error without the file, a sane line or a message", e.what());
        return 0;
    }
    for (const char* analysis : {"taint", "uninit"}) {
        weir::llvm::analyze_options opt;
        opt.analysis = analysis;
        opt.witness = true;
        try {
            weir::llvm::analysis_session s(*m, opt);
            auto solved = weir::ifds::tabulation_solver(s.layout(), {.memory_budget = std::uint64_t{1} << 28}).solve();
            if (!solved) return 0;  // past the memory budget: a clean refusal
            auto found = s.findings(std::move(solved->path_edges));
            for (std::size_t k = 1; k < found.size(); ++k)
                if (found[k].where.line < found[k - 1].where.line && found[k].where.file == found[k - 1].where.file)
                    vyre_fuzz::fail("llvm_ir", "findings out of order");
        } catch (const weir::llvm::input_error&) {
            // no entry function with a body: said as an error
        }
    }
    try {
        weir::llvm::program prog(*m, {});
        weir::llvm::lca_analysis a(prog);
        auto compiled = weir::llvm::compile_ide_problem(prog, a);
        if (compiled.problem.graph.nodes.size() > 4096) return 0;  // (the host IDE solver's maps: keep a run short)
        const auto s = weir::ide::tabulation_solver<weir::ide::linear>(compiled.problem).solve().value();
        weir::llvm::analysis_context cx(prog, compiled.facts);
        const auto values = a.values(cx, s);
        for (std::size_t k = 1; k < values.size(); ++k)
            if (values[k].where.file == values[k - 1].where.file && values[k].where.line < values[k - 1].where.line)
                vyre_fuzz::fail("llvm_ir", "lca values out of order");
    } catch (const weir::llvm::input_error&) {
    }
    return 0;
}
