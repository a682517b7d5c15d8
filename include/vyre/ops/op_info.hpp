#pragma once
/// \file vyre/ops/op_info.hpp
/// What a catalogue entry is: a name, a buffer signature, and a reference
/// implementation that defines it.

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <string_view>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ir/types.hpp>

namespace vyre::ops {

/// Whether an op argument is a buffer or a u32 literal.
enum class param_kind { buffer, u32_literal };

/// One argument of an op's signature.
struct param {
    param_kind kind = param_kind::buffer;
    std::string_view name;
    bool writable = false;  ///< the buffer must be `read_write` or `output`
    ir::scalar_type type = ir::scalar_type::u32;  ///< element type of a buffer argument
};

/// One bound argument when an op runs: a buffer's bytes or a literal.
struct op_arg {
    std::span<std::uint8_t> bytes;
    std::uint32_t literal = 0;
};

/// Reference implementation: runs the op over its bound arguments.
using reference_fn = result<void> (*)(std::span<op_arg> args);

/// A catalogue entry.
struct op_info {
    std::string_view name;
    std::vector<param> params;
    std::string_view summary;
    reference_fn reference = nullptr;
};

/// True when a writable buffer argument of `op` shares bytes with another
/// buffer argument of `args` (the same buffer passed twice): the op then
/// reads what it writes, and only its reference's order defines the result,
/// so a backend's parallel native loop must not run it.
inline bool writes_overlap(const op_info& op, std::span<const op_arg> args) noexcept {
    const std::size_t n = std::min(op.params.size(), args.size());
    auto range = [&](std::size_t i) {
        const auto b = reinterpret_cast<std::uintptr_t>(args[i].bytes.data());
        return std::pair<std::uintptr_t, std::uintptr_t>(b, b + args[i].bytes.size());
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (op.params[i].kind != param_kind::buffer || !op.params[i].writable || args[i].bytes.empty()) continue;
        const auto [a0, a1] = range(i);
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i || op.params[j].kind != param_kind::buffer || args[j].bytes.empty()) continue;
            const auto [b0, b1] = range(j);
            if (a0 < b1 && b0 < a1) return true;
        }
    }
    return false;
}

} // namespace vyre::ops
