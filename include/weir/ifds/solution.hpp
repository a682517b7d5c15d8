#pragma once
/// \file weir/ifds/solution.hpp
/// The answer of a solve: the facts that hold at each node, read out of a
/// path-edge bitset (`extract_solution`), and its text forms (`weir solve`
/// output and a JSON form).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/iota.hpp>
#include <range/v3/view/join.hpp>
#include <range/v3/view/transform.hpp>

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

/// Reads a solution out of `path_edge_bits` (the layout's path-edge bitset,
/// `pe_words` words): node n holds the global fact of local fact d iff some
/// bit `c * F + d` of its block is set. Throws `std::invalid_argument` when the
/// span is shorter than `pe_words`.
inline solution extract_solution(const layout& L, std::span<const std::uint32_t> path_edge_bits) {
    if (path_edge_bits.size() < L.pe_words)
        throw std::invalid_argument("weir::ifds::extract_solution: bitset shorter than layout.pe_words");
    solution s;
    s.facts.resize(L.num_nodes);
    std::vector<char> seen;
    for (std::uint32_t n = 0; n < L.num_nodes; ++n) {
        const std::uint32_t F = L.node_fact_count[n];
        const std::uint64_t nbits = std::uint64_t{F} * F;
        seen.assign(F, 0);
        std::uint32_t found = 0;
        for (std::uint32_t w = L.pe_word[n]; w < L.pe_word[n + 1] && found < F; ++w) {
            std::uint32_t bits = path_edge_bits[w];
            while (bits) {
                const std::uint64_t b = std::uint64_t{w - L.pe_word[n]} * 32 + static_cast<unsigned>(std::countr_zero(bits));
                bits &= bits - 1;
                if (b >= nbits) break;
                const std::uint32_t d = static_cast<std::uint32_t>(b % F);
                if (!seen[d]) {
                    seen[d] = 1;
                    ++found;
                }
            }
        }
        if (!found) continue;
        auto& out = s.facts[n];
        out.reserve(found);
        const std::uint32_t p = L.node_proc[n];
        for (std::uint32_t d = 0; d < F; ++d)
            if (seen[d]) out.push_back(L.global_fact(p, d));  // local order is ascending global order
    }
    return s;
}

/// The `weir solve` text output: one line `NODE: FACT FACT ...` per node that
/// holds at least one fact, nodes in declaration order, facts in declaration
/// order with `0` first.
inline std::string format_solution(const problem& pb, const solution& s) {
    namespace rv = ranges::views;
    const auto nodes = static_cast<node_id>(std::min<std::size_t>(s.facts.size(), pb.nodes.size()));
    auto line = [&](node_id n) {
        return pb.nodes[n].name + ":" +
               (s.facts[n] | rv::transform([&](fact_id f) { return " " + pb.fact_name(f); }) | rv::join |
                ranges::to<std::string>()) +
               "\n";
    };
    return rv::iota(node_id{0}, nodes) | rv::filter([&](node_id n) { return !s.facts[n].empty(); }) |
           rv::transform(line) | rv::join | ranges::to<std::string>();
}

namespace detail {
/// Appends `s` as a JSON string literal.
inline void append_json_string(std::string& out, const std::string& s) {
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
} // namespace detail

/// The JSON form of a solution: one object whose keys are the node names of
/// the nodes holding at least one fact (declaration order) and whose values are
/// arrays of fact names (declaration order, `"0"` first), e.g.
/// `{"n1":["0","x"],"n2":["0"]}` followed by a newline.
inline std::string format_solution_json(const problem& pb, const solution& s) {
    std::string out = "{";
    bool first = true;
    for (node_id n = 0; n < s.facts.size() && n < pb.nodes.size(); ++n) {
        if (s.facts[n].empty()) continue;
        if (!first) out += ',';
        first = false;
        detail::append_json_string(out, pb.nodes[n].name);
        out += ":[";
        for (std::size_t i = 0; i < s.facts[n].size(); ++i) {
            if (i) out += ',';
            detail::append_json_string(out, pb.fact_name(s.facts[n][i]));
        }
        out += ']';
    }
    out += "}\n";
    return out;
}

} // namespace weir::ifds
