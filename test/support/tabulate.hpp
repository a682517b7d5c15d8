#pragma once
/// \file support/tabulate.hpp
/// Test support: the solution the tabulation solver (the exact host
/// reference) gives for a problem, through the per-row layout.

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

namespace weir::test {

/// Which facts hold at each node of `pb`, by `tabulation_solver`.
inline weir::ifds::solution tabulate(const weir::ifds::problem& pb) {
    const weir::ifds::layout L = weir::ifds::make_layout(pb);
    return weir::ifds::extract_solution(L, weir::ifds::tabulation_solver(L).solve().value().path_edges);
}

} // namespace weir::test
