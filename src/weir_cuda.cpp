// `weir`'s solves on the cuda backend (in `weir-full` only: see weir_cli.hpp).
// Without nvcc at build time they fail `unsupported`; `weir solve` checks the
// backend before it loads anything, so that is seen only through the library calls.

#include "weir_cli.hpp"
#include "weir_resident.hpp"

#ifndef VYRE_WITH_CUDA
/// The error of both solves in a build without nvcc.
static vyre::unexpected<vyre::backend_error> not_in_build() {
    return vyre::fail(vyre::error_code::unsupported, "backend 'cuda' is not available in this build",
                      "use --backend cpu, cpu-ref or tabulation");
}
#endif

vyre::result<std::vector<std::uint32_t>> weir_cli::solve_layout_cuda(const weir::ifds::layout& L,
                                                                     std::uint64_t memory_budget,
                                                                     weir::ifds::solve_stats& st) {
#ifdef VYRE_WITH_CUDA
    return detail::solve_resident<vyre::cuda>(L, memory_budget, st);
#else
    (void)L, (void)memory_budget, (void)st;
    return not_in_build();
#endif
}

vyre::result<weir::ide::solution<weir::ide::linear>> weir_cli::solve_ide_cuda(const weir::ide::layout<weir::ide::linear>& L,
                                                                             std::string& stats,
                                                                             std::uint64_t memory_budget) {
#ifdef VYRE_WITH_CUDA
    return detail::solve_ide_resident<vyre::cuda>(L, stats, memory_budget);
#else
    (void)L, (void)stats, (void)memory_budget;
    return not_in_build();
#endif
}
