#pragma once
/// \file weir/llvm/findings.hpp
/// Findings of `weir analyze` and their outputs: compiler-style text, the
/// JSON of the spec, and SARIF 2.1.0 (spec: analyze.md, "JSON output").

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>

#include <weir/ifds/problem.hpp>

namespace weir::llvm {

/// A place in the source, from the debug information (line and column 0 without it).
struct source_location {
    std::string function;  ///< the IR name
    std::string file;      ///< as the debug information writes it
    unsigned line = 0;
    unsigned column = 0;
    /// Member-wise equality.
    bool operator==(const source_location&) const = default;
};

/// The location of an instruction (its function's when it has none of its own).
source_location location_of(const ::llvm::Instruction& i);
/// The location of a function's definition.
source_location location_of(const ::llvm::Function& f);

/// One finding.
struct finding {
    std::string rule;             ///< "taint" or "uninit"
    source_location where;
    std::string display_name;     ///< the demangled function name
    std::string message;
    std::string callee;           ///< taint: the sink
    int argument = -1;            ///< taint: the argument index
    std::string variable;         ///< uninit: the source variable (or IR name)
    std::vector<source_location> sources;  ///< taint: where the taint came from
    std::vector<source_location> trace;    ///< with --witness: a realizable path's locations
    /// The ICFG node and fact whose path proves the finding (for witnesses).
    std::uint32_t node = 0;
    weir::ifds::fact_id fact = 0;
};

/// One value of `--analysis lca`: a variable with a constant value after a source line.
struct lca_value {
    source_location where;     ///< function (IR name), file, line (column 0)
    std::string display_name;  ///< the demangled function name
    std::string variable;      ///< the source variable
    std::int64_t value = 0;    ///< the value as the variable's type reads it (see `is_unsigned`)
    /// The variable's type is a 64-bit unsigned one: `value` holds its bits,
    /// to be read as `std::uint64_t` (values past INT64_MAX; narrower
    /// unsigned types fit `value` as they are).
    bool is_unsigned = false;
    /// Member-wise equality.
    bool operator==(const lca_value&) const = default;
};

/// `v.value` as text, as the variable's type reads it (unsigned where `v.is_unsigned`).
inline std::string value_text(const lca_value& v) {
    return v.is_unsigned ? std::to_string(static_cast<std::uint64_t>(v.value)) : std::to_string(v.value);
}

/// Sizes reported with the findings.
struct analysis_stats {
    std::uint64_t functions = 0, instructions = 0, facts = 0, path_edges = 0;
    /// The findings' witnesses (`weir::ifds::for_each_witness`): path
    /// edges of the closures grown, and restricted tabulations run, over
    /// the joint search and the retries; not in the JSON.
    std::uint64_t witness_edges = 0, witness_passes = 0;
};

/// Sorts findings by file, line, column, rule (then function, argument).
void sort_findings(std::vector<finding>& f);
/// `FILE:LINE:COL: warning: MESSAGE [RULE]` lines (plus trace notes).
void write_text(std::ostream& os, const std::vector<finding>& f);
/// The JSON of the spec.
void write_json(std::ostream& os, const std::string& analysis, const std::vector<finding>& f, const analysis_stats& st);
/// `FILE:LINE: VARIABLE = VALUE` lines.
void write_lca_text(std::ostream& os, const std::vector<lca_value>& v);
/// `{"analysis": "lca", "values": [{"function", "file", "line", "variable", "value"}]}`.
void write_lca_json(std::ostream& os, const std::vector<lca_value>& v);
/// SARIF 2.1.0: one run, one result per finding, code flows from traces.
void write_sarif(std::ostream& os, const std::string& analysis, const std::vector<finding>& f);

} // namespace weir::llvm
