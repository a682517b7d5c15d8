#pragma once
/// \file weir/llvm/taint.hpp
/// The taint analysis (spec: analyze.md, "taint"): sources, propagation
/// through values and memory, calls, sanitizers, sinks, as an `ifds_analysis`.

#include <string_view>
#include <vector>

#include <weir/llvm/analysis.hpp>
#include <weir/llvm/findings.hpp>
#include <weir/llvm/result.hpp>
#include <weir/llvm/taint_config.hpp>

namespace weir::llvm {

/// Taint: facts are tainted values and tainted objects.
class taint_analysis {
public:
    /// The analysis name (`--analysis taint`).
    static constexpr std::string_view name = "taint";

    /// Taint of `prog` under `config`.
    taint_analysis(const program& prog, taint_config config);

    /// `main`'s command line (under the default and libc configurations),
    /// parameters tagged `source` of functions with a body, variables tagged `source`.
    void initial_seeds(analysis_context& cx, seed_list& seeds);
    /// Instructions, and calls to functions without a body (sources, sanitizers, copies).
    void normal_flow(analysis_context& cx, const ::llvm::Instruction& i, flow& out);
    /// Arguments to parameters; the objects the callee may access go in.
    void call_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, flow& out);
    /// The returned value to the result; the objects the callee may access come back.
    void return_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, flow& out);
    /// Everything the callees cannot reach goes around the call.
    void call_to_return_flow(analysis_context& cx, const ::llvm::CallBase& c, flow& out);

    /// The facts `findings` reads: the sink arguments' value facts and the
    /// facts of the objects they may point to (`compile_problem` prunes the
    /// facts that cannot lead to them, `weir::ifds::prune_to_demand`).
    void demanded_facts(const fact_table& facts, std::vector<fact_id>& out) const;

    /// One finding per sink call and tainted argument (`sources`/`trace`
    /// are filled by the caller from witnesses).
    std::vector<finding> findings(analysis_context& cx, const ifds_result& r) const;

private:
    /// The tags of `f` (with a body or without), or null when it has none.
    const function_tags* tags_of(const ::llvm::Function& f) const { return config_.find(f.getName()); }
    /// The objects a call to a function with `tags` leaves untainted through
    /// its `sanitizer` parameters (none unless the call has one target).
    std::vector<object_id> sanitized_objects(const ::llvm::CallBase& c, const function_tags& tags) const;
    /// The effect of a call to a function without a body.
    void external_call(analysis_context& cx, const ::llvm::CallBase& c, flow& out);
    /// Taints, at call `c` of a function with `tags`, what its arguments
    /// tagged `source` point to (the relevant objects), and with `body` (the
    /// callee, defined) those parameters too.
    void gen_source_arguments(analysis_context& cx, const ::llvm::CallBase& c, const function_tags& tags,
                              const ::llvm::Function* body, flow& out) const;
    /// Objects whose taint can matter (written by something that may carry taint).
    bool relevant(object_id o) const { return o < relevant_.size() && relevant_[o]; }
    /// Calls `visit(node, call, callee, k, argument)` for every argument k
    /// that a sink tag names, of every call node and callee with tags, in
    /// node order.
    template <class Visit>
    void for_each_sink_argument(Visit&& visit) const;  // (taint.cpp)
    /// Calls `visit(scope, object)` for the object (group) of every variable
    /// the configuration tags `source`; `scope` is the function whose entry
    /// taints it, or null for a global (tainted at every entry).
    template <class Visit>
    void for_each_source_variable(Visit&& visit) const;  // (taint.cpp)

    const program* prog_;
    taint_config config_;
    std::vector<char> relevant_;
};

static_assert(ifds_analysis<taint_analysis>);

} // namespace weir::llvm
