#pragma once
/// \file weir/ide/linear.hpp
/// `weir::ide::linear`: the edge-function family of linear constant
/// propagation (spec: ide-format.md, "The `linear` family"). Values are
/// `top`, a 64-bit integer or `bottom`; functions are `A*x+B` (A = 1, B = 0 is
/// the identity; A = 0 is the constant B), `bottom`, and the solver's `top`.
/// Arithmetic is exact: whatever leaves the 64-bit range is `bottom`.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <weir/ide/edge_function_family.hpp>

namespace weir::ide {

/// The linear constant-propagation family.
struct linear {
    /// The family's name in a `.ide` header.
    static constexpr std::string_view name = "linear";
    /// 32-bit words per encoded function: kind, A (low, high), B (low, high).
    static constexpr std::size_t encoded_words = 5;
    /// 32-bit words per encoded value: kind, the integer (low, high).
    static constexpr std::size_t encoded_value_words = 3;

    /// What a value or a function is.
    enum class kind : std::uint8_t { top, constant, bottom };

    /// A value: `top` (no information), an integer, or `bottom` (not a constant).
    struct value {
        kind k = kind::top;
        std::int64_t c = 0;  ///< the integer when `k == constant` (0 otherwise)
        /// Member-wise equality (values are kept normalised).
        bool operator==(const value&) const = default;
    };

    /// An edge function: `top`, `bottom`, or `a*x+b` (`k == constant` marks
    /// the linear form; `a == 0` is the constant `b`; a, b are 0 otherwise).
    struct function {
        kind k = kind::top;
        std::int64_t a = 0;
        std::int64_t b = 0;
        /// Member-wise equality (functions are kept normalised).
        bool operator==(const function&) const = default;
    };

    // ---- values -----------------------------------------------------------
    /// No information (the least value).
    static value top_value() { return {}; }
    /// Not a constant (the greatest value).
    static value bottom_value() { return {kind::bottom, 0}; }
    /// The integer `c`.
    static value constant_value(std::int64_t c) { return {kind::constant, c}; }
    /// top ⊔ v = v; c ⊔ c = c; otherwise bottom.
    static value join_values(const value& x, const value& y) {
        if (x.k == kind::top) return y;
        if (y.k == kind::top) return x;
        if (x == y) return x;
        return bottom_value();
    }

    // ---- functions --------------------------------------------------------
    /// `x`.
    static function identity() { return {kind::constant, 1, 0}; }
    /// Every value but top to bottom.
    static function bottom() { return {kind::bottom, 0, 0}; }
    /// No path yet (solver-internal).
    static function top() { return {}; }
    /// `a*x+b` (`a == 0`: the constant b).
    static function affine(std::int64_t a, std::int64_t b) { return {kind::constant, a, b}; }
    /// The constant `c`.
    static function constant(std::int64_t c) { return {kind::constant, 0, c}; }

    /// `f(v)`, exact; an integer result outside 64 bits is bottom.
    static value apply(const function& f, const value& v) {
        if (f.k == kind::top || v.k == kind::top) return top_value();
        if (f.k == kind::bottom) return bottom_value();
        if (f.a == 0) return constant_value(f.b);
        if (v.k == kind::bottom) return bottom_value();
        const __int128 r = static_cast<__int128>(f.a) * v.c + f.b;
        return fits(r) ? constant_value(static_cast<std::int64_t>(r)) : bottom_value();
    }

    /// `g ∘ f` (g after f), by the spec's rules in their order.
    static function compose(const function& g, const function& f) {
        if (g.k == kind::top || f.k == kind::top) return top();
        if (g.k == kind::constant && g.a == 0) return g;
        if (g == identity()) return f;
        if (f == identity()) return g;
        if (f.k == kind::constant && f.a == 0) {
            const value r = apply(g, constant_value(f.b));
            return r.k == kind::constant ? constant(r.c) : bottom();
        }
        if (g.k == kind::bottom || f.k == kind::bottom) return bottom();
        const __int128 a = static_cast<__int128>(g.a) * f.a;
        const __int128 b = static_cast<__int128>(g.a) * f.b + g.b;
        if (!fits(a) || !fits(b)) return bottom();
        return affine(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b));
    }

    /// f ⊔ f = f; top ⊔ f = f; otherwise bottom.
    static function join(const function& f, const function& g) {
        if (f.k == kind::top) return g;
        if (g.k == kind::top) return f;
        if (f == g) return f;
        return bottom();
    }

    /// Writes `f` as 5 words: kind, a (low, high), b (low, high).
    static void encode(const function& f, std::uint32_t* out) {
        const auto ua = static_cast<std::uint64_t>(f.a), ub = static_cast<std::uint64_t>(f.b);
        out[0] = static_cast<std::uint32_t>(f.k);
        out[1] = static_cast<std::uint32_t>(ua), out[2] = static_cast<std::uint32_t>(ua >> 32);
        out[3] = static_cast<std::uint32_t>(ub), out[4] = static_cast<std::uint32_t>(ub >> 32);
    }
    /// The function `encode` wrote.
    static function decode(const std::uint32_t* in) {
        function f;
        f.k = static_cast<kind>(in[0]);
        f.a = static_cast<std::int64_t>(std::uint64_t(in[1]) | std::uint64_t(in[2]) << 32);
        f.b = static_cast<std::int64_t>(std::uint64_t(in[3]) | std::uint64_t(in[4]) << 32);
        if (in[0] > static_cast<std::uint32_t>(kind::bottom)) return bottom();  // not written by `encode`: no information kept
        return f;
    }
    /// Writes `v` as 3 words: kind, c (low, high).
    static void encode_value(const value& v, std::uint32_t* out) {
        const auto uc = static_cast<std::uint64_t>(v.c);
        out[0] = static_cast<std::uint32_t>(v.k);
        out[1] = static_cast<std::uint32_t>(uc), out[2] = static_cast<std::uint32_t>(uc >> 32);
    }
    /// The value `encode_value` wrote.
    static value decode_value(const std::uint32_t* in) {
        if (in[0] > static_cast<std::uint32_t>(kind::bottom)) return bottom_value();
        return {static_cast<kind>(in[0]), static_cast<std::int64_t>(std::uint64_t(in[1]) | std::uint64_t(in[2]) << 32)};
    }

    // ---- text (the `.ide` format) -----------------------------------------
    /// `bottom`, an integer C, or `[A*]x[+B|-B]`; every number as written
    /// fits in 64 signed bits; no spaces. Says why in `why` when not.
    static std::optional<function> parse_function(std::string_view s, std::string& why) {
        if (s == "bottom") return bottom();
        const std::size_t x = s.find('x');
        if (x == std::string_view::npos) {
            auto c = integer(s, why, "an edge function (bottom, an integer C, or [A*]x[+B|-B])");
            if (!c) return std::nullopt;
            return constant(*c);
        }
        std::int64_t a = 1, b = 0;
        if (x > 0) {
            if (x < 2 || s[x - 1] != '*') return bad(why, s, "expected A*x with an integer A before '*'");
            auto v = integer(s.substr(0, x - 1), why, "the coefficient A of A*x");
            if (!v) return std::nullopt;
            a = *v;
        }
        const std::string_view rest = s.substr(x + 1);
        if (!rest.empty()) {
            if (rest.size() < 2 || (rest[0] != '+' && rest[0] != '-') || rest[1] == '-' || rest[1] == '+')
                return bad(why, s, "expected +B or -B after x, B an unsigned integer");
            auto v = integer(rest.substr(1), why, "the constant B of A*x+B");
            if (!v) return std::nullopt;
            b = rest[0] == '-' ? -*v : *v;  // *v >= 0: its negation fits
        }
        return a == 0 ? constant(b) : affine(a, b);
    }
    /// An integer or `bottom` (a seed's value).
    static std::optional<value> parse_value(std::string_view s, std::string& why) {
        if (s == "bottom") return bottom_value();
        auto c = integer(s, why, "a value (an integer or bottom)");
        if (!c) return std::nullopt;
        return constant_value(*c);
    }
    /// The text `parse_function` reads back to `f`: `x`, `C`, `bottom`,
    /// `A*x+B`, `x-B`, ... (`top`, and `x-9223372036854775808` which version 1
    /// cannot write, come out as `top` and `1*x+-9223372036854775808`, which
    /// the parser refuses).
    static std::string print_function(const function& f) {
        if (f.k == kind::top) return "top";
        if (f.k == kind::bottom) return "bottom";
        if (f.a == 0) return std::to_string(f.b);
        std::string s = f.a == 1 ? std::string("x") : std::to_string(f.a) + "*x";
        if (f.b > 0) s += "+" + std::to_string(f.b);
        else if (f.b < 0 && f.b != INT64_MIN) s += "-" + std::to_string(-f.b);
        else if (f.b == INT64_MIN) s = std::to_string(f.a) + "*x+" + std::to_string(f.b);
        return s;
    }
    /// An integer, `bottom`, or `top`.
    static std::string print_value(const value& v) {
        if (v.k == kind::top) return "top";
        if (v.k == kind::bottom) return "bottom";
        return std::to_string(v.c);
    }

private:
    static bool fits(__int128 r) { return r >= INT64_MIN && r <= INT64_MAX; }
    static std::optional<function> bad(std::string& why, std::string_view s, const char* what) {
        why = "malformed edge function '" + std::string(s) + "': " + what;
        return std::nullopt;
    }
    /// `-?[0-9]+` that fits in 64 signed bits.
    static std::optional<std::int64_t> integer(std::string_view s, std::string& why, const char* what) {
        const std::size_t digits = s.size() - (!s.empty() && s[0] == '-' ? 1 : 0);
        if (digits == 0 || s.find_first_not_of("0123456789", s.size() - digits) != std::string_view::npos) {
            why = "malformed " + std::string(what) + ": '" + std::string(s) + "' is not an integer -?[0-9]+";
            return std::nullopt;
        }
        std::int64_t v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
            why = "the integer '" + std::string(s) + "' in " + what + " does not fit in 64 signed bits";
            return std::nullopt;
        }
        return v;
    }
};

static_assert(check_edge_function_family<linear>());
static_assert(textual_edge_function_family<linear>);

} // namespace weir::ide
