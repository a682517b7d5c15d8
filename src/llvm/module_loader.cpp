// Loading, compiling and linking the inputs of `weir analyze` (module_loader.hpp).

#include <weir/llvm/module_loader.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/AsmParser/LLParser.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/raw_ostream.h>

#include "json.hpp"

namespace weir::llvm {

namespace {

namespace L = ::llvm;
using detail::json_reader;
using detail::json_value;

/// A temporary file removed when it goes out of scope.
struct temp_file {
    L::SmallString<128> path;
    explicit temp_file(const char* suffix) {
        if (auto ec = L::sys::fs::createTemporaryFile("weir", suffix, path))
            throw input_error("", 0, "cannot create a temporary file: " + ec.message());
    }
    ~temp_file() { L::sys::fs::remove(path); }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
};

bool is_source(L::StringRef path) {
    auto ext = L::sys::path::extension(path);
    return ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".C" || ext == ".c++";
}

std::string find_clang(const load_options& opt) {
    if (!opt.clang.empty()) return opt.clang;
    if (const char* env = std::getenv("WEIR_CLANG"); env && *env) return env;
    if (auto p = L::sys::findProgramByName("clang-14")) return *p;
    if (auto p = L::sys::findProgramByName("clang")) return *p;
    throw input_error("", 0, "clang-14 not found on the PATH (install clang-14, or set WEIR_CLANG)");
}

/// The first lines of a file (for a compiler's error output).
std::string head_of(L::StringRef path, std::size_t max_lines) {
    auto buf = L::MemoryBuffer::getFile(path);
    if (!buf) return {};
    std::string s;
    std::size_t lines = 0;
    for (char c : (*buf)->getBuffer()) {
        s += c;
        if (c == '\n' && ++lines == max_lines) break;
    }
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

/// LLVM's text parser stops the process (report_fatal_error) on a malformed
/// `target datalayout`: check each such string first, as an input error.
void check_datalayouts(L::StringRef text, const std::string& name) {
    static constexpr L::StringLiteral key("target datalayout");
    for (std::size_t at = text.find(key); at != L::StringRef::npos; at = text.find(key, at + key.size())) {
        const std::size_t open = text.find('"', at), close = open == L::StringRef::npos ? open : text.find('"', open + 1);
        if (close == L::StringRef::npos) return;  // the parser reports what is wrong here
        auto dl = L::DataLayout::parse(text.slice(open + 1, close));
        if (!dl)
            throw input_error(name, static_cast<std::size_t>(text.take_front(at).count('\n')) + 1,
                              "invalid LLVM IR: malformed target datalayout: " + L::toString(dl.takeError()));
    }
}

/// A parse error as an input error with its line.
[[noreturn]] void parse_failed(const L::SMDiagnostic& diag, const std::string& name) {
    std::string msg = diag.getMessage().str();
    if (msg.empty()) msg = "not LLVM IR (text or bitcode)";
    throw input_error(name, diag.getLineNo() > 0 ? static_cast<std::size_t>(diag.getLineNo()) : 0, "invalid LLVM IR: " + msg);
}

/// Parses one `.ll`/`.bc` buffer; a parse error names the line. Text goes
/// straight to LLVM's parser without its debug-info upgrade, which would stop
/// the process on a module that does not verify: `verified` checks it instead.
std::unique_ptr<L::Module> parse_buffer(L::MemoryBufferRef buf, const std::string& name, L::LLVMContext& ctx) {
    L::SMDiagnostic diag;
    if (L::isBitcode(reinterpret_cast<const unsigned char*>(buf.getBufferStart()),
                     reinterpret_cast<const unsigned char*>(buf.getBufferEnd()))) {
        auto m = L::parseIR(buf, diag, ctx);
        if (!m) parse_failed(diag, name);
        return m;
    }
    check_datalayouts(buf.getBuffer(), name);
    L::SourceMgr sm;
    sm.AddNewSourceBuffer(L::MemoryBuffer::getMemBuffer(buf, false), L::SMLoc());
    auto m = std::make_unique<L::Module>(buf.getBufferIdentifier(), ctx);
    if (L::LLParser(buf.getBuffer(), sm, diag, m.get(), nullptr, ctx).Run(/*UpgradeDebugInfo=*/false))
        parse_failed(diag, name);
    return m;
}

/// Verifies a module: broken IR is an input error; broken debug information
/// alone is dropped with a warning (as LLVM's own loaders do).
void verified(L::Module& m, const std::string& name) {
    std::string msg;
    L::raw_string_ostream os(msg);
    bool broken_debug_info = false;
    if (L::verifyModule(m, &os, &broken_debug_info)) throw input_error(name, 0, "invalid LLVM IR: " + os.str());
    if (broken_debug_info) {
        std::fprintf(stderr, "weir: %s: warning: ignoring invalid debug information (findings will have no lines)\n",
                     name.c_str());
        L::StripDebugInfo(m);
    }
}

/// Loads a `.ll`/`.bc` file (`shown` names it in errors); with `bitcode_only`
/// (what clang wrote for a source), anything but bitcode is an error.
std::unique_ptr<L::Module> load_ir_file(const std::string& path, const std::string& shown, L::LLVMContext& ctx,
                                        bool bitcode_only = false) {
    auto buf = L::MemoryBuffer::getFile(path);
    if (!buf) throw input_error(shown, 0, "cannot read: " + buf.getError().message());
    if (bitcode_only && !L::isBitcode(reinterpret_cast<const unsigned char*>((*buf)->getBufferStart()),
                                      reinterpret_cast<const unsigned char*>((*buf)->getBufferEnd())))
        throw input_error(shown, 0,
                          "clang wrote no LLVM bitcode for it (a flag after `--` such as -fsyntax-only, -E or -M "
                          "changes what clang makes)");
    auto m = parse_buffer((*buf)->getMemBufferRef(), shown, ctx);
    verified(*m, shown);  // before linking: the linker expects valid modules
    return m;
}

/// Compiles one source with clang into bitcode and loads it.
std::unique_ptr<L::Module> compile_source(const std::string& clang, const std::string& source,
                                          std::vector<std::string> flags, const std::string& workdir,
                                          L::LLVMContext& ctx) {
    if (!L::sys::fs::exists(source)) throw input_error(source, 0, "no such file");
    temp_file out(".bc"), err(".txt");
    std::vector<std::string> args{clang, "-c", "-emit-llvm"};
    for (auto& f : default_clang_flags()) args.push_back(f);
    for (auto& f : flags) args.push_back(std::move(f));
    if (!workdir.empty()) {
        args.push_back("-working-directory");
        args.push_back(workdir);
    }
    args.push_back(source);
    args.push_back("-o");
    args.push_back(std::string(out.path));
    std::vector<L::StringRef> argv(args.begin(), args.end());
    L::Optional<L::StringRef> redirects[] = {L::StringRef(""), L::StringRef(err.path), L::StringRef(err.path)};
    std::string why;
    bool failed = false;
    const int rc = L::sys::ExecuteAndWait(clang, argv, L::None, redirects, 0, 0, &why, &failed);
    if (failed) throw input_error(source, 0, "cannot run " + clang + ": " + why);
    if (rc != 0) {
        // The compiler's first message names the line; keep its first lines.
        std::string msg = head_of(err.path, 8);
        throw input_error(source, 0, "does not compile (" + clang + " exited with " + std::to_string(rc) + ")" +
                                         (msg.empty() ? std::string() : ":\n" + msg));
    }
    return load_ir_file(std::string(out.path), source, ctx, /*bitcode_only=*/true);
}

/// The translation units of DIR/compile_commands.json as (workdir, file, flags).
struct translation_unit {
    std::string dir, file;
    std::vector<std::string> flags;
};

std::vector<translation_unit> read_compile_commands(const std::string& dir) {
    L::SmallString<256> path(dir);
    L::sys::path::append(path, "compile_commands.json");
    const std::string shown(path);
    auto buf = L::MemoryBuffer::getFile(path);
    if (!buf) throw input_error(shown, 0, "cannot read: " + buf.getError().message());
    const json_value root = json_reader((*buf)->getBuffer(), shown).parse();
    if (root.kind != json_value::array_v) throw input_error(shown, root.line, "expected an array of compile commands");
    std::vector<translation_unit> out;
    for (const json_value& o : root.items) {
        if (o.kind != json_value::object_v) throw input_error(shown, o.line, "a compile command is not a JSON object");
        translation_unit tu;
        const json_value* d = o.get("directory");
        const json_value* f = o.get("file");
        if (!d || !f || d->kind != json_value::string_v || f->kind != json_value::string_v)
            throw input_error(shown, o.line, "a compile command lacks the strings \"directory\" and \"file\"");
        tu.dir = d->str;
        L::SmallString<256> file(f->str);
        L::sys::fs::make_absolute(tu.dir, file);
        tu.file = std::string(file);
        if (!is_source(tu.file)) continue;  // assembler and other languages are not analysed
        std::vector<std::string> args;
        if (const json_value* a = o.get("arguments"); a && a->kind == json_value::array_v) {
            for (const json_value& x : a->items) {
                if (x.kind != json_value::string_v) throw input_error(shown, x.line, "\"arguments\" holds a non-string");
                args.push_back(x.str);
            }
        } else if (const json_value* c = o.get("command"); c && c->kind == json_value::string_v) {
            L::BumpPtrAllocator alloc;
            L::StringSaver saver(alloc);
            L::SmallVector<const char*, 32> toks;
            L::cl::TokenizeGNUCommandLine(c->str, saver, toks);
            for (const char* t : toks) args.emplace_back(t);
        } else {
            throw input_error(shown, o.line, "a compile command lacks \"arguments\" (an array) and \"command\" (a string)");
        }
        // Keep the flags that shape the code (defines, includes, standard...):
        // drop the compiler, the output, -c and the inputs, and what would
        // change the form the analyses read or fail clang where gcc is the
        // project's compiler: optimization and debug levels (the spec's -O0
        // -g stand), -Werror (gcc-only warning options are warnings for
        // clang), sanitizer and profiling instrumentation.
        auto starts = [](const std::string& a, const char* p) { return a.rfind(p, 0) == 0; };
        auto optimization_level = [](const std::string& a) {  // -O, -O0..-O3, -Os, -Oz, -Og, -Ofast (not -ObjC)
            return a == "-O" || a == "-Os" || a == "-Oz" || a == "-Og" || a == "-Ofast" ||
                   (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '9');
        };
        for (std::size_t i = 1; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ") {
                ++i;
                continue;
            }
            if ((a == "-Xclang" || a == "-mllvm" || a == "-Xpreprocessor") && i + 1 < args.size()) {
                tu.flags.push_back(a);  // with its value, whatever it is
                tu.flags.push_back(args[++i]);
                continue;
            }
            if (a == "-c" || a == "-MD" || a == "-MMD" || (starts(a, "-o") && a.size() > 2)) continue;
            if (optimization_level(a) || (starts(a, "-g") && a != "-gcc-toolchain") || starts(a, "-Werror") ||
                starts(a, "-fsanitize") || starts(a, "-fprofile") || starts(a, "-fcoverage") || a == "--coverage" ||
                a == "-coverage" || a == "-pg")
                continue;
            if (!a.empty() && a[0] != '-') {
                L::SmallString<256> p(a);
                L::sys::fs::make_absolute(tu.dir, p);
                if (std::string(p) == tu.file || is_source(a)) continue;
            }
            tu.flags.push_back(a);
        }
        out.push_back(std::move(tu));
    }
    if (out.empty()) throw input_error(shown, 0, "no C or C++ translation unit in it");
    return out;
}

void link_into(std::unique_ptr<L::Module>& dest, std::unique_ptr<L::Module> src, const std::string& name) {
    if (!dest) {
        dest = std::move(src);
        return;
    }
    std::string msg;
    L::raw_string_ostream os(msg);
    auto& ctx = dest->getContext();
    // Route the linker's diagnostics into the message (the default handler prints them).
    auto old = ctx.getDiagnosticHandlerCallBack();
    void* old_ctx = ctx.getDiagnosticContext();
    struct sink_t {
        L::raw_string_ostream* os;
    } sink{&os};
    ctx.setDiagnosticHandlerCallBack(
        [](const L::DiagnosticInfo& di, void* c) {
            L::DiagnosticPrinterRawOStream p(*static_cast<sink_t*>(c)->os);
            di.print(p);
        },
        &sink);
    const bool failed = L::Linker::linkModules(*dest, std::move(src));
    ctx.setDiagnosticHandlerCallBack(old, old_ctx);
    if (failed) throw input_error(name, 0, "cannot link: " + os.str());
}

} // namespace

void stop_on_llvm_fatal_errors(const char* tool) {
    static std::string prefix;
    prefix = tool;
    L::install_fatal_error_handler(
        [](void*, const char* reason, bool) {
            std::fprintf(stderr, "%s: LLVM could not read the input: %s\n", prefix.c_str(), reason);
            std::_Exit(2);
        },
        nullptr);
}

std::vector<std::string> default_clang_flags() {
    return {"-g", "-O0", "-fno-discard-value-names", "-Xclang", "-disable-O0-optnone"};
}

std::unique_ptr<::llvm::Module> parse_module(const std::string& bytes, const std::string& name, ::llvm::LLVMContext& ctx) {
    auto buf = L::MemoryBuffer::getMemBuffer(bytes, name, false);
    auto m = parse_buffer(buf->getMemBufferRef(), name, ctx);
    verified(*m, name);
    return m;
}

std::unique_ptr<::llvm::Module> load_module(const load_options& opt, ::llvm::LLVMContext& ctx) {
    if (opt.inputs.empty() && opt.compile_commands_dir.empty()) throw input_error("", 0, "no input given");
    std::unique_ptr<L::Module> m;
    std::string clang;
    for (const auto& in : opt.inputs) {
        if (is_source(in)) {
            if (clang.empty()) clang = find_clang(opt);
            link_into(m, compile_source(clang, in, opt.clang_flags, "", ctx), in);
        } else {
            link_into(m, load_ir_file(in, in, ctx), in);
        }
    }
    if (!opt.compile_commands_dir.empty()) {
        auto tus = read_compile_commands(opt.compile_commands_dir);
        if (clang.empty()) clang = find_clang(opt);
        for (auto& tu : tus) {
            auto flags = tu.flags;
            flags.insert(flags.end(), opt.clang_flags.begin(), opt.clang_flags.end());
            link_into(m, compile_source(clang, tu.file, flags, tu.dir, ctx), tu.file);
        }
    }
    verified(*m, opt.inputs.size() == 1 ? opt.inputs[0] : std::string("the linked module"));
    return m;
}

} // namespace weir::llvm
