#pragma once
/// \file weir/ide/linear_ir.hpp
/// `ir_ops<linear>`: the `linear` family's operations as vyre IR (see
/// weir/ide/ir_family.hpp), word for word what weir/ide/linear.hpp computes.
/// Exactness is kept without 128-bit types: `a*b + c` is formed as a 128-bit
/// two's-complement number from 32-bit halves in u64 arithmetic, and fits
/// when its high word is the sign extension of its low word.

#include <cstdint>
#include <utility>
#include <vector>

#include <weir/ide/ir_family.hpp>
#include <weir/ide/linear.hpp>

namespace weir::ide {

namespace detail::linear_ir {

using namespace vyre::ir;
using namespace vyre::ir::dsl;

inline expr u64_lit(std::uint64_t v) { return lit(v); }
/// The i64 whose low and high u32 halves are `lo`, `hi`.
inline expr i64_of(expr lo, expr hi) {
    return bitcast(scalar_type::i64, bitor_(cast(scalar_type::u64, std::move(lo)),
                                            shl(cast(scalar_type::u64, std::move(hi)), u64_lit(32))));
}
/// The low u32 half of an i64.
inline expr lo_of(expr x) { return cast(scalar_type::u32, bitcast(scalar_type::u64, std::move(x))); }
/// The high u32 half of an i64.
inline expr hi_of(expr x) { return cast(scalar_type::u32, shr(bitcast(scalar_type::u64, std::move(x)), u64_lit(32))); }
/// A kind word read as `decode` does: anything past bottom is bottom.
inline expr kind_of(expr k) { return min(std::move(k), lit(2u)); }

/// Declares `fits` (bool) and `r` (i64): r = a*b + c exactly, fits when it is in 64 bits.
inline std::pair<std::string, std::string> mul_add(ir_namer& nm, expr a, expr b, expr c, std::vector<stmt>& out) {
    auto A = nm("a"), B = nm("b"), C = nm("c"), UA = nm("ua"), UB = nm("ub"), P00 = nm("p00"), P01 = nm("p01"),
         P10 = nm("p10"), P11 = nm("p11"), MID = nm("mid"), LO = nm("lo"), HI = nm("hi"), LO2 = nm("lo2"),
         HI2 = nm("hi2"), FITS = nm("fits"), R = nm("r");
    const auto M = [] { return u64_lit(0xffffffffull); };
    const auto S = [] { return u64_lit(32); };
    const auto ones = [] { return u64_lit(~0ull); };
    const auto zero = [] { return u64_lit(0); };
    out.push_back(let(A, std::move(a)));
    out.push_back(let(B, std::move(b)));
    out.push_back(let(C, std::move(c)));
    out.push_back(let(UA, bitcast(scalar_type::u64, var(A))));
    out.push_back(let(UB, bitcast(scalar_type::u64, var(B))));
    out.push_back(let(P00, mul(bitand_(var(UA), M()), bitand_(var(UB), M()))));
    out.push_back(let(P01, mul(bitand_(var(UA), M()), shr(var(UB), S()))));
    out.push_back(let(P10, mul(shr(var(UA), S()), bitand_(var(UB), M()))));
    out.push_back(let(P11, mul(shr(var(UA), S()), shr(var(UB), S()))));
    out.push_back(let(MID, add(add(shr(var(P00), S()), bitand_(var(P01), M())), bitand_(var(P10), M()))));
    out.push_back(let(LO, bitor_(shl(var(MID), S()), bitand_(var(P00), M()))));
    // unsigned high word, then the two's-complement corrections for negative factors
    out.push_back(let(HI, sub(sub(add(add(add(var(P11), shr(var(P01), S())), shr(var(P10), S())), shr(var(MID), S())),
                                  select(lt(var(A), lit(std::int64_t{0})), var(UB), zero())),
                              select(lt(var(B), lit(std::int64_t{0})), var(UA), zero()))));
    out.push_back(let(LO2, add(var(LO), bitcast(scalar_type::u64, var(C)))));
    out.push_back(let(HI2, add(add(var(HI), select(lt(var(LO2), var(LO)), u64_lit(1), zero())),
                               select(lt(var(C), lit(std::int64_t{0})), ones(), zero()))));
    out.push_back(let(R, bitcast(scalar_type::i64, var(LO2))));
    out.push_back(let(FITS, eq(var(HI2), select(lt(var(R), lit(std::int64_t{0})), ones(), zero()))));
    return {FITS, R};
}

/// Sets the 5 words of `r` to a linear function (kind constant) with a = `A`, b = `B` (i64 variables).
inline std::vector<stmt> set_affine(const word_vars& r, const std::string& A, const std::string& B) {
    return {set(r.names[0], lit(1u)), set(r.names[1], lo_of(var(A))), set(r.names[2], hi_of(var(A))),
            set(r.names[3], lo_of(var(B))), set(r.names[4], hi_of(var(B)))};
}
/// `fits ? x : bottom` into the words of `r`, `x` already in `r`.
inline std::vector<stmt> bottom_unless(const word_vars& r, const std::string& fits) {
    std::vector<stmt> s;
    for (std::size_t i = 0; i < r.size(); ++i)
        s.push_back(set(r.names[i], select(var(fits), r[i], lit(i == 0 ? 2u : 0u))));
    return s;
}
inline void append(std::vector<stmt>& to, std::vector<stmt> from) {
    for (auto& s : from) to.push_back(std::move(s));
}
/// True when the words a, b of a function (or c of a value) are zero.
inline expr zero_pair(const word_vars& w, std::size_t at) { return and_(eq(w[at], lit(0u)), eq(w[at + 1], lit(0u))); }

} // namespace detail::linear_ir

/// The `linear` family in IR (weir/ide/linear.hpp's `apply`, `compose`,
/// `join`, `join_values`, rule for rule).
template <>
struct ir_ops<linear> {
    /// r = g ∘ f.
    static void compose(ir_namer& nm, const word_vars& g, const word_vars& f, const word_vars& r,
                        std::vector<vyre::ir::stmt>& out) {
        using namespace detail::linear_ir;
        const std::vector<std::uint32_t> top = encoded<linear>(linear::top()), bot = encoded<linear>(linear::bottom());
        auto GK = nm("gk"), FK = nm("fk");
        out.push_back(let(GK, kind_of(g[0])));
        out.push_back(let(FK, kind_of(f[0])));
        const auto is_id = [](const word_vars& w, const std::string& k) {
            return and_(and_(eq(var(k), lit(1u)), and_(eq(w[1], lit(1u)), eq(w[2], lit(0u)))), zero_pair(w, 3));
        };
        // f is a constant b: g applied to it
        std::vector<stmt> at_constant;
        {
            auto [fits, v] = mul_add(nm, i64_of(g[1], g[2]), i64_of(f[3], f[4]), i64_of(g[3], g[4]), at_constant);
            append(at_constant, {set(r.names[0], lit(1u)), set(r.names[1], lit(0u)), set(r.names[2], lit(0u)),
                                 set(r.names[3], lo_of(var(v))), set(r.names[4], hi_of(var(v)))});
            append(at_constant, bottom_unless(r, fits));
        }
        std::vector<stmt> general;
        {
            auto [fa, A] = mul_add(nm, i64_of(g[1], g[2]), i64_of(f[1], f[2]), lit(std::int64_t{0}), general);
            auto [fb, B] = mul_add(nm, i64_of(g[1], g[2]), i64_of(f[3], f[4]), i64_of(g[3], g[4]), general);
            auto OK = nm("ok");
            general.push_back(let(OK, and_(var(fa), var(fb))));
            append(general, set_affine(r, A, B));
            append(general, bottom_unless(r, OK));
        }
        stmt chain = if_(or_(eq(var(GK), lit(2u)), eq(var(FK), lit(2u))), r.assign(bot), std::move(general));
        chain = if_(and_(eq(var(FK), lit(1u)), zero_pair(f, 1)),
                    {if_(eq(var(GK), lit(2u)), r.assign(bot), std::move(at_constant))}, {std::move(chain)});
        chain = if_(is_id(f, FK), r.assign(g), {std::move(chain)});
        chain = if_(is_id(g, GK), r.assign(f), {std::move(chain)});
        chain = if_(and_(eq(var(GK), lit(1u)), zero_pair(g, 1)), r.assign(g), {std::move(chain)});
        chain = if_(or_(eq(var(GK), lit(0u)), eq(var(FK), lit(0u))), r.assign(top), {std::move(chain)});
        out.push_back(std::move(chain));
    }

    /// r = f ⊔ g.
    static void join(ir_namer&, const word_vars& f, const word_vars& g, const word_vars& r,
                     std::vector<vyre::ir::stmt>& out) {
        join_words(f, g, r, encoded<linear>(linear::bottom()), out);
    }

    /// r = f(v) (a value).
    static void apply(ir_namer& nm, const word_vars& f, const word_vars& v, const word_vars& r,
                      std::vector<vyre::ir::stmt>& out) {
        using namespace detail::linear_ir;
        const std::vector<std::uint32_t> top = encoded_value<linear>(linear::top_value()),
                                         bot = encoded_value<linear>(linear::bottom_value());
        auto FK = nm("fk"), VK = nm("vk");
        out.push_back(let(FK, kind_of(f[0])));
        out.push_back(let(VK, kind_of(v[0])));
        std::vector<stmt> general;
        auto [fits, x] = mul_add(nm, i64_of(f[1], f[2]), i64_of(v[1], v[2]), i64_of(f[3], f[4]), general);
        append(general, {set(r.names[0], lit(1u)), set(r.names[1], lo_of(var(x))), set(r.names[2], hi_of(var(x)))});
        append(general, bottom_unless(r, fits));
        stmt chain = if_(eq(var(VK), lit(2u)), r.assign(bot), std::move(general));
        chain = if_(zero_pair(f, 1), {set(r.names[0], lit(1u)), set(r.names[1], f[3]), set(r.names[2], f[4])},
                    {std::move(chain)});
        chain = if_(eq(var(FK), lit(2u)), r.assign(bot), {std::move(chain)});
        chain = if_(or_(eq(var(FK), lit(0u)), eq(var(VK), lit(0u))), r.assign(top), {std::move(chain)});
        out.push_back(std::move(chain));
    }

    /// r = x ⊔ y (values).
    static void join_values(ir_namer&, const word_vars& x, const word_vars& y, const word_vars& r,
                            std::vector<vyre::ir::stmt>& out) {
        join_words(x, y, r, encoded_value<linear>(linear::bottom_value()), out);
    }

private:
    /// top ⊔ y = y, x ⊔ top = x, x ⊔ x = x, otherwise `bottom` (functions and values alike).
    static void join_words(const word_vars& x, const word_vars& y, const word_vars& r,
                           const std::vector<std::uint32_t>& bottom, std::vector<vyre::ir::stmt>& out) {
        using namespace vyre::ir::dsl;
        out.push_back(if_(eq(x[0], lit(0u)), r.assign(y),
                          {if_(eq(y[0], lit(0u)), r.assign(x), {if_(x.equals(y), r.assign(x), r.assign(bottom))})}));
    }
};

static_assert(ir_edge_function_family<linear>);

} // namespace weir::ide
