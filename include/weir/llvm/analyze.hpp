#pragma once
/// \file weir/llvm/analyze.hpp
/// `weir::llvm::analysis_session`: one analysis of one module, from the IR to
/// findings, with the solve left to the caller so that any weir solver
/// (tabulation, a resident backend) can run it on `layout()` (this is what
/// `weir analyze` does; spec: analyze.md).
///
/// \code
/// llvm::LLVMContext ctx;
/// auto m = weir::llvm::load_module({.inputs = {"prog.c"}}, ctx);
/// weir::llvm::analysis_session s(*m, {.analysis = "taint"});
/// auto out = weir::ifds::tabulation_solver(s.layout()).solve();
/// for (auto& f : s.findings(std::move(out->path_edges))) ...
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/IR/Module.h>

#include <weir/ifds/layout.hpp>
#include <weir/llvm/findings.hpp>
#include <weir/llvm/points_to.hpp>

namespace weir::llvm {

/// `analyze_options::witness_budget` for no limit.
inline constexpr std::uint64_t no_witness_limit = ~std::uint64_t{0};

/// What to analyze and how.
struct analyze_options {
    /// `taint` or `uninit`.
    std::string analysis = "taint";
    /// Taint configuration: a JSON file, `libc`, or empty for the default.
    std::string config;
    /// Entry functions; empty: `main` when defined, else every externally visible function.
    std::vector<std::string> entries;
    /// Fill each finding's `trace` with a realizable path's locations.
    bool witness = false;
    /// The points-to engine (default: inclusion-based up to 50,000 instructions, else unification-based).
    points_to_options points_to;
    /// Bytes the findings' witnesses (their sources and traces) may take;
    /// 0: as many as the solution's path-edge bits, and at least 256 MiB;
    /// `no_witness_limit`: no limit. Past it the findings come without
    /// sources and traces (or with sources, without traces, where the
    /// traces kept fill it), and `analysis_session::notes` says so.
    std::uint64_t witness_budget = 0;
    /// The form of the layout's intraprocedural edges: `per_row` (the
    /// default) serves every solver; `per_edge` only the row-wise solve of
    /// the host backends (`cpu`, `cpu-ref`), in less time and memory.
    weir::ifds::intra_form layout_form = weir::ifds::intra_form::per_row;
};

/// Seconds spent in each phase of a session.
struct phase_times {
    double points_to = 0, construction = 0, layout = 0, report = 0;
};

/// One analysis of one module (which must outlive the session).
class analysis_session {
public:
    /// Builds the program model, the analysis and its weir problem, and the
    /// solver layout. Throws `input_error` for a bad configuration or entry,
    /// `std::invalid_argument` for an unknown analysis name.
    analysis_session(const ::llvm::Module& m, const analyze_options& opt);
    ~analysis_session();
    analysis_session(analysis_session&&) noexcept;
    analysis_session& operator=(analysis_session&&) noexcept;

    /// The weir problem's layout: solve it with any solver (with the
    /// row-wise solve only, when made `per_edge`: `analyze_options::layout_form`).
    const weir::ifds::layout& layout() const;
    /// The weir problem (names: `p<procedure>`, `n<node>`, `f<fact>`).
    const weir::ifds::problem& problem() const;
    /// The findings for the path-edge bits a solver returned for `layout()`,
    /// sorted, with their sources (taint) and traces (with `witness`), from
    /// witnesses recorded for the findings alone
    /// (`weir::ifds::targeted_witnesses`; the findings whose witnesses do
    /// not fit `witness_budget` come without them, and a note says so).
    /// `path_edges`, when the solver counted the bits already
    /// (`weir::ifds::solve_stats::path_edges`), spares counting them again
    /// for `stats()` (a pass over the whole bitset: 2 GB on SQLite's uninit).
    /// Throws `vyre::backend_error` when the bits are not a solve's,
    /// `std::bad_alloc` when the host runs out of memory.
    std::vector<finding> findings(std::vector<std::uint32_t> path_edge_bits,
                                  std::optional<std::uint64_t> path_edges = std::nullopt);
    /// Sizes for the output's `stats`.
    analysis_stats stats() const;
    /// Phase times so far.
    const phase_times& times() const;
    /// What the user should know about the findings (e.g. sources and
    /// traces left out past `analyze_options::witness_budget`).
    const std::vector<std::string>& notes() const;
    /// The analysis name.
    const std::string& analysis() const;
    /// The points-to engine that ran (`inclusion` or `unification`).
    const char* points_to_engine() const;

private:
    struct impl;
    std::unique_ptr<impl> d_;
};

/// The analyses `analysis_session` knows.
std::vector<std::string> analysis_names();

} // namespace weir::llvm
