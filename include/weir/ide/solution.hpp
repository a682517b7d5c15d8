#pragma once
/// \file weir/ide/solution.hpp
/// What an IDE solve gives: the facts that hold at each node with their
/// values, and the result's text form (spec: ide-format.md, "Result output").

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <weir/ide/edge_function_family.hpp>
#include <weir/ifds/problem.hpp>
#include <weir/ifds/solution.hpp>

namespace weir::ide {

/// Sizes of an IDE solve.
struct solve_stats {
    std::uint64_t jump_functions = 0;  ///< (context, node, fact) triples with a jump function
    std::uint64_t contexts = 0;        ///< (procedure, start fact) contexts reached
    /// Member-wise equality.
    bool operator==(const solve_stats&) const = default;
};

/// Per node, the facts that hold there (ascending ids, so the zero fact
/// first) with their values.
template <edge_function_family F>
struct solution {
    std::vector<std::vector<std::pair<ifds::fact_id, typename F::value>>> at;
    solve_stats stats;
    /// Equal facts and values everywhere (the statistics are not compared).
    bool operator==(const solution& o) const { return at == o.at; }
};

/// The result as `weir solve` prints it: one line per node that holds a
/// fact, `NODE: 0 x=5 y=bottom`, nodes in declaration order, facts in
/// declaration order, the zero fact as `0`.
template <textual_edge_function_family F>
std::string format_solution(const ifds::problem& g, const solution<F>& s) {
    std::string out;
    for (std::size_t n = 0; n < s.at.size(); ++n) {
        if (s.at[n].empty()) continue;
        out += g.nodes[n].name;
        out += ':';
        for (const auto& [f, v] : s.at[n]) {
            out += ' ';
            if (f == ifds::zero_fact) {
                out += '0';
                continue;
            }
            out += g.facts[f - 1];
            out += '=';
            out += F::print_value(v);
        }
        out += '\n';
    }
    return out;
}

/// The result as JSON: `{"NODE": {"0": null, "x": "5", "y": "bottom"}, ...}`,
/// the nodes and facts of `format_solution`, each value as the text it
/// prints (so 64-bit integers stay exact).
template <textual_edge_function_family F>
std::string format_solution_json(const ifds::problem& g, const solution<F>& s) {
    std::string out = "{";
    bool first = true;
    for (std::size_t n = 0; n < s.at.size(); ++n) {
        if (s.at[n].empty()) continue;
        if (!first) out += ',';
        first = false;
        ifds::detail::append_json_string(out, g.nodes[n].name);
        out += ":{";
        for (std::size_t i = 0; i < s.at[n].size(); ++i) {
            const auto& [f, v] = s.at[n][i];
            if (i) out += ',';
            if (f == ifds::zero_fact) {
                out += "\"0\":null";
                continue;
            }
            ifds::detail::append_json_string(out, g.facts[f - 1]);
            out += ':';
            ifds::detail::append_json_string(out, F::print_value(v));
        }
        out += '}';
    }
    out += "}\n";
    return out;
}

} // namespace weir::ide
