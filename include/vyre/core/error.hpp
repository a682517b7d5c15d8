#pragma once
/// \file vyre/core/error.hpp
/// The one error type of vyre: a code, a message naming what and where, and a
/// one-line fix hint.

#include <exception>
#include <string>
#include <string_view>
#include <utility>

namespace vyre {

/// What kind of failure a `backend_error` reports.
enum class error_code {
    out_of_memory,
    device_lost,
    unsupported,
    invalid_program,
    compile_failed,
    dispatch_failed,
    invalid_resource,
    invalid_argument,
};

/// Stable lower-case name of an error code (`"invalid_resource"`, ...).
constexpr std::string_view to_string(error_code c) noexcept {
    switch (c) {
    case error_code::out_of_memory: return "out_of_memory";
    case error_code::device_lost: return "device_lost";
    case error_code::unsupported: return "unsupported";
    case error_code::invalid_program: return "invalid_program";
    case error_code::compile_failed: return "compile_failed";
    case error_code::dispatch_failed: return "dispatch_failed";
    case error_code::invalid_resource: return "invalid_resource";
    case error_code::invalid_argument: return "invalid_argument";
    }
    return "unknown";
}

/// An error from a backend or the IR layer. It is also an exception type:
/// `result<T>::value()` throws it when the result holds an error.
class backend_error : public std::exception {
public:
    backend_error(error_code code, std::string message, std::string fix = {})
        : code_(code), message_(std::move(message)), fix_(std::move(fix)),
          what_(std::string(to_string(code_)) + ": " + message_ +
                (fix_.empty() ? std::string() : " (fix: " + fix_ + ")")) {}

    /// The failure's kind.
    error_code code() const noexcept { return code_; }
    /// What went wrong, naming the object and where.
    const std::string& message() const noexcept { return message_; }
    /// A one-line hint on how to fix it (may be empty).
    const std::string& fix() const noexcept { return fix_; }
    /// `code: message (fix: ...)`.
    const char* what() const noexcept override { return what_.c_str(); }

private:
    error_code code_;
    std::string message_;
    std::string fix_;
    std::string what_;
};

} // namespace vyre
