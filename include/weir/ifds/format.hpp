#pragma once
/// \file weir/ifds/format.hpp
/// The `.ifds` text format, version 1 (spec: ifds-format.md): `load_problem`
/// reads it (two passes: declarations first, then statements, checked by the
/// shared `detail::problem_checker`), `print_problem` writes it.
///
/// The loader scans the input as string views (no per-token allocation), keeps
/// names in flat hash maps of ids (the names themselves are read from the
/// problem's own lists), and allocates only in proportion to the input's size.
/// A long run of statement lines after the declarations is read on several
/// threads (`load_options`, `loader::read_ahead`) and checked in line order
/// on the calling thread.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <vyre/backend/parallel.hpp>
#include <vyre/core/huge_pages.hpp>
#include <vyre/core/result.hpp>
#include <weir/ifds/builder.hpp>
#include <weir/ifds/problem.hpp>

namespace weir::ifds {

namespace detail {

/// Length of the valid UTF-8 sequence of 2 to 4 bytes at `p` (of `n`
/// bytes available), or 0 when the bytes there are not one (a stray
/// continuation byte, a bad lead byte, an overlong form, a surrogate, or a
/// sequence cut short).
inline std::size_t utf8_sequence(const unsigned char* p, std::size_t n) noexcept {
    const unsigned char b = p[0];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) len = 3, lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
    else if (b >= 0xf0 && b <= 0xf4) len = 4, lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
    if (len == 0 || len > n || p[1] < lo || p[1] > hi) return 0;
    for (std::size_t i = 2; i < len; ++i)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return len;
}

/// True for the code points that print nothing visible: the C1 controls,
/// line and paragraph separators, zero-width and direction marks, invisible
/// operators, variation selectors, tag characters, Hangul fillers and the
/// byte-order mark (U+FEFF).
constexpr bool invisible_code_point(std::uint32_t c) noexcept {
    return (c >= 0x80 && c <= 0x9f) || c == 0xad || c == 0x34f || c == 0x61c || c == 0x115f || c == 0x1160 ||
           c == 0x180e || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
           c == 0x3164 || (c >= 0xfe00 && c <= 0xfe0f) || c == 0xfeff || c == 0xffa0 || (c >= 0xfff9 && c <= 0xfffb) ||
           (c >= 0xe0000 && c <= 0xe007f);
}

/// `s` with every byte that a terminal should not receive raw written as
/// `\xNN`: control bytes (below 0x20, and 0x7f), bytes that are not part of
/// valid UTF-8, and the bytes of characters that print nothing visible
/// (`invisible_code_point`); a backslash is written `\\`, so that an escape
/// and the same text in the input read differently. Printable ASCII and
/// other valid UTF-8 stay as they are.
inline std::string escape_unprintable(std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    auto escape = [&](unsigned char u) {
        out += "\\x";
        out += hex[u >> 4];
        out += hex[u & 15];
    };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char u = p[i];
        if (u == '\\') {
            out += "\\\\";
            ++i;
        } else if (u >= 0x20 && u < 0x7f) {
            out += static_cast<char>(u);
            ++i;
        } else if (const std::size_t len = u >= 0x80 ? utf8_sequence(p + i, s.size() - i) : 0) {
            std::uint32_t c = u & (0x7fu >> len);  // the code point: the lead byte's bits, then 6 per byte
            for (std::size_t k = 1; k < len; ++k) c = (c << 6) | (p[i + k] & 0x3fu);
            if (invisible_code_point(c))
                for (std::size_t k = 0; k < len; ++k) escape(p[i + k]);
            else
                out.append(s.data() + i, len);
            i += len;
        } else {
            escape(u);
            ++i;
        }
    }
    return out;
}

} // namespace detail

/// An error found while loading a `.ifds` file: the first one in line order.
struct load_error {
    /// The file name given to the loader.
    std::string file;
    /// 1-based line of the error (0 when the file could not be read).
    std::uint32_t line = 0;
    /// The offending token (cut to 64 bytes and `...`), as it is in the
    /// input; empty at the end of a line, at the end of the file, or when the
    /// file could not be read.
    std::string token;
    /// What is wrong and what was expected (it may quote the token as it is).
    std::string message;

    /// `FILE:LINE: error: MESSAGE (at 'TOKEN')`, safe to print: control bytes
    /// and bytes that are not valid UTF-8, in the message and the token, are
    /// written as `\xNN` (`detail::escape_unprintable`); the `(at ...)` part is
    /// left out for an empty token.
    std::string what() const {
        std::string s = detail::escape_unprintable(file);
        if (line != 0) s += ":" + std::to_string(line);
        s += ": error: ";
        s += detail::escape_unprintable(message);
        if (!token.empty()) s += " (at '" + detail::escape_unprintable(token) + "')";
        return s;
    }
};

/// How `load_problem` reads a text.
struct load_options {
    /// Threads that read the statement lines (`flow`, `call`, ...) once the
    /// declarations above them are in; 0: one per core. The declarations
    /// and the checks are read on the calling thread, in line order, so the
    /// problem and the first error are the same for every thread count.
    unsigned threads = 0;
    /// Below this many bytes of statement lines the text is read on the
    /// calling thread alone.
    std::size_t min_parallel_bytes = std::size_t{1} << 20;
    /// The statement lines go to the threads in runs of whole lines of
    /// about this many bytes (small enough that a run's statements are
    /// still in cache when the calling thread checks them).
    std::size_t chunk_bytes = std::size_t{1} << 15;
};

namespace detail {

/// Splits one line (without its LF/CR) into tokens: runs of bytes other than
/// space, tab and `#`; a `#` starts a comment that ends the line.
struct line_cursor {
    const char* p;
    const char* e;

    /// The next token, or an empty view at the end of the line.
    std::string_view next() noexcept {
        while (p < e && (*p == ' ' || *p == '\t')) ++p;
        if (p == e || *p == '#') {
            p = e;
            return {};
        }
        const char* b = p;
        ++p;
        if constexpr (std::endian::native == std::endian::little) {
            // eight bytes a step while eight remain on the line, then one at a time
            while (e - p >= 8) {
                std::uint64_t w;
                std::memcpy(&w, p, 8);
                if (const std::uint64_t m = token_end_mask(w)) {
                    p += std::countr_zero(m) / 8;
                    return {b, static_cast<std::size_t>(p - b)};
                }
                p += 8;
            }
        }
        while (p < e && *p != ' ' && *p != '\t' && *p != '#') ++p;
        return {b, static_cast<std::size_t>(p - b)};
    }

private:
    /// High bit set in each byte of `w` that is zero, exact up to and
    /// including the lowest such byte (above it, a borrow can set more: only
    /// the lowest is used, which is the first in memory on little-endian).
    static constexpr std::uint64_t zero_bytes(std::uint64_t w) noexcept {
        return (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
    }
    /// Bytes of `w` that end a token (blank, tab, `#`), as `zero_bytes` marks them.
    static constexpr std::uint64_t token_end_mask(std::uint64_t w) noexcept {
        constexpr std::uint64_t ones = 0x0101010101010101ULL;
        return zero_bytes(w ^ (ones * ' ')) | zero_bytes(w ^ (ones * '\t')) | zero_bytes(w ^ (ones * '#'));
    }
};

/// The statements that pass 2 reads.
enum class statement_kind : std::uint8_t { flow, call, callflow, retflow, ctrflow, seed };

/// Keyword classes recognised by pass 1.
enum class keyword : std::uint8_t { unknown, ifds, facts, proc, node, flow, call, callflow, retflow, ctrflow, seed };

/// Classifies a statement keyword.
inline keyword classify(std::string_view k) noexcept {
    auto eq = [&](std::string_view kw) { return same_bytes(k.data(), kw.data(), kw.size()); };  // sizes already match
    switch (k.size()) {
    case 4:
        if (eq("flow")) return keyword::flow;
        if (eq("node")) return keyword::node;
        if (eq("call")) return keyword::call;
        if (eq("proc")) return keyword::proc;
        if (eq("seed")) return keyword::seed;
        if (eq("ifds")) return keyword::ifds;
        return keyword::unknown;
    case 5: return eq("facts") ? keyword::facts : keyword::unknown;
    case 7:
        if (eq("retflow")) return keyword::retflow;
        if (eq("ctrflow")) return keyword::ctrflow;
        return keyword::unknown;
    case 8: return eq("callflow") ? keyword::callflow : keyword::unknown;
    default: return keyword::unknown;
    }
}

/// The statement kind keyword `w` starts, if it starts one.
inline std::optional<statement_kind> statement_of(keyword w) noexcept {
    switch (w) {
    case keyword::flow: return statement_kind::flow;
    case keyword::call: return statement_kind::call;
    case keyword::callflow: return statement_kind::callflow;
    case keyword::retflow: return statement_kind::retflow;
    case keyword::ctrflow: return statement_kind::ctrflow;
    case keyword::seed: return statement_kind::seed;
    default: return std::nullopt;
    }
}

/// How many statements of each kind a text has, read off the first word of
/// each line (a quick upper-bound estimate for reserving; the scan checks).
struct statement_counts {
    std::size_t facts = 0;         ///< words on `facts` lines
    std::size_t nodes = 0;         ///< `node` lines, plus two per `proc` line
    std::size_t flows = 0;         ///< `flow` lines
    std::size_t calls = 0;         ///< `call` lines
    std::size_t callee_flows = 0;  ///< `callflow` and `retflow` lines
    std::size_t ctrflows = 0;      ///< `ctrflow` lines
};

/// Counts the statements of [p, end) by their keyword.
inline statement_counts count_statements(const char* p, const char* end) noexcept;

/// `count_statements` of [p, end) on up to `threads` threads, each counting
/// a run of whole lines (texts under `min_bytes` on the calling thread).
inline statement_counts count_statements(const char* p, const char* end, unsigned threads, std::size_t min_bytes) {
    const auto size = static_cast<std::size_t>(end - p);
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, size / 65536 + 1));  // runs of 64 KiB at least
    if (threads <= 1 || size < min_bytes) return count_statements(p, end);
    std::vector<const char*> cut(threads + 1, end);  // run t is [cut[t], cut[t+1]), each after an LF
    cut[0] = p;
    for (unsigned t = 1; t < threads; ++t) {
        const char* from = std::max(cut[t - 1], p + size / threads * t);
        const char* nl = from < end ? static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from))) : nullptr;
        cut[t] = nl ? nl + 1 : end;
    }
    std::vector<statement_counts> part(threads);
    vyre::parallel_region(threads, [&](unsigned t, unsigned nt) {
        for (unsigned k = t; k < threads; k += nt) part[k] = count_statements(cut[k], cut[k + 1]);
    });
    statement_counts n;
    for (const statement_counts& c : part) {
        n.facts += c.facts, n.nodes += c.nodes, n.flows += c.flows;
        n.calls += c.calls, n.callee_flows += c.callee_flows, n.ctrflows += c.ctrflows;
    }
    return n;
}

inline statement_counts count_statements(const char* p, const char* end) noexcept {
    statement_counts n;
    auto is = [](const char* b, const char* e, const char* kw, std::size_t len) {
        return static_cast<std::size_t>(e - b) > len && std::memcmp(b, kw, len) == 0 && (b[len] == ' ' || b[len] == '\t');
    };
    while (p < end) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        const char* e = nl ? nl : end;
        while (p < e && (*p == ' ' || *p == '\t')) ++p;
        if (p < e) {
            switch (*p) {
            case 'f':
                if (is(p, e, "facts", 5)) {
                    for (const char* q = p + 5; q < e && *q != '#'; ++q)  // words: a blank, then a non-blank
                        n.facts += (q[-1] == ' ' || q[-1] == '\t') && *q != ' ' && *q != '\t';
                } else {
                    n.flows += is(p, e, "flow", 4);
                }
                break;
            case 'n': n.nodes += is(p, e, "node", 4); break;
            case 'p': n.nodes += 2 * is(p, e, "proc", 4); break;
            case 'c':
                n.calls += is(p, e, "call", 4);
                n.callee_flows += is(p, e, "callflow", 8);
                n.ctrflows += is(p, e, "ctrflow", 7);
                break;
            case 'r': n.callee_flows += is(p, e, "retflow", 7); break;
            default: break;
            }
        }
        p = nl ? nl + 1 : end;
    }
    return n;
}

/// What the `.ide` format (ide-format.md) adds to the `.ifds` loader: the
/// loader hands it each term's edge function (`a>b=EF`, `gen:a,b=EF`) and
/// each seed's value as it reads them, so their errors come in line order
/// with the others, and then each statement's keys before the checker takes
/// it. `weir::ide::load_problem` implements it for a family; without one the
/// loader reads plain `.ifds`, where `=EF` is an error.
struct term_extension {
    virtual ~term_extension() = default;
    /// A statement starts: forget what was kept for one that was not finished.
    virtual void begin_statement() = 0;
    /// The family the header names: `ide 1 FAMILY`.
    virtual std::string_view family() const = 0;
    /// Keeps the edge function `ef` of the term relating d to t in the
    /// statement being read; returns why it is malformed, or "" when it is not.
    virtual std::string edge_function(fact_id d, fact_id t, std::string_view ef) = 0;
    /// Keeps a seed's value; returns why it is malformed, or "".
    virtual std::string seed_value(std::string_view v) = 0;
    /// The statement just read (its kind, its two keys: FROM TO, SITE CALLEE,
    /// SITE, or NODE FACT, and its flow function before the checker sorts it);
    /// what was kept for it belongs to these keys.
    virtual void statement(statement_kind kind, std::uint32_t a, std::uint32_t b, const flow_function* f) = 0;
};

/// The names of declared facts, procedures and nodes, by id, as the
/// loader's name tables read them.
struct fact_name_of {
    const problem* p;
    std::string_view operator()(fact_id f) const noexcept { return p->facts[f - 1]; }
};
/// See `fact_name_of`.
struct proc_name_of {
    const problem* p;
    std::string_view operator()(proc_id q) const noexcept { return p->procs[q].name; }
};
/// See `fact_name_of`.
struct node_name_of {
    const problem* p;
    std::string_view operator()(node_id n) const noexcept { return p->nodes[n].name; }
};

/// `s` in quotes for a message, cut to 64 bytes followed by `...`.
inline std::string quote_token(std::string_view s) {
    return "'" + std::string(s.substr(0, 64)) + (s.size() > 64 ? "...'" : "'");
}

/// A statement read into ids: what the checker takes.
struct statement_fields {
    std::uint32_t a = none32;  ///< FROM, SITE or NODE
    std::uint32_t b = none32;  ///< TO, CALLEE or FACT
    std::uint32_t c = none32;  ///< a call's RETSITE
    flow_function f;           ///< the flow function of flow, callflow, retflow, ctrflow
};

/// Reads statement lines into `statement_fields` against the names declared
/// so far (read only: several readers may share one loader's tables, one
/// per thread). With an error sink it reports what is wrong, in the
/// loader's words; without one (`err` null) it only fails, for the loader
/// to read the line again itself.
class statement_reader {
public:
    /// Reads names from `p`'s declarations through the three name tables.
    statement_reader(const problem& p, const name_map<fact_name_of>& facts, const name_map<proc_name_of>& procs,
                     const name_map<node_name_of>& nodes, first_error* err, term_extension* ext) noexcept
        : p_(p), facts_(facts), procs_(procs), nodes_(nodes), err_(err), ext_(ext) {}

    bool eager = true;               ///< a name not declared yet may be declared further down
    bool need_defer = false;         ///< the statement being read uses a name not declared yet
    bool repeated_node_name = false; ///< some node name was declared twice

    /// Reports an error at `line` (without an error sink: nothing).
    void report(std::uint64_t line, std::string_view token, std::string msg) {
        if (err_) err_->report(line, token, std::move(msg));
    }

    /// A name that is not declared: while checking eagerly, a declared-later
    /// name is possible, so the statement waits; otherwise it is an error.
    void unknown(std::uint64_t line, std::string_view t, const char* what, const char* expected) {
        if (is_valid_name(t)) {
            if (eager) {
                need_defer = true;
                return;
            }
            report(line, t, std::string("unknown ") + what + " " + quote_token(t) + ": expected " + expected);
        } else {
            report(line, t, std::string("malformed ") + what + " name " + quote_token(t) + ": expected " + expected);
        }
    }

    /// Reads one statement of kind `kind` from `c` (after its keyword) into
    /// `s`; false when it is malformed or names something not declared
    /// (reported, or deferred while `eager`). A call that fails keeps in `s`
    /// the site and callee it read (for `problem_checker::note_call`).
    bool read(std::uint64_t line, line_cursor& c, statement_kind kind, statement_fields& s) {
        switch (kind) {
        case statement_kind::flow:
            if ((s.a = node_ref(line, c, "FROM")) == none32) return false;
            if ((s.b = node_ref(line, c, "TO")) == none32) return false;
            return parse_ff(line, c, s.f);
        case statement_kind::call:
            if ((s.a = node_ref(line, c, "SITE")) == none32) return false;
            if ((s.b = proc_ref(line, c)) == none32) return false;
            if ((s.c = node_ref(line, c, "RETSITE")) == none32) return false;
            return end_of_line(line, c, "call SITE CALLEE RETSITE");
        case statement_kind::callflow:
        case statement_kind::retflow:
            if ((s.a = node_ref(line, c, "SITE")) == none32) return false;
            if ((s.b = proc_ref(line, c)) == none32) return false;
            return parse_ff(line, c, s.f);
        case statement_kind::ctrflow:
            if ((s.a = node_ref(line, c, "SITE")) == none32) return false;
            return parse_ff(line, c, s.f);
        case statement_kind::seed: {
            if ((s.a = node_ref(line, c, "NODE")) == none32) return false;
            const std::string_view t = c.next();
            if (t.empty()) {
                report(line, "", "expected a fact name or `0` (FACT), found end of line");
                return false;
            }
            if ((s.b = fact_item(line, t)) == none32) return false;
            if (!ext_) return end_of_line(line, c, "seed NODE FACT");
            if (const std::string_view v = c.next(); !v.empty()) {
                if (std::string why = ext_->seed_value(v); !why.empty()) {
                    report(line, v, why);
                    return false;
                }
            }
            return end_of_line(line, c, "seed NODE FACT [VALUE]");
        }
        }
        return false;
    }

private:
    node_id node_ref(std::uint64_t line, line_cursor& c, const char* role) {
        const std::string_view t = c.next();
        if (t.empty()) {
            report(line, "", std::string("expected a node name (") + role + "), found end of line");
            return none32;
        }
        const node_id n = find_node(t);
        if (n == none32) unknown(line, t, "node", "a node declared by `proc` or `node`");
        return n;
    }

    /// The node named `t`, or `none32`. Files list flows and calls in node
    /// order, near the node named before, so the nodes around the last one
    /// found are tried first (the last, the next, the one before, then up to
    /// `near_window` either way; on generated files nine lookups in ten end
    /// there), before the name table (whose probes miss the cache on large
    /// files); only while no node name is repeated (then a name has one node).
    /// Then a small direct-mapped cache of recent table answers.
    node_id find_node(std::string_view t) {
        if (!repeated_node_name) {
            const std::size_t n = p_.nodes.size();
            auto is = [&](std::size_t cand) { return cand < n && same_name(p_.nodes[cand].name, t); };
            const std::size_t last = last_node_;
            if (is(last)) return last_node_;
            for (std::size_t d = 1; d <= near_window; ++d) {  // last + 1, last - 1, last + 2, ...
                if (is(last + d)) return last_node_ = static_cast<node_id>(last + d);
                if (d <= last && is(last - d)) return last_node_ = static_cast<node_id>(last - d);
            }
        }
        const std::uint64_t h = name_hash(t);
        recent_name& r = recent_nodes_[h % recent_slots];
        if (r.hash == h && r.id != none32 && same_name(p_.nodes[r.id].name, t)) return last_node_ = r.id;
        const node_id n = nodes_.find_hashed(t, h);
        if (n != none32) r = recent_name{h, n}, last_node_ = n;
        return n;
    }

    proc_id proc_ref(std::uint64_t line, line_cursor& c) {
        const std::string_view t = c.next();
        if (t.empty()) {
            report(line, "", "expected a procedure name (CALLEE), found end of line");
            return none32;
        }
        const proc_id qid = procs_.find(t);
        if (qid == none32) unknown(line, t, "procedure", "a procedure declared by `proc`");
        return qid;
    }

    fact_id fact_item(std::uint64_t line, std::string_view t) {
        if (t.size() == 1 && t[0] == '0') return zero_fact;
        const fact_id f = find_fact(t);
        if (f == none32) unknown(line, t, "fact", "`0` or a fact declared by `facts`");
        return f;
    }

    /// The fact named `t`, or `none32`. Neighbouring lines name the same few
    /// facts (those of one procedure), so a small direct-mapped cache of
    /// recent hits answers many lookups without probing the name table.
    fact_id find_fact(std::string_view t) {
        const std::uint64_t h = name_hash(t);
        recent_name& r = recent_facts_[h % recent_slots];
        if (r.hash == h && r.id != none32 && same_name(p_.facts[r.id - 1], t)) return r.id;
        const fact_id f = facts_.find_hashed(t, h);
        if (f != none32) r = recent_name{h, f};
        return f;
    }

    bool end_of_line(std::uint64_t line, line_cursor& c, const char* form) {
        const std::string_view t = c.next();
        if (t.empty()) return true;
        report(line, t, "unexpected token " + quote_token(t) + ": expected end of line after `" + form + "`");
        return false;
    }

    bool fact_list(std::uint64_t line, std::string_view term, std::size_t i, std::vector<fact_id>& out,
                   std::string_view zero_msg) {
        const std::size_t need = out.size() + 1 + static_cast<std::size_t>(std::count(term.begin() + i, term.end(), ','));
        if (need > out.capacity()) out.reserve(std::max(need, 2 * out.capacity()));  // geometric: many terms stay linear
        for (;;) {
            std::size_t j = term.find(',', i);
            if (j == std::string_view::npos) j = term.size();
            const std::string_view item = term.substr(i, j - i);
            if (item.empty()) {
                report(line, term, "malformed term " + quote_token(term) + ": expected a fact name after '" +
                                       std::string(term.substr(0, i)) + "' (lists are a,b,c)");
                return false;
            }
            const fact_id f = fact_item(line, item);
            if (f == none32) return false;
            if (f == zero_fact) {
                report(line, term, std::string(zero_msg));
                return false;
            }
            out.push_back(f);
            if (j == term.size()) return true;
            i = j + 1;
        }
    }

    /// A term's `=EF` (the `.ide` format), handed to the extension for each
    /// pair (d, t) it relates; reports the extension's reason when malformed.
    bool term_function(std::uint64_t line, std::string_view term, std::string_view ef, fact_id d,
                       std::span<const fact_id> targets) {
        for (fact_id t : targets) {
            if (std::string why = ext_->edge_function(d, t, ef); !why.empty()) {
                report(line, term, why);
                return false;
            }
        }
        return true;
    }

    static bool is_id_term(std::string_view t) noexcept { return t.size() == 2 && t[0] == 'i' && t[1] == 'd'; }
    static bool is_kill_term(std::string_view t) noexcept {
        return t.size() >= 5 && std::memcmp(t.data(), "kill:", 5) == 0;
    }

    bool parse_ff(std::uint64_t line, line_cursor& c, flow_function& f) {
        for (std::string_view t = c.next(); !t.empty(); t = c.next()) {
            std::string_view ef;        // the term's `=EF`, if any
            const std::string_view whole = t;  // (errors quote the whole term)
            if (const std::size_t eq = t.find('='); eq != std::string_view::npos) {
                if (!ext_) {
                    report(line, t, "malformed term " + quote_token(t) + ": edge functions (=EF) belong to `.ide` files");
                    return false;
                }
                ef = t.substr(eq + 1);
                t = t.substr(0, eq);
                if (is_id_term(t) || is_kill_term(t)) {
                    report(line, whole, "malformed term " + quote_token(whole) + ": `id` and `kill:` take no edge function");
                    return false;
                }
                if (ef.empty()) {
                    report(line, whole, "malformed term " + quote_token(whole) + ": expected an edge function after '='");
                    return false;
                }
            }
            if (is_id_term(t)) {
                f.identity = true;
            } else if (is_kill_term(t)) {
                if (!fact_list(line, t, 5, f.kill, msg_kill_zero)) return false;
            } else if (t.size() >= 4 && std::memcmp(t.data(), "gen:", 4) == 0) {
                const std::size_t before = f.gen.size();
                if (!fact_list(line, t, 4, f.gen, msg_gen_zero)) return false;
                if (!ef.empty() && !term_function(line, whole, ef, zero_fact,
                                                  std::span<const fact_id>(f.gen.data() + before, f.gen.size() - before)))
                    return false;
            } else if (const std::size_t gt = t.find('>'); gt != std::string_view::npos) {
                const std::string_view a = t.substr(0, gt), b = t.substr(gt + 1);
                if (a.empty() || b.empty()) {
                    report(line, whole, "malformed pair " + quote_token(whole) + ": expected A>B with two fact names");
                    return false;
                }
                const fact_id fa = fact_item(line, a);
                if (fa == none32) return false;
                const fact_id fb = fact_item(line, b);
                if (fb == none32) return false;
                if (fb == zero_fact) {
                    report(line, t, std::string(fa == zero_fact ? msg_pair_zero_zero : msg_pair_to_zero));
                    return false;
                }
                if (f.pairs.empty()) {
                    // room for every pair on the rest of the line at once (no regrowth: fewer fresh heap pages)
                    f.pairs.reserve(static_cast<std::size_t>(std::count(t.data() + gt, c.e, '>')));
                }
                f.pairs.emplace_back(fa, fb);
                if (!ef.empty() && !term_function(line, whole, ef, fa, std::span<const fact_id>(&fb, 1))) return false;
            } else {
                report(line, whole, "malformed flow-function term " + quote_token(whole) +
                                        ": expected id, kill:F,..., gen:F,... or A>B");
                return false;
            }
        }
        return true;
    }

    const problem& p_;
    const name_map<fact_name_of>& facts_;
    const name_map<proc_name_of>& procs_;
    const name_map<node_name_of>& nodes_;
    first_error* err_;
    term_extension* ext_;
    node_id last_node_ = 0;             ///< the node `find_node` found last
    static constexpr std::size_t near_window = 16;  ///< see `find_node`
    struct recent_name {
        std::uint64_t hash = 0;
        std::uint32_t id = none32;
    };
    static constexpr std::size_t recent_slots = 256;
    recent_name recent_facts_[recent_slots];  ///< `find_fact`'s cache
    recent_name recent_nodes_[recent_slots];  ///< `find_node`'s cache
};

/// The `.ifds` loader (one use).
///
/// One scan reads the header and the declarations, and checks each statement
/// at once while every name it uses is already declared (the usual
/// declare-before-use file: the name tables are still in cache). From the first
/// statement that uses a name not yet declared (or a node whose procedure is not
/// yet declared), statements are kept and checked after the scan, in line
/// order, so the checker sees every statement in line order either way.
class loader {
public:
    /// Prepares to load `text`, naming it `file` in errors; `opt` says how
    /// many threads may read its statements (never with an extension).
    loader(std::string_view text, std::string_view file, term_extension* ext = nullptr, load_options opt = {})
        : text_(text), file_(file), ext_(ext), ck_(p_, err_, "line"),
          threads_(opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency())),
          min_parallel_bytes_(opt.min_parallel_bytes), chunk_bytes_(std::max<std::size_t>(1, opt.chunk_bytes)) {
        ck_.terms_checked_by_caller();  // parse_ff applies the term rules as it reads
    }

    /// Loads the problem or returns the first error in line order.
    vyre::result<problem, load_error> run() {
        scan();
        if (!fatal_) {
            rd_.eager = false;
            rd_.need_defer = false;  // (the scan's last deferral: a faulty call read below must still be noted)
            resolve_nodes();
            for (const statement& s : stmts_) statement_line(s.line, s.b, s.e, s.kind);
            ck_.finish(last_line_);
        }
        if (const auto& d = err_.get()) {
            load_error e;
            e.file.assign(file_);
            e.line = d->pos > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(d->pos);
            e.token = d->token;
            e.message = d->message;
            return vyre::make_unexpected(std::move(e));
        }
        return std::move(p_);
    }

private:
    struct statement {
        std::uint64_t line;
        const char* b;
        const char* e;
        statement_kind kind;
    };
    struct pending_node {
        node_id id;
        std::uint64_t line;
        std::string_view proc_name;
    };

    void report(std::uint64_t line, std::string_view token, std::string msg) {
        err_.report(line, token, std::move(msg));
    }

    // ---- the scan: header, declarations, statements ------------------------

    void scan() {
        const char* p = text_.data();
        const char* const end = p + text_.size();
        if (text_.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
        {
            // reserve once, from a count of the statements (the arrays are then
            // filled without moving, in storage hinted for huge pages; capped so
            // that a huge input grows its arrays instead of reserving far ahead)
            const statement_counts n = count_statements(p, end, ext_ ? 1 : threads_, min_parallel_bytes_);
            constexpr auto whole = vyre::detail::huge_blocks::whole;  // filled at once and to the end
            constexpr std::size_t cap = std::size_t{1} << 24;
            const std::size_t nodes = std::min(n.nodes, cap);
            vyre::detail::reserve_huge(p_.nodes, nodes, whole);
            vyre::detail::reserve_huge(node_line_, nodes, whole);
            // the name tables at once too (growing them by doubling touches twice the memory),
            // with a slot for each name up to 1 per 16 bytes of input, so that a file of one
            // name repeated stays small
            nodes_.reserve(std::min(nodes, text_.size() / 16));
            facts_.reserve(std::min(n.facts, text_.size() / 16));
            const std::size_t facts = std::min({n.facts, cap, text_.size() / 16});
            vyre::detail::reserve_huge(p_.facts, facts, whole);
            vyre::detail::reserve_huge(fact_line_, facts, whole);
            ck_.reserve(nodes, std::min(n.flows, cap));
            const std::size_t keys = std::min(cap, text_.size() / 16);  // (key tables: as for the name table)
            ck_.reserve_calls(std::min(n.calls, keys), std::min(n.callee_flows, keys), std::min(n.ctrflows, keys));
            // while this thread reads the declarations alone, another core backs the arrays
            // just reserved with memory (stopped when the read-ahead takes every core); at most
            // 4 bytes per byte of text (generated files need about 2), so that a text whose
            // lines only look like statements does not fill memory with arrays it never uses
            if (threads_ > 1 && !ext_ && text_.size() >= min_parallel_bytes_) {
                std::vector<vyre::detail::background_populate::region> regions{
                    {p_.nodes.data(), p_.nodes.capacity() * sizeof(node)},
                    {node_line_.data(), node_line_.capacity() * sizeof(std::uint64_t)}};
                ck_.reserved_regions(regions);
                populate_.emplace(std::move(regions), 4 * text_.size());
            }
        }
        std::uint64_t line = 0;
        while (p < end) {
            ++line;
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
            const char* le = nl ? nl : end;
            const char* ce = le;
            if (ce > p && ce[-1] == '\r') --ce;
            scan_line(line, p, ce);
            if (fatal_) return;
            if (read_ahead_wanted_) {  // scan_line left this line to the read-ahead
                read_ahead_wanted_ = false;
                const resume_point r = read_ahead(p, end, line);
                p = r.at;
                line = r.line - 1;
                continue;
            }
            p = nl ? nl + 1 : end;
        }
        flush_nodes();
        populate_.reset();
        last_line_ = line == 0 ? 1 : line;
        if (!header_seen_) {
            report(last_line_, "", "missing header: expected `" + header() + "` as the first statement, found no statement");
            fatal_ = true;
        }
    }

    void scan_line(std::uint64_t line, const char* b, const char* e) {
        line_cursor c{b, e};
        const std::string_view kw = c.next();
        if (kw.empty()) return;
        if (!header_seen_) {
            header_line(line, kw, c);
            return;
        }
        statement_kind k;
        if (ext_ && kw == "ide") {
            report(line, kw, "repeated header: `" + header() + "` must appear once, as the first statement");
            return;
        }
        const keyword w = classify(kw);
        switch (w) {
        case keyword::ifds:
            report(line, kw, "repeated header: `" + header() + "` must appear once, as the first statement");
            return;
        case keyword::facts: declare_facts(line, c); return;
        case keyword::proc: declare_proc(line, c); return;
        case keyword::node: declare_node(line, c); return;
        default: break;
        }
        if (const std::optional<statement_kind> sk = statement_of(w)) {
            k = *sk;
        } else {
            report(line, kw,
                   "unknown statement " + quote_token(kw) +
                       ": expected one of facts, proc, node, flow, call, callflow, retflow, ctrflow, seed");
            return;
        }
        if (!rd_.eager) {
            // after an error, only calls still matter (they match earlier callflow lines)
            if (err_.open_at(line) || k == statement_kind::call) stmts_.push_back(statement{line, c.p, c.e, k});
            return;
        }
        if (!read_ahead_tried_ && threads_ > 1 && !ext_ && !err_.any() &&
            static_cast<std::size_t>(text_.data() + text_.size() - b) >= min_parallel_bytes_) {
            read_ahead_tried_ = read_ahead_wanted_ = true;  // the first statement of a long rest: see read_ahead
            return;
        }
        rd_.need_defer = false;
        if (batch_size_) flush_nodes();
        statement_line(line, c.p, c.e, k);
        if (rd_.need_defer) {
            rd_.eager = false;
            stmts_.push_back(statement{line, c.p, c.e, k});
        }
    }

    /// The header this file must start with.
    std::string header() const { return ext_ ? "ide 1 " + std::string(ext_->family()) : std::string("ifds 1"); }

    void header_line(std::uint64_t line, std::string_view kw, line_cursor& c) {
        fatal_ = true;  // nothing before the header can hold an error: any error here is the first
        if (ext_) {
            const std::string_view v = c.next(), fam = c.next(), x = c.next();
            if (kw != "ide" || v != "1" || fam != ext_->family() || !x.empty()) {
                const std::string_view bad = kw != "ide" ? kw : v != "1" ? v : fam != ext_->family() ? fam : x;
                report(line, bad, "malformed header: expected `" + header() + "` as the first statement");
                return;
            }
            fatal_ = false;
            header_seen_ = true;
            return;
        }
        if (kw != "ifds") {
            report(line, kw, "missing header: expected `ifds 1` as the first statement, found " + quote_token(kw));
            return;
        }
        const std::string_view v = c.next();
        if (v.empty()) {
            report(line, "", "expected the format version `1` after `ifds`, found end of line");
            return;
        }
        if (v != "1") {
            report(line, v, "unsupported format version " + quote_token(v) + ": expected `ifds 1`");
            return;
        }
        if (const std::string_view x = c.next(); !x.empty()) {
            report(line, x, "unexpected token after `ifds 1`: expected end of line");
            return;
        }
        fatal_ = false;
        header_seen_ = true;
    }

    bool check_decl_name(std::uint64_t line, std::string_view t, const char* what) {
        if (is_valid_name(t)) return true;
        report(line, t, std::string("malformed ") + what + " name " + quote_token(t) + ": expected a name " +
                            std::string(name_syntax));
        return false;
    }

    void declare_facts(std::uint64_t line, line_cursor& c) {
        // the table slots of the line's first names are fetched ahead, all at once
        constexpr std::size_t ahead = 32;
        std::uint64_t hashes[ahead];
        std::size_t n = 0;
        for (line_cursor look = c; n < ahead;) {
            const std::string_view t = look.next();
            if (t.empty()) break;
            hashes[n] = name_hash(t);
            facts_.prefetch(hashes[n++]);
        }
        std::size_t i = 0;
        for (std::string_view t = c.next(); !t.empty(); t = c.next(), ++i) {
            if (t == "0") {
                report(line, t, "the zero fact '0' is implicit and is never declared: expected a fact name");
                continue;
            }
            if (!check_decl_name(line, t, "fact")) continue;
            const auto id = static_cast<fact_id>(p_.facts.size() + 1);
            const auto [old, fresh] = i < n ? facts_.insert_hashed(t, hashes[i], id) : facts_.insert(t, id);
            if (!fresh) {
                if (err_.open_at(line))  // (a file of one name repeated builds one message, not millions)
                    report(line, t, "fact " + quote_token(t) + " is already declared at line " + std::to_string(fact_line_[old - 1]));
                continue;
            }
            p_.facts.emplace_back(t);
            fact_line_.push_back(line);
        }
    }

    /// Declares a node (a fresh id even when the name is taken, so that ids
    /// stay in line order); reports a repeated name. An empty name is a node
    /// without a name (after an error).
    node_id new_node(std::uint64_t line, std::string_view name, proc_id owner, node_role role) {
        const auto id = static_cast<node_id>(p_.nodes.size());
        node& nd = p_.nodes.emplace_back();
        nd.name.assign(name.data(), name.size());
        nd.proc = owner;
        node_line_.push_back(line);
        ck_.add_node(role);
        if (!name.empty()) {
            // batched: the table slots are fetched ahead, many at a time (every
            // batched node is in the problem already: the table reads names by id)
            const std::uint64_t h = name_hash(name);
            nodes_.prefetch(h);
            batch_[batch_size_++] = batched_node{name, h, id, line};
            if (batch_size_ == batch_capacity) flush_nodes();
        }
        return id;
    }

    /// Enters the batched node names into the table (before any lookup).
    void flush_nodes() {
        for (std::size_t i = 0; i < batch_size_; ++i) {
            const batched_node& b = batch_[i];
            const auto [old, fresh] = nodes_.insert_hashed(b.name, b.hash, b.id);
            rd_.repeated_node_name |= !fresh;
            if (!fresh && err_.open_at(b.line))
                report(b.line, b.name, "node " + quote_token(b.name) + " is already declared at line " +
                                           std::to_string(node_line_[old]));
        }
        batch_size_ = 0;
    }

    void declare_proc(std::uint64_t line, line_cursor& c) {
        const std::string_view name = c.next();
        if (name.empty()) {
            report(line, "", "expected `proc NAME START EXIT`: missing the procedure name at end of line");
            return;
        }
        const std::string_view s = c.next();
        const std::string_view x = s.empty() ? std::string_view{} : c.next();
        bool ok = check_decl_name(line, name, "procedure");
        if (s.empty()) {
            report(line, "", "expected `proc NAME START EXIT`: missing the start node name at end of line");
            return;
        }
        ok = check_decl_name(line, s, "node") && ok;
        if (x.empty()) {
            report(line, "", "expected `proc NAME START EXIT`: missing the exit node name at end of line");
            return;
        }
        ok = check_decl_name(line, x, "node") && ok;
        if (!ok) return;
        const auto qid = static_cast<proc_id>(p_.procs.size());
        const auto [old, fresh] = procs_.insert(name, qid);
        if (!fresh)
            report(line, name, "procedure " + quote_token(name) + " is already declared at line " +
                                   std::to_string(proc_line_[old]));
        // the procedure first, so that the checker sees its nodes' roles
        p_.procs.push_back(procedure{std::string(name), static_cast<node_id>(p_.nodes.size()),
                                     static_cast<node_id>(p_.nodes.size() + 1)});
        proc_line_.push_back(line);
        new_node(line, s, qid, node_role::start);
        if (x == s)
            report(line, x, "the start and exit nodes of a procedure must be distinct: expected a new exit node name");
        new_node(line, x == s ? std::string_view{} : x, qid, node_role::exit);
        if (const std::string_view extra = c.next(); !extra.empty())
            report(line, extra, "unexpected token " + quote_token(extra) + ": expected end of line after `proc NAME START EXIT`");
    }

    void declare_node(std::uint64_t line, line_cursor& c) {
        const std::string_view name = c.next();
        if (name.empty()) {
            report(line, "", "expected `node NAME PROC`: missing the node name at end of line");
            return;
        }
        if (!check_decl_name(line, name, "node")) return;
        const std::string_view owner = c.next();
        const proc_id qid = owner.empty() ? none32 : procs_.find(owner);
        const node_id id = new_node(line, name, qid, node_role::plain);
        if (owner.empty()) {
            report(line, "", "expected `node NAME PROC`: missing the procedure name at end of line");
            return;
        }
        if (qid == none32) {
            // declared further down (or never): statements wait until the end
            pending_nodes_.push_back(pending_node{id, line, owner});
            rd_.eager = false;
        }
        if (const std::string_view extra = c.next(); !extra.empty())
            report(line, extra, "unexpected token " + quote_token(extra) + ": expected end of line after `node NAME PROC`");
    }

    void resolve_nodes() {
        for (const pending_node& pn : pending_nodes_) {
            const proc_id qid = procs_.find(pn.proc_name);
            if (qid == none32) {
                rd_.unknown(pn.line, pn.proc_name, "procedure", "a procedure declared by `proc`");
                continue;
            }
            p_.nodes[pn.id].proc = qid;
        }
    }

    /// Reads one statement (after its keyword) and hands it to the checker.
    void statement_line(std::uint64_t line, const char* b, const char* e, statement_kind kind) {
        line_cursor c{b, e};
        if (ext_) ext_->begin_statement();  // (a statement read again after a deferral starts afresh)
        if (!err_.open_at(line)) {
            // errors here cannot come first, but calls still match earlier callflow/retflow/ctrflow lines
            if (kind == statement_kind::call) {
                const node_id site = nodes_.find(c.next());
                const std::string_view callee = c.next();
                if (site != none32) ck_.note_call(line, site, callee.empty() ? none32 : procs_.find(callee));
            }
            return;
        }
        statement_fields s;
        if (rd_.read(line, c, kind, s)) take(line, kind, std::move(s));
        else if (kind == statement_kind::call && s.a != none32 && !rd_.need_defer) ck_.note_call(line, s.a, s.b);
    }

    /// Hands a statement read without error to the checker (and the extension).
    void take(std::uint64_t line, statement_kind kind, statement_fields&& s) {
        switch (kind) {
        case statement_kind::flow:
            if (ext_) ext_->statement(kind, s.a, s.b, &s.f);
            ck_.flow(line, s.a, s.b, std::move(s.f));
            return;
        case statement_kind::call: ck_.call(line, s.a, s.b, s.c); return;
        case statement_kind::callflow:
        case statement_kind::retflow:
            if (ext_) ext_->statement(kind, s.a, s.b, &s.f);
            ck_.callee_flow(line, kind == statement_kind::retflow, s.a, s.b, std::move(s.f));
            return;
        case statement_kind::ctrflow:
            if (ext_) ext_->statement(kind, s.a, 0, &s.f);
            ck_.ctrflow(line, s.a, std::move(s.f));
            return;
        case statement_kind::seed:
            if (ext_) ext_->statement(kind, s.a, s.b, nullptr);
            ck_.seed(line, s.a, s.b);
            return;
        }
    }

    // ---- the read-ahead: statement lines read on several threads -------------

    /// One statement line as a read-ahead thread read it.
    struct read_item {
        std::uint32_t line = 0;  ///< the line's index in its chunk
        statement_kind kind{};
        bool read = false;       ///< false: not read (the read-ahead ends at this line)
        const char* b = nullptr; ///< read: the text after the keyword; else the line's beginning
        const char* e = nullptr; ///< the line's end (before its LF or CRLF)
        statement_fields s;
    };
    /// A run of whole lines that one thread reads.
    struct read_chunk {
        const char* begin = nullptr;
        const char* end = nullptr;
        std::uint32_t lines = 0;       ///< lines in the chunk (once read to its end)
        /// Its statement lines, up to the first not read, are the first
        /// `used` (the items of an earlier chunk are reused: no fresh pages).
        std::vector<read_item> items;
        std::size_t used = 0;
        std::atomic<bool> done{false}; ///< `items`, `used` and `lines` are complete
    };
    /// Where the read-ahead stopped: the first line it did not hand to the
    /// checker (its beginning and its number), or the end of the text.
    struct resume_point {
        const char* at;
        std::uint64_t line;
    };

    /// Reads the statements of [begin, end), whose first line is `first_line`,
    /// on up to `threads_` threads, each with its own `statement_reader`
    /// over the names declared so far (which nothing changes meanwhile):
    /// one chunk of lines at a time, at most 4 chunks per thread ahead of
    /// the checker, while the calling thread hands the chunks read to the
    /// checker in line order (reading chunks too when none is ready). The read-ahead ends at the first line that is not a
    /// statement that reads without error (a declaration, a name not declared
    /// yet, a malformed line: rare, and read by the sequential scan from
    /// there on, so every message is the one the sequential scan gives).
    resume_point read_ahead(const char* begin, const char* end, std::uint64_t first_line) {
        flush_nodes();
        populate_.reset();  // the cores are the readers' from here
        std::size_t count = 0;
        for (const char* b = begin; b < end; ++count) b = chunk_end(b, end);
        std::vector<read_chunk> chunks(count);
        std::size_t k = 0;
        for (const char* b = begin; b < end; ++k) {
            chunks[k].begin = b;
            chunks[k].end = b = chunk_end(b, end);
        }
        std::atomic<std::size_t> next{0};
        std::vector<std::vector<read_item>> spare;  // the items of chunks taken, for later chunks to reuse
        std::mutex spare_lock;
        std::atomic<bool> stop{false};
        std::exception_ptr failure;
        std::atomic<bool> failed{false};
        resume_point resume{begin, first_line};
        const auto threads = static_cast<unsigned>(std::min<std::size_t>(threads_, count));
        // a reading thread stays at most `ahead` chunks ahead of the checker (memory stays bounded)
        const std::size_t ahead = 4 * std::size_t{threads};
        std::atomic<std::size_t> checked{0};  // chunks handed to the checker
        // reads the next chunk nobody took; false when none is left (or, waiting, when the read-ahead ends)
        auto read_next = [&](statement_reader& rd, bool wait) {
            const std::size_t k = next.fetch_add(1, std::memory_order_relaxed);
            if (k >= count) return false;
            while (wait && k >= checked.load(std::memory_order_acquire) + ahead) {
                if (stop.load(std::memory_order_relaxed) || failed.load(std::memory_order_relaxed)) return false;
                std::this_thread::yield();
            }
            {
                const std::lock_guard<std::mutex> g(spare_lock);
                if (!spare.empty()) {
                    chunks[k].items = std::move(spare.back());
                    spare.pop_back();
                }
            }
            read_chunk_lines(chunks[k], rd);
            chunks[k].done.store(true, std::memory_order_release);
            return true;
        };
        vyre::parallel_region(threads, [&](unsigned t, unsigned) {
            try {
                statement_reader rd(p_, facts_, procs_, nodes_, nullptr, nullptr);
                rd.repeated_node_name = rd_.repeated_node_name;
                if (t != 0) {
                    while (!stop.load(std::memory_order_relaxed) && read_next(rd, true)) {}
                    return;
                }
                for (std::size_t m = 0; m < count && !failed.load(std::memory_order_relaxed);) {
                    // the calling thread: the chunks in order to the checker
                    read_chunk& ch = chunks[m];
                    if (ch.done.load(std::memory_order_acquire)) {
                        if (!take_chunk(ch, resume)) break;
                        const std::lock_guard<std::mutex> g(spare_lock);
                        spare.push_back(std::move(ch.items));
                        checked.store(++m, std::memory_order_release);
                    } else if (!read_next(rd, false)) {
                        while (!ch.done.load(std::memory_order_acquire) && !failed.load(std::memory_order_relaxed))
                            std::this_thread::yield();  // another thread reads it
                    }
                }
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
            stop.store(true, std::memory_order_relaxed);
        });
        if (failure) std::rethrow_exception(failure);
        return resume;
    }

    /// The end of the chunk that starts at `b`: after the first LF from
    /// its `chunk_bytes_`-th byte on, or `end`.
    const char* chunk_end(const char* b, const char* end) const noexcept {
        if (static_cast<std::size_t>(end - b) <= chunk_bytes_) return end;
        const char* from = b + chunk_bytes_ - 1;
        const char* nl = static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from)));
        return nl ? nl + 1 : end;
    }

    /// Reads chunk `ch`'s lines with `rd` (which reports nothing), up to the
    /// first one that is not a statement that reads without error.
    static void read_chunk_lines(read_chunk& ch, statement_reader& rd) {
        ch.items.reserve(static_cast<std::size_t>(ch.end - ch.begin) / 48 + 1);
        ch.used = 0;
        std::uint32_t n = 0;
        for (const char* p = ch.begin; p < ch.end; ++n) {
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(ch.end - p)));
            const char* ce = nl ? nl : ch.end;
            if (ce > p && ce[-1] == '\r') --ce;
            line_cursor c{p, ce};
            if (const std::string_view kw = c.next(); !kw.empty()) {
                if (ch.used == ch.items.size()) ch.items.emplace_back();
                read_item& it = ch.items[ch.used++];
                it.s.a = it.s.b = it.s.c = none32;
                it.s.f.identity = false;
                it.s.f.kill.clear();
                it.s.f.gen.clear();
                it.s.f.pairs.clear();
                it.line = n;
                it.e = ce;
                it.b = c.p;
                const std::optional<statement_kind> k = statement_of(classify(kw));
                if (k) it.kind = *k;
                it.read = k && rd.read(n, c, *k, it.s);
                if (!it.read) {
                    it.b = p;
                    return;
                }
            }
            p = nl ? nl + 1 : ch.end;
        }
        ch.lines = n;
    }

    /// Hands chunk `ch`'s statements (its first line numbered `at.line`) to
    /// the checker; moves `at` past the chunk, or to the line where the
    /// read-ahead ended (then false).
    bool take_chunk(read_chunk& ch, resume_point& at) {
        for (std::size_t i = 0; i < ch.used; ++i) {
            read_item& it = ch.items[i];
            const std::uint64_t line = at.line + it.line;
            if (!it.read) {
                at = resume_point{it.b, line};
                return false;
            }
            if (err_.open_at(line)) take(line, it.kind, std::move(it.s));
            else statement_line(line, it.b, it.e, it.kind);  // (after an error: calls still count)
        }
        at = resume_point{ch.end, at.line + ch.lines};
        return true;
    }

    std::string_view text_;
    std::string_view file_;
    term_extension* ext_ = nullptr;  ///< the `.ide` additions, or none
    problem p_;
    first_error err_;
    problem_checker ck_;
    bool fatal_ = false;
    bool header_seen_ = false;
    std::uint64_t last_line_ = 1;
    name_map<fact_name_of> facts_{fact_name_of{&p_}};
    name_map<proc_name_of> procs_{proc_name_of{&p_}};
    name_map<node_name_of> nodes_{node_name_of{&p_}};
    statement_reader rd_{p_, facts_, procs_, nodes_, &err_, ext_};  ///< reads the statements on this thread
    unsigned threads_ = 1;                 ///< threads that may read statements
    std::size_t min_parallel_bytes_ = 0;   ///< see `load_options`
    std::size_t chunk_bytes_ = 1;          ///< see `load_options`
    bool read_ahead_tried_ = false;        ///< the read-ahead ran (once per load at most)
    bool read_ahead_wanted_ = false;       ///< scan_line left the line to the read-ahead
    std::vector<std::uint64_t> fact_line_, proc_line_, node_line_;
    std::vector<pending_node> pending_nodes_;
    std::vector<statement> stmts_;  ///< statements waiting for the end of the scan
    struct batched_node {
        std::string_view name;
        std::uint64_t hash;
        node_id id;
        std::uint64_t line;
    };
    static constexpr std::size_t batch_capacity = 32;
    batched_node batch_[batch_capacity];
    std::size_t batch_size_ = 0;
    /// Backs the reserved arrays with memory while the declarations are read (see `scan`).
    std::optional<vyre::detail::background_populate> populate_;
};

/// Appends the canonical terms of `f` (each preceded by a space).
inline void print_terms(std::string& out, const problem& p, const flow_function& f) {
    auto name = [&](fact_id x) -> std::string { return x < p.fact_count() ? p.fact_name(x) : "#" + std::to_string(x); };
    if (f.identity) out += " id";
    auto list = [&](const char* head, const std::vector<fact_id>& v) {
        if (v.empty()) return;
        out += head;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i) out += ',';
            out += name(v[i]);
        }
    };
    list(" kill:", f.kill);
    list(" gen:", f.gen);
    for (const auto& [a, b] : f.pairs) {
        out += ' ';
        out += name(a);
        out += '>';
        out += name(b);
    }
}

/// What the `.ide` format adds to the printer (`weir::ide::print_problem`
/// implements it): the header, each statement's terms with their edge
/// functions, the call-to-return flows that carry functions, seed values.
struct term_printer {
    virtual ~term_printer() = default;
    /// The header line (without its newline).
    virtual std::string header() const = 0;
    /// Appends the terms (each after a space) of the statement of `kind` whose
    /// relation is `f`: `index` is the flow's or the call edge's index, or the
    /// call site of a `ctrflow`.
    virtual void terms(std::string& out, statement_kind kind, std::size_t index, const flow_function& f) const = 0;
    /// True when call edge `index`'s callflow or retflow carries edge functions.
    virtual bool has_functions(statement_kind kind, std::size_t index) const = 0;
    /// The call sites whose call-to-return flow carries edge functions.
    virtual std::vector<node_id> ctr_sites() const = 0;
    /// Appends ` VALUE` for seed `i`, or nothing.
    virtual void seed_value(std::string& out, std::size_t i) const = 0;
};

} // namespace detail

/// Loads a `.ifds` problem from `text`; `file_name` names it in errors.
/// Returns the first error in line order (never a partial problem). Long
/// texts read their statement lines on several threads (`options`); the
/// result is the same.
inline vyre::result<problem, load_error> load_problem(std::string_view text, std::string_view file_name = "<input>",
                                                      load_options options = {}) {
    return detail::loader(text, file_name, nullptr, options).run();
}

/// The whole text of a file, as `read_file_text` reads it.
struct file_text {
    vyre::detail::byte_buffer bytes;  ///< the bytes (more capacity than `size`)
    std::size_t size = 0;             ///< how many were read
    /// The text (valid while `bytes` is).
    std::string_view view() noexcept { return {bytes.data(), size}; }
};

/// Reads the file at `path` whole, once: a regular file in one read (then
/// whatever follows, if it grew), a pipe, FIFO or `/dev/stdin` to its end.
/// An unreadable file is a `load_error` with line 0 naming it as given.
inline vyre::result<file_text, load_error> read_file_text(const std::filesystem::path& path) {
    const std::string name = path.string();
    auto fail = [&](const char* what, int err) {
        return vyre::make_unexpected(
            load_error{name, 0, "", std::string(what) + (err ? std::string(": ") + std::strerror(err) : std::string())});
    };
    std::FILE* fp = std::fopen(name.c_str(), "rb");
    if (!fp) return vyre::result<file_text, load_error>(fail("cannot open the file", errno));
    // read into a plain buffer (no zero fill): one read for a regular file,
    // then whatever follows (a file that grew, or one without a size such as a pipe)
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    std::size_t cap = !ec && size < (std::uintmax_t{1} << 40) ? static_cast<std::size_t>(size) + 1 : (1 << 16);
    file_text text;
    try {
        text.bytes = vyre::detail::byte_buffer(cap);
        cap = text.bytes.capacity();
    } catch (const std::bad_alloc&) {
        std::fclose(fp);
        return vyre::result<file_text, load_error>(fail("not enough memory to read the file", 0));
    }
    for (;;) {
        text.size += std::fread(text.bytes.data() + text.size, 1, cap - text.size, fp);
        if (text.size < cap) break;
        try {
            text.bytes.grow(2 * cap, text.size);
        } catch (const std::bad_alloc&) {
            std::fclose(fp);
            return vyre::result<file_text, load_error>(fail("not enough memory to read the file", 0));
        }
        cap = text.bytes.capacity();
    }
    const bool bad = std::ferror(fp) != 0;
    const int err = errno;
    std::fclose(fp);
    if (bad) return vyre::result<file_text, load_error>(fail("cannot read the file", err));
    return text;
}

/// Reads the file at `path` (`read_file_text`) and loads it (errors name the
/// file as given); an unreadable file is a `load_error` with line 0.
inline vyre::result<problem, load_error> load_problem_file(const std::filesystem::path& path, load_options options = {}) {
    auto text = read_file_text(path);
    if (!text) return vyre::make_unexpected(std::move(text.error()));
    return load_problem(text->view(), path.string(), options);
}

/// Writes `p` as `.ifds` text that loads back to an equal problem: the header,
/// the facts, `proc`/`node` lines in node order, then flows, calls (each with
/// its non-identity `callflow`/`retflow`), ctrflows by site, and seeds. Flow
/// functions are written canonically: `id`, `kill:a,b`, `gen:x`, pairs `a>b`.
/// `p` must be well formed (as `load_problem` and `problem_builder` make it).
/// With `terms` it writes the `.ide` form (`weir::ide::print_problem`).
inline std::string print_problem(const problem& p, const detail::term_printer* terms = nullptr) {
    std::string out;
    out.reserve(64 + 16 * (p.facts.size() + p.nodes.size()) + 40 * (p.flows.size() + p.calls.size()));
    out += terms ? terms->header() : std::string("ifds 1");
    out += '\n';
    // a statement's terms: as written, or with their edge functions (`.ide`)
    auto print = [&](detail::statement_kind kind, std::size_t index, const flow_function& f) {
        if (terms) terms->terms(out, kind, index, f);
        else detail::print_terms(out, p, f);
    };
    for (std::size_t i = 0; i < p.facts.size(); i += 16) {
        out += "facts";
        for (std::size_t j = i; j < p.facts.size() && j < i + 16; ++j) {
            out += ' ';
            out += p.facts[j];
        }
        out += '\n';
    }
    auto node_name = [&](node_id n) -> const std::string& {
        static const std::string bad = "?";
        return n < p.nodes.size() ? p.nodes[n].name : bad;
    };
    auto proc_name = [&](proc_id q) -> const std::string& {
        static const std::string bad = "?";
        return q < p.procs.size() ? p.procs[q].name : bad;
    };
    for (node_id n = 0; n < p.nodes.size(); ++n) {
        const node& nd = p.nodes[n];
        if (nd.proc < p.procs.size()) {
            const procedure& pr = p.procs[nd.proc];
            if (pr.start == n) {
                out += "proc " + pr.name + " " + node_name(pr.start) + " " + node_name(pr.exit) + "\n";
                continue;
            }
            if (pr.exit == n) continue;
        }
        out += "node " + nd.name + " " + proc_name(nd.proc) + "\n";
    }
    for (std::size_t i = 0; i < p.flows.size(); ++i) {
        const flow_edge& e = p.flows[i];
        out += "flow ";
        out += node_name(e.from);
        out += ' ';
        out += node_name(e.to);
        print(detail::statement_kind::flow, i, e.ff);
        out += '\n';
    }
    const flow_function id = flow_function::id();
    for (std::size_t i = 0; i < p.calls.size(); ++i) {
        const call_edge& c = p.calls[i];
        const std::string head = node_name(c.site) + " " + proc_name(c.callee);
        out += "call " + head + " " + node_name(c.retsite) + "\n";
        if (c.callflow != id || (terms && terms->has_functions(detail::statement_kind::callflow, i))) {
            out += "callflow " + head;
            print(detail::statement_kind::callflow, i, c.callflow);
            out += '\n';
        }
        if (c.retflow != id || (terms && terms->has_functions(detail::statement_kind::retflow, i))) {
            out += "retflow " + head;
            print(detail::statement_kind::retflow, i, c.retflow);
            out += '\n';
        }
    }
    std::vector<node_id> sites;
    sites.reserve(p.ctrflows.size());
    for (const auto& kv : p.ctrflows) sites.push_back(kv.first);
    if (terms)
        for (node_id s : terms->ctr_sites()) sites.push_back(s);
    std::sort(sites.begin(), sites.end());
    sites.erase(std::unique(sites.begin(), sites.end()), sites.end());
    for (node_id s : sites) {
        out += "ctrflow " + node_name(s);
        const auto it = p.ctrflows.find(s);
        print(detail::statement_kind::ctrflow, s, it == p.ctrflows.end() ? id : it->second);
        out += '\n';
    }
    for (std::size_t i = 0; i < p.seeds.size(); ++i) {
        const seed& s = p.seeds[i];
        out += "seed " + node_name(s.node) + " " + (s.fact < p.fact_count() ? p.fact_name(s.fact) : "?");
        if (terms) terms->seed_value(out, i);
        out += '\n';
    }
    return out;
}

} // namespace weir::ifds
