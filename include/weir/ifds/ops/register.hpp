#pragma once
/// \file weir/ifds/ops/register.hpp
/// Registers weir's IFDS ops with vyre (vyre/ops/extension.hpp), so that
/// programs may name them and backends find their implementations:
/// `ifds_rows_solve` with its reference (every backend; `cpu_ref` runs it)
/// and its native `vyre::cpu` implementation. Including this header
/// registers them before `main`; `register_ops()` does it explicitly (the
/// resident solver calls it), and registering twice changes nothing.

#include <vyre/core/result.hpp>
#include <vyre/ops/extension.hpp>
#include <weir/ifds/ops/cpu.hpp>
#include <weir/ifds/ops/solve.hpp>

namespace weir::ops {

/// Registers weir's ops (once per process; later calls return the first outcome).
inline vyre::result<void> register_ops() {
    static const vyre::result<const vyre::ops::op_info*> registered = vyre::ops::register_op<rows_solve_op, vyre::cpu>();
    if (!registered) return vyre::make_unexpected(registered.error());
    return {};
}

namespace detail {
/// Registration when a program includes weir's ops (static initialisation).
inline const bool ops_registered = register_ops().has_value();
} // namespace detail

} // namespace weir::ops
