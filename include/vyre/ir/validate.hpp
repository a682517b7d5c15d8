#pragma once
/// \file vyre/ir/validate.hpp
/// `vyre::ir::validate(program)` (spec: vyre-ir.md, "Validation"): every
/// problem of a program at once, each with a stable code, a message naming the
/// node and a one-line fix. An empty list means the program is valid.
///
/// Nodes are named by a path: `body[3].then[0]` (an `if`'s then list),
/// `body[3].else[1]`, `body[2].body[0]` (a loop or block body), plus the
/// offending expression's text.
///
/// | code | meaning |
/// | ---- | ------- |
/// | V001 | unknown buffer (load, store, len, atomic, op argument) |
/// | V002 | duplicate buffer name |
/// | V003 | duplicate buffer binding |
/// | V004 | workgroup size 0 on some axis |
/// | V005 | `output` or `workgroup` buffer with COUNT 0 |
/// | V006 | invalid name (program, buffer, variable): not `[A-Za-z_][A-Za-z0-9_.-]*`, or `true`/`false` (an empty program name is allowed) |
/// | V007 | malformed node: wrong operand count, operator of the wrong kind for the node, a field the node kind does not use left non-default, or an unknown enum value |
/// | V008 | invalid literal: bits out of range for its type (bool must be 0 or 1) |
/// | V009 | storage-only type (u8 u16 i8 i16 f16 bf16) in an expression (literal, cast or bitcast target) |
/// | V010 | operands of a binary operator (or fma) have different types |
/// | V011 | operator not applicable to its operand type |
/// | V012 | select condition is not bool |
/// | V013 | select arms have different types |
/// | V014 | bitcast between types of different widths (or to/from bool) |
/// | V015 | load, store or atomic index is not u32 |
/// | V016 | stored value's type differs from the buffer's (widened) element type |
/// | V017 | store to a `read` or `uniform` buffer |
/// | V018 | if condition is not bool |
/// | V019 | loop bound (FROM or TO) is not u32 |
/// | V020 | unknown variable |
/// | V021 | shadowing: `let` or loop variable whose name is already visible |
/// | V022 | `set` of a loop variable |
/// | V023 | `set` of an unknown variable |
/// | V024 | `set` value's type differs from the variable's type |
/// | V025 | atomic on a buffer whose element type is not u32, i32 or u64 |
/// | V026 | atomic on a buffer that is not `read_write`, `output` or `workgroup` |
/// | V027 | atomic value (or cas expected/new) type differs from the element type |
/// | V028 | statements nested deeper than 64 |
/// | V029 | more than 100000 statements |
/// | V030 | expression nested deeper than 256 |
/// | V031 | `op` statement that is not the only statement of the program body |
/// | V032 | unknown op (neither in the `vyre::ops` catalogue nor a registered extension op) |
/// | V033 | op argument count differs from the catalogue signature |
/// | V034 | op argument of the wrong kind (buffer name vs u32 literal) |
/// | V035 | op buffer argument with the wrong access (written: `read_write`/`output`; read: `read`/`uniform`/`read_write`) |
/// | V036 | op buffer argument with the wrong element type |
///
/// Typing conventions decided here (the spec leaves them open):
/// - `neg` and `abs` apply to every number type (on unsigned types `neg`
///   wraps and `abs` is the identity).
/// - `eq ne` apply to every compute type (bool included); `lt le gt ge` to
///   numbers only.
/// - unary operators (`popcount clz ctz` included) return their operand's type.
/// - `mod` applies to floats as well as integers (the spec lists it among the
///   arithmetic on numbers).
/// - `cast` accepts any compute type as source and target.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <vyre/ir/program.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ops/registry.hpp>

namespace vyre::ir {

/// One problem found by `validate`.
struct diagnostic {
    std::string code;     ///< stable code, `V001` ... (see the table above)
    std::string message;  ///< what is wrong, naming the node and where
    std::string fix;      ///< a one-line hint on how to fix it

    bool operator==(const diagnostic&) const = default;
};

/// Limits that `validate` enforces.
inline constexpr std::size_t max_statement_depth = 64;
/// Most statements a program may hold (all nesting levels together).
inline constexpr std::size_t max_statements = 100000;
/// Deepest expression nesting `validate` accepts.
inline constexpr std::size_t max_expression_depth = 256;

namespace detail {

class validator {
public:
    explicit validator(const program& p) : p_(p) {}

    std::vector<diagnostic> run() {
        check_header();
        scope_open();
        for (std::size_t i = 0; i < p_.body.size(); ++i) check_stmt(p_.body[i], "body[" + std::to_string(i) + "]", 1);
        scope_close();
        if (stmt_count_ > max_statements)
            add("V029", "the program has " + std::to_string(stmt_count_) + " statements, more than " + std::to_string(max_statements),
                "split the work into several programs or use loops");
        return std::move(out_);
    }

private:
    struct var_info {
        std::optional<scalar_type> type;
        bool loop = false;
    };

    void add(const char* code, std::string message, std::string fix) {
        out_.push_back({code, std::move(message), std::move(fix)});
    }

    static std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }
    static std::string tname(scalar_type t) { return std::string(safe_name(t)); }
    static std::string text(const expr& e) {
        std::string s = print(e);
        if (s.size() > 80) s = s.substr(0, 77) + "...";
        return "`" + s + "`";
    }
    static std::string stmt_name(const stmt& s) {
        switch (s.kind) {
        case stmt_kind::let_: return "let";
        case stmt_kind::set: return "set";
        case stmt_kind::store: return "store";
        case stmt_kind::if_: return "if";
        case stmt_kind::loop: return "loop";
        case stmt_kind::barrier: return "barrier";
        case stmt_kind::return_: return "return";
        case stmt_kind::block: return "block";
        case stmt_kind::op: return "op";
        }
        return "?stmt";
    }
    /// `(store out) at body[3]`.
    static std::string where(const stmt& s, const std::string& path) {
        std::string n = "(" + stmt_name(s);
        if (!s.name.empty()) n += " " + s.name;
        return n + ") at " + path;
    }

    // ------------------------------------------------------------ header
    void check_header() {
        if (!p_.name.empty() && !is_identifier(p_.name))
            add("V006", "program name " + quote(p_.name) + " is not a valid name",
                "use letters, digits, '_', '.', '-', starting with a letter or '_'");
        static constexpr char axes[] = "xyz";
        for (std::size_t a = 0; a < 3; ++a)
            if (p_.workgroup_size[a] == 0)
                add("V004", std::string("workgroup size is 0 on axis ") + axes[a], "make every workgroup size axis at least 1");
        std::unordered_map<std::uint32_t, const buffer_decl*> bindings;
        for (std::size_t i = 0; i < p_.buffers.size(); ++i) {
            const auto& b = p_.buffers[i];
            const std::string bn = "buffer " + quote(b.name) + " (buffers[" + std::to_string(i) + "])";
            if (!is_identifier(b.name))
                add("V006", bn + " has an invalid name", "name buffers with letters, digits, '_', '.', '-', starting with a letter or '_'");
            if (static_cast<std::size_t>(b.acc) >= access_names.size())
                add("V007", bn + " has an unknown access mode", "use read, uniform, read_write, output or workgroup");
            if (static_cast<std::size_t>(b.type) >= scalar_names.size())
                add("V007", bn + " has an unknown element type", "use one of the scalar types");
            if (!buffers_.emplace(b.name, &b).second)
                add("V002", bn + ": duplicate buffer name", "rename one of the buffers called " + quote(b.name));
            auto [it, fresh] = bindings.emplace(b.binding, &b);
            if (!fresh)
                add("V003", bn + ": binding " + std::to_string(b.binding) + " is already used by buffer " + quote(it->second->name),
                    "give every buffer its own binding");
            if ((b.acc == access::output || b.acc == access::workgroup) && b.count == 0)
                add("V005", bn + " is " + std::string(name_of(b.acc)) + " with COUNT 0",
                    "give output and workgroup buffers a fixed element count > 0");
        }
    }

    const buffer_decl* buffer(const std::string& name, const std::string& at) {
        auto it = buffers_.find(name);
        if (it != buffers_.end()) return it->second;
        add("V001", "unknown buffer " + quote(name) + " in " + at, "declare it with (buffer " + (name.empty() ? "NAME" : name) +
                                                                       " BINDING ACCESS TYPE COUNT) or fix the name");
        return nullptr;
    }

    // ------------------------------------------------------------ scopes
    void scope_open() { scopes_.emplace_back(); }
    void scope_close() {
        for (const auto& n : scopes_.back()) vars_.erase(n);
        scopes_.pop_back();
    }
    /// Declares `name`; reports shadowing instead when it is visible.
    void declare(const std::string& name, std::optional<scalar_type> t, bool loop, const std::string& at) {
        if (!is_identifier(name)) {
            add("V006", "variable name " + quote(name) + " in " + at + " is not a valid name",
                "use letters, digits, '_', '.', '-', starting with a letter or '_'");
            return;
        }
        if (vars_.count(name)) {
            add("V021", std::string(loop ? "loop variable " : "let ") + quote(name) + " in " + at +
                            " shadows a visible variable of the same name",
                "rename it; names may not be rebound while visible");
            return;
        }
        vars_.emplace(name, var_info{t, loop});
        scopes_.back().push_back(name);
    }

    // ------------------------------------------------------------ statements
    void check_body(const std::vector<stmt>& body, const std::string& path, const char* part, std::size_t depth) {
        scope_open();
        for (std::size_t i = 0; i < body.size(); ++i)
            check_stmt(body[i], path + "." + part + "[" + std::to_string(i) + "]", depth);
        scope_close();
    }

    /// Reports fields that `s`'s kind does not use; returns false when the
    /// operand count is wrong (the caller then skips the operands).
    bool check_shape(const stmt& s, const std::string& at) {
        std::size_t want_args = 0;
        bool uses_name = false, uses_body = false, uses_else = false, any_args = false;
        switch (s.kind) {
        case stmt_kind::let_:
        case stmt_kind::set: want_args = 1; uses_name = true; break;
        case stmt_kind::store: want_args = 2; uses_name = true; break;
        case stmt_kind::if_: want_args = 1; uses_body = uses_else = true; break;
        case stmt_kind::loop: want_args = 2; uses_name = uses_body = true; break;
        case stmt_kind::barrier:
        case stmt_kind::return_: break;
        case stmt_kind::block: uses_body = true; break;
        case stmt_kind::op: uses_name = any_args = true; break;
        default:
            add("V007", "statement at " + at + " has an unknown kind", "build statements with vyre::ir::dsl");
            return false;
        }
        bool ok = true;
        if (!any_args && s.args.size() != want_args) {
            add("V007", where(s, at) + " has " + std::to_string(s.args.size()) + " operands, expected " + std::to_string(want_args),
                "build the statement with vyre::ir::dsl::" + stmt_name(s));
            ok = false;
        }
        if (!uses_name && !s.name.empty())
            add("V007", where(s, at) + " has a name, which this statement kind does not use", "leave stmt::name empty");
        if (!uses_body && !s.body.empty())
            add("V007", where(s, at) + " has a body, which this statement kind does not use", "leave stmt::body empty");
        if (!uses_else && !s.else_body.empty())
            add("V007", where(s, at) + " has an else body, which only if statements use", "leave stmt::else_body empty");
        return ok;
    }

    void check_stmt(const stmt& s, const std::string& at, std::size_t depth) {
        ++stmt_count_;
        if (depth > max_statement_depth) {
            add("V028", where(s, at) + " is nested " + std::to_string(depth) + " statements deep, more than " +
                            std::to_string(max_statement_depth),
                "flatten the nesting (fewer nested if/loop/block levels)");
            return;
        }
        const bool shape_ok = check_shape(s, at);
        switch (s.kind) {
        case stmt_kind::let_: {
            std::optional<scalar_type> t;
            if (shape_ok) t = check_expr(s.args[0], at);
            declare(s.name, t, false, at);
            break;
        }
        case stmt_kind::set: {
            std::optional<scalar_type> t;
            if (shape_ok) t = check_expr(s.args[0], at);
            auto it = vars_.find(s.name);
            if (it == vars_.end()) {
                add("V023", "set of unknown variable " + quote(s.name) + " at " + at, "declare it first with (let " +
                                                                                        (s.name.empty() ? "NAME" : s.name) + " VALUE)");
            } else if (it->second.loop) {
                add("V022", "set of loop variable " + quote(s.name) + " at " + at + "; loop variables are immutable",
                    "copy it into a let variable and modify that");
            } else if (t && it->second.type && *t != *it->second.type) {
                add("V024", "set of " + quote(s.name) + " (" + tname(*it->second.type) + ") at " + at + " to a value of type " + tname(*t),
                    "cast the value: (cast " + tname(*it->second.type) + " ...)");
            }
            break;
        }
        case stmt_kind::store: {
            const buffer_decl* b = buffer(s.name, where(s, at));
            if (b && !is_writable(b->acc))
                add("V017", where(s, at) + " writes buffer " + quote(b->name) + " which is " + std::string(safe_name(b->acc)),
                    "declare the buffer read_write or output, or store to another buffer");
            if (!shape_ok) break;
            check_index(s.args[0], at, where(s, at));
            auto t = check_expr(s.args[1], at);
            if (b && t && static_cast<std::size_t>(b->type) < scalar_names.size() && *t != widened(b->type))
                add("V016", where(s, at) + " stores " + text(s.args[1]) + " of type " + tname(*t) + " into buffer " + quote(b->name) +
                                " of " + tname(b->type) + " (expects " + tname(widened(b->type)) + ")",
                    "cast the value: (cast " + tname(widened(b->type)) + " ...)");
            break;
        }
        case stmt_kind::if_: {
            if (shape_ok) {
                auto t = check_expr(s.args[0], at);
                if (t && *t != scalar_type::bool_)
                    add("V018", "if condition " + text(s.args[0]) + " at " + at + " is " + tname(*t) + ", not bool",
                        "compare it, e.g. (ne COND 0)");
            }
            check_body(s.body, at, "then", depth + 1);
            check_body(s.else_body, at, "else", depth + 1);
            break;
        }
        case stmt_kind::loop: {
            if (shape_ok) {
                for (std::size_t i = 0; i < 2; ++i) {
                    auto t = check_expr(s.args[i], at);
                    if (t && *t != scalar_type::u32)
                        add("V019", std::string("loop ") + (i ? "TO" : "FROM") + " bound " + text(s.args[i]) + " of " + where(s, at) + " is " +
                                        tname(*t) + ", not u32",
                            "cast the bound: (cast u32 ...)");
                }
            }
            scope_open();
            declare(s.name, scalar_type::u32, true, at);
            check_body(s.body, at, "body", depth + 1);
            scope_close();
            break;
        }
        case stmt_kind::block: check_body(s.body, at, "body", depth + 1); break;
        case stmt_kind::op: check_op(s, at, depth); break;
        default: break;
        }
    }

    void check_op(const stmt& s, const std::string& at, std::size_t depth) {
        if (depth != 1 || p_.body.size() != 1)
            add("V031", where(s, at) + " is not the only statement of the program body",
                "put each (op ...) in a program of its own, as its whole body");
        const ops::op_info* info = ops::find_op(s.name);
        if (!info) {
            add("V032", "unknown op " + quote(s.name) + " at " + at, "use an op of the vyre::ops catalogue, or register your own first (vyre/ops/extension.hpp)");
            return;
        }
        if (s.args.size() != info->params.size()) {
            std::string sig;
            for (const auto& p : info->params) sig += " " + std::string(p.name);
            add("V033", where(s, at) + " has " + std::to_string(s.args.size()) + " arguments; " + std::string(info->name) + " takes " +
                            std::to_string(info->params.size()) + ":" + sig,
                "pass exactly the arguments of the signature (op " + std::string(info->name) + sig + ")");
        }
        for (std::size_t i = 0; i < s.args.size() && i < info->params.size(); ++i) {
            const auto& a = s.args[i];
            const auto& prm = info->params[i];
            const std::string an = "argument " + std::to_string(i + 1) + " (" + std::string(prm.name) + ") of " + where(s, at);
            if (!check_shape(a, at)) continue;
            if (prm.kind == ops::param_kind::u32_literal) {
                if (a.kind != expr_kind::literal || a.type != scalar_type::u32 || !a.name.empty() || !a.args.empty())
                    add("V034", an + " is " + text(a) + ", expected a u32 literal", "pass a bare non-negative integer");
                else if (a.bits > 0xffffffffull)
                    add("V008", an + ": u32 literal bits out of range", "use a value below 2^32");
                continue;
            }
            if (a.kind != expr_kind::var || !a.args.empty()) {
                add("V034", an + " is " + text(a) + ", expected a buffer name", "pass the name of a declared buffer");
                continue;
            }
            const buffer_decl* b = buffer(a.name, an);
            if (!b) continue;
            if (prm.writable ? !(b->acc == access::read_write || b->acc == access::output)
                             : !(b->acc == access::read || b->acc == access::uniform || b->acc == access::read_write))
                add("V035", an + ": buffer " + quote(b->name) + " is " + std::string(safe_name(b->acc)) + " but the op " +
                                (prm.writable ? "writes it" : "reads it"),
                    prm.writable ? "declare the buffer read_write or output" : "declare the buffer read, uniform or read_write");
            if (b->type != prm.type)
                add("V036", an + ": buffer " + quote(b->name) + " holds " + tname(b->type) + ", the op expects " + tname(prm.type),
                    "declare the buffer with element type " + tname(prm.type));
        }
    }

    // ------------------------------------------------------------ expressions
    void check_index(const expr& idx, const std::string& at, const std::string& what) {
        auto t = check_expr(idx, at);
        if (t && *t != scalar_type::u32)
            add("V015", "index " + text(idx) + " of " + what + " is " + tname(*t) + ", not u32", "cast the index: (cast u32 ...)");
    }

    /// Reports fields that `e`'s kind does not use; false when the operand
    /// count is wrong.
    bool check_shape(const expr& e, const std::string& at) {
        std::size_t want = 0;
        bool uses_op = false, uses_type = false, uses_builtin = false, uses_bits = false, uses_name = false;
        switch (e.kind) {
        case expr_kind::literal: uses_type = uses_bits = true; break;
        case expr_kind::var: uses_name = true; break;
        case expr_kind::builtin: uses_builtin = true; break;
        case expr_kind::len: uses_name = true; break;
        case expr_kind::load: uses_name = true; want = 1; break;
        case expr_kind::unary: uses_op = true; want = 1; break;
        case expr_kind::binary: uses_op = true; want = 2; break;
        case expr_kind::select:
        case expr_kind::fma: want = 3; break;
        case expr_kind::cast:
        case expr_kind::bitcast: uses_type = true; want = 1; break;
        case expr_kind::atomic: uses_op = uses_name = true; want = e.op == op_code::atomic_cas ? 3 : 2; break;
        default:
            add("V007", "expression at " + at + " has an unknown kind", "build expressions with vyre::ir::dsl");
            return false;
        }
        const expr def;
        auto n = [&] { return "expression " + text(e) + " at " + at; };
        bool ok = true;
        if (e.args.size() != want) {
            add("V007", n() + " has " + std::to_string(e.args.size()) + " operands, expected " + std::to_string(want),
                "build the expression with vyre::ir::dsl");
            ok = false;
        }
        if (uses_op) {
            bool right = e.kind == expr_kind::unary    ? is_unary(e.op)
                         : e.kind == expr_kind::binary ? is_binary(e.op)
                                                       : is_atomic(e.op);
            if (!right) {
                add("V007", n() + ": operator " + quote(safe_name(e.op)) + " does not fit this node kind", "build the expression with vyre::ir::dsl");
                ok = false;
            }
        } else if (e.op != def.op) {
            add("V007", n() + " sets an operator, which this expression kind does not use", "leave expr::op at its default");
        }
        if (uses_type && static_cast<std::size_t>(e.type) >= scalar_names.size()) {
            add("V007", n() + " has an unknown type", "use one of the scalar types");
            ok = false;
        }
        if (!uses_type && e.type != def.type)
            add("V007", n() + " sets a type, which this expression kind does not use", "leave expr::type at its default");
        if (uses_builtin && (static_cast<std::size_t>(e.bi) >= builtin_names.size() || static_cast<int>(e.ax) > 2)) {
            add("V007", n() + " has an unknown built-in or axis", "use gid lid wgid wgsize ngroups on axis x, y or z");
            ok = false;
        }
        if (!uses_builtin && (e.bi != def.bi || e.ax != def.ax))
            add("V007", n() + " sets a built-in or axis, which this expression kind does not use", "leave expr::bi and expr::ax at their defaults");
        if (!uses_bits && e.bits != 0)
            add("V007", n() + " sets literal bits, which this expression kind does not use", "leave expr::bits at 0");
        if (!uses_name && !e.name.empty())
            add("V007", n() + " has a name, which this expression kind does not use", "leave expr::name empty");
        return ok;
    }

    std::optional<scalar_type> check_expr(const expr& e, const std::string& at, std::size_t depth = 1) {
        if (depth >= max_expression_depth && !e.args.empty()) {
            add("V030", "expression at " + at + " is nested more than " + std::to_string(max_expression_depth) + " levels deep",
                "split it with let variables");
            return std::nullopt;
        }
        if (!check_shape(e, at)) return std::nullopt;
        auto n = [&] { return "expression " + text(e) + " at " + at; };
        auto sub = [&](std::size_t i) { return check_expr(e.args[i], at, depth + 1); };
        switch (e.kind) {
        case expr_kind::literal: {
            if (!is_compute(e.type)) {
                add("V009", n() + ": a literal cannot have storage-only type " + tname(e.type), "use a compute type (bool u32 i32 u64 i64 f32 f64)");
                return std::nullopt;
            }
            bool fits = e.type == scalar_type::bool_ ? e.bits <= 1 : bit_width(e.type) == 64 || e.bits <= 0xffffffffull;
            if (!fits) {
                add("V008", n() + ": literal bits 0x" + hex(e.bits) + " are out of range for " + tname(e.type),
                    e.type == scalar_type::bool_ ? "use 0 (false) or 1 (true)" : "use a value that fits in 32 bits");
                return std::nullopt;
            }
            return e.type;
        }
        case expr_kind::var: {
            auto it = vars_.find(e.name);
            if (it == vars_.end()) {
                add("V020", "unknown variable " + quote(e.name) + " at " + at, "declare it with (let NAME VALUE) in an enclosing scope before use");
                return std::nullopt;
            }
            return it->second.type;
        }
        case expr_kind::builtin: return scalar_type::u32;
        case expr_kind::len: buffer(e.name, n()); return scalar_type::u32;
        case expr_kind::load: {
            const buffer_decl* b = buffer(e.name, n());
            check_index(e.args[0], at, n());
            if (!b || static_cast<std::size_t>(b->type) >= scalar_names.size()) return std::nullopt;
            return widened(b->type);
        }
        case expr_kind::unary: {
            auto t = sub(0);
            if (!t) return std::nullopt;
            bool ok = false;
            const char* need = "";
            switch (e.op) {
            case op_code::neg:
            case op_code::abs: ok = is_number(*t); need = "a number"; break;
            case op_code::bitnot:
            case op_code::popcount:
            case op_code::clz:
            case op_code::ctz: ok = is_integer(*t); need = "an integer"; break;
            case op_code::not_: ok = *t == scalar_type::bool_; need = "bool"; break;
            case op_code::sqrt: ok = is_float(*t); need = "f32 or f64"; break;
            default: ok = *t == scalar_type::f32; need = "f32 (transcendentals are f32-only)"; break;
            }
            if (!ok) {
                add("V011", n() + ": " + std::string(safe_name(e.op)) + " needs " + need + ", got " + tname(*t),
                    "cast the operand to a suitable type");
                return std::nullopt;
            }
            return t;
        }
        case expr_kind::binary: {
            auto a = sub(0), b = sub(1);
            const bool cmp = is_comparison(e.op);
            if (!a || !b) return cmp ? std::optional(scalar_type::bool_) : std::nullopt;
            if (*a != *b) {
                add("V010", n() + ": operands have different types (" + tname(*a) + " and " + tname(*b) + ")",
                    "cast one operand so both have the same type (shift amounts included)");
                return cmp ? std::optional(scalar_type::bool_) : std::nullopt;
            }
            bool ok = false;
            const char* need = "";
            switch (e.op) {
            case op_code::add: case op_code::sub: case op_code::mul: case op_code::div:
            case op_code::mod: case op_code::min: case op_code::max:
            case op_code::lt: case op_code::le: case op_code::gt: case op_code::ge:
                ok = is_number(*a); need = "numbers"; break;
            case op_code::bitand_: case op_code::bitor_: case op_code::bitxor_:
            case op_code::shl: case op_code::shr:
                ok = is_integer(*a); need = "integers"; break;
            case op_code::eq: case op_code::ne: ok = is_compute(*a); need = "compute types"; break;
            default: ok = *a == scalar_type::bool_; need = "bool"; break;  // and, or
            }
            if (!ok) {
                add("V011", n() + ": " + std::string(safe_name(e.op)) + " needs " + need + ", got " + tname(*a),
                    "cast the operands to a suitable type");
                return cmp ? std::optional(scalar_type::bool_) : std::nullopt;
            }
            return cmp ? scalar_type::bool_ : *a;
        }
        case expr_kind::select: {
            auto c = sub(0), a = sub(1), b = sub(2);
            if (c && *c != scalar_type::bool_)
                add("V012", n() + ": select condition is " + tname(*c) + ", not bool", "compare it, e.g. (ne COND 0)");
            if (a && b && *a != *b) {
                add("V013", n() + ": select arms have different types (" + tname(*a) + " and " + tname(*b) + ")",
                    "cast one arm so both have the same type");
                return std::nullopt;
            }
            return a && b ? a : std::nullopt;
        }
        case expr_kind::fma: {
            auto a = sub(0), b = sub(1), c = sub(2);
            if (!a || !b || !c) return std::nullopt;
            if (*a != *b || *a != *c) {
                add("V010", n() + ": fma operands have different types (" + tname(*a) + ", " + tname(*b) + ", " + tname(*c) + ")",
                    "cast the operands to one float type");
                return std::nullopt;
            }
            if (!is_float(*a)) {
                add("V011", n() + ": fma needs f32 or f64, got " + tname(*a), "cast the operands to f32 or f64");
                return std::nullopt;
            }
            return a;
        }
        case expr_kind::cast:
        case expr_kind::bitcast: {
            auto a = sub(0);
            const char* what = e.kind == expr_kind::cast ? "cast" : "bitcast";
            if (!is_compute(e.type)) {
                add("V009", n() + ": " + what + " target " + tname(e.type) + " is a storage-only type",
                    "cast to a compute type (bool u32 i32 u64 i64 f32 f64); buffers narrow on store");
                return std::nullopt;
            }
            if (e.kind == expr_kind::bitcast && a &&
                (*a == scalar_type::bool_ || e.type == scalar_type::bool_ || bit_width(*a) != bit_width(e.type))) {
                add("V014", n() + ": bitcast from " + tname(*a) + " to " + tname(e.type) + " changes width or involves bool",
                    "bitcast only among u32 i32 f32 or among u64 i64 f64; use cast otherwise");
            }
            return e.type;
        }
        case expr_kind::atomic: {
            const buffer_decl* b = buffer(e.name, n());
            check_index(e.args[0], at, n());
            std::vector<std::optional<scalar_type>> vals;
            for (std::size_t i = 1; i < e.args.size(); ++i) vals.push_back(sub(i));
            if (!b || static_cast<std::size_t>(b->type) >= scalar_names.size()) return std::nullopt;
            bool ok = true;
            if (b->type != scalar_type::u32 && b->type != scalar_type::i32 && b->type != scalar_type::u64) {
                add("V025", n() + ": atomics need a u32, i32 or u64 buffer; " + quote(b->name) + " holds " + tname(b->type),
                    "declare the buffer as u32, i32 or u64");
                ok = false;
            }
            if (b->acc != access::read_write && b->acc != access::output && b->acc != access::workgroup) {
                add("V026", n() + ": atomics need a read_write, output or workgroup buffer; " + quote(b->name) + " is " +
                                std::string(safe_name(b->acc)),
                    "declare the buffer read_write, output or workgroup");
            }
            for (std::size_t i = 0; i < vals.size(); ++i)
                if (ok && vals[i] && *vals[i] != b->type)
                    add("V027", n() + ": operand " + text(e.args[i + 1]) + " is " + tname(*vals[i]) + " but buffer " + quote(b->name) +
                                    " holds " + tname(b->type),
                        "cast the operand: (cast " + tname(b->type) + " ...)");
            return ok ? std::optional(b->type) : std::nullopt;
        }
        default: return std::nullopt;
        }
    }

    static std::string hex(std::uint64_t v) {
        std::string s;
        append_hex(s, v);
        return s.substr(2);
    }

    const program& p_;
    std::vector<diagnostic> out_;
    std::unordered_map<std::string, const buffer_decl*> buffers_;
    std::unordered_map<std::string, var_info> vars_;
    std::vector<std::vector<std::string>> scopes_;
    std::size_t stmt_count_ = 0;
};

} // namespace detail

/// Every problem of `p` (see the code table at the top of this header); an
/// empty list means `p` is valid.
inline std::vector<diagnostic> validate(const program& p) { return detail::validator(p).run(); }

/// One line per diagnostic: `CODE: message (fix: ...)`.
inline std::string format_diagnostics(const std::vector<diagnostic>& ds) {
    std::string out;
    for (const auto& d : ds) {
        out += d.code + ": " + d.message;
        if (!d.fix.empty()) out += " (fix: " + d.fix + ")";
        out += '\n';
    }
    return out;
}

} // namespace vyre::ir
