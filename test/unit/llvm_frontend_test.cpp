// The LLVM frontend's parts: taint configurations (PhASAR's JSON), IR
// loading errors, points-to and call resolution, and a whole session on the
// tabulation solver. The analyses' rules are tested end to end on C/C++
// programs (test/llvm/).

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <llvm/IR/LLVMContext.h>

#include <weir/ifds/prune_facts.hpp>
#include <weir/ifds/tabulation_solver.hpp>
#include <weir/llvm/analyze.hpp>
#include <weir/llvm/compile.hpp>
#include <weir/llvm/module_loader.hpp>
#include <weir/llvm/program.hpp>
#include <weir/llvm/taint.hpp>
#include <weir/llvm/taint_config.hpp>

#include "support/tabulate.hpp"

using namespace weir::llvm;

namespace {
/// The line of the input_error `text` raises, or -1 when it parses.
long config_error_line(const std::string& text) {
    try {
        parse_taint_config(text, "c.json");
        return -1;
    } catch (const input_error& e) {
        CHECK(e.file() == "c.json");
        return static_cast<long>(e.line());
    }
}
} // namespace

TEST_CASE("a PhASAR-style taint configuration loads", "[llvm][config]") {
    const auto c = load_taint_config(WEIR_LLVM_TEST_DATA_DIR "/phasar_config.json");
    CHECK(c.name == "phasar-style-config");
    const function_tags* src = c.find("_Z6sourcev");
    REQUIRE(src);
    CHECK(src->ret_source);
    const function_tags* rd = c.find("read_input");
    REQUIRE(rd);
    CHECK(rd->source_params == std::vector<unsigned>{0, 1});
    REQUIRE(c.find("sink"));
    CHECK(c.find("sink")->sink_params == std::vector<unsigned>{0});
    REQUIRE(c.find("escape"));
    CHECK(c.find("escape")->ret_sanitizer);
    CHECK(c.find("escape")->sanitizer_params == std::vector<unsigned>{0});
    CHECK(c.find("log_all")->all_params_sink);
    REQUIRE(c.variables.size() == 1);
    CHECK(c.variables[0].scope == "main");
    CHECK(c.variables[0].name == "secret");
    CHECK_FALSE(c.untrusted_command_line);  // only the default and libc configurations say so
}

TEST_CASE("names match as IR, demangled, or demangled base names", "[llvm][config]") {
    const auto c = default_taint_config();
    CHECK(c.find("source"));
    CHECK(c.find("_Z6sourcev"));          // source()
    CHECK(c.find("_Z4sinkPc"));           // sink(char*)
    CHECK(c.find("_ZN2ns4sinkEi"));       // ns::sink(int): base name
    CHECK_FALSE(c.find("_Z7sourcesv"));   // sources()
    CHECK_FALSE(c.find("sink2"));
    CHECK(c.untrusted_command_line);
    const auto l = libc_taint_config();
    REQUIRE(l.find("system"));
    CHECK(l.find("system")->sink_params == std::vector<unsigned>{0});
    CHECK(l.find("getenv")->ret_source);
    CHECK(l.find("__isoc99_scanf")->source_params_from == 1);
    CHECK(l.find("printf")->sink_params == std::vector<unsigned>{0});
    CHECK_FALSE(l.find("source"));
}

TEST_CASE("malformed configurations are errors with their line", "[llvm][config]") {
    CHECK(config_error_line("{}") == -1);
    CHECK(config_error_line("{\"functions\": [], \"unknown\": {\"x\": [1, 2.5e3, null, true]}}") == -1);
    CHECK(config_error_line("") == 1);
    CHECK(config_error_line("{\n\"functions\": [\n{\"name\": \"f\",}\n]}") == 3);             // trailing comma
    CHECK(config_error_line("{\n\"functions\": {}\n}") == 2);                                   // not an array
    CHECK(config_error_line("{\"functions\": [\n\n {\"params\": {}}]}") == 3);                 // no name
    CHECK(config_error_line("{\"functions\": [\n {\"name\": \"f\",\n \"ret\": \"tainted\"}]}") == 3);  // unknown category
    CHECK(config_error_line("{\"functions\": [{\"name\": \"f\", \"params\":\n {\"sink\": [0, -1]}}]}") == 2);
    CHECK(config_error_line("{\"functions\": [{\"name\": \"f\", \"params\": {\"sink\": [1.5]}}]}") == 1);
    CHECK(config_error_line("{\"variables\": [\n{\"name\": \"x\"}]}") == 2);                    // no cat
    CHECK(config_error_line("{\"name\": \"unterminated}") == 1);
    CHECK(config_error_line("{\"a\": \"\\x\"}") == 1);                                          // bad escape
    CHECK(config_error_line("{\"a\": \"\\ud800\"}") == 1);                                      // lone surrogate
    CHECK(config_error_line("[1]\n") == 1);                                                     // not an object
    CHECK(config_error_line("{} {}") == 1);
    CHECK(config_error_line(std::string(100, '[')) == 1);                                       // too deep
    CHECK(config_error_line("{\"a\": 01}") == 1);
    CHECK(config_error_line(std::string("{\"a\": \"\x01\"}")) == 1);
    // A missing file names itself.
    try {
        load_taint_config("/nonexistent/weir.json");
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.file() == "/nonexistent/weir.json");
    }
}

TEST_CASE("invalid IR is an error with its line", "[llvm][load]") {
    ::llvm::LLVMContext ctx;
    try {
        parse_module("define i32 @f() {\n  ret i32 0\n}\n\ndefine void @g() {\n  %x = add i32 1\n}\n", "bad.ll", ctx);
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.file() == "bad.ll");
        CHECK(e.line() == 7);  // the parser stops at the `}` where it wanted a second operand
    }
    try {
        parse_module("\x42\x43\xc0\xde garbage", "bad.bc", ctx);  // bitcode magic, then nonsense
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.file() == "bad.bc");
    }
    // Parses, but does not verify (a use before its definition in one block).
    try {
        parse_module("define i32 @f() {\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n  ret i32 %a\n}\n", "unverified.ll", ctx);
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.file() == "unverified.ll");
        CHECK_THAT(e.message(), Catch::Contains("invalid LLVM IR"));
    }
    load_options opt;
    opt.inputs = {"/nonexistent/x.ll"};
    CHECK_THROWS_AS(load_module(opt, ctx), input_error);
}

namespace {
constexpr const char* indirect_ir = R"(
declare i32 @source()
declare void @sink(i32)
define i32 @pass(i32 %x) {
  ret i32 %x
}
define i32 @zero(i32 %x) {
  ret i32 0
}
define void @unused(i8* %p) {
  ret void
}
define i32 @main() {
  %fp = alloca i32 (i32)*
  store i32 (i32)* @pass, i32 (i32)** %fp
  %f = load i32 (i32)*, i32 (i32)** %fp
  %s = call i32 @source()
  %r = call i32 %f(i32 %s)
  call void @sink(i32 %r)
  %g = select i1 true, i32 (i32)* @zero, i32 (i32)* @pass
  %r2 = call i32 %g(i32 1)
  call void @sink(i32 %r2)
  ret i32 0
}
)";
} // namespace

TEST_CASE("points-to resolves indirect calls by arity and type", "[llvm][points_to]") {
    ::llvm::LLVMContext ctx;
    auto m = parse_module(indirect_ir, "indirect.ll", ctx);
    program prog(*m, {});
    REQUIRE(prog.entries().size() == 1);
    CHECK(prog.entries()[0]->getName() == "main");
    std::vector<std::string> first, second;
    for (const auto& i : *m->getFunction("main")->begin())
        if (const auto* c = ::llvm::dyn_cast<::llvm::CallBase>(&i); c && !c->getCalledFunction()) {
            auto& names = first.empty() ? first : second;
            for (const auto* f : prog.pointers().callees(*c)) names.push_back(f->getName().str());
        }
    CHECK(first == std::vector<std::string>{"pass"});
    CHECK(second == std::vector<std::string>{"pass", "zero"});  // not @unused: its parameter is a pointer
}

namespace {
/// As after linking two modules: `%struct.ctx.0` is the second module's copy
/// of `%struct.ctx`. The handlers' addresses are stored uncast; the table is
/// read through the first module's type.
constexpr const char* linked_ir = R"(
%struct.ctx = type { i32 }
%struct.ctx.0 = type { i32 }
%struct.other = type { i64 }
@table = global [2 x i8*] zeroinitializer
define void @handler(%struct.ctx.0* %c) {
  ret void
}
define void @stranger(%struct.other* %o) {
  ret void
}
define void @install() {
  %slot0 = bitcast [2 x i8*]* @table to void (%struct.ctx.0*)**
  store void (%struct.ctx.0*)* @handler, void (%struct.ctx.0*)** %slot0
  %slot1 = bitcast [2 x i8*]* @table to void (%struct.other*)**
  store void (%struct.other*)* @stranger, void (%struct.other*)** %slot1
  ret void
}
define void @main() {
  call void @install()
  %slot = bitcast [2 x i8*]* @table to void (%struct.ctx*)**
  %f = load void (%struct.ctx*)*, void (%struct.ctx*)** %slot
  %x = alloca %struct.ctx
  call void %f(%struct.ctx* %x)
  ret void
}
)";

/// The names of the targets of `f`'s first indirect call.
std::vector<std::string> first_indirect_targets(const program& prog, const ::llvm::Function& f) {
    std::vector<std::string> names;
    for (const auto& b : f)
        for (const auto& i : b)
            if (const auto* c = ::llvm::dyn_cast<::llvm::CallBase>(&i); c && !c->getCalledFunction()) {
                for (const auto* t : prog.pointers().callees(*c)) names.push_back(t->getName().str());
                return names;
            }
    return names;
}
} // namespace

TEST_CASE("an uncast function is a target only of calls of its type, struct names up to link suffixes",
          "[llvm][points_to]") {
    for (auto engine : {points_to_engine::inclusion, points_to_engine::unification}) {
        ::llvm::LLVMContext ctx;
        auto m = parse_module(linked_ir, "linked.ll", ctx);
        program prog(*m, {}, {engine});
        // Field-insensitive memory: the one slot holds both handlers; @stranger's type differs.
        CHECK(first_indirect_targets(prog, *m->getFunction("main")) == std::vector<std::string>{"handler"});
    }
}

TEST_CASE("program::recursive marks the functions on call-graph cycles", "[llvm][program]") {
    ::llvm::LLVMContext ctx;
    auto m = parse_module(R"(
define void @self(i32 %n) {
  call void @self(i32 %n)
  ret void
}
define void @ping(i32 %n) {
  call void @pong(i32 %n)
  ret void
}
define void @pong(i32 %n) {
  %fp = alloca void (i32)*
  store void (i32)* @ping, void (i32)** %fp
  %f = load void (i32)*, void (i32)** %fp
  call void %f(i32 %n)
  call void @leaf()
  ret void
}
define void @leaf() {
  ret void
}
define void @main() {
  call void @self(i32 1)
  call void @ping(i32 1)
  ret void
}
)",
                          "rec.ll", ctx);
    program prog(*m, {});
    CHECK(prog.recursive(*m->getFunction("self")));
    CHECK(prog.recursive(*m->getFunction("ping")));  // through pong's indirect call
    CHECK(prog.recursive(*m->getFunction("pong")));
    CHECK_FALSE(prog.recursive(*m->getFunction("leaf")));
    CHECK_FALSE(prog.recursive(*m->getFunction("main")));
}

TEST_CASE("a session finds taint through an indirect call, on the tabulation solver", "[llvm][session]") {
    ::llvm::LLVMContext ctx;
    auto m = parse_module(indirect_ir, "indirect.ll", ctx);
    analysis_session s(*m, {});
    auto solved = weir::ifds::tabulation_solver(s.layout()).solve();
    REQUIRE(solved);
    auto f = s.findings(std::move(solved->path_edges));
    REQUIRE(f.size() == 1);  // the second sink gets 1 through pass or 0 through zero: clean
    CHECK(f[0].callee == "sink");
    CHECK(f[0].argument == 0);
    CHECK(f[0].where.function == "main");
    REQUIRE(f[0].sources.size() == 1);
    CHECK(s.notes().empty());
    CHECK(s.stats().witness_edges > 0);
    CHECK(s.stats().functions == 4);
    // Witnesses past their budget: the same finding, without its source, and a note.
    analyze_options tight;
    tight.witness_budget = 1;
    analysis_session t(*m, tight);
    auto g = t.findings(weir::ifds::tabulation_solver(t.layout()).solve()->path_edges);
    REQUIRE(g.size() == 1);
    CHECK(g[0].where.line == f[0].where.line);
    CHECK(g[0].sources.empty());
    REQUIRE(t.notes().size() == 1);
    CHECK_THAT(t.notes()[0], Catch::Contains("without sources and traces"));
    analyze_options bad_name, bad_entry;
    bad_name.analysis = "nonsense";
    bad_entry.entries = {"nope"};
    CHECK_THROWS_AS(analysis_session(*m, bad_name), std::invalid_argument);
    CHECK_THROWS_AS(analysis_session(*m, bad_entry), input_error);
}

namespace {
/// A module where taint reaches a sink through memory (`b`) and also goes
/// where no sink looks (`c`).
constexpr const char* pointee_ir = R"(
declare i32 @source()
declare void @sink(i32*)
declare void @log(i32)
define void @fill(i32* %p) {
  %s = call i32 @source()
  store i32 %s, i32* %p
  ret void
}
define i32 @main() {
  %a = alloca i32
  %b = alloca i32
  %c = alloca i32
  call void @fill(i32* %a)
  %v = load i32, i32* %a
  store i32 %v, i32* %b
  call void @sink(i32* %b)
  %w = load i32, i32* %a
  call void @log(i32 %w)
  store i32 %w, i32* %c
  ret i32 0
}
)";

/// Taint without `demanded_facts`: `compile_problem` prunes nothing.
struct unpruned_taint {
    static constexpr std::string_view name = "taint";
    taint_analysis* a;
    void initial_seeds(analysis_context& cx, seed_list& s) { a->initial_seeds(cx, s); }
    void normal_flow(analysis_context& cx, const ::llvm::Instruction& i, flow& out) { a->normal_flow(cx, i, out); }
    void call_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& f, flow& out) {
        a->call_flow(cx, c, f, out);
    }
    void return_flow(analysis_context& cx, const ::llvm::CallBase& c, const ::llvm::Function& f, flow& out) {
        a->return_flow(cx, c, f, out);
    }
    void call_to_return_flow(analysis_context& cx, const ::llvm::CallBase& c, flow& out) { a->call_to_return_flow(cx, c, out); }
};
} // namespace

TEST_CASE("taint keeps only the facts that can lead to a sink's argument", "[llvm][prune]") {
    for (const char* ir : {pointee_ir, indirect_ir}) {
        ::llvm::LLVMContext ctx;
        auto m = parse_module(ir, "prune.ll", ctx);
        program prog(*m, {});
        taint_analysis pruned_taint(prog, default_taint_config()), whole_taint(prog, default_taint_config());
        unpruned_taint whole{&whole_taint};
        const compiled_problem pruned = compile_problem(prog, pruned_taint), all = compile_problem(prog, whole);
        REQUIRE(pruned.facts.size() == all.facts.size());  // the same facts, the same ids
        std::vector<weir::ifds::fact_id> demanded;
        pruned_taint.demanded_facts(pruned.facts, demanded);
        const std::vector<char> keep = weir::ifds::facts_leading_to(all.problem, demanded);
        const auto a = weir::test::tabulate(pruned.problem), b = weir::test::tabulate(all.problem);
        std::size_t demanded_holding = 0, pruned_holding_before = 0;
        for (weir::ifds::node_id n = 0; n < all.problem.nodes.size(); ++n)
            for (weir::ifds::fact_id f = 0; f < all.problem.fact_count(); ++f) {
                CHECK(a.holds(n, f) == (keep[f] && b.holds(n, f)));
                pruned_holding_before += !keep[f] && b.holds(n, f);
            }
        for (weir::ifds::node_id n = 0; n < all.problem.nodes.size(); ++n)
            for (weir::ifds::fact_id f : demanded) demanded_holding += a.holds(n, f);
        CHECK(demanded_holding > 0);  // taint reaches a sink's argument
        if (ir == pointee_ir) CHECK(pruned_holding_before > 0);  // and went where no sink looks (c), now gone
    }
    // The same sources, no sink: nothing can lead to a finding, so nothing is left to hold.
    ::llvm::LLVMContext ctx;
    auto m = parse_module(pointee_ir, "prune.ll", ctx);
    program prog(*m, {});
    taint_analysis no_sink(prog, parse_taint_config(R"({"functions": [{"name": "source", "ret": "source"}]})", "c.json"));
    const compiled_problem c = compile_problem(prog, no_sink);
    CHECK(c.facts.size() > 0);
    const auto s = weir::test::tabulate(c.problem);
    for (weir::ifds::node_id n = 0; n < c.problem.nodes.size(); ++n)
        for (weir::ifds::fact_id f = 1; f < c.problem.fact_count(); ++f) CHECK_FALSE(s.holds(n, f));
    // and the session finds the taint that reaches `sink` through `b`
    analysis_session session(*m, {});
    auto solved = weir::ifds::tabulation_solver(session.layout()).solve();
    REQUIRE(solved);
    const auto found = session.findings(std::move(solved->path_edges));
    REQUIRE(found.size() == 1);
    CHECK(found[0].callee == "sink");
}
