#pragma once
/// \file vyre/ir/text.hpp
/// The text form of the vyre IR (spec: vyre-ir.md, "Program text form"):
/// `print` writes the one canonical form, `parse` reads it back (and any
/// other spacing, with `;` comments), so that `parse(print(p)) == p` for every
/// valid program.
///
/// Canonical layout (two-space indent, one statement a line):
/// ```
/// (program NAME (workgroup X Y Z)
///   (buffer a 0 read u32 0)
///   (let i (gid x))
///   (if (lt i (len out))
///     ((store out i 1)
///      (store out 0 2))
///     ((return)))
///   (loop j 0 4
///     (barrier)))
/// ```
/// A statement list of `if` starts on its own line with `(` and its first
/// statement; further statements line up under the first. The else list is
/// omitted when empty. A program with an empty name prints without one
/// (`(program (workgroup 1 1 1))`) and parses back to an empty name.
///
/// Literals: a u32 is a bare decimal integer; a bool is `true`/`false`; any
/// other is `(TYPE VALUE)`: `(i32 -3)`, `(u64 18446744073709551615)`,
/// `(f32 1.5)`, `(f64 -0)`, `(f32 inf)`, `(f32 -inf)`, `(f32 nan)` (only the
/// canonical quiet NaN), and `(TYPE 0xHEX)` raw bits for any type (the printer
/// uses it for NaNs with other payloads). Finite floats print in the shortest
/// form that reads back to the same bits.

#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>

namespace vyre::ir {

/// A failure to parse the text form: where (1-based line and byte column) and
/// what was expected and found.
struct parse_error {
    std::uint32_t line = 0;    ///< 1-based line of the offending token
    std::uint32_t column = 0;  ///< 1-based byte column of the offending token
    std::string message;       ///< "expected ..., found ..."

    /// `line L, column C: message`.
    std::string what() const {
        return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
    }
};

namespace detail {

/// Deepest parenthesis nesting `parse` accepts (protects its recursion).
inline constexpr unsigned max_parse_depth = 1024;

/// Text names that never crash on out-of-range enum values.
inline std::string_view safe_name(scalar_type t) {
    auto i = static_cast<std::size_t>(t);
    return i < scalar_names.size() ? scalar_names[i] : std::string_view("?type");
}
inline std::string_view safe_name(access a) {
    auto i = static_cast<std::size_t>(a);
    return i < access_names.size() ? access_names[i] : std::string_view("?access");
}
inline std::string_view safe_name(builtin b) {
    auto i = static_cast<std::size_t>(b);
    return i < builtin_names.size() ? builtin_names[i] : std::string_view("?builtin");
}
inline std::string_view safe_name(op_code o) {
    auto i = static_cast<std::size_t>(o);
    return i < op_names.size() ? op_names[i] : std::string_view("?op");
}
inline std::string_view safe_name(axis a) {
    switch (a) {
    case axis::x: return "x";
    case axis::y: return "y";
    case axis::z: return "z";
    }
    return "?axis";
}

/// True for names the text form can carry: `[A-Za-z_][A-Za-z0-9_.-]*`, and
/// not `true` or `false`.
inline bool is_identifier(std::string_view s) {
    if (s.empty() || s == "true" || s == "false") return false;
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!alpha(s[0])) return false;
    for (char c : s)
        if (!alpha(c) && !(c >= '0' && c <= '9') && c != '.' && c != '-') return false;
    return true;
}

inline void append_hex(std::string& out, std::uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
    out += "0x";
    out.append(buf, r.ptr);
}

template <class I>
inline void append_dec(std::string& out, I v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

/// Text of an f32 (`bits` < 2^32) or f64 value: shortest round-trip decimal,
/// `inf`, `-inf`, `nan` (canonical quiet NaN only) or raw hex bits.
inline void append_float(std::string& out, bool is_f64, std::uint64_t bits) {
    const std::uint64_t exp_mask = is_f64 ? 0x7ff0000000000000ull : 0x7f800000ull;
    const std::uint64_t man_mask = is_f64 ? 0x000fffffffffffffull : 0x007fffffull;
    const std::uint64_t sign = is_f64 ? 0x8000000000000000ull : 0x80000000ull;
    const std::uint64_t qnan = is_f64 ? 0x7ff8000000000000ull : 0x7fc00000ull;
    if ((bits & exp_mask) == exp_mask) {
        if ((bits & man_mask) == 0) {
            out += (bits & sign) ? "-inf" : "inf";
        } else if (bits == qnan) {
            out += "nan";
        } else {
            append_hex(out, bits);
        }
        return;
    }
    char buf[64];
    std::to_chars_result r;
    if (is_f64)
        r = std::to_chars(buf, buf + sizeof buf, std::bit_cast<double>(bits));
    else
        r = std::to_chars(buf, buf + sizeof buf, std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    out.append(buf, r.ptr);
}

inline void print_literal(std::string& out, scalar_type t, std::uint64_t bits) {
    const bool fits32 = bits <= 0xffffffffull;
    switch (t) {
    case scalar_type::u32:
        if (fits32) return append_dec(out, bits);
        break;
    case scalar_type::bool_:
        if (bits <= 1) {
            out += bits ? "true" : "false";
            return;
        }
        break;
    case scalar_type::i32:
        if (!fits32) break;
        out += "(i32 ";
        append_dec(out, static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
        out += ')';
        return;
    case scalar_type::u64:
        out += "(u64 ";
        append_dec(out, bits);
        out += ')';
        return;
    case scalar_type::i64:
        out += "(i64 ";
        append_dec(out, static_cast<std::int64_t>(bits));
        out += ')';
        return;
    case scalar_type::f32:
        if (!fits32) break;
        out += "(f32 ";
        append_float(out, false, bits);
        out += ')';
        return;
    case scalar_type::f64:
        out += "(f64 ";
        append_float(out, true, bits);
        out += ')';
        return;
    default: break;
    }
    // Invalid literals (validate rejects them): raw bits, so printing never fails.
    out += '(';
    out += safe_name(t);
    out += ' ';
    append_hex(out, bits);
    out += ')';
}

inline void print_args(std::string& out, const std::vector<expr>& args);

/// Appends the text of one expression (any tree, valid or not).
inline void print_expr(std::string& out, const expr& e) {
    switch (e.kind) {
    case expr_kind::literal: print_literal(out, e.type, e.bits); return;
    case expr_kind::var: out += e.name; return;
    case expr_kind::builtin:
        out += '(';
        out += safe_name(e.bi);
        out += ' ';
        out += safe_name(e.ax);
        out += ')';
        return;
    case expr_kind::len: out += "(len " + e.name + ')'; return;
    case expr_kind::load: out += "(load " + e.name; break;
    case expr_kind::unary:
    case expr_kind::binary:
        out += '(';
        out += safe_name(e.op);
        break;
    case expr_kind::select: out += "(select"; break;
    case expr_kind::cast:
    case expr_kind::bitcast:
        out += e.kind == expr_kind::cast ? "(cast " : "(bitcast ";
        out += safe_name(e.type);
        break;
    case expr_kind::fma: out += "(fma"; break;
    case expr_kind::atomic:
        out += '(';
        out += safe_name(e.op);
        out += ' ';
        out += e.name;
        break;
    default: out += "(?expr"; break;
    }
    print_args(out, e.args);
    out += ')';
}

inline void print_args(std::string& out, const std::vector<expr>& args) {
    for (const auto& a : args) {
        out += ' ';
        print_expr(out, a);
    }
}

inline void newline(std::string& out, std::size_t col) {
    out += '\n';
    out.append(col, ' ');
}

inline void print_stmt(std::string& out, const stmt& s, std::size_t col);

/// `(S1\n S2 ...)` with the list's `(` at column `col`.
inline void print_stmt_list(std::string& out, const std::vector<stmt>& list, std::size_t col) {
    out += '(';
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) newline(out, col + 1);
        print_stmt(out, list[i], col + 1);
    }
    out += ')';
}

/// Appends statement `s`, which starts at column `col`; its children go on
/// their own lines at `col + 2`.
inline void print_stmt(std::string& out, const stmt& s, std::size_t col) {
    auto children = [&](const std::vector<stmt>& body) {
        for (const auto& c : body) {
            newline(out, col + 2);
            print_stmt(out, c, col + 2);
        }
    };
    switch (s.kind) {
    case stmt_kind::let_: out += "(let " + s.name; break;
    case stmt_kind::set: out += "(set " + s.name; break;
    case stmt_kind::store: out += "(store " + s.name; break;
    case stmt_kind::barrier: out += "(barrier"; break;
    case stmt_kind::return_: out += "(return"; break;
    case stmt_kind::op: out += "(op " + s.name; break;
    case stmt_kind::if_:
        out += "(if";
        print_args(out, s.args);
        newline(out, col + 2);
        print_stmt_list(out, s.body, col + 2);
        if (!s.else_body.empty()) {
            newline(out, col + 2);
            print_stmt_list(out, s.else_body, col + 2);
        }
        out += ')';
        return;
    case stmt_kind::loop:
        out += "(loop " + s.name;
        print_args(out, s.args);
        children(s.body);
        out += ')';
        return;
    case stmt_kind::block:
        out += "(block";
        children(s.body);
        out += ')';
        return;
    default: out += "(?stmt"; break;
    }
    print_args(out, s.args);
    out += ')';
}

// ---------------------------------------------------------------- parsing

struct parse_failure {
    std::uint32_t line, column;
    std::string message;
};

enum class tok_kind { lparen, rparen, atom, end };

struct token {
    tok_kind kind = tok_kind::end;
    std::string_view text;
    std::uint32_t line = 1, column = 1;
};

/// Splits text into `(`, `)` and atoms, skipping whitespace and `;` comments.
class lexer {
public:
    explicit lexer(std::string_view s) : s_(s) {}

    const token& peek() {
        if (!has_) {
            cur_ = scan();
            has_ = true;
        }
        return cur_;
    }
    token next() {
        peek();
        has_ = false;
        return cur_;
    }

private:
    static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
    void advance() {
        if (s_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++pos_;
    }
    token scan() {
        for (;;) {
            while (pos_ < s_.size() && space(s_[pos_])) advance();
            if (pos_ < s_.size() && s_[pos_] == ';') {
                while (pos_ < s_.size() && s_[pos_] != '\n') advance();
                continue;
            }
            break;
        }
        token t;
        t.line = line_;
        t.column = col_;
        if (pos_ >= s_.size()) return t;
        char c = s_[pos_];
        if (c == '(' || c == ')') {
            t.kind = c == '(' ? tok_kind::lparen : tok_kind::rparen;
            t.text = s_.substr(pos_, 1);
            advance();
            return t;
        }
        std::size_t start = pos_;
        while (pos_ < s_.size() && !space(s_[pos_]) && s_[pos_] != '(' && s_[pos_] != ')' && s_[pos_] != ';')
            advance();
        t.kind = tok_kind::atom;
        t.text = s_.substr(start, pos_ - start);
        return t;
    }

    std::string_view s_;
    std::size_t pos_ = 0;
    std::uint32_t line_ = 1, col_ = 1;
    token cur_;
    bool has_ = false;
};

/// How a token reads in an error message: `'foo'`, `'('`, `end of input`.
inline std::string describe(const token& t) {
    if (t.kind == tok_kind::end) return "end of input";
    std::string s = "'";
    std::size_t n = 0;
    for (char ch : t.text) {
        const auto c = static_cast<unsigned char>(ch);
        if (++n > 40) {
            s += "...";
            break;
        }
        if (c >= 0x20 && c < 0x7f) {
            s += static_cast<char>(c);
        } else {
            static constexpr char hex[] = "0123456789abcdef";
            s += "\\x";
            s += hex[c >> 4];
            s += hex[c & 15];
        }
    }
    return s + "'";
}

inline bool all_digits(std::string_view s, int base) {
    if (s.empty()) return false;
    for (char c : s) {
        bool ok = (c >= '0' && c <= '9') ||
                  (base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
        if (!ok) return false;
    }
    return true;
}

/// Unsigned decimal or `0x` hex; false on bad syntax or overflow of u64.
inline bool parse_u64(std::string_view s, std::uint64_t& v, bool allow_hex = true) {
    int base = 10;
    if (allow_hex && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    if (!all_digits(s, base)) return false;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

inline bool is_hex_literal(std::string_view s) {
    return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/// Recursive-descent parser over a `lexer`; failures throw `parse_failure`.
class parser {
public:
    explicit parser(std::string_view text) : lx_(text) {}

    program parse_program() {
        open("'(program'");
        expect_keyword("program");
        program p;
        if (lx_.peek().kind == tok_kind::atom) p.name = name("a program name");
        open("'(workgroup X Y Z)'");
        expect_keyword("workgroup");
        for (auto& w : p.workgroup_size) w = u32_number("a workgroup size");
        close("the workgroup size");
        while (lx_.peek().kind == tok_kind::lparen) {
            open("a buffer or statement");
            token head = atom("'buffer' or a statement");
            if (head.text == "buffer")
                p.buffers.push_back(buffer_rest());
            else
                p.body.push_back(stmt_rest(head));
        }
        close("the program");
        token t = lx_.next();
        if (t.kind != tok_kind::end) fail(t, "expected end of input after the program, found " + describe(t));
        return p;
    }

private:
    [[noreturn]] static void fail(const token& t, std::string msg) { throw parse_failure{t.line, t.column, std::move(msg)}; }

    void open(std::string_view what) {
        token t = lx_.next();
        if (t.kind != tok_kind::lparen) fail(t, "expected " + std::string(what) + ", found " + describe(t));
        if (++depth_ > max_parse_depth)
            fail(t, "nesting deeper than " + std::to_string(max_parse_depth) + " parentheses");
    }
    void close(std::string_view what) {
        token t = lx_.next();
        if (t.kind != tok_kind::rparen) fail(t, "expected ')' to end " + std::string(what) + ", found " + describe(t));
        --depth_;
    }
    token atom(std::string_view what) {
        token t = lx_.next();
        if (t.kind != tok_kind::atom) fail(t, "expected " + std::string(what) + ", found " + describe(t));
        return t;
    }
    void expect_keyword(std::string_view kw) {
        token t = lx_.next();
        if (t.kind != tok_kind::atom || t.text != kw)
            fail(t, "expected '" + std::string(kw) + "', found " + describe(t));
    }
    std::string name(std::string_view what) {
        token t = atom(what);
        if (!is_identifier(t.text))
            fail(t, "expected " + std::string(what) + " (a letter or '_' then letters, digits, '_', '.', '-'), found " +
                        describe(t));
        return std::string(t.text);
    }
    std::uint32_t u32_number(std::string_view what) {
        token t = atom(what);
        std::uint64_t v = 0;
        if (!parse_u64(t.text, v, false)) fail(t, "expected " + std::string(what) + " (a decimal integer), found " + describe(t));
        if (v > 0xffffffffull) fail(t, "integer " + describe(t) + " is out of range for u32");
        return static_cast<std::uint32_t>(v);
    }
    scalar_type type_name(std::string_view what) {
        token t = atom(what);
        auto ty = scalar_from_name(t.text);
        if (!ty) fail(t, "expected " + std::string(what) + " (bool u32 i32 u64 i64 f32 f64 u8 u16 i8 i16 f16 bf16), found " + describe(t));
        return *ty;
    }

    buffer_decl buffer_rest() {
        buffer_decl b;
        b.name = name("a buffer name");
        b.binding = u32_number("a buffer binding");
        token a = atom("an access mode");
        auto acc = access_from_name(a.text);
        if (!acc) fail(a, "expected an access mode (read uniform read_write output workgroup), found " + describe(a));
        b.acc = *acc;
        b.type = type_name("an element type");
        token c = atom("a buffer element count");
        if (!parse_u64(c.text, b.count, false))
            fail(c, "expected a buffer element count (a decimal integer < 2^64), found " + describe(c));
        close("the buffer declaration");
        return b;
    }

    std::vector<stmt> stmt_list() {
        open("'(' to start a statement list, e.g. ((store out 0 1))");
        std::vector<stmt> out;
        while (lx_.peek().kind != tok_kind::rparen) {
            if (lx_.peek().kind != tok_kind::lparen)
                fail(lx_.peek(), "expected '(' to start a statement (if branches are lists: (if C ((S) ...) ((S) ...))), found " +
                                     describe(lx_.peek()));
            out.push_back(statement());
        }
        close("the statement list");
        return out;
    }

    stmt statement() {
        open("a statement");
        return stmt_rest(atom("a statement keyword"));
    }

    void stmts_until_close(std::vector<stmt>& body, std::string_view what) {
        while (lx_.peek().kind == tok_kind::lparen) body.push_back(statement());
        close(what);
    }

    stmt stmt_rest(const token& head) {
        stmt s;
        const auto h = head.text;
        if (h == "let" || h == "set") {
            s.kind = h == "let" ? stmt_kind::let_ : stmt_kind::set;
            s.name = name("a variable name");
            s.args.push_back(expression());
            close(h == "let" ? "the let" : "the set");
        } else if (h == "store") {
            s.kind = stmt_kind::store;
            s.name = name("a buffer name");
            s.args.push_back(expression());
            s.args.push_back(expression());
            close("the store");
        } else if (h == "if") {
            s.kind = stmt_kind::if_;
            s.args.push_back(expression());
            s.body = stmt_list();
            if (lx_.peek().kind == tok_kind::lparen) s.else_body = stmt_list();
            close("the if");
        } else if (h == "loop") {
            s.kind = stmt_kind::loop;
            s.name = name("a loop variable name");
            s.args.push_back(expression());
            s.args.push_back(expression());
            stmts_until_close(s.body, "the loop");
        } else if (h == "barrier" || h == "return") {
            s.kind = h == "barrier" ? stmt_kind::barrier : stmt_kind::return_;
            close(h == "barrier" ? "(barrier)" : "(return)");
        } else if (h == "block") {
            s.kind = stmt_kind::block;
            stmts_until_close(s.body, "the block");
        } else if (h == "op") {
            s.kind = stmt_kind::op;
            s.name = name("an op name");
            while (lx_.peek().kind != tok_kind::rparen && lx_.peek().kind != tok_kind::end)
                s.args.push_back(expression());
            close("the op");
        } else if (h == "buffer") {
            fail(head, "buffer declarations belong at the program's top level, found 'buffer' inside a statement");
        } else {
            fail(head, "expected a statement (let set store if loop barrier return block op), found " + describe(head));
        }
        return s;
    }

    expr literal(scalar_type t, std::uint64_t bits) {
        expr e;
        e.kind = expr_kind::literal;
        e.type = t;
        e.bits = bits;
        return e;
    }

    expr expression() {
        token t = lx_.next();
        if (t.kind == tok_kind::atom) {
            const auto s = t.text;
            if (s == "true" || s == "false") return literal(scalar_type::bool_, s == "true");
            if (s[0] >= '0' && s[0] <= '9') {
                std::uint64_t v = 0;
                if (!parse_u64(s, v)) fail(t, "expected a u32 literal (decimal or 0x hex), found " + describe(t));
                if (v > 0xffffffffull)
                    fail(t, "integer literal " + describe(t) + " is out of range for u32 (use (u64 N) for wider values)");
                return literal(scalar_type::u32, v);
            }
            if (s[0] == '-' || s[0] == '+' || s[0] == '.')
                fail(t, "expected an expression, found " + describe(t) +
                            " (a bare number is a u32; write other literals as (TYPE VALUE), e.g. (i32 -3))");
            if (!is_identifier(s)) fail(t, "expected an expression (a variable name, literal or '('), found " + describe(t));
            expr e;
            e.kind = expr_kind::var;
            e.name = std::string(s);
            return e;
        }
        if (t.kind != tok_kind::lparen) fail(t, "expected an expression, found " + describe(t));
        if (++depth_ > max_parse_depth)
            fail(t, "nesting deeper than " + std::to_string(max_parse_depth) + " parentheses");
        token head = atom("an expression operator");
        const auto h = head.text;
        expr e;
        if (auto ty = scalar_from_name(h)) {
            if (!is_compute(*ty))
                fail(head, "expected a literal of a compute type (bool u32 i32 u64 i64 f32 f64), found " + describe(head));
            token v = lx_.next();
            if (v.kind != tok_kind::atom) fail(v, "expected a " + std::string(h) + " value, found " + describe(v));
            e = literal(*ty, literal_bits(*ty, v));
            close("the literal");
            return e;
        }
        if (auto b = builtin_from_name(h)) {
            e.kind = expr_kind::builtin;
            e.bi = *b;
            token a = atom("an axis (x y z)");
            if (a.text == "x") e.ax = axis::x;
            else if (a.text == "y") e.ax = axis::y;
            else if (a.text == "z") e.ax = axis::z;
            else fail(a, "expected an axis (x y z), found " + describe(a));
            close("the built-in");
            return e;
        }
        if (h == "len") {
            e.kind = expr_kind::len;
            e.name = name("a buffer name");
        } else if (h == "load") {
            e.kind = expr_kind::load;
            e.name = name("a buffer name");
            e.args.push_back(expression());
        } else if (h == "select" || h == "fma") {
            e.kind = h == "select" ? expr_kind::select : expr_kind::fma;
            for (int i = 0; i < 3; ++i) e.args.push_back(expression());
        } else if (h == "cast" || h == "bitcast") {
            e.kind = h == "cast" ? expr_kind::cast : expr_kind::bitcast;
            e.type = type_name("a target type");
            e.args.push_back(expression());
        } else if (auto o = op_from_name(h)) {
            e.op = *o;
            if (is_unary(*o)) {
                e.kind = expr_kind::unary;
                e.args.push_back(expression());
            } else if (is_binary(*o)) {
                e.kind = expr_kind::binary;
                e.args.push_back(expression());
                e.args.push_back(expression());
            } else {
                e.kind = expr_kind::atomic;
                e.name = name("a buffer name");
                int n = *o == op_code::atomic_cas ? 3 : 2;
                for (int i = 0; i < n; ++i) e.args.push_back(expression());
            }
        } else {
            fail(head, "expected an expression operator (a type, gid lid wgid wgsize ngroups len load select cast "
                       "bitcast fma, or an operator such as add), found " + describe(head));
        }
        close("the '" + std::string(h) + "' expression (too many operands?)");
        return e;
    }

    /// Raw bits of `(TYPE VALUE)` for a compute type.
    std::uint64_t literal_bits(scalar_type t, const token& v) {
        const auto s = v.text;
        const std::string tn(name_of(t));
        auto out_of_range = [&]() -> std::uint64_t { fail(v, "literal " + describe(v) + " is out of range for " + tn); };
        const unsigned width = t == scalar_type::u64 || t == scalar_type::i64 || t == scalar_type::f64 ? 64 : 32;
        if (is_hex_literal(s)) {
            std::uint64_t bits = 0;
            if (!parse_u64(s, bits)) fail(v, "expected hex raw bits (0x followed by at most 16 hex digits), found " + describe(v));
            if (t == scalar_type::bool_ ? bits > 1 : (width == 32 && bits > 0xffffffffull)) return out_of_range();
            return bits;
        }
        switch (t) {
        case scalar_type::bool_:
            if (s == "true") return 1;
            if (s == "false") return 0;
            fail(v, "expected a bool value (true false or 0x raw bits), found " + describe(v));
        case scalar_type::u32:
        case scalar_type::u64: {
            std::uint64_t x = 0;
            if (!all_digits(s, 10)) fail(v, "expected a non-negative decimal integer for " + tn + ", found " + describe(v));
            if (!parse_u64(s, x, false)) return out_of_range();
            if (width == 32 && x > 0xffffffffull) return out_of_range();
            return x;
        }
        case scalar_type::i32:
        case scalar_type::i64: {
            bool negative = !s.empty() && s[0] == '-';
            auto digits = negative ? s.substr(1) : s;
            std::uint64_t mag = 0;
            if (!all_digits(digits, 10)) fail(v, "expected a decimal integer for " + tn + ", found " + describe(v));
            if (!parse_u64(digits, mag, false)) return out_of_range();
            const std::uint64_t limit = width == 32 ? 0x80000000ull : 0x8000000000000000ull;
            if (negative ? mag > limit : mag >= limit) return out_of_range();
            std::uint64_t bits = negative ? (~mag + 1) : mag;
            return width == 32 ? (bits & 0xffffffffull) : bits;
        }
        case scalar_type::f32:
        case scalar_type::f64: {
            const bool f64 = t == scalar_type::f64;
            if (s == "nan") return f64 ? 0x7ff8000000000000ull : 0x7fc00000ull;
            if (s == "inf") return f64 ? 0x7ff0000000000000ull : 0x7f800000ull;
            if (s == "-inf") return f64 ? 0xfff0000000000000ull : 0xff800000ull;
            bool ok = !s.empty();
            for (char c : s)
                if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) ok = false;
            if (ok) {
                std::from_chars_result r;
                std::uint64_t bits = 0;
                if (f64) {
                    double d = 0;
                    r = std::from_chars(s.data(), s.data() + s.size(), d);
                    bits = std::bit_cast<std::uint64_t>(d);
                } else {
                    float f = 0;
                    r = std::from_chars(s.data(), s.data() + s.size(), f);
                    bits = std::bit_cast<std::uint32_t>(f);
                }
                if (r.ec == std::errc::result_out_of_range) return out_of_range();
                if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return bits;
            }
            fail(v, "expected a " + tn + " value (decimal, inf, -inf, nan or 0x raw bits), found " + describe(v));
        }
        default: break;
        }
        fail(v, "expected a literal value, found " + describe(v));
    }

    lexer lx_;
    unsigned depth_ = 0;
};

} // namespace detail

/// The canonical text of one expression (used in diagnostics; any tree prints).
inline std::string print(const expr& e) {
    std::string out;
    detail::print_expr(out, e);
    return out;
}

/// The canonical text of a program, ending in a newline. Any tree prints;
/// for valid programs `parse(print(p)) == p`.
inline std::string print(const program& p) {
    std::string out = "(program";
    if (!p.name.empty()) out += " " + p.name;
    out += " (workgroup ";
    detail::append_dec(out, p.workgroup_size[0]);
    out += ' ';
    detail::append_dec(out, p.workgroup_size[1]);
    out += ' ';
    detail::append_dec(out, p.workgroup_size[2]);
    out += ')';
    for (const auto& b : p.buffers) {
        out += "\n  (buffer " + b.name + ' ';
        detail::append_dec(out, b.binding);
        out += ' ';
        out += detail::safe_name(b.acc);
        out += ' ';
        out += detail::safe_name(b.type);
        out += ' ';
        detail::append_dec(out, b.count);
        out += ')';
    }
    for (const auto& s : p.body) {
        detail::newline(out, 2);
        detail::print_stmt(out, s, 2);
    }
    out += ")\n";
    return out;
}

/// Parses the text form of one program. Never crashes: malformed input,
/// out-of-range literals and nesting deeper than 1024 parentheses give a
/// `parse_error` with the line and column of the offending token. Parsing
/// checks syntax only; run `validate` for the program's meaning.
inline result<program, parse_error> parse(std::string_view text) {
    try {
        detail::parser ps(text);
        return ps.parse_program();
    } catch (const detail::parse_failure& f) {
        return make_unexpected(parse_error{f.line, f.column, f.message});
    }
}

} // namespace vyre::ir
