#pragma once
/// \file weir/ide/ir_family.hpp
/// `weir::ide::ir_edge_function_family<F>`: an edge-function family whose
/// operations also exist as vyre IR, so that the resident IDE solver's
/// portable kernels (weir/ide/kernels.hpp) run its phases on any backend,
/// `cuda` through its lowering. A family opts in by specialising
/// `ir_ops<F>` (`linear` does, in weir/ide/linear_ir.hpp).
///
/// In a kernel a function is `F::encoded_words` u32 variables and a value
/// `F::encoded_value_words`, holding the family's own encoding (`encode`,
/// `encode_value`); `ir_ops<F>` writes the statements that compute one from
/// others into variables the kernel declared (`word_vars`). The encodings of
/// `top()` and `top_value()` must be all zero words: the kernels clear their
/// tables with `fill 0`.

#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include <vyre/ir/builder.hpp>
#include <weir/core/ir_namer.hpp>
#include <weir/ide/edge_function_family.hpp>

namespace weir::ide {

/// A run of u32 IR variables holding one encoded function or value.
struct word_vars {
    std::vector<std::string> names;
    /// Word `i` as an expression.
    vyre::ir::expr operator[](std::size_t i) const { return vyre::ir::dsl::var(names[i]); }
    /// Number of words.
    std::size_t size() const { return names.size(); }

    /// `n` fresh variables `let`-bound to `init(i)`, appended to `out`.
    template <class Init>
    static word_vars declare(ir_namer& nm, const char* base, std::size_t n, std::vector<vyre::ir::stmt>& out, Init init) {
        word_vars v;
        for (std::size_t i = 0; i < n; ++i) {
            v.names.push_back(nm(base));
            out.push_back(vyre::ir::dsl::let(v.names.back(), init(i)));
        }
        return v;
    }
    /// `n` fresh variables holding zero (the encoded `top`).
    static word_vars zeros(ir_namer& nm, const char* base, std::size_t n, std::vector<vyre::ir::stmt>& out) {
        return declare(nm, base, n, out, [](std::size_t) { return vyre::ir::dsl::lit(0u); });
    }
    /// Statements setting these variables to `from`'s.
    std::vector<vyre::ir::stmt> assign(const word_vars& from) const {
        std::vector<vyre::ir::stmt> s;
        for (std::size_t i = 0; i < size(); ++i) s.push_back(vyre::ir::dsl::set(names[i], from[i]));
        return s;
    }
    /// Statements setting these variables to the literal words `w`.
    std::vector<vyre::ir::stmt> assign(const std::vector<std::uint32_t>& w) const {
        std::vector<vyre::ir::stmt> s;
        for (std::size_t i = 0; i < size(); ++i) s.push_back(vyre::ir::dsl::set(names[i], vyre::ir::dsl::lit(w[i])));
        return s;
    }
    /// True when every word equals `o`'s.
    vyre::ir::expr equals(const word_vars& o) const {
        using namespace vyre::ir::dsl;
        vyre::ir::expr e = eq((*this)[0], o[0]);
        for (std::size_t i = 1; i < size(); ++i) e = and_(std::move(e), eq((*this)[i], o[i]));
        return e;
    }
    /// True when every word is zero (the encoded `top` or `top_value`).
    vyre::ir::expr is_zero() const {
        using namespace vyre::ir::dsl;
        vyre::ir::expr e = eq((*this)[0], lit(0u));
        for (std::size_t i = 1; i < size(); ++i) e = and_(std::move(e), eq((*this)[i], lit(0u)));
        return e;
    }
};

/// The IR form of family `F`'s operations; specialise it to give a family
/// portable kernels. Each member appends to `out` statements that set the
/// (already declared) variables `r` from the others, exactly as the C++
/// operation of the same name would on the decoded words:
/// `compose(nm, g, f, r, out)` (g ∘ f), `join(nm, f, g, r, out)`,
/// `apply(nm, f, v, r, out)` and `join_values(nm, x, y, r, out)`.
template <class F>
struct ir_ops;

/// A family with IR forms of its operations (see the file comment).
template <class F>
concept ir_edge_function_family =
    edge_function_family<F> &&
    requires(ir_namer& nm, const word_vars& a, const word_vars& b, std::vector<vyre::ir::stmt>& out) {
        { ir_ops<F>::compose(nm, a, b, a, out) } -> std::same_as<void>;
        { ir_ops<F>::join(nm, a, b, a, out) } -> std::same_as<void>;
        { ir_ops<F>::apply(nm, a, b, a, out) } -> std::same_as<void>;
        { ir_ops<F>::join_values(nm, a, b, a, out) } -> std::same_as<void>;
    };

/// `F::encode(f)` as a vector of words.
template <edge_function_family F>
std::vector<std::uint32_t> encoded(const typename F::function& f) {
    std::vector<std::uint32_t> w(F::encoded_words);
    F::encode(f, w.data());
    return w;
}
/// `F::encode_value(v)` as a vector of words.
template <edge_function_family F>
std::vector<std::uint32_t> encoded_value(const typename F::value& v) {
    std::vector<std::uint32_t> w(F::encoded_value_words);
    F::encode_value(v, w.data());
    return w;
}

} // namespace weir::ide
