#pragma once
/// \file vyre/ir/types.hpp
/// Scalar types, buffer access modes, built-ins and operator codes of the vyre
/// IR (spec: vyre-ir.md, "Types", "Buffers", "Expressions"), with their
/// canonical text names.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace vyre::ir {

/// Every type a value or a buffer element can have.
/// `bool_ .. f64` are compute types; `u8 .. bf16` are storage-only.
enum class scalar_type : std::uint8_t { bool_, u32, i32, u64, i64, f32, f64, u8, u16, i8, i16, f16, bf16 };

/// How a program uses a buffer (spec table "Buffers").
enum class access : std::uint8_t { read, uniform, read_write, output, workgroup };

/// Axis of a built-in.
enum class axis : std::uint8_t { x, y, z };

/// Built-in invocation values (all u32).
enum class builtin : std::uint8_t { gid, lid, wgid, wgsize, ngroups };

/// Operator codes: unary, binary, fused and atomic operations.
enum class op_code : std::uint8_t {
    // binary arithmetic
    add, sub, mul, div, mod, min, max,
    // binary bits
    bitand_, bitor_, bitxor_, shl, shr,
    // comparisons
    eq, ne, lt, le, gt, ge,
    // logic
    and_, or_,
    // unary
    neg, abs, bitnot, popcount, clz, ctz, not_, sqrt, exp, log, sin, cos, tanh,
    // atomics
    atomic_add, atomic_sub, atomic_and, atomic_or, atomic_xor, atomic_min, atomic_max,
    atomic_exchange, atomic_cas,
    count_
};

namespace detail {
inline constexpr std::array<std::string_view, 13> scalar_names = {
    "bool", "u32", "i32", "u64", "i64", "f32", "f64", "u8", "u16", "i8", "i16", "f16", "bf16"};
inline constexpr std::array<std::string_view, 5> access_names = {"read", "uniform", "read_write",
                                                                  "output", "workgroup"};
inline constexpr std::array<std::string_view, 5> builtin_names = {"gid", "lid", "wgid", "wgsize",
                                                                  "ngroups"};
inline constexpr std::array<std::string_view, static_cast<std::size_t>(op_code::count_)> op_names = {
    "add", "sub", "mul", "div", "mod", "min", "max",
    "bitand", "bitor", "bitxor", "shl", "shr",
    "eq", "ne", "lt", "le", "gt", "ge",
    "and", "or",
    "neg", "abs", "bitnot", "popcount", "clz", "ctz", "not", "sqrt", "exp", "log", "sin", "cos", "tanh",
    "atomic_add", "atomic_sub", "atomic_and", "atomic_or", "atomic_xor", "atomic_min", "atomic_max",
    "atomic_exchange", "atomic_cas"};

template <class E, std::size_t N>
constexpr std::optional<E> from_name(const std::array<std::string_view, N>& names, std::string_view s) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == s) return static_cast<E>(i);
    return std::nullopt;
}
} // namespace detail

/// Canonical text name of a scalar type (`"u32"`, `"bool"`, ...).
constexpr std::string_view name_of(scalar_type t) { return detail::scalar_names[static_cast<int>(t)]; }
/// Canonical text name of an access mode.
constexpr std::string_view name_of(access a) { return detail::access_names[static_cast<int>(a)]; }
/// Canonical text name of a built-in.
constexpr std::string_view name_of(builtin b) { return detail::builtin_names[static_cast<int>(b)]; }
/// Canonical text name of an axis.
constexpr std::string_view name_of(axis a) { return a == axis::x ? "x" : a == axis::y ? "y" : "z"; }
/// Canonical text name of an operator.
constexpr std::string_view name_of(op_code o) { return detail::op_names[static_cast<int>(o)]; }

/// Parses a scalar type name.
constexpr std::optional<scalar_type> scalar_from_name(std::string_view s) {
    return detail::from_name<scalar_type>(detail::scalar_names, s);
}
/// Parses an access mode name.
constexpr std::optional<access> access_from_name(std::string_view s) {
    return detail::from_name<access>(detail::access_names, s);
}
/// Parses a built-in name.
constexpr std::optional<builtin> builtin_from_name(std::string_view s) {
    return detail::from_name<builtin>(detail::builtin_names, s);
}
/// Parses an operator name.
constexpr std::optional<op_code> op_from_name(std::string_view s) {
    return detail::from_name<op_code>(detail::op_names, s);
}

/// Size in bytes of one stored element (bool is one 32-bit word).
constexpr std::size_t size_of(scalar_type t) {
    switch (t) {
    case scalar_type::u8: case scalar_type::i8: return 1;
    case scalar_type::u16: case scalar_type::i16: case scalar_type::f16: case scalar_type::bf16: return 2;
    case scalar_type::u64: case scalar_type::i64: case scalar_type::f64: return 8;
    default: return 4;
    }
}

/// True for the compute types (the types expressions can have).
constexpr bool is_compute(scalar_type t) { return static_cast<int>(t) <= static_cast<int>(scalar_type::f64); }
/// True for f32 and f64.
constexpr bool is_float(scalar_type t) { return t == scalar_type::f32 || t == scalar_type::f64; }
/// True for u32, i32, u64, i64.
constexpr bool is_integer(scalar_type t) {
    return t == scalar_type::u32 || t == scalar_type::i32 || t == scalar_type::u64 || t == scalar_type::i64;
}
/// True for i32 and i64.
constexpr bool is_signed(scalar_type t) { return t == scalar_type::i32 || t == scalar_type::i64; }
/// True for numbers (integers and floats).
constexpr bool is_number(scalar_type t) { return is_integer(t) || is_float(t); }
/// Bit width of a compute type's value (bool counts as 32).
constexpr unsigned bit_width(scalar_type t) { return size_of(t) * 8; }

/// The compute type a load of a buffer element of type `t` produces.
constexpr scalar_type widened(scalar_type t) {
    switch (t) {
    case scalar_type::u8: case scalar_type::u16: return scalar_type::u32;
    case scalar_type::i8: case scalar_type::i16: return scalar_type::i32;
    case scalar_type::f16: case scalar_type::bf16: return scalar_type::f32;
    default: return t;
    }
}

/// True for the inputs of a dispatch: read, uniform, read_write.
constexpr bool is_input(access a) { return a == access::read || a == access::uniform || a == access::read_write; }
/// True for the outputs of a dispatch: read_write, output.
constexpr bool is_output(access a) { return a == access::read_write || a == access::output; }
/// True when the program may write the buffer.
constexpr bool is_writable(access a) { return a != access::read && a != access::uniform; }

/// Operator categories.
constexpr bool is_atomic(op_code o) {
    return static_cast<int>(o) >= static_cast<int>(op_code::atomic_add) && o != op_code::count_;
}
/// True for the unary operators (`neg` .. `tanh`).
constexpr bool is_unary(op_code o) {
    return static_cast<int>(o) >= static_cast<int>(op_code::neg) &&
           static_cast<int>(o) <= static_cast<int>(op_code::tanh);
}
/// True for the binary operators (`add` .. `or`).
constexpr bool is_binary(op_code o) { return static_cast<int>(o) <= static_cast<int>(op_code::or_); }
/// True for the comparisons (`eq` .. `ge`).
constexpr bool is_comparison(op_code o) {
    return static_cast<int>(o) >= static_cast<int>(op_code::eq) && static_cast<int>(o) <= static_cast<int>(op_code::ge);
}

} // namespace vyre::ir
