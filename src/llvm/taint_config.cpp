// Taint configurations: PhASAR's JSON format, the default and libc ones (taint_config.hpp).

#include <weir/llvm/taint_config.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include <llvm/Demangle/Demangle.h>
#include <llvm/Support/MemoryBuffer.h>

#include "json.hpp"

namespace weir::llvm {


namespace {

using detail::json_value;

[[noreturn]] void schema_error(const std::string& file, const json_value& at, const std::string& what) {
    throw input_error(file, at.line, what);
}

/// `[0, 2]` (or `"all"` where `allow_all`) into indices.
std::vector<unsigned> index_list(const std::string& file, const json_value& v, const std::string& what, bool* all) {
    std::vector<unsigned> out;
    if (v.kind == json_value::string_v && v.str == "all" && all) {
        *all = true;
        return out;
    }
    if (v.kind != json_value::array_v) schema_error(file, v, what + ": expected an array of argument indices");
    for (const auto& x : v.items) {
        if (x.kind != json_value::number_v || x.number < 0 || x.number > 4096 || x.number != static_cast<double>(static_cast<unsigned>(x.number)))
            schema_error(file, x, what + ": an argument index is a whole number from 0");
        out.push_back(static_cast<unsigned>(x.number));
    }
    return out;
}

void tag_ret(const std::string& file, const json_value& v, function_tags& t) {
    if (v.kind != json_value::string_v) schema_error(file, v, "\"ret\": expected \"source\", \"sink\" or \"sanitizer\"");
    if (v.str == "source") t.ret_source = true;
    else if (v.str == "sanitizer") t.ret_sanitizer = true;
    else if (v.str == "sink") t.ret_sink = true;
    else schema_error(file, v, "\"ret\": unknown category '" + v.str + "' (source, sink or sanitizer)");
}

} // namespace

std::string demangle(std::string_view ir_name) {
    std::string s(ir_name);
    if (s.size() > 2 && s[0] == '_' && s[1] == 'Z') return ::llvm::demangle(s);
    return s;
}

namespace {
/// The demangled name without its parameter list (and for C++, the base name
/// without scopes: `ns::f(int)` gives `ns::f` and `f`).
std::pair<std::string, std::string> short_names(std::string_view ir_name) {
    std::string s(ir_name);
    if (s.size() > 2 && s[0] == '_' && s[1] == 'Z') {
        ::llvm::ItaniumPartialDemangler d;
        if (!d.partialDemangle(s.c_str())) {
            std::pair<std::string, std::string> out;
            if (char* fn = d.getFunctionName(nullptr, nullptr)) {
                out.first = fn;
                std::free(fn);
            }
            if (char* base = d.getFunctionBaseName(nullptr, nullptr)) {
                out.second = base;
                std::free(base);
            }
            return out;
        }
    }
    return {s, s};
}
} // namespace

const function_tags* taint_config::find(std::string_view ir_name) const {
    if (auto it = functions.find(ir_name); it != functions.end()) return &it->second;
    if (ir_name.size() > 2 && ir_name[0] == '_' && ir_name[1] == 'Z') {
        if (auto it = functions.find(demangle(ir_name)); it != functions.end()) return &it->second;
        auto [fn, base] = short_names(ir_name);
        if (auto it = functions.find(fn); it != functions.end()) return &it->second;
        if (match_base_names)
            if (auto it = functions.find(base); it != functions.end()) return &it->second;
    }
    return nullptr;
}

taint_config default_taint_config() {
    taint_config c;
    c.name = "default";
    c.untrusted_command_line = true;
    c.match_base_names = true;  // "functions whose demangled base name is `source`"
    c.functions["source"].ret_source = true;
    c.functions["sink"].all_params_sink = true;
    c.functions["sanitize"].ret_sanitizer = true;
    return c;
}

taint_config libc_taint_config() {
    taint_config c;
    c.name = "libc";
    c.untrusted_command_line = true;
    for (const char* f : {"getenv", "secure_getenv", "fgetc", "getc", "getchar", "getc_unlocked", "fgetc_unlocked",
                          "getchar_unlocked"})
        c.functions[f].ret_source = true;
    for (const char* f : {"fgets", "gets", "fgets_unlocked"}) {
        c.functions[f].ret_source = true;
        c.functions[f].source_params = {0};
    }
    c.functions["fread"].source_params = {0};
    c.functions["fread_unlocked"].source_params = {0};
    for (const char* f : {"read", "recv", "recvfrom", "pread", "pread64"}) c.functions[f].source_params = {1};
    for (const char* f : {"scanf", "__isoc99_scanf", "vscanf", "__isoc99_vscanf"}) c.functions[f].source_params_from = 1;
    for (const char* f : {"fscanf", "__isoc99_fscanf", "sscanf", "__isoc99_sscanf", "vfscanf", "__isoc99_vfscanf",
                          "vsscanf", "__isoc99_vsscanf"})
        c.functions[f].source_params_from = 2;
    for (const char* f : {"system", "popen"}) c.functions[f].sink_params = {0};
    for (const char* f : {"execl", "execlp", "execle", "execv", "execvp", "execve", "execvpe", "fexecve"})
        c.functions[f].all_params_sink = true;
    for (const char* f : {"printf", "vprintf"}) c.functions[f].sink_params = {0};
    for (const char* f : {"fprintf", "vfprintf", "sprintf", "vsprintf", "dprintf", "vdprintf", "syslog", "vsyslog"})
        c.functions[f].sink_params = {1};
    for (const char* f : {"snprintf", "vsnprintf"}) c.functions[f].sink_params = {2};
    for (const char* f : {"asprintf", "vasprintf"}) c.functions[f].sink_params = {1};
    // glibc's fortified forms (-D_FORTIFY_SOURCE with optimization): a flag
    // (and for the buffer ones, sizes) before the format or the buffer.
    for (const char* f : {"__printf_chk", "__vprintf_chk"}) c.functions[f].sink_params = {1};
    for (const char* f : {"__fprintf_chk", "__vfprintf_chk", "__dprintf_chk", "__vdprintf_chk", "__syslog_chk",
                          "__vsyslog_chk", "__asprintf_chk", "__vasprintf_chk"})
        c.functions[f].sink_params = {2};
    for (const char* f : {"__sprintf_chk", "__vsprintf_chk"}) c.functions[f].sink_params = {3};
    for (const char* f : {"__snprintf_chk", "__vsnprintf_chk"}) c.functions[f].sink_params = {4};
    for (const char* f : {"__fgets_chk", "__gets_chk", "__fgets_unlocked_chk"}) {
        c.functions[f].ret_source = true;
        c.functions[f].source_params = {0};
    }
    for (const char* f : {"__fread_chk", "__fread_unlocked_chk"}) c.functions[f].source_params = {0};
    for (const char* f : {"__read_chk", "__recv_chk", "__recvfrom_chk", "__pread_chk", "__pread64_chk"})
        c.functions[f].source_params = {1};
    return c;
}

taint_config parse_taint_config(std::string_view text, const std::string& file) {
    const json_value root = detail::json_reader(text, file).parse();
    if (root.kind != json_value::object_v) schema_error(file, root, "a taint configuration is a JSON object");
    taint_config c;
    if (const auto* n = root.get("name"); n && n->kind == json_value::string_v) c.name = n->str;
    if (const auto* fs = root.get("functions")) {
        if (fs->kind != json_value::array_v) schema_error(file, *fs, "\"functions\": expected an array");
        for (const auto& f : fs->items) {
            if (f.kind != json_value::object_v) schema_error(file, f, "\"functions\": each entry is an object");
            const auto* name = f.get("name");
            if (!name || name->kind != json_value::string_v || name->str.empty())
                schema_error(file, name ? *name : f, "a function entry needs a \"name\" string");
            function_tags& t = c.functions[name->str];
            if (const auto* r = f.get("ret")) tag_ret(file, *r, t);
            if (const auto* p = f.get("params")) {
                if (p->kind != json_value::object_v) schema_error(file, *p, "\"params\": expected an object");
                if (const auto* s = p->get("source")) {
                    auto v = index_list(file, *s, "\"params\".\"source\"", &t.all_params_source);
                    t.source_params.insert(t.source_params.end(), v.begin(), v.end());
                }
                if (const auto* s = p->get("sink")) {
                    auto v = index_list(file, *s, "\"params\".\"sink\"", &t.all_params_sink);
                    t.sink_params.insert(t.sink_params.end(), v.begin(), v.end());
                }
                if (const auto* s = p->get("sanitizer")) {
                    auto v = index_list(file, *s, "\"params\".\"sanitizer\"", nullptr);
                    t.sanitizer_params.insert(t.sanitizer_params.end(), v.begin(), v.end());
                }
            }
        }
    }
    if (const auto* vs = root.get("variables")) {
        if (vs->kind != json_value::array_v) schema_error(file, *vs, "\"variables\": expected an array");
        for (const auto& v : vs->items) {
            if (v.kind != json_value::object_v) schema_error(file, v, "\"variables\": each entry is an object");
            variable_tag tag;
            const auto* name = v.get("name");
            if (!name || name->kind != json_value::string_v || name->str.empty())
                schema_error(file, name ? *name : v, "a variable entry needs a \"name\" string");
            tag.name = name->str;
            if (const auto* s = v.get("scope")) {
                if (s->kind != json_value::string_v) schema_error(file, *s, "\"scope\": expected a string");
                tag.scope = s->str;
            }
            const auto* cat = v.get("cat");
            if (!cat || cat->kind != json_value::string_v ||
                (cat->str != "source" && cat->str != "sink" && cat->str != "sanitizer"))
                schema_error(file, cat ? *cat : v, "a variable entry needs \"cat\": \"source\", \"sink\" or \"sanitizer\"");
            tag.cat = cat->str;
            c.variables.push_back(std::move(tag));
        }
    }
    return c;
}

taint_config load_taint_config(const std::string& path) {
    if (path == "libc") return libc_taint_config();
    auto buf = ::llvm::MemoryBuffer::getFile(path);
    if (!buf) throw input_error(path, 0, "cannot read the taint configuration: " + buf.getError().message());
    return parse_taint_config((*buf)->getBuffer(), path);
}

} // namespace weir::llvm
