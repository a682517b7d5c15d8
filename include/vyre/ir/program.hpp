#pragma once
/// \file vyre/ir/program.hpp
/// The IR tree: `expr`, `stmt`, `buffer_decl` and `program` (spec: vyre-ir.md).
/// Nodes are plain values with structural equality, so `parse(print(p)) == p`
/// can be checked directly. `program` doubles as its own builder:
/// `program("xor").workgroup(64).buffer(...).add(...)`.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <vyre/ir/types.hpp>

namespace vyre::ir {

/// What an `expr` node is.
enum class expr_kind : std::uint8_t {
    literal,  ///< `type`, raw `bits`
    var,      ///< reads variable `name`
    builtin,  ///< `bi` on axis `ax`
    len,      ///< element count of buffer `name`
    load,     ///< `(load name args[0])`
    unary,    ///< `(op args[0])`
    binary,   ///< `(op args[0] args[1])`
    select,   ///< `(select args[0] args[1] args[2])`
    cast,     ///< `(cast type args[0])`
    bitcast,  ///< `(bitcast type args[0])`
    fma,      ///< `(fma args[0] args[1] args[2])`
    atomic,   ///< `(op name args...)`: index, value (cas: index, expected, new)
};

/// An expression node. Unused fields keep their defaults so that equality is
/// structural.
struct expr {
    expr_kind kind = expr_kind::literal;
    op_code op = op_code::add;
    scalar_type type = scalar_type::u32;
    builtin bi = builtin::gid;
    axis ax = axis::x;
    std::uint64_t bits = 0;  ///< literal value as raw bits of `type`
    std::string name;        ///< variable or buffer name
    std::vector<expr> args;

    bool operator==(const expr&) const = default;
};

/// What a `stmt` node is.
enum class stmt_kind : std::uint8_t {
    let_,      ///< `(let name args[0])`
    set,       ///< `(set name args[0])`
    store,     ///< `(store name args[0] args[1])`
    if_,       ///< `(if args[0] (body) (else_body))`
    loop,      ///< `(loop name args[0] args[1] body...)`
    barrier,   ///< `(barrier)`
    return_,   ///< `(return)`
    block,     ///< `(block body...)`
    op,        ///< `(op name args...)`: a catalogue operation; args are buffer names (var) or u32 literals
};

/// A statement node.
struct stmt {
    stmt_kind kind = stmt_kind::block;
    std::string name;
    std::vector<expr> args;
    std::vector<stmt> body;
    std::vector<stmt> else_body;

    bool operator==(const stmt&) const = default;
};

/// `(buffer NAME BINDING ACCESS TYPE COUNT)`; COUNT 0 means "sized by its input".
struct buffer_decl {
    std::string name;
    std::uint32_t binding = 0;
    access acc = access::read;
    scalar_type type = scalar_type::u32;
    std::uint64_t count = 0;

    bool operator==(const buffer_decl&) const = default;
};

/// A compute kernel: buffers, a workgroup size and a body run by every
/// invocation. Also a fluent builder: each setter returns `*this`.
struct program {
    std::string name;
    std::array<std::uint32_t, 3> workgroup_size{1, 1, 1};
    std::vector<buffer_decl> buffers;
    std::vector<stmt> body;

    program() = default;
    /// A program called `n` with workgroup size [1 1 1] and nothing else.
    explicit program(std::string n) : name(std::move(n)) {}

    /// Sets the workgroup size.
    program& workgroup(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1) & {
        workgroup_size = {x, y, z};
        return *this;
    }
    program&& workgroup(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1) && {
        return std::move(workgroup(x, y, z));
    }
    /// Declares a buffer (`count` 0: sized by its input).
    program& buffer(std::string n, std::uint32_t binding, access a, scalar_type t, std::uint64_t count = 0) & {
        buffers.push_back({std::move(n), binding, a, t, count});
        return *this;
    }
    program&& buffer(std::string n, std::uint32_t binding, access a, scalar_type t, std::uint64_t count = 0) && {
        return std::move(buffer(std::move(n), binding, a, t, count));
    }
    /// Appends statements to the body.
    template <class... S>
    program& add(S&&... s) & {
        (body.push_back(std::forward<S>(s)), ...);
        return *this;
    }
    template <class... S>
    program&& add(S&&... s) && {
        return std::move(add(std::forward<S>(s)...));
    }

    /// The declaration of buffer `n`, or nullptr.
    const buffer_decl* find_buffer(std::string_view n) const {
        for (const auto& b : buffers)
            if (b.name == n) return &b;
        return nullptr;
    }

    bool operator==(const program&) const = default;
};

/// The spec's spelling of the program type.
using Program = program;

} // namespace vyre::ir
