#pragma once
// What the `weir` CLI's commands share (weir_cli.cpp, weir_analyze.cpp).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vyre/core/result.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/problem.hpp>
#include <weir/ide/solution.hpp>
#include <weir/ifds/layout.hpp>
#include <weir/ifds/stats.hpp>

namespace weir_cli {

/// Exit statuses (both commands).
inline constexpr int exit_findings = 1;   ///< analyze --fail-on-findings found something
inline constexpr int exit_invalid = 2;    ///< bad input or usage
inline constexpr int exit_memory = 3;     ///< out of memory (or past --memory-budget)
inline constexpr int exit_no_device = 4;  ///< the backend's device is missing or lost

/// Seconds from `t` to now (the phase times of `--stats`).
inline double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
/// Parses `123`, `64K`, `512M`, `2G`, `1T` (powers of 1024) into bytes;
/// nullopt when malformed or past 2^64.
std::optional<std::uint64_t> parse_size(const std::string& s);
/// A usage error on stderr; returns exit_invalid.
int usage(const std::string& why);
/// The usage on stdout; returns 0.
int help();
/// An error status when `backend` is unknown or not in this build (message printed), else nullopt.
std::optional<int> check_backend(const std::string& backend);
/// Solves a layout on `backend` (tabulation, cpu-ref, cpu, cuda); returns the path-edge bits.
vyre::result<std::vector<std::uint32_t>> solve_layout(const weir::ifds::layout& L, const std::string& backend,
                                                      std::uint64_t memory_budget, weir::ifds::solve_stats& st);
/// The form of a layout's intraprocedural edges that `backend`'s solver
/// reads: per edge where its resident solver runs the row-wise solve (the
/// host backends), else per row.
weir::ifds::intra_form intra_form_for(const std::string& backend);
/// Solves an IDE problem of the `linear` family on `backend` (tabulation,
/// cpu-ref, cpu; cuda fails with `unsupported`) within `memory_budget`
/// bytes (0: no limit); appends its `--stats` times to `stats`.
vyre::result<weir::ide::solution<weir::ide::linear>> solve_ide(const weir::ide::problem<weir::ide::linear>& pb,
                                                              const std::string& backend, std::string& stats,
                                                              std::uint64_t memory_budget = 0);
/// Prints a solver error; returns the exit status for it.
int solver_failed(const vyre::backend_error& e);
/// `weir analyze ...` (argv[1] is "analyze").
int cmd_analyze(int argc, char** argv);

} // namespace weir_cli
