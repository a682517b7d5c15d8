#pragma once
/// \file weir/ide/edge_function_family.hpp
/// The concept of an IDE edge-function family (spec: ide-format.md): a value
/// lattice, the edge functions over it, and what a solver does with them
/// (apply, compose, join, equality), plus a fixed-size encoding into 32-bit
/// words so that jump functions can live in resident memory.
///
/// A family is a type with static members; `weir::ide::linear` is the
/// built-in model. `check_edge_function_family<F>()` names the first
/// requirement a candidate misses in a readable `static_assert` message.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weir::ide {

/// An edge-function family `F`:
/// - `F::value`: the value lattice's elements (regular); `F::top_value()` (no
///   information, the least element) and `F::bottom_value()` (the greatest);
///   `F::join_values(a, b)`;
/// - `F::function`: edge functions (regular; `==` compares normalised
///   forms); `F::identity()`, `F::bottom()` (every value but top to bottom) and
///   `F::top()` (solver-internal: no path yet);
/// - `F::apply(f, v)`, `F::compose(g, f)` (g after f), `F::join(f, g)`;
/// - `F::encoded_words` and `F::encode(f, out)` / `F::decode(in)`: `f` as
///   exactly that many 32-bit words and back, equal to `f`;
/// - `F::encoded_value_words`, `F::encode_value(v, out)` /
///   `F::decode_value(in)`: the same for a value (the resident solver keeps
///   entry values and results in resident memory);
/// - `F::name`: the family's name in a `.ide` header (`ide 1 NAME`).
///
/// Laws the solvers rely on (checked for `linear` in its tests):
/// `compose(identity(), f) == f` and `compose(f, identity()) == f` exactly
/// (the resident solver skips identity edges), `apply(f, top_value())` and
/// `apply(top(), v)` are `top_value()`, and apply, compose and join are
/// monotone, with finite chains (so every worklist order reaches the same
/// least fixed point).
template <class F>
concept edge_function_family =
    std::regular<typename F::value> && std::regular<typename F::function> &&
    requires(const typename F::function& f, const typename F::value& v, std::uint32_t* out, const std::uint32_t* in) {
        { F::name } -> std::convertible_to<std::string_view>;
        { F::encoded_words } -> std::convertible_to<std::size_t>;
        { F::top_value() } -> std::same_as<typename F::value>;
        { F::bottom_value() } -> std::same_as<typename F::value>;
        { F::join_values(v, v) } -> std::same_as<typename F::value>;
        { F::identity() } -> std::same_as<typename F::function>;
        { F::bottom() } -> std::same_as<typename F::function>;
        { F::top() } -> std::same_as<typename F::function>;
        { F::apply(f, v) } -> std::same_as<typename F::value>;
        { F::compose(f, f) } -> std::same_as<typename F::function>;
        { F::join(f, f) } -> std::same_as<typename F::function>;
        { F::encode(f, out) } -> std::same_as<void>;
        { F::decode(in) } -> std::same_as<typename F::function>;
        { F::encoded_value_words } -> std::convertible_to<std::size_t>;
        { F::encode_value(v, out) } -> std::same_as<void>;
        { F::decode_value(in) } -> std::same_as<typename F::value>;
    };

/// A family whose functions and values have a text form, for the `.ide`
/// format: `F::parse_function` / `F::parse_value` give the parsed form or
/// `std::nullopt` and say why in `why`; `F::print_function` /
/// `F::print_value` write what the parser reads back to an equal element.
template <class F>
concept textual_edge_function_family =
    edge_function_family<F> &&
    requires(std::string_view s, std::string& why, const typename F::function& f, const typename F::value& v) {
        { F::parse_function(s, why) } -> std::same_as<std::optional<typename F::function>>;
        { F::parse_value(s, why) } -> std::same_as<std::optional<typename F::value>>;
        { F::print_function(f) } -> std::same_as<std::string>;
        { F::print_value(v) } -> std::same_as<std::string>;
    };

/// Checks `F` against `edge_function_family` one requirement at a time, so a
/// candidate that misses one gets a message naming it (use it in a
/// `static_assert` next to your family, as the examples do):
/// `static_assert(weir::ide::check_edge_function_family<my_family>());`
template <class F>
consteval bool check_edge_function_family() {
    static_assert(requires { typename F::value; }, "an edge-function family needs a nested type `value`");
    static_assert(requires { typename F::function; }, "an edge-function family needs a nested type `function`");
    if constexpr (requires {
                      typename F::value;
                      typename F::function;
                  }) {
        using V = typename F::value;
        using E = typename F::function;
        static_assert(std::regular<V>, "F::value must be regular (copyable, default-constructible, ==)");
        static_assert(std::regular<E>, "F::function must be regular (copyable, default-constructible, ==)");
        static_assert(requires { { F::name } -> std::convertible_to<std::string_view>; },
                      "needs `static constexpr std::string_view name` (the name in an `ide 1 NAME` header)");
        static_assert(requires { { F::encoded_words } -> std::convertible_to<std::size_t>; },
                      "needs `static constexpr std::size_t encoded_words` (32-bit words per encoded function)");
        static_assert(requires { { F::top_value() } -> std::same_as<V>; }, "needs `static value top_value()`");
        static_assert(requires { { F::bottom_value() } -> std::same_as<V>; }, "needs `static value bottom_value()`");
        static_assert(requires(const V& a) { { F::join_values(a, a) } -> std::same_as<V>; },
                      "needs `static value join_values(const value&, const value&)`");
        static_assert(requires { { F::identity() } -> std::same_as<E>; }, "needs `static function identity()`");
        static_assert(requires { { F::bottom() } -> std::same_as<E>; }, "needs `static function bottom()`");
        static_assert(requires { { F::top() } -> std::same_as<E>; }, "needs `static function top()`");
        static_assert(requires(const E& f, const V& v) { { F::apply(f, v) } -> std::same_as<V>; },
                      "needs `static value apply(const function&, const value&)`");
        static_assert(requires(const E& f) { { F::compose(f, f) } -> std::same_as<E>; },
                      "needs `static function compose(const function& g, const function& f)` (g after f)");
        static_assert(requires(const E& f) { { F::join(f, f) } -> std::same_as<E>; },
                      "needs `static function join(const function&, const function&)`");
        static_assert(requires(const E& f, std::uint32_t* out) { { F::encode(f, out) } -> std::same_as<void>; },
                      "needs `static void encode(const function&, std::uint32_t* out)` (writes encoded_words words)");
        static_assert(requires(const std::uint32_t* in) { { F::decode(in) } -> std::same_as<E>; },
                      "needs `static function decode(const std::uint32_t* in)` (reads encoded_words words)");
        static_assert(requires { { F::encoded_value_words } -> std::convertible_to<std::size_t>; },
                      "needs `static constexpr std::size_t encoded_value_words` (32-bit words per encoded value)");
        static_assert(requires(const V& v, std::uint32_t* out) { { F::encode_value(v, out) } -> std::same_as<void>; },
                      "needs `static void encode_value(const value&, std::uint32_t* out)` (writes encoded_value_words words)");
        static_assert(requires(const std::uint32_t* in) { { F::decode_value(in) } -> std::same_as<V>; },
                      "needs `static value decode_value(const std::uint32_t* in)` (reads encoded_value_words words)");
    }
    return edge_function_family<F>;
}

} // namespace weir::ide
