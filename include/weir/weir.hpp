#pragma once
/// \file weir/weir.hpp
/// Everything of weir in one include: the problem model, builder and
/// `.ifds` format, the layout, the tabulation and resident solvers, witnesses,
/// the resident-dispatch concept and the vyre adapter.

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
#include <weir/ifds/resident_dispatch.hpp>
#include <weir/ifds/kernels.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/adapter/vyre_resident_ifds.hpp>
