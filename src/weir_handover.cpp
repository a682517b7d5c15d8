// How `weir` reaches the parts that need LLVM or CUDA (weir_cli.hpp).
// Compiled twice: with WEIR_HAND_OVER=1 into `weir`, which links neither
// library and runs those commands by handing them to `weir-full`; without it
// into `weir-full` (or into the only `weir` of a build with neither), which
// runs them itself.

#include "exec_sibling.hpp"
#include "weir_cli.hpp"

#ifndef WEIR_HAND_OVER
#define WEIR_HAND_OVER 0
#endif

bool weir_cli::cuda_in_build() {
#if defined(VYRE_WITH_CUDA) || defined(WEIR_FULL_HAS_CUDA)
    return true;
#else
    return false;
#endif
}

#if WEIR_HAND_OVER

std::optional<int> weir_cli::hand_over(char** argv) {
    return cli_detail::exec_sibling("weir", "weir-full", argv,
                                    "`weir analyze` and `weir solve --backend cuda` run in weir-full, which is built "
                                    "and installed beside weir");
}

int weir_cli::cmd_analyze(int, char** argv) { return *hand_over(argv); }

// (unreachable: `weir solve` hands a cuda solve over before loading the file)
static vyre::unexpected<vyre::backend_error> runs_in_full() {
    return vyre::fail(vyre::error_code::unsupported, "backend 'cuda' runs in weir-full, not in weir",
                      "run weir-full, installed beside weir");
}

vyre::result<std::vector<std::uint32_t>> weir_cli::solve_layout_cuda(const weir::ifds::layout&, std::uint64_t,
                                                                     weir::ifds::solve_stats&) {
    return runs_in_full();
}

vyre::result<weir::ide::solution<weir::ide::linear>> weir_cli::solve_ide_cuda(const weir::ide::layout<weir::ide::linear>&,
                                                                             std::string&, std::uint64_t) {
    return runs_in_full();
}

#else

std::optional<int> weir_cli::hand_over(char**) { return std::nullopt; }

#endif
