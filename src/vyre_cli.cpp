// `vyre`: run, check and format vyre IR programs (spec: vyre-ir.md, "CLI").
//
//   vyre run PROGRAM.vyre [--backend ID] [--grid X,Y,Z] [--input NAME=FILE | --input NAME=v1,v2,...]...
//                         [--step-budget N]
//   vyre check PROGRAM.vyre       validate; diagnostics on stderr
//   vyre fmt PROGRAM.vyre         print the canonical text form
//   vyre backends                 list the enabled backends and their profiles
//
// Exit status: 0 success, 1 dispatch failure, 2 invalid program, input or usage.
//
// Compiled twice where the build has the cuda backend: with VYRE_HAND_OVER=1
// into `vyre`, which does not link the CUDA runtime and NVRTC (loading them
// costs every start about 40 ms) and hands `vyre backends` and `vyre run
// --backend cuda` to `vyre-full` beside it; without it into `vyre-full`
// (or into the only `vyre` of a build without cuda), which runs everything.

#include <charconv>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/vyre.hpp>

#include "exec_sibling.hpp"
#include "stdout_status.hpp"

#ifndef VYRE_HAND_OVER
#define VYRE_HAND_OVER 0
#endif

namespace {

using namespace vyre;
using ir::scalar_type;

constexpr int exit_dispatch = 1;
constexpr int exit_invalid = 2;
/// Steps (statements and invocation starts) a `vyre run` dispatch may take unless --step-budget says otherwise
/// (seconds of interpretation: enough for real programs, a stop for endless loops).
constexpr std::uint64_t default_step_budget = 1'000'000'000;

constexpr const char* usage_text =
    "usage: vyre run PROGRAM.vyre [--backend ID] [--grid X,Y,Z] [--input NAME=FILE | --input NAME=v1,v2,...]...\n"
    "                             [--step-budget N]   (default 10^9 steps: statements and invocation starts; 0: no limit)\n"
    "       vyre check PROGRAM.vyre\n"
    "       vyre fmt PROGRAM.vyre\n"
    "       vyre backends\n"
    "       vyre --help | vyre COMMAND --help | vyre --version\n";

/// A usage error: what is wrong and the usage, on stderr.
int usage(const std::string& why) {
    if (!why.empty()) std::cerr << "vyre: " << why << "\n";
    std::cerr << usage_text;
    return exit_invalid;
}

/// `--help`: the usage on stdout, success.
int help() {
    std::cout << usage_text;
    return 0;
}

/// Reads the whole file at `path` into `out`; false when it cannot (a
/// missing file, a directory, a read error), never an exception.
bool read_file(const std::string& path, std::string& out) {
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    if (!fp) return false;
    out.clear();
    char block[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(block, 1, sizeof block, fp)) > 0) out.append(block, got);
    const bool ok = std::ferror(fp) == 0;  // (reading a directory fails here: EISDIR)
    std::fclose(fp);
    return ok;
}

/// Parses one value of element type `t` into its stored little-endian bytes.
bool parse_value(std::string_view s, scalar_type t, bytes& out) {
    auto put = [&](auto v) {
        std::uint8_t b[sizeof(v)];
        std::memcpy(b, &v, sizeof(v));
        out.insert(out.end(), b, b + sizeof(v));
    };
    auto parse_int = [&](auto& v) {
        const char* e = s.data() + s.size();
        auto r = std::from_chars(s.data(), e, v);
        return r.ec == std::errc() && r.ptr == e;
    };
    auto parse_float = [&](double& v) {
        std::string str(s);
        if (str.empty()) return false;
        char* end = nullptr;
        v = std::strtod(str.c_str(), &end);
        return end == str.c_str() + str.size();
    };
    switch (t) {
    case scalar_type::bool_:
        if (s == "true" || s == "1") return put(std::uint32_t(1)), true;
        if (s == "false" || s == "0") return put(std::uint32_t(0)), true;
        return false;
    case scalar_type::u8: { std::uint8_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::i8: { std::int8_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::u16: { std::uint16_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::i16: { std::int16_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::u32: { std::uint32_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::i32: { std::int32_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::u64: { std::uint64_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::i64: { std::int64_t v; if (!parse_int(v)) return false; put(v); return true; }
    case scalar_type::f32: {
        std::string str(s);
        char* end = nullptr;
        float v = std::strtof(str.c_str(), &end);
        if (str.empty() || end != str.c_str() + str.size()) return false;
        put(v);
        return true;
    }
    case scalar_type::f64: { double v; if (!parse_float(v)) return false; put(v); return true; }
    case scalar_type::f16:
    case scalar_type::bf16: {
        std::string str(s);
        char* end = nullptr;
        const double d = std::strtod(str.c_str(), &end);
        if (str.empty() || end != str.c_str() + str.size()) return false;
        // The nearest double rounded once more: to f32 by rounding to odd
        // (toward zero, the last bit set where inexact), then to nearest even;
        // f32's 13 more bits keep the second step from going wrong, where
        // rounding to nearest twice would (1.0004882813 as f16 is 1.0009766, not 1).
        float v = std::fabs(d) > std::numeric_limits<float>::max() ? std::copysign(std::numeric_limits<float>::max(), d)
                                                                   : static_cast<float>(d);
        std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
        if (!std::isnan(d) && static_cast<double>(v) != d) {
            if (std::fabs(static_cast<double>(v)) > std::fabs(d)) v = std::nextafter(v, 0.0f);
            bits = std::bit_cast<std::uint32_t>(v) | 1u;
        }
        put(t == scalar_type::f16 ? detail::f32_to_f16(bits) : detail::f32_to_bf16(bits));
        return true;
    }
    }
    return false;
}

/// Parses `v1,v2,...` (possibly empty) for element type `t`.
bool parse_values(std::string_view list, scalar_type t, bytes& out) {
    out.clear();
    if (list.empty()) return true;
    std::size_t pos = 0;
    while (true) {
        std::size_t comma = list.find(',', pos);
        auto item = list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!parse_value(item, t, out)) return false;
        if (comma == std::string_view::npos) return true;
        pos = comma + 1;
    }
}

std::string format_float(double v, bool is_f32) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    auto r = is_f32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                    : std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

/// Formats element `i` of an output buffer in decimal.
std::string format_element(const std::uint8_t* p, scalar_type t) {
    std::uint64_t w = detail::load_element(p, 0, t == scalar_type::bool_ ? scalar_type::u32 : t);
    switch (t) {
    case scalar_type::i8: case scalar_type::i16: case scalar_type::i32:
        return std::to_string(static_cast<std::int32_t>(static_cast<std::uint32_t>(w)));
    case scalar_type::i64: return std::to_string(static_cast<std::int64_t>(w));
    case scalar_type::f32: case scalar_type::f16: case scalar_type::bf16:
        return format_float(detail::as_f32(w), true);
    case scalar_type::f64: return format_float(detail::as_f64(w), false);
    default: return std::to_string(w);
    }
}

result<ir::program, std::string> load_program(const std::string& path) {
    std::string text;
    if (!read_file(path, text)) return make_unexpected(std::string("cannot read '" + path + "'"));
    auto p = ir::parse(text);
    if (!p) return make_unexpected(path + ":" + p.error().what());
    return std::move(*p);
}

int cmd_check(const std::string& path, bool print_canonical) {
    auto p = load_program(path);
    if (!p) {
        std::cerr << "vyre: " << p.error() << "\n";
        return exit_invalid;
    }
    auto d = ir::validate(*p);
    if (!d.empty()) {
        std::cerr << path << ": program '" << p->name << "' is invalid:\n" << ir::format_diagnostics(d);
        return exit_invalid;
    }
    if (print_canonical) std::cout << ir::print(*p);
    return 0;
}

int cmd_backends() {
    for (const auto& id : backend_ids()) {
        auto b = make_backend(id);
        std::cout << b->device_profile().to_string() << "\n";
    }
    return 0;
}

int cmd_run(int argc, char** argv) {
    std::string path, backend_id = "cpu-ref";
    dispatch_config cfg;
    cfg.step_budget = default_step_budget;
    std::vector<std::pair<std::string, std::string>> inputs;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&](const char* what) -> std::optional<std::string> {
            if (i + 1 >= argc) return std::nullopt;
            (void)what;
            return std::string(argv[++i]);
        };
        if (a == "--backend") {
            auto v = next("--backend");
            if (!v) return usage("--backend needs an id");
            backend_id = *v;
        } else if (a == "--grid") {
            auto v = next("--grid");
            if (!v) return usage("--grid needs X,Y,Z");
            std::array<std::uint32_t, 3> g{1, 1, 1};
            bytes tmp;
            std::size_t k = 0, pos = 0;
            bool ok = true;
            while (ok) {
                auto comma = v->find(',', pos);
                std::string part = v->substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
                std::uint32_t x = 0;
                auto r = std::from_chars(part.data(), part.data() + part.size(), x);
                if (k >= 3 || part.empty() || r.ec != std::errc() || r.ptr != part.data() + part.size()) ok = false;
                else g[k++] = x;
                if (comma == std::string::npos) break;
                pos = comma + 1;
            }
            if (!ok || k == 0) return usage("--grid expects up to three u32 values X,Y,Z, got '" + *v + "'");
            cfg.grid = g;
        } else if (a == "--step-budget") {
            auto v = next("--step-budget");
            std::uint64_t n = 0;
            auto r = v ? std::from_chars(v->data(), v->data() + v->size(), n) : std::from_chars_result{};
            if (!v || v->empty() || r.ec != std::errc() || r.ptr != v->data() + v->size())
                return usage("--step-budget needs a count of steps (0: no limit)");
            cfg.step_budget = n;
        } else if (a == "--input") {
            auto v = next("--input");
            if (!v) return usage("--input needs NAME=FILE or NAME=v1,v2,...");
            auto eq = v->find('=');
            if (eq == std::string::npos || eq == 0) return usage("--input expects NAME=..., got '" + *v + "'");
            inputs.emplace_back(v->substr(0, eq), v->substr(eq + 1));
        } else if (a.rfind("--", 0) == 0) {
            return usage("unknown option '" + a + "'");
        } else if (path.empty()) {
            path = a;
        } else {
            return usage("more than one program given ('" + path + "', '" + a + "')");
        }
    }
    if (path.empty()) return usage("no program given");
    auto p = load_program(path);
    if (!p) {
        std::cerr << "vyre: " << p.error() << "\n";
        return exit_invalid;
    }
    auto diags = ir::validate(*p);
    if (!diags.empty()) {
        std::cerr << path << ": program '" << p->name << "' is invalid:\n" << ir::format_diagnostics(diags);
        return exit_invalid;
    }
    auto backend = make_backend(backend_id);
    if (!backend) {
        std::cerr << "vyre: " << backend.error().what() << "\n";
        return exit_invalid;
    }
    // Match inputs to the input buffers by name.
    std::map<std::string, std::string> given;
    for (auto& [n, v] : inputs) {
        const auto* b = p->find_buffer(n);
        if (!b) {
            std::cerr << "vyre: --input " << n << ": program '" << p->name << "' has no buffer '" << n << "'\n";
            return exit_invalid;
        }
        if (!ir::is_input(b->acc)) {
            std::cerr << "vyre: --input " << n << ": buffer '" << n << "' is " << ir::name_of(b->acc)
                      << ", not an input (read, uniform or read_write)\n";
            return exit_invalid;
        }
        if (given.count(n)) {
            std::cerr << "vyre: --input " << n << " given twice\n";
            return exit_invalid;
        }
        given[n] = v;
    }
    std::vector<bytes> data;
    for (const auto& b : p->buffers) {
        if (!ir::is_input(b.acc)) continue;
        auto it = given.find(b.name);
        if (it == given.end()) {
            std::cerr << "vyre: missing --input for buffer '" << b.name << "' (" << ir::name_of(b.acc) << " "
                      << ir::name_of(b.type) << ")\n";
            return exit_invalid;
        }
        bytes d;
        if (!parse_values(it->second, b.type, d)) {
            std::string raw;
            if (!read_file(it->second, raw)) {
                std::cerr << "vyre: --input " << b.name << "=" << it->second << ": neither a list of "
                          << ir::name_of(b.type) << " values nor a readable file\n";
                return exit_invalid;
            }
            d.assign(raw.begin(), raw.end());
        }
        data.push_back(std::move(d));
    }
    auto out = vyre::dispatch(*backend, *p, data, cfg);
    if (!out) {
        auto code = out.error().code();
        std::cerr << "vyre: " << out.error().what() << "\n";
        return (code == error_code::invalid_argument || code == error_code::invalid_program) ? exit_invalid
                                                                                             : exit_dispatch;
    }
    std::size_t k = 0;
    for (const auto& b : p->buffers) {
        if (!ir::is_output(b.acc)) continue;
        const bytes& o = (*out)[k++];
        std::string line = b.name + ":";
        const std::size_t es = ir::size_of(b.type);
        for (std::size_t i = 0; i + es <= o.size(); i += es) line += " " + format_element(o.data() + i, b.type);
        std::cout << line << "\n";
    }
    return 0;
}

/// True for the commands that need the cuda backend: `backends` (which
/// lists it) and `run` with `--backend cuda`.
[[maybe_unused]] bool needs_full(int argc, char** argv) {
    const std::string_view cmd = argv[1];
    if (cmd == "backends") return true;
    if (cmd != "run") return false;
    for (int i = 2; i + 1 < argc; ++i)
        if (std::string_view(argv[i]) == "--backend" && std::string_view(argv[i + 1]) == "cuda") return true;
    return false;
}

/// The command (`main` checks that its output reached stdout).
int run(int argc, char** argv) {
    if (argc < 2) return usage("");
    std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return help();
    if (cmd == "--version") {
        std::cout << "vyre " << vyre::version << "\n";
        return 0;
    }
    for (int i = 2; i < argc; ++i)  // COMMAND --help
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") return help();
#if VYRE_HAND_OVER
    if (needs_full(argc, argv))
        return cli_detail::exec_sibling("vyre", "vyre-full", argv,
                                        "`vyre backends` and `vyre run --backend cuda` run in vyre-full, which is built "
                                        "and installed beside vyre");
#endif
    if (cmd == "run") return cmd_run(argc, argv);
    if (cmd == "check" || cmd == "fmt") {
        if (argc != 3) return usage("`vyre " + cmd + "` takes one FILE" + (argc > 3 ? " and no options" : ""));
        return cmd_check(argv[2], cmd == "fmt");
    }
    if (cmd == "backends") {
        if (argc != 2) return usage("`vyre backends` takes no arguments");
        return cmd_backends();
    }
    return usage("unknown command '" + cmd + "'");
}

} // namespace

int main(int argc, char** argv) { return cli_detail::stdout_status("vyre", run(argc, argv)); }
