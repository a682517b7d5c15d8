// Findings: sorting and the text, JSON and SARIF outputs (findings.hpp).

#include <weir/llvm/findings.hpp>

#include <algorithm>
#include <cstring>
#include <tuple>

#include <vyre/core/version.hpp>
#include <weir/ifds/solution.hpp>

namespace weir::llvm {

namespace {

/// A JSON string literal (weir's one JSON escaper).
std::string quote(const std::string& s) {
    std::string out;
    weir::ifds::detail::append_json_string(out, s);
    return out;
}

void write_location(std::ostream& os, const source_location& l) {
    os << "{\"function\": " << quote(l.function) << ", \"file\": " << quote(l.file) << ", \"line\": " << l.line
       << ", \"column\": " << l.column << "}";
}

void write_locations(std::ostream& os, const std::vector<source_location>& ls) {
    os << "[";
    for (std::size_t k = 0; k < ls.size(); ++k) {
        if (k) os << ", ";
        write_location(os, ls[k]);
    }
    os << "]";
}

/// `path` as a SARIF `uri` (a relative or absolute-path reference, RFC
/// 3986): every byte outside the unreserved characters, the
/// sub-delimiters, '@', '/' and (after the first '/') ':' is
/// percent-encoded (a space, '%', '#', '?', '<', a backslash, UTF-8 bytes;
/// a ':' in the first segment would read as a scheme).
std::string sarif_uri(const std::string& path) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(path.size());
    bool past_first_segment = false;
    for (const unsigned char c : path) {
        past_first_segment = past_first_segment || c == '/';
        const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                           std::strchr("-._~!$&'()*+,;=@/", c) != nullptr || (c == ':' && past_first_segment);
        if (plain && c != 0) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

/// A SARIF location object: the file and region where the debug information
/// has them (none without a file), and the function as a logical location.
void write_sarif_location(std::ostream& os, const source_location& l) {
    os << "{";
    if (!l.file.empty()) {
        os << "\"physicalLocation\": {\"artifactLocation\": {\"uri\": " << quote(sarif_uri(l.file)) << "}";
        if (l.line) {
            os << ", \"region\": {\"startLine\": " << l.line;
            if (l.column) os << ", \"startColumn\": " << l.column;
            os << "}";
        }
        os << "}, ";
    }
    os << "\"logicalLocations\": [{\"name\": " << quote(l.function) << ", \"kind\": \"function\"}]}";
}

} // namespace

void sort_findings(std::vector<finding>& f) {
    std::stable_sort(f.begin(), f.end(), [](const finding& a, const finding& b) {
        return std::tie(a.where.file, a.where.line, a.where.column, a.rule, a.where.function, a.argument) <
               std::tie(b.where.file, b.where.line, b.where.column, b.rule, b.where.function, b.argument);
    });
}

void write_text(std::ostream& os, const std::vector<finding>& fs) {
    for (const finding& f : fs) {
        os << f.where.file << ":" << f.where.line << ":" << f.where.column << ": warning: " << f.message << " [" << f.rule
           << "]\n";
        if (f.trace.empty()) continue;  // notes only with --witness: one line per finding otherwise
        for (const source_location& s : f.sources)
            os << s.file << ":" << s.line << ":" << s.column << ": note: tainted here (in " << s.function << ")\n";
        for (const source_location& t : f.trace)
            os << t.file << ":" << t.line << ":" << t.column << ": note: trace (in " << t.function << ")\n";
    }
}

void write_lca_text(std::ostream& os, const std::vector<lca_value>& vs) {
    for (const lca_value& v : vs) os << v.where.file << ":" << v.where.line << ": " << v.variable << " = " << value_text(v) << "\n";
}

void write_lca_json(std::ostream& os, const std::vector<lca_value>& vs) {
    os << "{\"analysis\": \"lca\",\n \"values\": [";
    for (std::size_t k = 0; k < vs.size(); ++k) {
        const lca_value& v = vs[k];
        os << (k ? ",\n  " : "\n  ") << "{\"function\": " << quote(v.where.function);
        if (v.display_name != v.where.function) os << ", \"display_name\": " << quote(v.display_name);
        os << ", \"file\": " << quote(v.where.file) << ", \"line\": " << v.where.line << ", \"variable\": " << quote(v.variable)
           << ", \"value\": " << value_text(v) << "}";
    }
    os << (vs.empty() ? "]}\n" : "\n ]}\n");
}

void write_json(std::ostream& os, const std::string& analysis, const std::vector<finding>& fs, const analysis_stats& st) {
    os << "{\"analysis\": " << quote(analysis) << ",\n \"findings\": [";
    for (std::size_t k = 0; k < fs.size(); ++k) {
        const finding& f = fs[k];
        os << (k ? ",\n  " : "\n  ") << "{\"rule\": " << quote(f.rule) << ", \"function\": " << quote(f.where.function);
        if (f.display_name != f.where.function) os << ", \"display_name\": " << quote(f.display_name);
        os << ", \"file\": " << quote(f.where.file) << ", \"line\": " << f.where.line << ", \"column\": " << f.where.column
           << ", \"message\": " << quote(f.message);
        if (f.rule == "uninit") {
            os << ", \"variable\": " << quote(f.variable);
        } else {
            os << ", \"callee\": " << quote(f.callee) << ", \"argument\": " << f.argument << ", \"sources\": ";
            write_locations(os, f.sources);
        }
        if (!f.trace.empty()) {
            os << ", \"trace\": ";
            write_locations(os, f.trace);
        }
        os << "}";
    }
    os << (fs.empty() ? "],\n" : "\n ],\n");
    os << " \"stats\": {\"functions\": " << st.functions << ", \"instructions\": " << st.instructions
       << ", \"facts\": " << st.facts << ", \"path_edges\": " << st.path_edges << "}}\n";
}

void write_sarif(std::ostream& os, const std::string& analysis, const std::vector<finding>& fs) {
    os << "{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", \"version\": \"2.1.0\",\n"
       << " \"runs\": [{\"tool\": {\"driver\": {\"name\": \"weir\", \"version\": " << quote(vyre::version)
       << ", \"rules\": [";
    if (analysis == "uninit")
        os << "{\"id\": \"uninit\", \"shortDescription\": {\"text\": \"use of an uninitialized value\"}}";
    else
        os << "{\"id\": \"taint\", \"shortDescription\": {\"text\": \"tainted data reaches a sink\"}}";
    os << "]}},\n  \"results\": [";
    for (std::size_t k = 0; k < fs.size(); ++k) {
        const finding& f = fs[k];
        os << (k ? ",\n   " : "\n   ") << "{\"ruleId\": " << quote(f.rule) << ", \"level\": \"warning\", \"message\": {\"text\": "
           << quote(f.message) << "}, \"locations\": [";
        write_sarif_location(os, f.where);
        os << "]";
        if (!f.trace.empty()) {
            os << ", \"codeFlows\": [{\"threadFlows\": [{\"locations\": [";
            for (std::size_t t = 0; t < f.trace.size(); ++t) {
                os << (t ? ", " : "") << "{\"location\": ";
                write_sarif_location(os, f.trace[t]);
                os << "}";
            }
            os << "]}]}]";
        }
        os << "}";
    }
    os << (fs.empty() ? "]}]}\n" : "\n  ]}]}\n");
}

} // namespace weir::llvm
