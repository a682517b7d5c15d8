#pragma once
// What the `weir` CLI's commands share (weir_cli.cpp, weir_analyze.cpp).
//
// Two programs: `weir` links neither LLVM nor the CUDA runtime, and hands
// `weir analyze` and `weir solve --backend cuda` to `weir-full`, the same
// command with both linked in, installed beside it (weir_handover.cpp).
// Loading libLLVM and the CUDA runtime costs a process about 100 ms on the
// 2-core VM (twice with the huge-page restart): more than the whole solve of
// a 5 MB problem on the host backends (bench/README.md, 2026-12-07). A build
// with neither library builds `weir` alone, with everything in it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vyre/core/result.hpp>
#include <weir/ide/layout.hpp>
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
/// cpu-ref, cpu, cuda) within `memory_budget`
/// bytes (0: no limit); appends its `--stats` times to `stats`.
vyre::result<weir::ide::solution<weir::ide::linear>> solve_ide(const weir::ide::problem<weir::ide::linear>& pb,
                                                              const std::string& backend, std::string& stats,
                                                              std::uint64_t memory_budget = 0);
/// Prints a solver error; returns the exit status for it.
int solver_failed(const vyre::backend_error& e);
/// `weir analyze ...` (argv[1] is "analyze"): weir_analyze.cpp in
/// `weir-full`; in `weir`, hands the command over to `weir-full`.
int cmd_analyze(int argc, char** argv);
/// True when this build has the cuda backend (in `weir-full`, or in `weir`'s
/// hands over to it).
bool cuda_in_build();
/// Solves a layout on cuda (weir_cuda.cpp, in `weir-full`; `weir` hands a
/// cuda solve over before it loads anything, so its own fails `unsupported`).
vyre::result<std::vector<std::uint32_t>> solve_layout_cuda(const weir::ifds::layout& L, std::uint64_t memory_budget,
                                                           weir::ifds::solve_stats& st);
/// Solves an IDE layout on cuda (as `solve_layout_cuda`).
vyre::result<weir::ide::solution<weir::ide::linear>> solve_ide_cuda(const weir::ide::layout<weir::ide::linear>& L,
                                                                    std::string& stats, std::uint64_t memory_budget);
/// In `weir`: replaces this process with `weir-full` (the file of that name
/// in this program's directory) run on the same arguments and environment;
/// returns only when that fails, with the exit status after printing why.
/// In `weir-full` (and in a build with neither library): nullopt, nothing done.
std::optional<int> hand_over(char** argv);

} // namespace weir_cli
