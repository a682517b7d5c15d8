#pragma once
/// \file weir/llvm/ide_analysis.hpp
/// The interface of an IDE analysis over LLVM IR: an IFDS analysis
/// (analysis.hpp) whose flow functions also give edge functions of a family
/// `F` (weir/ide/edge_function_family.hpp) to some of their pairs, and whose
/// seeds carry values. `compile_ide_problem` (compile.hpp) turns it into a
/// `weir::ide::problem<F>`; `lca_analysis` (lca.hpp) is the model.
///
/// \code
/// struct my_analysis {
///     using family = weir::ide::linear;
///     static constexpr std::string_view name = "mine";
///     void initial_seeds(analysis_context& cx, ide_seed_list<family>& seeds);
///     void normal_flow(analysis_context& cx, const llvm::Instruction& i, ide_flow<family>& out);
///     void call_flow(analysis_context&, const llvm::CallBase&, const llvm::Function& callee, ide_flow<family>&);
///     void return_flow(analysis_context&, const llvm::CallBase&, const llvm::Function& callee, ide_flow<family>&);
///     void call_to_return_flow(analysis_context&, const llvm::CallBase&, ide_flow<family>&);
/// };
/// \endcode

#include <concepts>
#include <string_view>
#include <vector>

#include <weir/ide/edge_function_family.hpp>
#include <weir/ide/problem.hpp>
#include <weir/llvm/analysis.hpp>

namespace weir::llvm {

/// A flow function with edge functions: everything `flow` says (pairs
/// without a function carry the identity), plus `transfer(from, to, f)`
/// and `gen(to, f)` for pairs that carry function `f`.
template <weir::ide::edge_function_family F>
class ide_flow : public flow {
public:
    using flow::gen;
    using flow::transfer;
    /// `from → to` carrying `f` (a pair given several functions joins them).
    ide_flow& transfer(fact_id from, fact_id to, const typename F::function& f) {
        if (to == zero_fact) return *this;
        pair(from, to);
        terms_.push_back({from, to, f});
        return *this;
    }
    /// `0 → to` carrying `f`.
    ide_flow& gen(fact_id to, const typename F::function& f) { return transfer(zero_fact, to, f); }
    /// The edge functions said so far, in the problem's canonical form.
    weir::ide::edge_terms<F> take_terms() {
        weir::ide::canonicalize<F>(terms_);
        return std::move(terms_);
    }

private:
    weir::ide::edge_terms<F> terms_;
};

/// An initial fact with its value (the zero fact's value is bottom whatever
/// it says); a null function means the program's start (the root procedure,
/// or each entry when there is no root).
template <weir::ide::edge_function_family F>
struct ide_seed {
    const ::llvm::Function* function = nullptr;
    fact_id fact = zero_fact;
    typename F::value value = F::bottom_value();
};
/// The list an IDE analysis fills in `initial_seeds`.
template <weir::ide::edge_function_family F>
using ide_seed_list = std::vector<ide_seed<F>>;

/// An IDE analysis over LLVM IR (see the file comment).
template <class A>
concept ide_analysis =
    weir::ide::edge_function_family<typename A::family> &&
    requires(A& a, analysis_context& cx, const ::llvm::Instruction& i, const ::llvm::CallBase& c, const ::llvm::Function& f,
             ide_flow<typename A::family>& out, ide_seed_list<typename A::family>& seeds) {
        { A::name } -> std::convertible_to<std::string_view>;
        a.initial_seeds(cx, seeds);
        a.normal_flow(cx, i, out);
        a.call_flow(cx, c, f, out);
        a.return_flow(cx, c, f, out);
        a.call_to_return_flow(cx, c, out);
    };

} // namespace weir::llvm
