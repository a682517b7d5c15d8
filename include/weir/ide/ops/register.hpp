#pragma once
/// \file weir/ide/ops/register.hpp
/// Registers weir's IDE op for a family `F` with vyre
/// (vyre/ops/extension.hpp): `ide_solve_<F::name>` with its reference (so
/// `cpu_ref` runs it) and its native `vyre::cpu` implementation (the same
/// solve, called directly). `register_ide_ops<F>()` is idempotent; the
/// resident IDE solver calls it, and a family of your own needs nothing
/// more (examples/custom_family.cpp).

#include <span>

#include <vyre/backend/cpu.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ops/extension.hpp>
#include <weir/ide/ops/solve.hpp>
#include <weir/ifds/ops/register.hpp>

/// `ide_solve_<F::name>` on `vyre::cpu`.
template <weir::ide::edge_function_family F>
struct vyre::ops::native_op<vyre::cpu, weir::ops::ide_solve_op<F>> {
    static vyre::result<void> run(std::span<vyre::ops::op_arg> args, unsigned /*threads*/) {
        return weir::ops::ide_solve::run<F>(args);
    }
};

namespace weir::ops {

/// Registers `ide_solve_<F::name>` (once per process and family; later
/// calls return the first outcome) and weir's IFDS ops, which its first
/// stage runs.
template <weir::ide::edge_function_family F>
vyre::result<void> register_ide_ops() {
    VYRE_TRY(register_ops());
    static const vyre::result<const vyre::ops::op_info*> registered =
        vyre::ops::register_op<ide_solve_op<F>, vyre::cpu>();
    if (!registered) return vyre::make_unexpected(registered.error());
    return {};
}

} // namespace weir::ops
