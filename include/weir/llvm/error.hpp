#pragma once
/// \file weir/llvm/error.hpp
/// `weir::llvm::input_error`: bad input to the frontend (an unreadable or
/// invalid IR file, a source that does not compile, a malformed taint
/// configuration), naming the file and, where there is one, the line.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace weir::llvm {

/// Bad input, with where it is. `what()` reads `FILE:LINE: MESSAGE` (or
/// `FILE: MESSAGE` without a line); `weir analyze` prints it and exits 2.
class input_error : public std::runtime_error {
public:
    /// `line` 0 means the error has no line (a missing file, a link error).
    input_error(std::string file, std::size_t line, const std::string& message)
        : std::runtime_error(compose(file, line, message)), file_(std::move(file)), line_(line), message_(message) {}

    /// The file at fault (may be empty when no file is involved).
    const std::string& file() const noexcept { return file_; }
    /// The 1-based line, or 0.
    std::size_t line() const noexcept { return line_; }
    /// The message without the location.
    const std::string& message() const noexcept { return message_; }

private:
    static std::string compose(const std::string& file, std::size_t line, const std::string& message) {
        std::string s = file;
        if (line) s += ":" + std::to_string(line);
        if (!s.empty()) s += ": ";
        return s + message;
    }
    std::string file_;
    std::size_t line_;
    std::string message_;
};

/// A module with nothing to start from: no `main` and no externally visible
/// function with a body (a file of `static` functions, an empty file), and
/// no `--entry`. Not bad input: `weir analyze` says so on stderr, reports
/// nothing and exits 0. An `input_error`, for callers that treat it as one.
class nothing_to_analyze : public input_error {
public:
    using input_error::input_error;
};

} // namespace weir::llvm
