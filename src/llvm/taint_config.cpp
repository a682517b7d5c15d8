// Taint configurations: PhASAR's JSON format, the default and libc ones (taint_config.hpp).

#include <weir/llvm/taint_config.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include <llvm/Demangle/Demangle.h>
#include <llvm/Support/MemoryBuffer.h>

namespace weir::llvm {

namespace detail {

/// A JSON value that remembers the line it starts on (for error messages).
struct json_value {
    enum kind_t { null_v, bool_v, number_v, string_v, array_v, object_v } kind = null_v;
    std::size_t line = 0;
    bool b = false;
    double number = 0;
    std::string str;
    std::vector<json_value> items;                        ///< array elements
    std::vector<std::pair<std::string, json_value>> members;  ///< object members in order

    /// The member called `key`, or nullptr.
    const json_value* get(std::string_view key) const {
        for (const auto& [k, v] : members)
            if (k == key) return &v;
        return nullptr;
    }
};

/// A small strict JSON reader (RFC 8259) that tracks lines, with a nesting limit.
class json_reader {
public:
    json_reader(std::string_view text, const std::string& file) : s_(text), file_(file) {}

    json_value parse() {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
        skip_ws();
        json_value v = value(0);
        skip_ws();
        if (pos_ != s_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw input_error(file_, line_, "malformed JSON: " + what); }

    void skip_ws() {
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c == '\n') ++line_;
            else if (c != ' ' && c != '\t' && c != '\r') break;
            ++pos_;
        }
    }
    bool eat(char c) {
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c, const char* what) {
        skip_ws();
        if (!eat(c)) fail(std::string("expected ") + what);
    }

    json_value value(int depth) {
        if (depth > 64) fail("nested deeper than 64 levels");
        json_value v;
        v.line = line_;
        if (pos_ >= s_.size()) fail("unexpected end of file");
        const char c = s_[pos_];
        if (c == '{') {
            ++pos_;
            v.kind = json_value::object_v;
            skip_ws();
            if (eat('}')) return v;
            for (;;) {
                skip_ws();
                if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string key");
                std::string key = string();
                expect(':', "':' after a key");
                skip_ws();
                v.members.emplace_back(std::move(key), value(depth + 1));
                skip_ws();
                if (eat(',')) continue;
                if (eat('}')) return v;
                fail("expected ',' or '}' in an object");
            }
        }
        if (c == '[') {
            ++pos_;
            v.kind = json_value::array_v;
            skip_ws();
            if (eat(']')) return v;
            for (;;) {
                skip_ws();
                v.items.push_back(value(depth + 1));
                skip_ws();
                if (eat(',')) continue;
                if (eat(']')) return v;
                fail("expected ',' or ']' in an array");
            }
        }
        if (c == '"') {
            v.kind = json_value::string_v;
            v.str = string();
            return v;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = json_value::number_v;
            v.number = number();
            return v;
        }
        for (auto [word, kind, b] : {std::tuple{"true", json_value::bool_v, true}, std::tuple{"false", json_value::bool_v, false},
                                     std::tuple{"null", json_value::null_v, false}}) {
            std::string_view w(word);
            if (s_.substr(pos_, w.size()) == w) {
                pos_ += w.size();
                v.kind = kind;
                v.b = b;
                return v;
            }
        }
        fail(std::string("unexpected character '") + (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f ? std::string("\\x") + "0123456789abcdef"[(c >> 4) & 15] + "0123456789abcdef"[c & 15] : std::string(1, c)) + "'");
    }

    double number() {
        const std::size_t b = pos_;
        eat('-');
        if (!(pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) fail("malformed number");
        if (s_[pos_] == '0') ++pos_;
        else while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        if (eat('.')) {
            if (!(pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) fail("malformed number");
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (!eat('+')) eat('-');
            if (!(pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) fail("malformed number");
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        }
        return std::strtod(std::string(s_.substr(b, pos_ - b)).c_str(), nullptr);
    }

    static void put_utf8(std::string& out, std::uint32_t cp) {
        if (cp < 0x80) out += static_cast<char>(cp);
        else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    std::uint32_t hex4() {
        if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = s_[pos_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= static_cast<std::uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f') v |= static_cast<std::uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') v |= static_cast<std::uint32_t>(h - 'A' + 10);
            else fail("malformed \\u escape");
        }
        return v;
    }
    std::string string() {
        ++pos_;  // the opening quote
        std::string out;
        for (;;) {
            if (pos_ >= s_.size()) fail("unterminated string");
            const char c = s_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size()) fail("unterminated string");
            switch (s_[pos_++]) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                std::uint32_t cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
                    pos_ += 2;
                    const std::uint32_t lo = hex4();
                    if (lo < 0xDC00 || lo >= 0xE000) fail("unpaired surrogate in a \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xD800 && cp < 0xE000) {
                    fail("unpaired surrogate in a \\u escape");
                }
                put_utf8(out, cp);
                break;
            }
            default: fail("unknown escape in a string");
            }
        }
    }

    std::string_view s_;
    const std::string& file_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
};

} // namespace detail

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
        if (auto it = functions.find(base); it != functions.end()) return &it->second;
    }
    return nullptr;
}

taint_config default_taint_config() {
    taint_config c;
    c.name = "default";
    c.untrusted_command_line = true;
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
