#pragma once
/// \file weir/weir.hpp
/// Everything of weir in one include:
/// - core/: what weir's parts share: the resident-dispatch concept and the
///   vyre adapter;
/// - ifds/: the IFDS problem model, builder and `.ifds` format, the layout,
///   the tabulation and resident solvers, witnesses;
/// - ifds/ops/: weir's extension ops (registered with vyre when included);
/// - ide/: IDE: edge-function families (`linear`), the problem model, the
///   builder, the `.ide` loader and printer, the host tabulation solver, the layout and
///   the resident solver (with its op, ide/ops/).

#include <weir/core/resident_dispatch.hpp>
#include <weir/core/vyre_resident_ifds.hpp>

#include <weir/ifds/problem.hpp>
#include <weir/ifds/builder.hpp>
#include <weir/ifds/format.hpp>
#include <weir/ifds/layout.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/stats.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/summaries.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/ifds/witness.hpp>
#include <weir/ifds/kernels.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/resident_solver.hpp>

#include <weir/ide/edge_function_family.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/problem.hpp>
#include <weir/ide/builder.hpp>
#include <weir/ide/format.hpp>
#include <weir/ide/solution.hpp>
#include <weir/ide/tabulation_solver.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/resident_solver.hpp>
