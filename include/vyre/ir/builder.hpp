#pragma once
/// \file vyre/ir/builder.hpp
/// Free functions that build IR nodes so that C++ reads like the text form:
/// `let("i", gid()), if_(lt(var("i"), len("out")), {store("out", var("i"), lit(1u))})`.

#include <bit>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include <vyre/ir/program.hpp>

namespace vyre::ir::dsl {

/// A literal of type `t` with the given raw bits.
inline expr lit_bits(scalar_type t, std::uint64_t bits) {
    expr e;
    e.kind = expr_kind::literal;
    e.type = t;
    e.bits = bits;
    return e;
}
/// A u32 literal.
inline expr lit(std::uint32_t v) { return lit_bits(scalar_type::u32, v); }
/// An i32 literal.
inline expr lit(std::int32_t v) { return lit_bits(scalar_type::i32, static_cast<std::uint32_t>(v)); }
/// A u64 literal.
inline expr lit(std::uint64_t v) { return lit_bits(scalar_type::u64, v); }
/// An i64 literal.
inline expr lit(std::int64_t v) { return lit_bits(scalar_type::i64, static_cast<std::uint64_t>(v)); }
/// An f32 literal.
inline expr lit(float v) { return lit_bits(scalar_type::f32, std::bit_cast<std::uint32_t>(v)); }
/// An f64 literal.
inline expr lit(double v) { return lit_bits(scalar_type::f64, std::bit_cast<std::uint64_t>(v)); }
/// A bool literal.
inline expr lit(bool v) { return lit_bits(scalar_type::bool_, v ? 1 : 0); }

/// Reads variable `n`.
inline expr var(std::string n) {
    expr e;
    e.kind = expr_kind::var;
    e.name = std::move(n);
    return e;
}
/// A built-in on an axis.
inline expr builtin_value(builtin b, axis a = axis::x) {
    expr e;
    e.kind = expr_kind::builtin;
    e.bi = b;
    e.ax = a;
    return e;
}
/// `(gid A)`.
inline expr gid(axis a = axis::x) { return builtin_value(builtin::gid, a); }
/// `(lid A)`.
inline expr lid(axis a = axis::x) { return builtin_value(builtin::lid, a); }
/// `(wgid A)`.
inline expr wgid(axis a = axis::x) { return builtin_value(builtin::wgid, a); }
/// `(wgsize A)`.
inline expr wgsize(axis a = axis::x) { return builtin_value(builtin::wgsize, a); }
/// `(ngroups A)`.
inline expr ngroups(axis a = axis::x) { return builtin_value(builtin::ngroups, a); }
/// `(len BUF)`.
inline expr len(std::string buf) {
    expr e;
    e.kind = expr_kind::len;
    e.name = std::move(buf);
    return e;
}
/// `(load BUF IDX)`.
inline expr load(std::string buf, expr idx) {
    expr e;
    e.kind = expr_kind::load;
    e.name = std::move(buf);
    e.args.push_back(std::move(idx));
    return e;
}
/// A unary operation.
inline expr unary(op_code o, expr a) {
    expr e;
    e.kind = expr_kind::unary;
    e.op = o;
    e.args.push_back(std::move(a));
    return e;
}
/// A binary operation.
inline expr binary(op_code o, expr a, expr b) {
    expr e;
    e.kind = expr_kind::binary;
    e.op = o;
    e.args.push_back(std::move(a));
    e.args.push_back(std::move(b));
    return e;
}

#define VYRE_DSL_BINARY(fn, code) \
    inline expr fn(expr a, expr b) { return binary(op_code::code, std::move(a), std::move(b)); }
#define VYRE_DSL_UNARY(fn, code) \
    inline expr fn(expr a) { return unary(op_code::code, std::move(a)); }
VYRE_DSL_BINARY(add, add)
VYRE_DSL_BINARY(sub, sub)
VYRE_DSL_BINARY(mul, mul)
VYRE_DSL_BINARY(div, div)
VYRE_DSL_BINARY(mod, mod)
VYRE_DSL_BINARY(min, min)
VYRE_DSL_BINARY(max, max)
VYRE_DSL_BINARY(bitand_, bitand_)
VYRE_DSL_BINARY(bitor_, bitor_)
VYRE_DSL_BINARY(bitxor_, bitxor_)
VYRE_DSL_BINARY(shl, shl)
VYRE_DSL_BINARY(shr, shr)
VYRE_DSL_BINARY(eq, eq)
VYRE_DSL_BINARY(ne, ne)
VYRE_DSL_BINARY(lt, lt)
VYRE_DSL_BINARY(le, le)
VYRE_DSL_BINARY(gt, gt)
VYRE_DSL_BINARY(ge, ge)
VYRE_DSL_BINARY(and_, and_)
VYRE_DSL_BINARY(or_, or_)
VYRE_DSL_UNARY(neg, neg)
VYRE_DSL_UNARY(abs, abs)
VYRE_DSL_UNARY(bitnot, bitnot)
VYRE_DSL_UNARY(popcount, popcount)
VYRE_DSL_UNARY(clz, clz)
VYRE_DSL_UNARY(ctz, ctz)
VYRE_DSL_UNARY(not_, not_)
VYRE_DSL_UNARY(sqrt, sqrt)
VYRE_DSL_UNARY(exp, exp)
VYRE_DSL_UNARY(log, log)
VYRE_DSL_UNARY(sin, sin)
VYRE_DSL_UNARY(cos, cos)
VYRE_DSL_UNARY(tanh, tanh)
#undef VYRE_DSL_BINARY
#undef VYRE_DSL_UNARY

/// `(select C A B)`.
inline expr select(expr c, expr a, expr b) {
    expr e;
    e.kind = expr_kind::select;
    e.args = {std::move(c), std::move(a), std::move(b)};
    return e;
}
/// `(fma A B C)`.
inline expr fma(expr a, expr b, expr c) {
    expr e;
    e.kind = expr_kind::fma;
    e.args = {std::move(a), std::move(b), std::move(c)};
    return e;
}
/// `(cast T E)`.
inline expr cast(scalar_type t, expr a) {
    expr e;
    e.kind = expr_kind::cast;
    e.type = t;
    e.args.push_back(std::move(a));
    return e;
}
/// `(bitcast T E)`.
inline expr bitcast(scalar_type t, expr a) {
    expr e;
    e.kind = expr_kind::bitcast;
    e.type = t;
    e.args.push_back(std::move(a));
    return e;
}
/// An atomic read-modify-write `(atomic_xxx BUF IDX V)`; returns the old value.
inline expr atomic(op_code o, std::string buf, expr idx, expr v) {
    expr e;
    e.kind = expr_kind::atomic;
    e.op = o;
    e.name = std::move(buf);
    e.args = {std::move(idx), std::move(v)};
    return e;
}
/// `(atomic_cas BUF IDX EXPECTED NEW)`.
inline expr atomic_cas(std::string buf, expr idx, expr expected, expr desired) {
    expr e;
    e.kind = expr_kind::atomic;
    e.op = op_code::atomic_cas;
    e.name = std::move(buf);
    e.args = {std::move(idx), std::move(expected), std::move(desired)};
    return e;
}

/// `(let N E)`.
inline stmt let(std::string n, expr e) {
    stmt s;
    s.kind = stmt_kind::let_;
    s.name = std::move(n);
    s.args.push_back(std::move(e));
    return s;
}
/// `(set N E)`.
inline stmt set(std::string n, expr e) {
    stmt s;
    s.kind = stmt_kind::set;
    s.name = std::move(n);
    s.args.push_back(std::move(e));
    return s;
}
/// `(store BUF IDX E)`.
inline stmt store(std::string buf, expr idx, expr v) {
    stmt s;
    s.kind = stmt_kind::store;
    s.name = std::move(buf);
    s.args = {std::move(idx), std::move(v)};
    return s;
}
/// `(if C (THEN...) (ELSE...))`.
inline stmt if_(expr c, std::vector<stmt> then_body, std::vector<stmt> else_body = {}) {
    stmt s;
    s.kind = stmt_kind::if_;
    s.args.push_back(std::move(c));
    s.body = std::move(then_body);
    s.else_body = std::move(else_body);
    return s;
}
/// `(loop N FROM TO BODY...)`.
inline stmt loop(std::string n, expr from, expr to, std::vector<stmt> body) {
    stmt s;
    s.kind = stmt_kind::loop;
    s.name = std::move(n);
    s.args = {std::move(from), std::move(to)};
    s.body = std::move(body);
    return s;
}
/// `(barrier)`.
inline stmt barrier() {
    stmt s;
    s.kind = stmt_kind::barrier;
    return s;
}
/// `(return)`.
inline stmt return_() {
    stmt s;
    s.kind = stmt_kind::return_;
    return s;
}
/// `(block BODY...)`.
inline stmt block(std::vector<stmt> body) {
    stmt s;
    s.kind = stmt_kind::block;
    s.body = std::move(body);
    return s;
}
/// `(op NAME ARG...)`: a catalogue operation over whole buffers; each argument
/// is a buffer name (`var("buf")`) or a u32 literal (`lit(7u)`).
inline stmt op(std::string name, std::vector<expr> args) {
    stmt s;
    s.kind = stmt_kind::op;
    s.name = std::move(name);
    s.args = std::move(args);
    return s;
}

} // namespace vyre::ir::dsl
