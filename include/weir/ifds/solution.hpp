#pragma once
/// \file weir/ifds/solution.hpp
/// The answer of a solve: the facts that hold at each node, read out of a
/// path-edge bitset (`extract_solution`), and its text forms (`weir solve`
/// output and a JSON form).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>


#include <weir/ifds/layout.hpp>
#include <weir/ifds/problem.hpp>

namespace weir::ifds {

/// Facts per node: `facts[n]` lists the global fact ids that hold at node n,
/// ascending (so the zero fact, when present, comes first).
struct solution {
    /// Per node, the sorted global fact ids that hold there.
    std::vector<std::vector<fact_id>> facts;

    /// True when fact `f` holds at node `n`.
    bool holds(node_id n, fact_id f) const {
        if (n >= facts.size()) return false;
        return std::binary_search(facts[n].begin(), facts[n].end(), f);
    }
    /// Equal when every node holds the same facts.
    bool operator==(const solution&) const = default;
};

/// Calls `visit(n, facts)` for every node n that holds at least one fact in
/// `path_edge_bits` (the layout's path-edge bitset), in node order, with the
/// global fact ids that hold there, ascending (a span valid during the call):
/// node n holds local fact d iff some context's row of n has bit d
/// (`detail::held_facts`). Throws `std::invalid_argument` when the span is
/// shorter than `pe_words`.
template <class Visit>
void for_each_held(const layout& L, std::span<const std::uint32_t> path_edge_bits, Visit&& visit) {
    if (path_edge_bits.size() < L.pe_words)
        throw std::invalid_argument("weir::ifds::for_each_held: bitset shorter than layout.pe_words");
    std::vector<std::uint32_t> mask;
    std::vector<fact_id> facts;
    for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
        detail::held_facts(L, path_edge_bits, n, mask);
        facts.clear();
        const std::uint32_t p = L.node_proc[n];
        for (std::uint32_t j = 0; j < mask.size(); ++j)
            for (std::uint32_t m = mask[j]; m; m &= m - 1)  // local order is global order
                facts.push_back(L.global_fact(p, 32 * j + static_cast<std::uint32_t>(std::countr_zero(m))));
        if (!facts.empty()) visit(static_cast<node_id>(n), std::span<const fact_id>(facts));
    }
}

/// Reads a solution out of `path_edge_bits` (see `for_each_held`). Throws
/// `std::invalid_argument` when the span is shorter than `pe_words`.
inline solution extract_solution(const layout& L, std::span<const std::uint32_t> path_edge_bits) {
    solution s;
    s.facts.resize(L.num_nodes);
    for_each_held(L, path_edge_bits, [&](node_id n, std::span<const fact_id> f) { s.facts[n].assign(f.begin(), f.end()); });
    return s;
}

namespace detail {
/// Appends the text output's line of node `n`: `NODE: FACT FACT ...` (the
/// zero fact as `0`).
inline void append_text_line(std::string& out, const problem& pb, node_id n, std::span<const fact_id> facts) {
    out += pb.nodes[n].name;
    out += ':';
    for (fact_id f : facts) {
        out += ' ';
        if (f == zero_fact) out += '0';
        else out += pb.facts[f - 1];
    }
    out += '\n';
}
/// Appends `s` as a JSON string literal.
inline void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (unsigned char ch : s) {
        switch (ch) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (ch < 0x20) {
                static const char* hex = "0123456789abcdef";
                out += "\\u00";
                out += hex[ch >> 4];
                out += hex[ch & 15];
            } else {
                out += static_cast<char>(ch);
            }
        }
    }
    out += '"';
}
/// Appends the JSON entry of node `n` (`"NODE":["FACT",...]`), after a
/// comma unless it is the first.
inline void append_json_entry(std::string& out, bool first, const problem& pb, node_id n, std::span<const fact_id> facts) {
    if (!first) out += ',';
    append_json_string(out, pb.nodes[n].name);
    out += ":[";
    for (std::size_t i = 0; i < facts.size(); ++i) {
        if (i) out += ',';
        if (facts[i] == zero_fact) out += "\"0\"";
        else append_json_string(out, pb.facts[facts[i] - 1]);
    }
    out += ']';
}
} // namespace detail

/// The `weir solve` text output: one line `NODE: FACT FACT ...` per node that
/// holds at least one fact, nodes in declaration order, facts in declaration
/// order with `0` first.
inline std::string format_solution(const problem& pb, const solution& s) {
    std::string out;
    const auto nodes = static_cast<node_id>(std::min<std::size_t>(s.facts.size(), pb.nodes.size()));
    for (node_id n = 0; n < nodes; ++n)
        if (!s.facts[n].empty()) detail::append_text_line(out, pb, n, s.facts[n]);
    return out;
}

/// The JSON form of a solution: one object whose keys are the node names of
/// the nodes holding at least one fact (declaration order) and whose values are
/// arrays of fact names (declaration order, `"0"` first), e.g.
/// `{"n1":["0","x"],"n2":["0"]}` followed by a newline.
inline std::string format_solution_json(const problem& pb, const solution& s) {
    std::string out = "{";
    bool first = true;
    for (node_id n = 0; n < s.facts.size() && n < pb.nodes.size(); ++n) {
        if (s.facts[n].empty()) continue;
        detail::append_json_entry(out, first, pb, n, s.facts[n]);
        first = false;
    }
    out += "}\n";
    return out;
}

namespace detail {
/// `write_solution`'s fact names in one array, each as it is written after
/// a node: fact f's entry at `bytes[off[f], off[f + 1])`, then 16 bytes of
/// padding, so that an entry of up to 16 bytes is copied in one fixed-size
/// move. Text: `" NAME"` (`" 0"` for the zero fact); JSON: `,"NAME"`
/// escaped (`,"0"`), the comma left out before a node's first fact.
struct output_fact_names {
    std::vector<char> bytes;
    std::vector<std::uint32_t> off;

    /// The entries of `pb`'s facts in the text form, or with `json` the JSON form.
    output_fact_names(const problem& pb, bool json) {
        std::size_t total = 4 + 16;
        for (const std::string& f : pb.facts) total += f.size() + (json ? 3 : 1);
        bytes.reserve(total);
        off.reserve(pb.facts.size() + 2);
        off.push_back(0);
        std::string entry;
        auto add = [&](std::string_view name) {
            entry.assign(json ? "," : " ");
            if (json) append_json_string(entry, name);
            else entry += name;
            bytes.insert(bytes.end(), entry.begin(), entry.end());
            if (bytes.size() > std::numeric_limits<std::uint32_t>::max())
                throw std::length_error("weir::ifds::write_solution: fact names exceed 4 GiB");
            off.push_back(static_cast<std::uint32_t>(bytes.size()));
        };
        add("0");
        for (const std::string& f : pb.facts) add(f);
        bytes.resize(bytes.size() + 16, '\0');
    }
};

/// A buffer of `block` bytes (and a margin of 64) that goes to `out` when full.
class output_sink {
public:
    static constexpr std::size_t block = std::size_t{1} << 20;
    static constexpr std::size_t margin = 64;

    explicit output_sink(std::ostream& out) : out_(out), buf_(new char[block + margin]) {}
    output_sink(const output_sink&) = delete;
    output_sink& operator=(const output_sink&) = delete;

    /// Appends `len` bytes from `p`.
    void put(const char* p, std::size_t len) {
        if (pos_ + len > block + margin) {
            flush();
            if (len > block + margin) {
                out_.write(p, static_cast<std::streamsize>(len));
                return;
            }
        }
        std::memcpy(buf_.get() + pos_, p, len);
        pos_ += len;
    }
    /// Appends `s`.
    void put(std::string_view s) { put(s.data(), s.size()); }
    /// Appends `len` bytes from `p`, where 16 bytes from `p` may be read.
    void put_padded(const char* p, std::size_t len) {
        if (len <= 16 && pos_ + 16 <= block + margin) {
            std::memcpy(buf_.get() + pos_, p, 16);
            pos_ += len;
        } else {
            put(p, len);
        }
    }
    /// Writes the buffer out once it holds a block.
    void maybe_flush() {
        if (pos_ >= block) flush();
    }
    /// Writes what the buffer holds.
    void flush() {
        out_.write(buf_.get(), static_cast<std::streamsize>(pos_));
        pos_ = 0;
    }

private:
    std::ostream& out_;
    std::unique_ptr<char[]> buf_;
    std::size_t pos_ = 0;
};

/// Throws `std::invalid_argument` unless `pb` has `L`'s nodes and facts
/// (the problem `L` was made from, or its names: `release_flows` keeps them).
inline void check_output_problem(const problem& pb, const layout& L) {
    if (pb.nodes.size() != L.num_nodes || pb.fact_count() != L.num_facts)
        throw std::invalid_argument("weir::ifds::write_solution: the problem has " + std::to_string(pb.nodes.size()) +
                                    " nodes and " + std::to_string(pb.fact_count()) + " facts, the layout " +
                                    std::to_string(L.num_nodes) + " and " + std::to_string(L.num_facts) +
                                    ": pass the problem the layout was made from");
}
} // namespace detail

/// Writes to `out` what `format_solution` (with `json`,
/// `format_solution_json`) returns for `extract_solution(L, path_edge_bits)`,
/// straight from the bitset: no `solution` and no whole-output string are
/// built (the text goes out in blocks of about 1 MiB; each fact's name, as
/// written, comes from one array, `detail::output_fact_names`). `pb` is the
/// problem `L` was made from. Throws `std::invalid_argument` when the span
/// is shorter than `pe_words`, or when `pb` has other node or fact counts
/// than `L`.
inline void write_solution(std::ostream& out, const problem& pb, const layout& L,
                           std::span<const std::uint32_t> path_edge_bits, bool json = false) {
    detail::check_output_problem(pb, L);
    const detail::output_fact_names names(pb, json);
    const char* const nb = names.bytes.data();
    const std::uint32_t* const no = names.off.data();
    const auto nf = static_cast<fact_id>(names.off.size() - 1);
    detail::output_sink sink(out);
    std::string node;  // (JSON) the node's name, escaped
    bool first = true;
    if (json) sink.put("{");
    for_each_held(L, path_edge_bits, [&](node_id n, std::span<const fact_id> facts) {
        if (json) {
            node.assign(first ? "" : ",");
            detail::append_json_string(node, pb.nodes[n].name);
            node += ":[";
            sink.put(node);
        } else {
            sink.put(pb.nodes[n].name);
            sink.put(":");
        }
        std::uint32_t skip = json;  // (JSON: the first fact's entry without its comma)
        for (fact_id f : facts) {
            if (f >= nf)  // (a layout made from `pb` names none past its facts)
                throw std::invalid_argument("weir::ifds::write_solution: layout names a fact the problem does not declare");
            sink.put_padded(nb + no[f] + skip, no[f + 1] - no[f] - skip);
            skip = 0;
        }
        sink.put(json ? "]" : "\n");
        first = false;
        sink.maybe_flush();
    });
    if (json) sink.put("}\n");
    sink.flush();
}

} // namespace weir::ifds
