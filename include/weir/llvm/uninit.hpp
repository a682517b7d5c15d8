#pragma once
/// \file weir/llvm/uninit.hpp
/// The uninitialized-variables analysis (spec: analyze.md, "uninit"):
/// allocas are uninitialized until stored to; loads and uses of
/// uninitialized values are findings. An `ifds_analysis`.

#include <string_view>
#include <vector>

#include <weir/llvm/analysis.hpp>
#include <weir/llvm/findings.hpp>
#include <weir/llvm/result.hpp>

namespace weir::llvm {

/// Uninitialized variables: facts are uninitialized objects and values.
class uninit_analysis {
public:
    /// The analysis name (`--analysis uninit`).
    static constexpr std::string_view name = "uninit";

    /// Uninitialized variables of `prog`.
    explicit uninit_analysis(const program& prog);

    /// Nothing but the zero fact: allocas generate their own facts.
    void initial_seeds(analysis_context& cx, seed_list& seeds);
    /// `alloca` makes its object uninitialized; stores initialize or propagate; uses propagate.
    void normal_flow(analysis_context& cx, const ::llvm::Instruction& i, flow& out);
    /// Arguments to parameters; the objects the callee may access go in.
    void call_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, flow& out);
    /// The returned value to the result; the objects the callee may access come back.
    void return_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, flow& out);
    /// Everything the callees cannot reach goes around the call.
    void call_to_return_flow(analysis_context& cx, const ::llvm::CallBase& c, flow& out);

    /// One finding per instruction that uses an uninitialized value or loads
    /// from an uninitialized object.
    std::vector<finding> findings(analysis_context& cx, const ifds_result& r) const;

private:
    void external_call(analysis_context& cx, const ::llvm::CallBase& c, flow& out);
    bool relevant(object_id o) const { return o < relevant_.size() && relevant_[o]; }
    const program* prog_;
    std::vector<char> relevant_;
};

static_assert(ifds_analysis<uninit_analysis>);

} // namespace weir::llvm
