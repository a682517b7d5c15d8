#pragma once
/// \file vyre/core/result.hpp
/// `vyre::result<T, E>`: a small expected-like type (std::expected is not
/// available to nvcc's C++20). Every fallible vyre function returns one (and libraries built on vyre may).

#include <type_traits>
#include <utility>
#include <optional>
#include <variant>

#include <vyre/core/error.hpp>

namespace vyre {

/// Wraps an error so that `result<T, E>` can be built from it unambiguously.
template <class E>
struct unexpected {
    E error;
};

/// Makes an `unexpected<E>` (deduces E).
template <class E>
unexpected<std::decay_t<E>> make_unexpected(E&& e) {
    return {std::forward<E>(e)};
}

/// Shorthand: an unexpected `backend_error`.
inline unexpected<backend_error> fail(error_code code, std::string message, std::string fix = {}) {
    return {backend_error(code, std::move(message), std::move(fix))};
}

/// Either a value of type T or an error of type E.
/// `value()` throws the error when there is no value (E must be throwable).
template <class T, class E = backend_error>
class [[nodiscard]] result {
public:
    using value_type = T;
    using error_type = E;

    result(const T& v) : v_(std::in_place_index<0>, v) {}
    result(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}
    template <class G>
    result(unexpected<G> e) : v_(std::in_place_index<1>, std::move(e.error)) {}

    /// True when a value is held.
    bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    /// The value; throws the error if there is none.
    T& value() & {
        if (!has_value()) throw std::get<1>(v_);
        return std::get<0>(v_);
    }
    const T& value() const& {
        if (!has_value()) throw std::get<1>(v_);
        return std::get<0>(v_);
    }
    T&& value() && {
        if (!has_value()) throw std::get<1>(v_);
        return std::get<0>(std::move(v_));
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    /// The error; only valid when `!has_value()`.
    const E& error() const& { return std::get<1>(v_); }
    E& error() & { return std::get<1>(v_); }

private:
    std::variant<T, E> v_;
};

/// `result<void, E>`: success or an error.
template <class E>
class [[nodiscard]] result<void, E> {
public:
    using value_type = void;
    using error_type = E;

    result() = default;
    template <class G>
    result(unexpected<G> e) : err_(std::move(e.error)), ok_(false) {}

    bool has_value() const noexcept { return ok_; }
    explicit operator bool() const noexcept { return ok_; }
    /// Throws the error if there is one.
    void value() const {
        if (!ok_) throw *err_;
    }
    const E& error() const& { return *err_; }

private:
    std::optional<E> err_;
    bool ok_ = true;
};

} // namespace vyre

/// Propagates the error of a `result` expression out of the enclosing function.
#define VYRE_TRY(expr)                                                 \
    do {                                                               \
        auto&& vyre_try_r_ = (expr);                                   \
        if (!vyre_try_r_) return ::vyre::make_unexpected(vyre_try_r_.error()); \
    } while (0)
