// Writing your own analysis of C/C++ programs: a double-free check in a page.
//
// An analysis models `weir::llvm::ifds_analysis` (weir/llvm/analysis.hpp):
// flow functions over LLVM instructions, written with identity / kill / gen /
// transfer on facts from a `fact_table`. `compile_problem` turns it into a
// weir IFDS problem, any weir solver solves it (here the resident solver on
// the multithreaded cpu backend), and `ifds_result` says which facts hold
// before each instruction.
//
//   usage: llvm_double_free [FILE.c|FILE.ll ...]   (default: examples/analyze/double_free.c)

#include <iostream>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>

#include <vyre/backends.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/llvm/compile.hpp>
#include <weir/llvm/findings.hpp>
#include <weir/llvm/module_loader.hpp>
#include <weir/llvm/result.hpp>

namespace wl = weir::llvm;

/// Fact "object o has been freed". `free(p)` frees what p points to; a new
/// allocation at a site is a fresh block; a callee's frees reach its callers.
struct double_free {
    static constexpr std::string_view name = "double-free";

    void initial_seeds(wl::analysis_context&, wl::seed_list&) {}  // nothing is freed at the start

    void normal_flow(wl::analysis_context& cx, const llvm::Instruction& i, wl::flow& out) {
        out.identity();
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
        const llvm::Function* f = call ? wl::direct_callee(*call) : nullptr;
        if (!f) return;
        if (f->getName() == "free")
            for (wl::fact_id freed : cx.pointee_facts(call->getArgOperand(0))) out.gen(freed);
        else if (wl::is_allocator(*f))
            if (wl::object_id o = cx.pointers().object_of(call); o != ~0u) out.kill(cx.facts().object(o));
    }
    // Into and out of a callee go the objects it may touch; around it, the others.
    void call_flow(wl::analysis_context& cx, const llvm::CallBase&, const llvm::Function& callee, wl::flow& out) {
        for (wl::object_id o : cx.prog().accessed_by(callee)) out.transfer(cx.facts().object(o), cx.facts().object(o));
    }
    void return_flow(wl::analysis_context& cx, const llvm::CallBase& c, const llvm::Function& callee, wl::flow& out) {
        call_flow(cx, c, callee, out);
    }
    void call_to_return_flow(wl::analysis_context& cx, const llvm::CallBase& c, wl::flow& out) {
        out.identity();
        for (const llvm::Function* f : cx.prog().defined_callees(c))
            for (wl::object_id o : cx.prog().accessed_by(*f)) out.kill(cx.facts().object(o));
    }
};
static_assert(wl::ifds_analysis<double_free>);

int main(int argc, char** argv) {
    wl::load_options in;
    for (int k = 1; k < argc; ++k) in.inputs.emplace_back(argv[k]);
    if (in.inputs.empty()) in.inputs = {"examples/analyze/double_free.c"};
    try {
        llvm::LLVMContext ctx;
        auto module = wl::load_module(in, ctx);
        wl::program prog(*module, {});
        double_free analysis;
        wl::compiled_problem cp = wl::compile_problem(prog, analysis);
        weir::ifds::layout L = weir::ifds::make_layout(cp.problem);

        vyre::cpu backend;
        weir::vyre_resident_ifds<vyre::cpu> dispatch(backend);
        auto solver = weir::ifds::resident_solver<weir::vyre_resident_ifds<vyre::cpu>>::create(dispatch, L, weir::ifds::resident_options{});
        auto solved = solver ? solver->solve() : vyre::make_unexpected(solver.error());
        if (!solved) {
            std::cerr << "llvm_double_free: " << solved.error().what() << "\n";
            return 1;
        }
        wl::ifds_result result(L, std::move(solved->path_edges));

        // A finding: free(p) where an object p may point to is already freed.
        wl::analysis_context cx(prog, cp.facts);
        int found = 0;
        for (std::uint32_t n = 0; n < prog.nodes().size(); ++n) {
            const auto* call = llvm::dyn_cast_or_null<llvm::CallBase>(prog.nodes()[n].inst);
            const llvm::Function* f = call ? wl::direct_callee(*call) : nullptr;
            if (!f || f->getName() != "free") continue;
            for (wl::object_id o : prog.pointers().pointees(call->getArgOperand(0)))
                if (auto fact = cp.facts.find_object(o); fact && result.holds(n, *fact)) {
                    const wl::source_location at = wl::location_of(*call);
                    std::cout << at.file << ":" << at.line << ":" << at.column << ": warning: double free of "
                              << prog.pointers().objects()[o].name << " [double-free]\n";
                    ++found;
                    break;
                }
        }
        std::cout << found << " double free(s) found\n";
        return 0;
    } catch (const wl::input_error& e) {
        std::cerr << "llvm_double_free: " << e.what() << "\n";
        return 2;
    }
}
