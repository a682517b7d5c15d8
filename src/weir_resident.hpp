#pragma once
// The resident solves of the `weir` CLI, as templates over a vyre backend:
// instantiated for the host backends in weir_cli.cpp and for cuda in
// weir_cuda.cpp (which only `weir-full` links; see weir_cli.hpp).

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <vyre/backends.hpp>
#include <vyre/core/result.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/resident_solver.hpp>
#include <weir/weir.hpp>

namespace weir_cli::detail {

/// Solves on a resident vyre backend; returns the path-edge bits.
template <class B>
vyre::result<std::vector<std::uint32_t>> solve_resident(const weir::ifds::layout& L, std::uint64_t memory_budget, weir::ifds::solve_stats& st) {
    B backend;
    weir::vyre_resident_ifds<B> d(backend);
    weir::ifds::resident_options opt;
    opt.memory_budget = memory_budget;
    const bool tty = isatty(2);
    auto last = std::chrono::steady_clock::now();
    if (tty)
        opt.on_round = [&](std::uint64_t round, std::uint64_t frontier, std::uint64_t edges) {
            auto now = std::chrono::steady_clock::now();
            if (now - last < std::chrono::milliseconds(200)) return;
            last = now;
            std::fprintf(stderr, "\rweir: round %llu, frontier %llu, path edges %llu   ",
                         static_cast<unsigned long long>(round), static_cast<unsigned long long>(frontier),
                         static_cast<unsigned long long>(edges));
        };
    auto solver = weir::ifds::resident_solver<weir::vyre_resident_ifds<B>>::create(d, L, opt);
    if (!solver) return vyre::make_unexpected(solver.error());
    auto out = solver->solve();
    if (tty) std::fprintf(stderr, "\r%60s\r", "");
    if (!out) return vyre::make_unexpected(out.error());
    st = out->stats;
    return std::move(out->path_edges);
}

/// Solves an IDE layout on a resident vyre backend (both stages; stage 2 as
/// weir's op on the host backends, as the portable IR kernels on cuda: see
/// weir/ide/resident_solver.hpp).
template <class B>
vyre::result<weir::ide::solution<weir::ide::linear>> solve_ide_resident(const weir::ide::layout<weir::ide::linear>& L,
                                                                              std::string& stats, std::uint64_t memory_budget) {
    B backend;
    weir::vyre_resident_ifds<B> d(backend);
    weir::ifds::resident_options opt;
    opt.memory_budget = memory_budget;
    auto solver = weir::ide::resident_solver<weir::ide::linear, weir::vyre_resident_ifds<B>>::create(d, L, opt);
    if (!solver) return vyre::make_unexpected(solver.error());
    stats += solver->uses_ir_kernels() ? " ide_stage2=kernels" : " ide_stage2=op";
    auto out = solver->solve();
    if (!out) return vyre::make_unexpected(out.error());
    const auto& st = out->stats;
    const auto& r = st.reachability;
    stats += " t_reach=" + std::to_string(r.seconds_upload + r.seconds_solve + r.seconds_extract) +
             " t_upload=" + std::to_string(st.seconds_upload) + " t_ide_op=" + std::to_string(st.seconds_solve) +
             " t_extract=" + std::to_string(st.seconds_extract) + " updates=" + std::to_string(st.updates);
    return std::move(out->result);
}

} // namespace weir_cli::detail
