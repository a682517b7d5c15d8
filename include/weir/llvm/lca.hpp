#pragma once
/// \file weir/llvm/lca.hpp
/// Linear constant propagation (spec: analyze.md, "lca"), an
/// `ide_analysis` over the `linear` family: facts are integer variables
/// (integer allocas and globals, as memory objects) and the SSA values that
/// carry values between them; stores, loads, copies, integer casts and
/// `add`/`sub`/`mul` by a constant are linear edge functions, constant
/// divisions fold, anything else is `bottom`. `lca_values` reads the IDE
/// solution back as (function, line, variable, value).

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <weir/ide/linear.hpp>
#include <weir/ide/solution.hpp>
#include <weir/llvm/findings.hpp>
#include <weir/llvm/ide_analysis.hpp>

namespace weir::llvm {

/// Linear constant propagation over a program's integer variables.
class lca_analysis {
public:
    /// The edge-function family.
    using family = weir::ide::linear;
    /// The analysis name (`--analysis lca`).
    static constexpr std::string_view name = "lca";

    /// The integer variables of `prog`.
    explicit lca_analysis(const program& prog);

    /// Integer globals with their initial values, at the program's start.
    void initial_seeds(analysis_context& cx, ide_seed_list<family>& seeds);
    /// Stores, loads, arithmetic, casts, phis, returns; calls without a body.
    void normal_flow(analysis_context& cx, const ::llvm::Instruction& i, ide_flow<family>& out);
    /// Arguments (values and constants) to parameters; the variables the callee may access go in.
    void call_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, ide_flow<family>& out);
    /// The returned value to the call's result; the variables come back.
    void return_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& callee, ide_flow<family>& out);
    /// Everything the callees cannot reach goes around the call.
    void call_to_return_flow(analysis_context& cx, const ::llvm::CallBase& c, ide_flow<family>& out);

    /// For each source line of each function whose instructions include no
    /// terminator but `ret`, the variables visible there (the function's
    /// integer locals and the integer globals) whose value is a constant
    /// after the line's last instruction; sorted by file, line, function,
    /// variable.
    std::vector<lca_value> values(analysis_context& cx, const weir::ide::solution<family>& s) const;
    /// Settles the sign and zero extensions against solution `s` of this
    /// analysis's problem, for the next compilation; returns how many
    /// changed (0: `s` is final). Linear functions keep a value unwrapped
    /// (exact modulo 2^width, as the variables print), so a truncation is
    /// the identity, but an extension taken as the identity would widen a
    /// wrapped `int` unwrapped (or an `unsigned char` holding -1 as -1). An
    /// extension whose operand holds one constant that it changes becomes
    /// the constant function of the extended constant; one whose operand
    /// later holds something else becomes `bottom`. `weir analyze` compiles
    /// and solves again until nothing changes (each changes at most twice).
    std::size_t settle_extensions(analysis_context& cx, const weir::ide::solution<family>& s);

private:
    /// An operand: a constant, a fact, or neither (`bottom`).
    struct operand {
        enum { constant, fact, unknown } kind = unknown;
        std::int64_t c = 0;
        fact_id f = 0;
    };
    operand operand_of(analysis_context& cx, const ::llvm::Value* v) const;
    void assign(ide_flow<family>& out, fact_id x, const operand& a);  ///< x = a
    void external_call(analysis_context& cx, const ::llvm::CallBase& c, ide_flow<family>& out);
    void globals_pass(analysis_context& cx, flow& out) const;  ///< every integer global, unchanged
    bool variable(object_id o) const { return o < variable_.size() && variable_[o]; }
    /// True when variable `o` is of type `t` (an access of another width is not followed).
    bool typed(object_id o, const ::llvm::Type* t) const { return o < type_.size() && type_[o] && type_[o] == t; }
    const program* prog_;
    std::vector<char> variable_;     ///< per object group: an integer variable
    std::vector<object_id> globals_; ///< the integer globals' groups
    std::vector<const ::llvm::Type*> type_;  ///< per variable group: its integer type (null: mixed)
    /// A settled `sext` or `zext` (`settle_extensions`): the operand's
    /// constant and the result's (or none: `bottom`).
    struct settled_extension {
        std::int64_t operand = 0;
        std::optional<std::int64_t> result;
    };
    std::map<const ::llvm::Instruction*, settled_extension> extensions_;
};

static_assert(ide_analysis<lca_analysis>);

} // namespace weir::llvm
