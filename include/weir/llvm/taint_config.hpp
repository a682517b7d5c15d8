#pragma once
/// \file weir/llvm/taint_config.hpp
/// Taint configurations in PhASAR's JSON format (spec: analyze.md, "Taint
/// configuration"): which functions are sources, sinks and sanitizers (of
/// their result or of parameters), and which variables are sources. The
/// default configuration (`source`/`sink`/`sanitize`) and the built-in `libc`
/// one are here too.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <weir/llvm/error.hpp>

namespace weir::llvm {

/// What a configuration says of one function.
struct function_tags {
    bool ret_source = false;     ///< `"ret": "source"`: the result is tainted
    bool ret_sanitizer = false;  ///< `"ret": "sanitizer"`: the result is clean
    bool ret_sink = false;       ///< `"ret": "sink"` (accepted; nothing is reported for it)
    std::vector<unsigned> source_params;     ///< what these arguments point to becomes tainted
    std::vector<unsigned> sink_params;       ///< a tainted argument here is a finding
    std::vector<unsigned> sanitizer_params;  ///< what these arguments point to becomes clean
    bool all_params_sink = false;            ///< every argument is a sink (variadic sinks)
    bool all_params_source = false;          ///< every pointer argument is a source (`scanf`)
    /// Arguments from this index on are sources (`scanf`'s pointers after the format), or -1.
    int source_params_from = -1;
};

/// A variable tagged in `variables`.
struct variable_tag {
    std::string scope;  ///< the function (or empty / "global" for globals)
    std::string name;   ///< the source variable's name
    std::string cat;    ///< "source", "sink" or "sanitizer"
};

/// A taint configuration.
struct taint_config {
    std::string name;  ///< the file's `name`, or `default` / `libc`
    /// By function name, as written (IR name, demangled name with or without
    /// its parameter list; in the default configuration, the demangled base name).
    std::map<std::string, function_tags, std::less<>> functions;
    std::vector<variable_tag> variables;
    /// `main`'s parameters (and what argv points to) are tainted at entry.
    bool untrusted_command_line = false;
    /// Names also match a C++ function's base name, without scopes (`source`
    /// matches `ns::source(int)`): the default configuration's rule, not a file's.
    bool match_base_names = false;

    /// The tags of a function by its IR name, or nullptr. Tries the IR name,
    /// the demangled name, the demangled name without its parameter list and,
    /// with `match_base_names`, the base name.
    const function_tags* find(std::string_view ir_name) const;
};

/// The default configuration: `source` returns taint, `sink` sinks every
/// argument, `sanitize` returns clean data; the command line is untrusted.
taint_config default_taint_config();

/// The built-in C library configuration (`--config libc`).
taint_config libc_taint_config();

/// Parses a configuration; `file` names it in errors. Throws `input_error`
/// with the line of the first problem (malformed JSON, a wrong type).
taint_config parse_taint_config(std::string_view text, const std::string& file);

/// Reads `path` (or `libc` for the built-in one); throws `input_error`.
taint_config load_taint_config(const std::string& path);

/// The demangled name of an IR name (the name itself when not mangled).
std::string demangle(std::string_view ir_name);

} // namespace weir::llvm
