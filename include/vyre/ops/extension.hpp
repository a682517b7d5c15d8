#pragma once
/// \file vyre/ops/extension.hpp
/// Extension ops: ops defined outside vyre, by the library that needs them.
///
/// An op is a type modelling `op_definition`: its name, buffer signature,
/// a one-line summary and the reference implementation that *defines* it
/// (`cpu_ref` runs every op through its reference). A backend may run it
/// natively: the defining library specialises `native_op<Backend, Op>` with
/// a static `run` of the backend's `native_op_fn` type, and lists the
/// backend when it registers the op:
///
/// ```cpp
/// struct saxpy {                                        // an op of your library
///     static constexpr std::string_view name = "mylib_saxpy";
///     static constexpr std::string_view summary = "y[i] = a * x[i] + y[i]";
///     static std::vector<vyre::ops::param> signature();  // (x read, y written, a literal)
///     static vyre::result<void> reference(std::span<vyre::ops::op_arg>);
/// };
/// template <> struct vyre::ops::native_op<vyre::cpu, saxpy> {
///     static vyre::result<void> run(std::span<vyre::ops::op_arg>, unsigned threads);
/// };
/// inline const auto saxpy_registered = vyre::ops::register_op<saxpy, vyre::cpu>();
/// ```
///
/// After registration a program may name the op (`(op mylib_saxpy x y 3)`):
/// validation checks its arguments against the signature, the text form
/// prints and parses it, `supported_ops()` lists it, and a backend resolves
/// its native implementation once, when it compiles the program. Native
/// implementations for `vyre::cuda` are host functions that enqueue the
/// library's kernels (from its own `.cu` files) on the stream they are given
/// (see `vyre::cuda::native_op_fn`). See examples/custom_op.cpp.

#include <concepts>
#include <span>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ops/op_info.hpp>
#include <vyre/ops/registry.hpp>

namespace vyre::ops {

/// What defines an op: `Op::name`, `Op::summary`, `Op::signature()` and
/// `Op::reference(args)` (the implementation that defines its meaning).
template <class Op>
concept op_definition = requires(std::span<op_arg> args) {
    { Op::name } -> std::convertible_to<std::string_view>;
    { Op::summary } -> std::convertible_to<std::string_view>;
    { Op::signature() } -> std::same_as<std::vector<param>>;
    { Op::reference(args) } -> std::same_as<result<void>>;
};

/// Backend `Backend`'s native implementation of op `Op`. Not defined: a
/// library that has one specialises it with `static ... run(...)` of type
/// `Backend::native_op_fn`.
template <class Backend, class Op>
struct native_op;

/// True when `native_op<B, Op>::run` exists and has `B`'s native signature.
template <class B, class Op>
concept has_native_op = requires {
    typename B::native_op_fn;
    { &native_op<B, Op>::run } -> std::convertible_to<typename B::native_op_fn>;
};

/// Adds backend type `B`'s native implementation of the registered op `op`.
template <class B, class Op>
    requires has_native_op<B, Op>
void register_native(const op_info& op) {
    const typename B::native_op_fn fn = &native_op<B, Op>::run;
    registry::instance().add_native(op, std::type_index(typeid(B)), reinterpret_cast<erased_native_fn>(fn));
}

/// Registers op `Op` and the native implementations of `Backends...`
/// (idempotent). Fails when the name belongs to a catalogue op or to another
/// op with a different signature.
template <op_definition Op, class... Backends>
result<const op_info*> register_op() {
    static_assert((has_native_op<Backends, Op> && ...),
                  "register_op<Op, Backends...>: every listed backend B needs a specialisation "
                  "vyre::ops::native_op<B, Op> with a static `run` of type B::native_op_fn");
    auto info = registry::instance().add(op_info{Op::name, Op::signature(), Op::summary, &Op::reference});
    if (!info) return info;
    (register_native<Backends, Op>(**info), ...);
    return info;
}

} // namespace vyre::ops
