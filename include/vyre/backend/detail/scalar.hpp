#pragma once
/// \file vyre/backend/detail/scalar.hpp
/// The exact scalar semantics of the spec, on values held as raw bits in a
/// u64 (32-bit types in the low half, bool as 0/1). Shared by every host
/// backend so that they agree bit for bit with the reference.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <vyre/core/popcount.hpp>
#include <vyre/ir/types.hpp>

namespace vyre::detail {

using ir::op_code;
using ir::scalar_type;

inline constexpr std::uint32_t canonical_nan_f32 = 0x7fc00000u;
inline constexpr std::uint64_t canonical_nan_f64 = 0x7ff8000000000000ull;

inline float as_f32(std::uint64_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v)); }
inline double as_f64(std::uint64_t v) { return std::bit_cast<double>(v); }
inline std::uint64_t of_f32(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t of_f64(double d) { return std::bit_cast<std::uint64_t>(d); }

/// Mask of a type's value bits.
inline constexpr std::uint64_t value_mask(scalar_type t) {
    return (t == scalar_type::u64 || t == scalar_type::i64 || t == scalar_type::f64) ? ~0ull : 0xffffffffull;
}
/// Sign-extends a signed value to int64.
inline std::int64_t sval(scalar_type t, std::uint64_t v) {
    return t == scalar_type::i32 ? static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v)))
                                 : static_cast<std::int64_t>(v);
}

/// f32 → f16 bits, round to nearest even; any NaN becomes the canonical 0x7e00.
inline std::uint16_t f32_to_f16(std::uint32_t x) {
    std::uint32_t sign = (x >> 16) & 0x8000u;
    std::uint32_t exp = (x >> 23) & 0xffu;
    std::uint32_t man = x & 0x7fffffu;
    if (exp == 0xff) return man ? 0x7e00 : static_cast<std::uint16_t>(sign | 0x7c00u);
    int e = static_cast<int>(exp) - 127 + 15;
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (e <= 0) {
        if (exp == 0) return static_cast<std::uint16_t>(sign);  // f32 zero/subnormal: far below f16's range
        std::uint32_t m = man | 0x800000u;
        int shift = 14 - e;
        if (shift > 24) return static_cast<std::uint16_t>(sign);
        std::uint32_t r = m >> shift;
        std::uint32_t rem = m & ((1u << shift) - 1);
        std::uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) ++r;
        return static_cast<std::uint16_t>(sign | r);
    }
    std::uint32_t r = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
    std::uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) ++r;
    return static_cast<std::uint16_t>(sign | r);
}
/// f16 bits → f32 bits (exact).
inline std::uint32_t f16_to_f32(std::uint16_t h) {
    std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exp = (h >> 10) & 0x1fu;
    std::uint32_t man = h & 0x3ffu;
    if (exp == 0) {
        float v = static_cast<float>(man) * 0x1p-24f;
        return sign | std::bit_cast<std::uint32_t>(v);
    }
    if (exp == 31) return sign | 0x7f800000u | (man << 13);
    return sign | ((exp - 15 + 127) << 23) | (man << 13);
}
/// f32 → bf16 bits, round to nearest even; any NaN becomes 0x7fc0.
inline std::uint16_t f32_to_bf16(std::uint32_t x) {
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    std::uint32_t lsb = (x >> 16) & 1u;
    return static_cast<std::uint16_t>((x + 0x7fffu + lsb) >> 16);
}
/// bf16 bits → f32 bits (exact).
inline std::uint32_t bf16_to_f32(std::uint16_t h) { return static_cast<std::uint32_t>(h) << 16; }

/// Reads element `i` of a buffer of element type `t` and widens it to its compute type.
inline std::uint64_t load_element(const std::uint8_t* base, std::uint64_t i, scalar_type t) {
    const std::uint8_t* p = base + i * ir::size_of(t);
    switch (t) {
    case scalar_type::u8: return p[0];
    case scalar_type::i8: return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(p[0])));
    case scalar_type::u16: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
    case scalar_type::i16: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    }
    case scalar_type::f16: { std::uint16_t v; std::memcpy(&v, p, 2); return f16_to_f32(v); }
    case scalar_type::bf16: { std::uint16_t v; std::memcpy(&v, p, 2); return bf16_to_f32(v); }
    case scalar_type::bool_: { std::uint32_t v; std::memcpy(&v, p, 4); return v != 0; }
    case scalar_type::u64: case scalar_type::i64: case scalar_type::f64: {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    default: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    }
}

/// Narrows compute value `v` to element type `t` and writes element `i`
/// (canonical NaN for floats, 1 for a stored true).
inline void store_element(std::uint8_t* base, std::uint64_t i, scalar_type t, std::uint64_t v) {
    std::uint8_t* p = base + i * ir::size_of(t);
    switch (t) {
    case scalar_type::u8: case scalar_type::i8: p[0] = static_cast<std::uint8_t>(v); return;
    case scalar_type::u16: case scalar_type::i16: {
        std::uint16_t x = static_cast<std::uint16_t>(v);
        std::memcpy(p, &x, 2);
        return;
    }
    case scalar_type::f16: {
        std::uint16_t x = f32_to_f16(static_cast<std::uint32_t>(v));
        std::memcpy(p, &x, 2);
        return;
    }
    case scalar_type::bf16: {
        std::uint16_t x = f32_to_bf16(static_cast<std::uint32_t>(v));
        std::memcpy(p, &x, 2);
        return;
    }
    case scalar_type::bool_: { std::uint32_t x = v != 0; std::memcpy(p, &x, 4); return; }
    case scalar_type::f32: {
        std::uint32_t x = static_cast<std::uint32_t>(v);
        if (std::isnan(std::bit_cast<float>(x))) x = canonical_nan_f32;
        std::memcpy(p, &x, 4);
        return;
    }
    case scalar_type::f64: {
        if (std::isnan(std::bit_cast<double>(v))) v = canonical_nan_f64;
        std::memcpy(p, &v, 8);
        return;
    }
    case scalar_type::u64: case scalar_type::i64: std::memcpy(p, &v, 8); return;
    default: { std::uint32_t x = static_cast<std::uint32_t>(v); std::memcpy(p, &x, 4); return; }
    }
}

/// IEEE minNum/maxNum: a NaN operand loses; min(-0, +0) is -0, max(-0, +0) is +0.
template <class F>
F ieee_min(F a, F b, bool is_max) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) {
        if (a == F(0)) return (std::signbit(a) != is_max) ? a : b;  // min prefers -0, max prefers +0
        return a;
    }
    return ((a < b) != is_max) ? a : b;
}

/// Binary operation `o` on operands of type `t`.
inline std::uint64_t eval_binary(op_code o, scalar_type t, std::uint64_t a, std::uint64_t b) {
    const std::uint64_t m = value_mask(t);
    if (t == scalar_type::bool_) {
        switch (o) {
        case op_code::and_: return a & b;
        case op_code::or_: return a | b;
        case op_code::eq: return a == b;
        case op_code::ne: return a != b;
        default: return 0;
        }
    }
    if (t == scalar_type::f32 || t == scalar_type::f64) {
        auto fop = [&](auto x, auto y) -> std::uint64_t {
            using F = decltype(x);
            auto out = [](F r) -> std::uint64_t {
                if constexpr (sizeof(F) == 4) return of_f32(r);
                else return of_f64(r);
            };
            switch (o) {
            case op_code::add: return out(x + y);
            case op_code::sub: return out(x - y);
            case op_code::mul: return out(x * y);
            case op_code::div: return out(x / y);
            case op_code::mod: return out(std::fmod(x, y));
            case op_code::min: return out(ieee_min(x, y, false));
            case op_code::max: return out(ieee_min(x, y, true));
            case op_code::eq: return x == y;
            case op_code::ne: return x != y;
            case op_code::lt: return x < y;
            case op_code::le: return x <= y;
            case op_code::gt: return x > y;
            case op_code::ge: return x >= y;
            default: return 0;
            }
        };
        return t == scalar_type::f32 ? fop(as_f32(a), as_f32(b)) : fop(as_f64(a), as_f64(b));
    }
    const bool sgn = ir::is_signed(t);
    const unsigned w = ir::bit_width(t);
    switch (o) {
    case op_code::add: return (a + b) & m;
    case op_code::sub: return (a - b) & m;
    case op_code::mul: return (a * b) & m;
    case op_code::div:
        if (b == 0) return 0;
        if (sgn) {
            std::int64_t x = sval(t, a), y = sval(t, b);
            std::int64_t mn = (w == 32) ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
            if (x == mn && y == -1) return static_cast<std::uint64_t>(x) & m;
            return static_cast<std::uint64_t>(x / y) & m;
        }
        return a / b;
    case op_code::mod:
        if (b == 0) return 0;
        if (sgn) {
            std::int64_t x = sval(t, a), y = sval(t, b);
            if (y == -1) return 0;
            return static_cast<std::uint64_t>(x % y) & m;
        }
        return a % b;
    case op_code::min: return sgn ? (sval(t, a) < sval(t, b) ? a : b) : (a < b ? a : b);
    case op_code::max: return sgn ? (sval(t, a) > sval(t, b) ? a : b) : (a > b ? a : b);
    case op_code::bitand_: return a & b;
    case op_code::bitor_: return a | b;
    case op_code::bitxor_: return a ^ b;
    case op_code::shl: return (a << (b % w)) & m;
    case op_code::shr:
        if (sgn) return static_cast<std::uint64_t>(sval(t, a) >> (b % w)) & m;
        return a >> (b % w);
    case op_code::eq: return a == b;
    case op_code::ne: return a != b;
    case op_code::lt: return sgn ? sval(t, a) < sval(t, b) : a < b;
    case op_code::le: return sgn ? sval(t, a) <= sval(t, b) : a <= b;
    case op_code::gt: return sgn ? sval(t, a) > sval(t, b) : a > b;
    case op_code::ge: return sgn ? sval(t, a) >= sval(t, b) : a >= b;
    default: return 0;
    }
}

/// Unary operation `o` on an operand of type `t`.
inline std::uint64_t eval_unary(op_code o, scalar_type t, std::uint64_t a) {
    const std::uint64_t m = value_mask(t);
    const unsigned w = ir::bit_width(t);
    if (t == scalar_type::bool_) return o == op_code::not_ ? (a ^ 1) : 0;
    if (t == scalar_type::f32 || t == scalar_type::f64) {
        const std::uint64_t sign = t == scalar_type::f32 ? 0x80000000ull : 0x8000000000000000ull;
        switch (o) {
        case op_code::neg: return a ^ sign;
        case op_code::abs: return a & ~sign;
        case op_code::sqrt: return t == scalar_type::f32 ? of_f32(std::sqrt(as_f32(a))) : of_f64(std::sqrt(as_f64(a)));
        case op_code::exp: return of_f32(std::exp(as_f32(a)));
        case op_code::log: return of_f32(std::log(as_f32(a)));
        case op_code::sin: return of_f32(std::sin(as_f32(a)));
        case op_code::cos: return of_f32(std::cos(as_f32(a)));
        case op_code::tanh: return of_f32(std::tanh(as_f32(a)));
        default: return 0;
        }
    }
    switch (o) {
    case op_code::neg: return (0 - a) & m;
    case op_code::abs: return (ir::is_signed(t) && sval(t, a) < 0) ? ((0 - a) & m) : a;
    case op_code::bitnot: return ~a & m;
    case op_code::popcount: return static_cast<std::uint64_t>(vyre::popcount(std::uint64_t(a & m)));
    case op_code::clz: return w == 32 ? std::countl_zero(static_cast<std::uint32_t>(a)) : std::countl_zero(a);
    case op_code::ctz: return w == 32 ? std::countr_zero(static_cast<std::uint32_t>(a)) : std::countr_zero(a);
    default: return 0;
    }
}

namespace cast_detail {
template <class F>
std::uint64_t float_to_int(F x, scalar_type to) {
    if (std::isnan(x)) return 0;
    F t = std::trunc(x);
    switch (to) {
    case scalar_type::u32:
        if (t <= F(0)) return 0;
        if (t >= F(4294967296.0)) return 0xffffffffull;
        return static_cast<std::uint64_t>(t);
    case scalar_type::i32:
        if (t >= F(2147483648.0)) return 0x7fffffffull;
        if (t <= F(-2147483648.0)) return 0x80000000ull;
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(t));
    case scalar_type::u64:
        if (t <= F(0)) return 0;
        if (t >= F(18446744073709551616.0)) return ~0ull;
        return static_cast<std::uint64_t>(t);
    case scalar_type::i64:
        if (t >= F(9223372036854775808.0)) return 0x7fffffffffffffffull;
        if (t <= F(-9223372036854775808.0)) return 0x8000000000000000ull;
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(t));
    default: return 0;
    }
}
} // namespace cast_detail

/// `(cast to E)` where E has type `from`.
inline std::uint64_t eval_cast(scalar_type to, scalar_type from, std::uint64_t v) {
    if (to == from) return v;
    if (to == scalar_type::bool_) {
        if (from == scalar_type::f32) return as_f32(v) != 0.0f;
        if (from == scalar_type::f64) return as_f64(v) != 0.0;
        return v != 0;
    }
    if (from == scalar_type::f32 || from == scalar_type::f64) {
        if (to == scalar_type::f32) return of_f32(static_cast<float>(as_f64(v)));
        if (to == scalar_type::f64) return of_f64(static_cast<double>(as_f32(v)));
        return from == scalar_type::f32 ? cast_detail::float_to_int(as_f32(v), to)
                                        : cast_detail::float_to_int(as_f64(v), to);
    }
    // from is bool or an integer: extend to 64 bits by the source's signedness
    std::int64_t s = 0;
    std::uint64_t u = 0;
    bool sgn = ir::is_signed(from);
    if (sgn) s = sval(from, v);
    else u = v;
    if (to == scalar_type::f32) return of_f32(sgn ? static_cast<float>(s) : static_cast<float>(u));
    if (to == scalar_type::f64) return of_f64(sgn ? static_cast<double>(s) : static_cast<double>(u));
    std::uint64_t wide = sgn ? static_cast<std::uint64_t>(s) : u;
    return wide & value_mask(to);
}

/// `(fma a b c)` with one rounding.
inline std::uint64_t eval_fma(scalar_type t, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    if (t == scalar_type::f32) return of_f32(std::fma(as_f32(a), as_f32(b), as_f32(c)));
    return of_f64(std::fma(as_f64(a), as_f64(b), as_f64(c)));
}

/// The new element value of atomic `o` (not cas) on element type `t`.
inline std::uint64_t atomic_combine(op_code o, scalar_type t, std::uint64_t old, std::uint64_t v) {
    switch (o) {
    case op_code::atomic_add: return eval_binary(op_code::add, t, old, v);
    case op_code::atomic_sub: return eval_binary(op_code::sub, t, old, v);
    case op_code::atomic_and: return old & v;
    case op_code::atomic_or: return old | v;
    case op_code::atomic_xor: return old ^ v;
    case op_code::atomic_min: return eval_binary(op_code::min, t, old, v);
    case op_code::atomic_max: return eval_binary(op_code::max, t, old, v);
    case op_code::atomic_exchange: return v;
    default: return old;
    }
}

} // namespace vyre::detail
