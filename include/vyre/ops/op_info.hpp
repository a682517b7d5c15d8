#pragma once
/// \file vyre/ops/op_info.hpp
/// What a catalogue entry is: a name, a buffer signature, and a reference
/// implementation that defines it.

#include <cstdint>
#include <span>
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

} // namespace vyre::ops
