/// \file test/unit/ifds_format_test.cpp
/// The `.ifds` loader, printer and `problem_builder` against the spec
/// (ifds-format.md): every error (line, token, message), every lexical rule,
/// round trips, and robustness on truncated, mutated and random inputs.

#include <catch2/catch.hpp>

#include <weir/ifds/builder.hpp>
#include <weir/ifds/format.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cstdint>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#ifndef WEIR_TEST_DATA_DIR
/// Where the example `.ifds` files are (the build may define it; the default
/// works from the repository root).
#define WEIR_TEST_DATA_DIR "test/data/ifds"
#endif

using namespace weir::ifds;

namespace {

const char* const data_files[] = {"spec_examples.ifds", "recursion.ifds", "indirect.ifds", "two_sites.ifds"};

std::string data_path(const std::string& name) { return std::string(WEIR_TEST_DATA_DIR) + "/" + name; }

std::string read_data(const std::string& name) {
    std::ifstream in(data_path(name), std::ios::binary);
    REQUIRE(in.good());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

problem load_ok(std::string_view text) {
    auto r = load_problem(text, "t.ifds");
    if (!r) FAIL("unexpected error: " << r.error().what());
    return std::move(r).value();
}

/// The number of the last line (1 for an empty text), as the spec's end-of-file errors use.
std::uint32_t last_line_of(std::string_view text) {
    std::uint32_t n = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++n;
    return n == 0 ? 1 : n;
}

/// Loads `text` on one thread and with its statements read on `threads`
/// threads in runs of about `chunk` bytes, and checks that both give the
/// same problem or the same first error (line, token, message).
void same_on_threads(const std::string& text, unsigned threads, std::size_t chunk) {
    auto one = load_problem(text, "t.ifds", load_options{1});
    auto many = load_problem(text, "t.ifds", load_options{threads, 0, chunk});
    INFO("threads " << threads << ", runs of " << chunk << " bytes");
    REQUIRE(bool(one) == bool(many));
    if (one) {
        CHECK(*one == *many);
    } else {
        CHECK(one.error().line == many.error().line);
        CHECK(one.error().token == many.error().token);
        CHECK(one.error().message == many.error().message);
    }
}

/// `same_on_threads` for runs of one line, a few lines and many lines.
void same_on_threads(const std::string& text) {
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{40}, std::size_t{4096}})
        for (const unsigned threads : {2u, 3u}) same_on_threads(text, threads, chunk);
}

struct error_case {
    const char* what;
    std::string text;
    std::uint32_t line;
    std::string token;
    std::string fragment;
};

void check_errors(const std::vector<error_case>& cases) {
    for (const error_case& c : cases) {
        INFO("case: " << c.what << "\n--- text ---\n" << c.text << "--- end ---");
        auto r = load_problem(c.text, "t.ifds");
        REQUIRE_FALSE(r);
        const load_error& e = r.error();
        INFO("got: " << e.what());
        CHECK(e.file == "t.ifds");
        CHECK(e.line == c.line);
        CHECK(e.token == c.token);
        CHECK(e.message.find(c.fragment) != std::string::npos);
        same_on_threads(c.text);
    }
}

/// Lines 1..9 declare: facts x y; main (ms, me) with a b c; f (fs, fe) with g; h (hs, he).
const std::string H =
    "ifds 1\n"
    "facts x y\n"
    "proc main ms me\n"
    "node a main\n"
    "node b main\n"
    "node c main\n"
    "proc f fs fe\n"
    "node g f\n"
    "proc h hs he\n";
/// H, then `body` from line 10, then a seed.
std::string with(const std::string& body) { return H + body + "seed ms 0\n"; }

} // namespace

// ---------------------------------------------------------------- errors ----

TEST_CASE("ifds format: header and lexical errors", "[ifds][format][errors]") {
    check_errors({
        {"empty file", "", 1, "", "missing header"},
        {"only comments and blanks", "# nothing\n\n   \t\n", 3, "", "missing header"},
        {"only a BOM", "\xEF\xBB\xBF", 1, "", "missing header"},
        {"statement before header", "facts x\nifds 1\n", 1, "facts", "missing header"},
        {"header after comments is fine, wrong version is not", "# c\n\nifds 2\n", 3, "2",
         "unsupported format version"},
        {"huge version number", "ifds 99999999999999\n", 1, "99999999999999", "unsupported format version"},
        {"version missing", "ifds\n", 1, "", "format version"},
        {"token after header", "ifds 1 x\n", 1, "x", "expected end of line"},
        {"repeated header", "ifds 1\nfacts x\nifds 1\n", 3, "ifds", "repeated header"},
        {"unknown statement", with("frob a b\n"), 10, "frob", "unknown statement"},
        {"keywords are case sensitive", with("Flow a b id\n"), 10, "Flow", "unknown statement"},
        {"name starting with a digit", "ifds 1\nfacts 1x\n", 2, "1x", "malformed fact name"},
        {"name with a dash", "ifds 1\nfacts a-b\n", 2, "a-b", "malformed fact name"},
        {"comma is not a separator", "ifds 1\nfacts a,b\n", 2, "a,b", "malformed fact name"},
        {"NUL byte inside a token", std::string("ifds 1\nfacts a\0b\n", 17), 2, std::string("a\0b", 3),
         "malformed fact name"},
        {"CR not before LF", "ifds 1\nfacts a\rb\n", 2, "a\rb", "malformed fact name"},
        {"zero fact declared", "ifds 1\nfacts x 0\n", 2, "0", "zero fact"},
    });
}

TEST_CASE("ifds format: declaration errors", "[ifds][format][errors]") {
    check_errors({
        {"fact twice on one line", "ifds 1\nfacts x x\n", 2, "x", "already declared at line 2"},
        {"fact twice on two lines", with("facts y\n"), 10, "y", "already declared at line 2"},
        {"procedure twice", with("proc f f2s f2e\n"), 10, "f", "procedure 'f' is already declared at line 7"},
        {"node twice", with("node a main\n"), 10, "a", "node 'a' is already declared at line 4"},
        {"node line for a start node", with("node ms main\n"), 10, "ms", "already declared at line 3"},
        {"node line for an exit node", with("node fe f\n"), 10, "fe", "already declared"},
        {"proc reusing a node as its exit", with("proc k ks a\n"), 10, "a", "already declared"},
        {"proc with start == exit", with("proc k ks ks\n"), 10, "ks", "distinct"},
        {"proc missing exit", with("proc k ks\n"), 10, "", "missing the exit node"},
        {"proc missing start", with("proc k\n"), 10, "", "missing the start node"},
        {"proc missing name", with("proc\n"), 10, "", "missing the procedure name"},
        {"proc extra token", with("proc k ks ke kx\n"), 10, "kx", "expected end of line"},
        {"proc malformed name", with("proc 9k ks ke\n"), 10, "9k", "malformed procedure name"},
        {"proc malformed node name", with("proc k ks k-e\n"), 10, "k-e", "malformed node name"},
        {"node of unknown procedure", with("node n nope\n"), 10, "nope", "unknown procedure"},
        {"node of unknown procedure declared before use", "ifds 1\nnode n nope\nflow n n id\nseed n 0\n", 2, "nope",
         "unknown procedure"},
        {"node missing procedure", with("node n\n"), 10, "", "missing the procedure name"},
        {"node missing name", with("node\n"), 10, "", "missing the node name"},
        {"node extra token", with("node n main x\n"), 10, "x", "expected end of line"},
        {"node malformed name", with("node n! main\n"), 10, "n!", "malformed node name"},
        {"node malformed procedure name", with("node n 1p\n"), 10, "1p", "malformed procedure name"},
    });
}

TEST_CASE("ifds format: flow errors", "[ifds][format][errors]") {
    check_errors({
        {"unknown node", with("flow a zz id\n"), 10, "zz", "unknown node 'zz'"},
        {"malformed node", with("flow a$b b id\nflow 1a b id\n"), 10, "a$b", "unknown node"},  // a$b is a name
        {"malformed node name", with("flow a b id\nflow 1a b id\n"), 11, "1a", "malformed node name"},
        {"missing TO", with("flow a\n"), 10, "", "(TO)"},
        {"missing FROM", with("flow\n"), 10, "", "(FROM)"},
        {"crossing procedures", with("flow a g id\n"), 10, "g", "inside one procedure"},
        {"leaving an exit node", with("flow me a id\n"), 10, "me", "exit node"},
        {"leaving a call site (call first)", with("call a f b\nflow a c id\n"), 11, "a", "call site"},
        {"leaving a call site (flow first)", with("flow a c id\ncall a f b\n"), 11, "a", "cannot have flow edges"},
        {"repeated flow edge", with("flow a b id\nflow b c\nflow a b gen:x\n"), 12, "b",
         "repeated flow edge 'a' -> 'b': already given at line 10"},
        {"the first repetition in line order, among interleaved edges",
         with("flow a b\nflow a c\nflow b c\nflow ms a\nflow a c gen:x\nflow a b\nflow ms a\n"), 14, "c",
         "repeated flow edge 'a' -> 'c': already given at line 11"},
        {"a repeated edge among other edges of its node", with("flow b c\nflow ms a\nflow b c id\nflow b a\nflow b c gen:y\n"),
         12, "c", "repeated flow edge 'b' -> 'c': already given at line 10"},
        {"malformed term", with("flow a b foo\n"), 10, "foo", "flow-function term"},
        {"term looking like a list", with("flow a b id:x\n"), 10, "id:x", "flow-function term"},
        {"kill:0", with("flow a b id kill:0\n"), 10, "kill:0", "cannot be killed"},
        {"kill list with 0", with("flow a b id kill:x,0\n"), 10, "kill:x,0", "cannot be killed"},
        {"gen:0", with("flow a b gen:0\n"), 10, "gen:0", "cannot be generated"},
        {"0>0", with("flow a b 0>0\n"), 10, "0>0", "'0>0' may not be written"},
        {"a>0", with("flow a b x>0\n"), 10, "x>0", "may not lead to the zero fact"},
        {"empty kill list", with("flow a b id kill:\n"), 10, "kill:", "expected a fact name"},
        {"trailing comma", with("flow a b gen:x,\n"), 10, "gen:x,", "expected a fact name"},
        {"empty list item", with("flow a b gen:x,,y\n"), 10, "gen:x,,y", "expected a fact name"},
        {"pair without source", with("flow a b >x\n"), 10, ">x", "malformed pair"},
        {"pair without target", with("flow a b x>\n"), 10, "x>", "malformed pair"},
        {"unknown fact in a list", with("flow a b id kill:x,zz\n"), 10, "zz", "unknown fact 'zz'"},
        {"malformed fact in a list", with("flow a b gen:1z\n"), 10, "1z", "malformed fact name"},
        {"unknown fact in a pair", with("flow a b zz>x\n"), 10, "zz", "unknown fact"},
        {"double pair", with("flow a b x>y>x\n"), 10, "y>x", "malformed fact name"},
        {"procedure names are not facts", with("flow a b gen:main\n"), 10, "main", "unknown fact"},
    });
}

TEST_CASE("ifds format: call errors", "[ifds][format][errors]") {
    check_errors({
        {"unknown callee", with("call a zz b\n"), 10, "zz", "unknown procedure 'zz'"},
        {"node names are not procedures", with("call a g b\n"), 10, "g", "unknown procedure"},
        {"missing callee", with("call a\n"), 10, "", "(CALLEE)"},
        {"missing return site", with("call a f\n"), 10, "", "(RETSITE)"},
        {"unknown site", with("call zz f b\n"), 10, "zz", "unknown node"},
        {"return site is the site", with("call a f a\n"), 10, "a", "must differ from the call site"},
        {"return site outside the caller", with("call a f g\n"), 10, "g", "node of the caller 'main'"},
        {"call site is an exit node", with("call me f a\n"), 10, "me", "cannot be an exit node"},
        {"one site, two return sites", with("call a f b\ncall a h c\n"), 11, "c", "same return site"},
        {"repeated call", with("call a f b\ncall a f b\n"), 11, "f", "repeated call"},
        {"extra token", with("call a f b c\n"), 10, "c", "expected end of line"},
        {"callflow without a call", with("callflow a f id\n"), 10, "f", "callflow needs a matching call"},
        {"callflow for another callee", with("call a f b\ncallflow a h id\n"), 11, "h", "matching call"},
        {"retflow without a call", with("retflow a f id\n"), 10, "f", "retflow needs a matching call"},
        {"repeated callflow", with("callflow a f id\ncall a f b\ncallflow a f gen:x\n"), 12, "f",
         "repeated callflow"},
        {"repeated retflow", with("call a f b\nretflow a f id\nretflow a f\n"), 12, "f", "repeated retflow"},
        {"ctrflow without a call", with("ctrflow a id\n"), 10, "a", "ctrflow needs a call"},
        {"repeated ctrflow", with("call a f b\nctrflow a\nctrflow a id\n"), 12, "a", "repeated ctrflow"},
        {"callflow with a bad term", with("call a f b\ncallflow a f kill:0\n"), 11, "kill:0", "cannot be killed"},
        {"ctrflow with a bad term", with("call a f b\nctrflow a gen:0\n"), 11, "gen:0", "cannot be generated"},
        {"callflow missing callee", with("callflow a\n"), 10, "", "(CALLEE)"},
        {"ctrflow missing site", with("ctrflow\n"), 10, "", "(SITE)"},
    });
}

TEST_CASE("ifds format: seed errors and end-of-file errors", "[ifds][format][errors]") {
    check_errors({
        {"seed at a node that is not a start", H + "seed a 0\n", 10, "a", "start node"},
        {"seed at an exit", H + "seed me 0\n", 10, "me", "start node"},
        {"seed of an unknown fact", H + "seed ms zz\n", 10, "zz", "unknown fact"},
        {"seed of a malformed fact", H + "seed ms 1z\n", 10, "1z", "malformed fact name"},
        {"seed at an unknown node", H + "seed zz 0\n", 10, "zz", "unknown node"},
        {"seed missing fact", H + "seed ms\n", 10, "", "(FACT)"},
        {"seed extra token", H + "seed ms 0 x\n", 10, "x", "expected end of line"},
        {"repeated seed", H + "seed ms x\nseed fs 0\nseed ms x\n", 12, "x", "repeated seed"},
        {"no seed", H, 9, "", "no seed"},
        {"no seed, comments after", H + "# end\n\n", 11, "", "no seed"},
        {"no seed, no final newline", H + "flow a b id", 10, "", "no seed"},
        {"header only", "ifds 1\n", 1, "", "no seed"},
    });
}

TEST_CASE("ifds format: the first error in line order is reported", "[ifds][format][errors]") {
    check_errors({
        {"unmatched callflow before a later syntax error", with("callflow a f id\nflow a b\nfrob\n"), 10, "f",
         "matching call"},
        {"statement error before a declaration error", with("flow a zz id\nfacts x\n"), 10, "zz", "unknown node"},
        {"declaration error before a statement error", with("node a main\nflow a zz id\n"), 10, "a",
         "already declared"},
        {"a call after an error still matches an earlier callflow",
         with("callflow a f id\nfrob\ncall a f b\n"), 11, "frob", "unknown statement"},
        {"a faulty call still matches an earlier callflow", with("callflow a f id\nflow b c\ncall a f g\n"), 12,
         "g", "caller"},
        // (the call waits for the scan, a name of it undeclared: read then, it must still be noted)
        {"a call to an undeclared return site still matches an earlier callflow",
         with("callflow a f id\ncall a f zz\n"), 11, "zz", "unknown node"},
        {"a call to an undeclared return site still matches an earlier retflow",
         with("retflow a f id\ncall a f zz\n"), 11, "zz", "unknown node"},
        {"a call to an undeclared procedure still matches an earlier ctrflow", with("ctrflow a id\ncall a zz b\n"),
         11, "zz", "unknown procedure"},
        {"use before a late declaration is fine, error after it", with("flow a late id\nnode late main\nflow c c 0>0\n"),
         12, "0>0", "0>0"},
        {"order holds across statements that wait for late declarations",
         with("flow a late id\ncall b f c\nflow b c id\nnode late main\n"), 12, "b", "call site"},
        {"repeated flow, one checked at once and one after the scan",
         with("flow a b id\nflow c late\nflow a b\nnode late main\n"), 12, "b", "repeated flow edge"},
        {"no seed loses to an earlier error", H + "flow a b 0>0\n", 10, "0>0", "0>0"},
        {"two errors on one line: the first token's", with("flow zz yy id\n"), 10, "zz", "unknown node"},
        // p2 is declared twice; the flow waits for the scan and must resolve p2 to its first node
        // (of f, as p1), even though the repeat is the node declared right after p1
        {"a repeated node name means its first node, also for a statement before the repeat",
         with("flow p1 p2 id\nnode p2 f\nnode p1 f\nnode p2 main\n"), 13, "p2", "already declared at line 11"},
    });
}

TEST_CASE("ifds format: load_error::what and long tokens", "[ifds][format][errors]") {
    auto r = load_problem(with("flow a b kill:0\n"), "dir/p.ifds");
    REQUIRE_FALSE(r);
    CHECK(r.error().what() == "dir/p.ifds:10: error: " + r.error().message + " (at 'kill:0')");
    auto r2 = load_problem("", "e.ifds");
    REQUIRE_FALSE(r2);
    CHECK(r2.error().what() == "e.ifds:1: error: " + r2.error().message);
    auto r3 = load_problem(std::string("ifds 1\nfacts a\x01\n"));
    REQUIRE_FALSE(r3);
    CHECK(r3.error().file == "<input>");
    CHECK(r3.error().what().find("(at 'a\\x01')") != std::string::npos);
    // a binary file: bytes that are not UTF-8 are escaped wherever the error quotes them, valid UTF-8 is not
    auto r6 = load_problem(std::string("\x7f" "ELF\x02\x01\x01\xff\xfe\n"), "a.out");
    REQUIRE_FALSE(r6);
    CHECK(r6.error().token == std::string("\x7f" "ELF\x02\x01\x01\xff\xfe"));  // the field holds the bytes as they are
    const std::string shown = r6.error().what();
    CHECK(shown.find("\\x7fELF\\x02\\x01\\x01\\xff\\xfe") != std::string::npos);
    CHECK(std::none_of(shown.begin(), shown.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f; }));
    auto r7 = load_problem(std::string("ifds 1\nfacts caf\xc3\xa9 caf\xc3\xa9\n"));  // é is kept
    REQUIRE_FALSE(r7);
    CHECK(r7.error().what().find("(at 'caf\xc3\xa9')") != std::string::npos);
    auto r8 = load_problem(std::string("ifds 1\nfacts x\xc3 x\xc3\n"));  // a sequence cut short is not
    REQUIRE_FALSE(r8);
    CHECK(r8.error().what().find("(at 'x\\xc3')") != std::string::npos);
    CHECK(weir::ifds::detail::escape_unprintable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
    CHECK(weir::ifds::detail::escape_unprintable("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \x80") ==
          "\\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\x80");  // overlong, surrogate, past U+10FFFF, stray
    // characters that print nothing (U+0085, U+200B, U+2028, U+FEFF) are escaped byte by byte; a
    // backslash is doubled, so that `\x01` typed in a file and a real 0x01 byte read differently
    CHECK(weir::ifds::detail::escape_unprintable("a\xc2\x85" "b \xe2\x80\x8b \xe2\x80\xa8 \xef\xbb\xbf \xc2\xa0") ==
          "a\\xc2\\x85" "b \\xe2\\x80\\x8b \\xe2\\x80\\xa8 \\xef\\xbb\\xbf \xc2\xa0");  // (U+00A0 shows)
    CHECK(weir::ifds::detail::escape_unprintable("a\\x01 a\x01") == "a\\\\x01 a\\x01");
    auto r9 = load_problem(std::string("ifds 1\nfacts a\xc2\x85" "b\n"));
    REQUIRE_FALSE(r9);
    CHECK(r9.error().what().find("(at 'a\\xc2\\x85" "b')") != std::string::npos);
    // a huge token is cut in the error
    const std::string big(1 << 20, 'z');
    auto r4 = load_problem("ifds 1\nfacts " + big + "!\n");
    REQUIRE_FALSE(r4);
    CHECK(r4.error().line == 2);
    CHECK(r4.error().token == std::string(64, 'z') + "...");
    // unreadable files
    auto r5 = load_problem_file("/nonexistent/dir/x.ifds");
    REQUIRE_FALSE(r5);
    CHECK(r5.error().line == 0);
    CHECK(r5.error().file == "/nonexistent/dir/x.ifds");
    CHECK(r5.error().what().rfind("/nonexistent/dir/x.ifds: error: cannot open", 0) == 0);
}

// ------------------------------------------------------------ accepted ------

TEST_CASE("ifds format: a small problem loads with dense ids in declaration order", "[ifds][format]") {
    const problem p = load_ok(read_data("spec_examples.ifds"));
    REQUIRE(p.facts == std::vector<std::string>{"x", "y"});
    REQUIRE(p.procs.size() == 1);
    CHECK(p.procs[0] == procedure{"main", 0, 1});
    REQUIRE(p.nodes.size() == 6);
    CHECK(p.nodes[0].name == "m.start");
    CHECK(p.nodes[1].name == "m.exit");
    CHECK(p.nodes[2].name == "n1");
    CHECK(p.nodes[5].name == "n4");
    REQUIRE(p.flows.size() == 5);
    CHECK(p.flows[0].ff == flow_function{false, {}, {1}, {}});
    CHECK(p.flows[1].ff == flow_function::id());
    CHECK(p.flows[2].ff == flow_function{true, {1}, {2}, {}});
    CHECK(p.flows[3].ff == flow_function{true, {1}, {}, {{2, 1}}});
    CHECK(p.seeds == std::vector<seed>{{0, 0}});
    CHECK(p.calls.empty());
    CHECK(p.ctrflows.empty());
}

TEST_CASE("ifds format: node ids follow declaring lines, a proc line declaring START then EXIT",
          "[ifds][format]") {
    const problem p = load_ok("ifds 1\n"
                              "node early p\n"       // before its procedure's line
                              "flow s early id\n"    // before the declarations it uses
                              "proc p s e\n"
                              "node late p\n"
                              "proc q qs qe\n"
                              "node mid p\n"
                              "flow early late\n"
                              "flow late e\n"
                              "flow mid e\n"
                              "flow qs qe\n"
                              "seed s 0\n"
                              "seed qs 0\n");
    std::vector<std::string> names;
    for (const node& n : p.nodes) names.push_back(n.name);
    CHECK(names == std::vector<std::string>{"early", "s", "e", "late", "qs", "qe", "mid"});
    CHECK(p.procs[0] == procedure{"p", 1, 2});
    CHECK(p.procs[1] == procedure{"q", 4, 5});
    CHECK(p.nodes[0].proc == 0);
    CHECK(p.nodes[6].proc == 0);
    REQUIRE(p.flows.size() == 5);  // file order
    CHECK(p.flows[0].from == 1);
    CHECK(p.flows[0].to == 0);
    CHECK(p.flows[4].from == 4);
    CHECK(p.seeds == std::vector<seed>{{1, 0}, {4, 0}});
}

TEST_CASE("ifds format: lexical rules", "[ifds][format]") {
    SECTION("BOM and CRLF") {
        const problem p = load_ok("\xEF\xBB\xBFifds 1\r\nfacts x\r\nproc m s e\r\nflow s e id\r\nseed s x\r\n");
        CHECK(p.facts == std::vector<std::string>{"x"});
        CHECK(p.nodes[1].name == "e");
        CHECK(p.seeds == std::vector<seed>{{0, 1}});
    }
    SECTION("a CR at the very end (no LF) is ignored too") {
        const problem p = load_ok("ifds 1\nproc m s e\nseed s 0\r");
        CHECK(p.seeds.size() == 1);
    }
    SECTION("comments, even right after a token, blank lines, tabs") {
        const problem p = load_ok("# head\n\n  ifds 1# header\n"
                                  "facts\tx#comment\n"
                                  "\t proc m s e   # a proc\n"
                                  "node\t\tn  m\n"
                                  "flow s n id#x\n"
                                  "flow n e kill:x#c\n"
                                  "   \t  \n"
                                  "seed s 0#\n"
                                  "# tail");
        CHECK(p.facts == std::vector<std::string>{"x"});
        REQUIRE(p.flows.size() == 2);
        CHECK(p.flows[0].ff == flow_function::id());
        CHECK(p.flows[1].ff == flow_function{false, {1}, {}, {}});
    }
    SECTION("names: keyword-looking names are legal, all name characters") {
        const problem p = load_ok("ifds 1\n"
                                  "facts id kill gen seed flow _A.b$c@9\n"
                                  "proc proc node flow\n"
                                  "node seed proc\n"
                                  "flow node seed id kill:id gen:kill,_A.b$c@9\n"
                                  "flow seed flow id flow>gen\n"
                                  "seed node id\n");
        CHECK(p.facts.size() == 6);
        CHECK(p.flows[0].ff == flow_function{true, {1}, {2, 6}, {}});
        CHECK(p.flows[1].ff == flow_function{true, {}, {}, {{5, 3}}});
        CHECK(p.seeds == std::vector<seed>{{0, 1}});
    }
    SECTION("three namespaces") {
        const problem p = load_ok("ifds 1\nfacts f\nproc f f fx\ncall f f fx\nseed f f\n");
        REQUIRE(p.calls.size() == 1);
        CHECK(p.calls[0].site == 0);
        CHECK(p.calls[0].callee == 0);
        CHECK(p.seeds == std::vector<seed>{{0, 1}});
    }
    SECTION("bare and repeated facts lines append") {
        const problem p = load_ok("ifds 1\nfacts\nfacts a\nproc m s e\nfacts b c\nseed s c\n");
        CHECK(p.facts == std::vector<std::string>{"a", "b", "c"});
        CHECK(p.seeds == std::vector<seed>{{0, 3}});
    }
}

TEST_CASE("ifds format: flow-function terms", "[ifds][format]") {
    auto ff_of = [](const std::string& terms) {
        const problem p = load_ok("ifds 1\nfacts x y z\nproc m s e\nflow s e" + terms + "\nseed s 0\n");
        return p.flows.at(0).ff;
    };
    CHECK(ff_of("") == flow_function{});  // empty list: only 0 -> 0
    CHECK(ff_of(" id") == flow_function::id());
    CHECK(ff_of(" id id") == flow_function::id());
    CHECK(ff_of(" kill:x") == flow_function{false, {1}, {}, {}});  // no effect without id, kept as written
    CHECK(ff_of(" id kill:x gen:x") == flow_function{true, {1}, {1}, {}});
    CHECK(ff_of(" gen:z,x,z gen:y kill:y,y") == flow_function{false, {2}, {1, 2, 3}, {}});  // sorted, unique
    CHECK(ff_of(" 0>y x>y x>y") == flow_function{false, {}, {}, {{0, 2}, {1, 2}}});
    CHECK(ff_of(" z>x y>x id") == flow_function{true, {}, {}, {{2, 1}, {3, 1}}});
}

TEST_CASE("ifds format: callflow, retflow and ctrflow attach to their call whichever comes first",
          "[ifds][format]") {
    const problem p = load_ok(with("ctrflow a gen:x\n"     // before its call
                                   "call a f b\n"
                                   "callflow a f x>y\n"   // after its call
                                   "retflow a f kill:y\n"
                                   "retflow c h y>x\n"    // before its call
                                   "call c h b\n"
                                   "ctrflow c id kill:x\n"  // after its call
                                   "flow b c\n"));
    REQUIRE(p.calls.size() == 2);
    CHECK(p.calls[0].callflow == flow_function{false, {}, {}, {{1, 2}}});
    CHECK(p.calls[0].retflow == flow_function{false, {2}, {}, {}});
    CHECK(p.calls[1].callflow == flow_function::id());
    CHECK(p.calls[1].retflow == flow_function{false, {}, {}, {{2, 1}}});
    REQUIRE(p.ctrflows.size() == 2);
    CHECK(p.ctrflows.at(p.calls[0].site) == flow_function{false, {}, {1}, {}});
    CHECK(p.ctrflows.at(p.calls[1].site) == flow_function{true, {1}, {}, {}});
    // a faulty call is reported; its callflow, before or after it, adds no error of its own
    check_errors({
        {"callflow after a faulty call", with("call a f a\ncallflow a f x>y\n"), 10, "a", "return site must differ"},
        {"callflow before a faulty call", with("callflow a f x>y\ncall a f a\n"), 11, "a", "return site must differ"},
        {"repeated callflow after its call", with("call a f b\ncallflow a f x>y\ncallflow a f id\n"), 12, "f",
         "repeated callflow"},
    });
}

TEST_CASE("ifds format: name_map behaves as a map from names to their first id", "[ifds][format][names]") {
    // the model: std::unordered_map; names from a small alphabet, so that many
    // share a length and a start slot, and repeats are common
    std::mt19937 rng(11);
    for (const bool reserved : {false, true}) {
        std::vector<std::string> names;  // the map's name source: id i is names[i]
        struct name_of {
            const std::vector<std::string>* v;
            std::string_view operator()(std::uint32_t id) const { return (*v)[id]; }
        };
        weir::ifds::detail::name_map<name_of> map{name_of{&names}};
        if (reserved) map.reserve(500);
        std::unordered_map<std::string, std::uint32_t> model;
        auto random_name = [&] {
            std::string s(1 + rng() % 4, 'a');
            for (char& c : s) c = static_cast<char>('a' + rng() % 3);
            return s;
        };
        for (int step = 0; step < 3000; ++step) {
            const std::string s = random_name();
            INFO("reserved=" << reserved << " step=" << step << " name=" << s);
            if (rng() % 2) {
                const auto id = static_cast<std::uint32_t>(names.size());
                const auto [got, fresh] = map.insert(s, id);
                const auto [it, model_fresh] = model.try_emplace(s, id);
                CHECK(fresh == model_fresh);
                CHECK(got == it->second);
                names.push_back(s);  // a fresh id for every insert, as the loader gives nodes
            } else {
                const auto it = model.find(s);
                CHECK(map.find(s) == (it == model.end() ? weir::ifds::detail::none32 : it->second));
            }
        }
        for (const auto& [s, id] : model) CHECK(map.find(s) == id);  // all there after the growth
        CHECK(map.find("abcd") == weir::ifds::detail::none32);
    }
}

TEST_CASE("ifds format: the name helpers agree with their plain definitions", "[ifds][format][names]") {
    using weir::ifds::detail::hash_bytes;
    using weir::ifds::detail::line_cursor;
    using weir::ifds::detail::same_bytes;
    std::mt19937 rng(7);
    // same_bytes is memcmp == 0, for every length and every place a difference can be
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string a(n + 3, 'q'), b;
        for (char& c : a) c = static_cast<char>('a' + rng() % 26);
        b = a;
        CHECK(same_bytes(a.data() + 1, b.data() + 1, n));
        for (std::size_t i = 0; i < n; ++i) {
            std::string c = b;
            c[1 + i] ^= 0x20;
            INFO("n=" << n << " i=" << i);
            CHECK_FALSE(same_bytes(a.data() + 1, c.data() + 1, n));
            CHECK(same_bytes(a.data() + 1, c.data() + 1, i));  // the bytes before the difference
        }
        // bytes outside the range do not count
        std::string d = b;
        d[0] ^= 1;
        d[n + 1] ^= 1;
        CHECK(same_bytes(a.data() + 1, d.data() + 1, n));
        // hash_bytes depends on the bytes, not on where they are
        CHECK(hash_bytes(a.data() + 1, n) == hash_bytes(d.data() + 1, n));
        // up to 7 bytes the hash is one-to-one: any change of one byte changes it
        if (n <= 7)
            for (std::size_t i = 0; i < n; ++i)
                for (int bit = 0; bit < 8; ++bit) {
                    std::string c = b;
                    c[1 + i] = static_cast<char>(c[1 + i] ^ (1 << bit));
                    CHECK(hash_bytes(c.data() + 1, n) != hash_bytes(b.data() + 1, n));
                }
    }
    // line_cursor splits like the plain definition: runs of bytes other than blank, tab and '#',
    // the first '#' ending the line
    auto reference = [](std::string_view line) {
        std::vector<std::string> out;
        std::string cur;
        for (char c : line) {
            if (c == '#') break;
            if (c == ' ' || c == '\t') {
                if (!cur.empty()) out.push_back(cur), cur.clear();
            } else {
                cur += c;
            }
        }
        if (!cur.empty()) out.push_back(cur);
        return out;
    };
    const char alphabet[] = {'a', 'b', '.', '>', ',', ':', ' ', ' ', '\t', '#', '\x80', '\0', '\x01', '\xff'};
    for (int round = 0; round < 3000; ++round) {
        std::string line(rng() % 48, 'x');
        for (char& c : line) c = rng() % 3 ? static_cast<char>('a' + rng() % 26) : alphabet[rng() % std::size(alphabet)];
        std::vector<std::string> got;
        line_cursor c{line.data(), line.data() + line.size()};
        for (std::string_view t = c.next(); !t.empty(); t = c.next()) got.emplace_back(t);
        INFO("line: '" << line << "'");
        CHECK(got == reference(line));
    }
}

TEST_CASE("ifds format: calls", "[ifds][format]") {
    SECTION("callflow/retflow before their call, defaults are id, ctrflow optional") {
        const problem p = load_ok(with("callflow a f x>y\n"
                                       "retflow a h kill:x\n"
                                       "call a f b\n"
                                       "call a h b\n"
                                       "call c f b\n"   // two sites share a return site
                                       "ctrflow c id gen:y\n"
                                       "call ms h a\n"  // a start node may be a call site
                                       "call g h fs\n"  // a return site may be a start node
                                       "flow b c\n"));
        REQUIRE(p.calls.size() == 5);
        CHECK(p.calls[0].callflow == flow_function{false, {}, {}, {{1, 2}}});
        CHECK(p.calls[0].retflow == flow_function::id());
        CHECK(p.calls[1].callflow == flow_function::id());
        CHECK(p.calls[1].retflow == flow_function{false, {1}, {}, {}});
        CHECK(p.calls[2].retsite == p.calls[0].retsite);
        REQUIRE(p.ctrflows.size() == 1);
        CHECK(p.ctrflows.at(4) == flow_function{true, {}, {2}, {}});
        CHECK(p.calls[4].retsite == p.procs[1].start);
    }
    SECTION("indirect call example") {
        const problem p = load_ok(read_data("indirect.ifds"));
        REQUIRE(p.calls.size() == 2);
        CHECK(p.calls[0].site == p.calls[1].site);
        CHECK(p.calls[0].retsite == p.calls[1].retsite);
        CHECK(p.calls[1].callflow == flow_function{false, {}, {}, {{1, 2}}});
        CHECK(p.ctrflows.at(p.calls[0].site) == flow_function{});
    }
}

// ---------------------------------------------------------- round trips -----

namespace {

/// A random well-formed problem, built with `problem_builder`.
problem random_problem(std::mt19937& rng) {
    auto pick = [&](std::uint32_t n) { return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng); };
    problem_builder b;
    const std::uint32_t nf = pick(5);
    for (std::uint32_t i = 0; i < nf; ++i) b.fact("f" + std::to_string(i));
    auto random_ff = [&]() {
        ff f = pick(2) ? ff::id() : ff::none();
        for (std::uint32_t k = pick(4); k-- > 0 && nf > 0;) {
            switch (pick(3)) {
            case 0: f = f.kill({1 + pick(nf)}); break;
            case 1: f = f.gen({1 + pick(nf)}); break;
            default: f = f.pair(pick(nf + 1), 1 + pick(nf)); break;
            }
        }
        return flow_function(f);
    };
    const std::uint32_t np = 1 + pick(4);
    std::vector<std::vector<node_id>> nodes(np);
    std::vector<proc_id> procs;
    for (std::uint32_t q = 0; q < np; ++q) {
        const std::string n = "p" + std::to_string(q);
        procs.push_back(b.proc(n, n + ".s", n + ".e"));
        nodes[q].push_back(b.start_of(procs[q]));
        for (std::uint32_t k = pick(5); k-- > 0;) nodes[q].push_back(b.node(n + ".n" + std::to_string(k), procs[q]));
    }
    for (std::uint32_t q = 0; q < np; ++q) {
        // a chain start -> n... with some calls; the last node flows to exit
        const auto& ns = nodes[q];
        for (std::size_t i = 0; i + 1 < ns.size(); ++i) {
            if (pick(3) == 0) {
                const proc_id callee = pick(np);
                b.call(ns[i], callee, ns[i + 1]);
                if (pick(2)) b.callflow(ns[i], callee, random_ff());
                if (pick(2)) b.retflow(ns[i], callee, random_ff());
                if (pick(2)) b.ctrflow(ns[i], random_ff());
            } else {
                b.flow(ns[i], ns[i + 1], random_ff());
            }
        }
        b.flow(ns.back(), b.exit_of(procs[q]), random_ff());
    }
    b.seed(nodes[0][0], 0);
    if (nf > 0) b.seed(nodes[pick(np)][0], 1 + pick(nf));
    auto r = std::move(b).finish();
    if (!r) FAIL("random problem rejected: " << r.error().what());
    return std::move(r).value();
}

} // namespace

TEST_CASE("ifds format: load(print(p)) == p", "[ifds][format][roundtrip]") {
    for (const char* f : data_files) {
        INFO(f);
        const problem p = load_ok(read_data(f));
        const std::string text = print_problem(p);
        const problem q = load_ok(text);
        CHECK(q == p);
        CHECK(print_problem(q) == text);
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 200; ++i) {
        const problem p = random_problem(rng);
        const std::string text = print_problem(p);
        INFO(text);
        CHECK(load_ok(text) == p);
    }
}

TEST_CASE("ifds format: load_problem_file reads the example files", "[ifds][format]") {
    for (const char* f : data_files) {
        INFO(f);
        auto r = load_problem_file(data_path(f));
        REQUIRE(r);
        CHECK(*r == load_ok(read_data(f)));
    }
}

/// A well-formed problem text of about `lines` flow lines (a chain of nodes
/// in one procedure, flows with kills, gens and pairs), to exercise large inputs.
std::string chain_problem(std::size_t lines) {
    std::string t = "ifds 1\nfacts";
    for (int f = 0; f < 64; ++f) t += " f" + std::to_string(f);
    t += "\nproc main s e\n";
    for (std::size_t i = 0; i < lines; ++i) t += "node n" + std::to_string(i) + " main\n";
    t += "flow s n0 id\n";
    for (std::size_t i = 0; i + 1 < lines; ++i)
        t += "flow n" + std::to_string(i) + " n" + std::to_string(i + 1) + " id kill:f" + std::to_string(i % 64) +
             " gen:f" + std::to_string((i * 7) % 64) + " f" + std::to_string((i * 3) % 64) + ">f" +
             std::to_string((i * 5) % 64) + "\n";
    t += "flow n" + std::to_string(lines - 1) + " e id\nseed s 0\n";
    return t;
}

TEST_CASE("ifds format: load_problem_file reads large files and pipes whole", "[ifds][format]") {
    // over 4 MiB: the file buffer and the loader's arrays take the huge-page-hinted path
    const std::string text = chain_problem(100000);
    REQUIRE(text.size() > (std::size_t{5} << 20));
    auto expected = load_problem(text, "chain");
    REQUIRE(expected);
    CHECK(expected->nodes.size() == 100002);
    CHECK(expected->flows.size() == 100001);

    const auto dir = std::filesystem::temp_directory_path() / ("weir-format-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "chain.ifds";
    std::ofstream(file, std::ios::binary) << text;
    auto from_file = load_problem_file(file);
    REQUIRE(from_file);
    CHECK(*from_file == *expected);

    // a pipe has no size: the buffer starts small and grows while reading
    const auto fifo = dir / "chain.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
    auto from_pipe = load_problem_file(fifo);
    writer.join();
    std::filesystem::remove_all(dir);
    REQUIRE(from_pipe);
    CHECK(*from_pipe == *expected);
}

TEST_CASE("ifds format: statements read on several threads give the same problem", "[ifds][format][threads]") {
    // a large text, read with the default options (statements past 1 MiB: on every core) and on 4 threads
    const std::string text = chain_problem(60000);
    const problem expected = load_ok(text);
    CHECK(expected.flows.size() == 60001);
    for (const load_options o : {load_options{}, load_options{4, 0, 4096}, load_options{2, 0, 1}}) {
        auto r = load_problem(text, "chain", o);
        REQUIRE(r);
        CHECK(*r == expected);
    }
    // the example files and random problems, in runs of one line to many
    for (const char* f : data_files) {
        INFO(f);
        same_on_threads(read_data(f));
    }
    std::mt19937 rng(11);
    for (int i = 0; i < 100; ++i) same_on_threads(print_problem(random_problem(rng)));
    // what ends the read-ahead: names declared after their use, declarations
    // among the statements, errors, CRLF, comments, a last line without LF
    same_on_threads(with("flow a b id\nflow b c gen:z\nfacts z\nflow c me id\n"));
    same_on_threads(with("flow a b id\nnode d later\nflow b d id\nproc later ls le\nflow ms a id\n"));
    same_on_threads(with("flow a b id\r\n# a comment\r\n\r\nflow b c id  # after\nflow c me kill:x x>y\n"));
    same_on_threads(with("flow a b id\nflow a b id\nflow b c id\n"));  // a repeated edge (found at the end)
    same_on_threads(with("flow a b id\nflow b q id\nflow b c kill:0\n"));
    same_on_threads(with("call a f b\ncallflow a f x>y\ncallflow a f id\nretflow a g id\n"));
    same_on_threads(with("flow me a id\nflow a b id\n"));  // an error the checker finds, then more lines
    same_on_threads(H + "flow a b id\nseed ms 0");
    same_on_threads(H + "ifds 1\nflow a b id\nseed ms 0\n");
    same_on_threads(H + "node a main\nflow a b id\nseed ms 0\n");  // a repeated node name
}

// -------------------------------------------------------------- builder -----

TEST_CASE("problem_builder: builds what the loader loads", "[ifds][builder]") {
    problem_builder b;
    const fact_id x = b.fact("x"), y = b.fact("y");
    CHECK(x == 1);
    CHECK(y == 2);
    const proc_id main = b.proc("main", "m.start", "m.exit");
    const node_id n1 = b.node("n1", main), n2 = b.node("n2", main), n3 = b.node("n3", main),
                  n4 = b.node("n4", main);
    CHECK(b.start_of(main) == 0);
    CHECK(b.exit_of(main) == 1);
    CHECK(n1 == 2);
    b.flow(b.start_of(main), n1, ff::none().gen({x}));
    b.flow(n1, n2, ff::id());
    b.flow(n2, n3, ff::id().kill({x}).gen({y}));
    b.flow(n3, n4, ff::id().kill({x}).pair(y, x));
    b.flow(n4, b.exit_of(main), ff::id());
    b.seed(b.start_of(main), zero_fact);
    CHECK(b.find_fact("y") == y);
    CHECK(b.find_fact("0") == zero_fact);
    CHECK_FALSE(b.find_fact("z"));
    CHECK(b.find_proc("main") == main);
    CHECK(b.find_node("n3") == n3);
    CHECK_FALSE(b.find_node("main"));
    auto r = b.finish();  // const&: the builder stays usable
    REQUIRE(r);
    CHECK(*r == load_ok(read_data("spec_examples.ifds")));
    auto r2 = std::move(b).finish();
    REQUIRE(r2);
    CHECK(*r2 == *r);
}

TEST_CASE("problem_builder: errors", "[ifds][builder][errors]") {
    struct builder_case {
        const char* what;
        std::function<void(problem_builder&)> make;
        std::size_t statement;
        std::string token;
        std::string fragment;
    };
    // statements 1..4: fact x; proc main (0: ms, 1: me); node a (2); proc f (3: fs, 4: fe)
    auto base = [](problem_builder& b) {
        b.fact("x");
        b.proc("main", "ms", "me");
        b.node("a", 0);
        b.proc("f", "fs", "fe");
    };
    const std::vector<builder_case> cases = {
        {"repeated fact", [&](problem_builder& b) { base(b); b.fact("x"); b.seed(0, 0); }, 5, "x", "already declared"},
        {"malformed fact name", [&](problem_builder& b) { base(b); b.fact("1x"); b.seed(0, 0); }, 5, "1x", "malformed fact name"},
        {"repeated node", [&](problem_builder& b) { base(b); b.node("fs", 0); b.seed(0, 0); }, 5, "fs", "already declared"},
        {"start == exit", [&](problem_builder& b) { base(b); b.proc("g", "gs", "gs"); b.seed(0, 0); }, 5, "gs", "distinct"},
        {"node of unknown proc id", [&](problem_builder& b) { base(b); b.node("n", 9); b.seed(0, 0); }, 5, "#9", "unknown procedure id"},
        {"unknown node id", [&](problem_builder& b) { base(b); b.flow(0, 99, ff::id()); b.seed(0, 0); }, 5, "#99", "unknown node id"},
        {"unknown fact id", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id().gen({5})); b.seed(0, 0); }, 5, "#5", "unknown fact id"},
        {"kill 0", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id().kill({0})); b.seed(0, 0); }, 5, "0", "cannot be killed"},
        {"gen 0", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id().gen({0})); b.seed(0, 0); }, 5, "0", "cannot be generated"},
        {"pair to 0", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id().pair(1, 0)); b.seed(0, 0); }, 5, "x>0", "zero fact"},
        {"pair 0>0", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id().pair(0, 0)); b.seed(0, 0); }, 5, "0>0", "'0>0'"},
        {"flow across procs", [&](problem_builder& b) { base(b); b.flow(0, 3, ff::id()); b.seed(0, 0); }, 5, "fs", "inside one procedure"},
        {"flow from exit", [&](problem_builder& b) { base(b); b.flow(1, 2, ff::id()); b.seed(0, 0); }, 5, "me", "exit node"},
        {"repeated flow", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id()); b.flow(0, 2, ff::none()); b.seed(0, 0); }, 6, "a", "repeated flow edge"},
        {"call to unknown proc id", [&](problem_builder& b) { base(b); b.call(0, 7, 2); b.seed(0, 0); }, 5, "#7", "unknown procedure id"},
        {"retsite outside caller", [&](problem_builder& b) { base(b); b.call(0, 1, 3); b.seed(0, 0); }, 5, "fs", "caller"},
        {"flow from call site", [&](problem_builder& b) { base(b); b.call(0, 1, 2); b.flow(0, 2, ff::id()); b.seed(0, 0); }, 6, "ms", "call site"},
        {"callflow without call", [&](problem_builder& b) { base(b); b.callflow(0, 1, ff::id()); b.seed(0, 0); }, 5, "f", "matching call"},
        {"ctrflow without call", [&](problem_builder& b) { base(b); b.ctrflow(0, ff::id()); b.seed(0, 0); }, 5, "ms", "ctrflow needs a call"},
        {"faulty call after its callflow", [&](problem_builder& b) { base(b); b.callflow(0, 1, ff::id()); b.call(0, 1, 99); b.seed(0, 0); }, 6, "#99", "unknown node id"},
        {"faulty call after its ctrflow", [&](problem_builder& b) { base(b); b.ctrflow(0, ff::id()); b.call(0, 7, 2); b.seed(0, 0); }, 6, "#7", "unknown procedure id"},
        {"seed not at a start", [&](problem_builder& b) { base(b); b.seed(2, 0); }, 5, "a", "start node"},
        {"repeated seed", [&](problem_builder& b) { base(b); b.seed(0, 1); b.seed(0, 1); }, 6, "x", "repeated seed"},
        {"no seed", [&](problem_builder& b) { base(b); b.flow(0, 2, ff::id()); }, 5, "", "no seed"},
        {"first error in call order", [&](problem_builder& b) { base(b); b.callflow(0, 1, ff::id()); b.fact("x"); b.seed(0, 0); }, 5, "f", "matching call"},
    };
    for (const builder_case& c : cases) {
        INFO(c.what);
        problem_builder b;
        c.make(b);
        auto r = b.finish();
        REQUIRE_FALSE(r);
        INFO(r.error().what());
        CHECK(r.error().statement == c.statement);
        CHECK(r.error().token == c.token);
        CHECK(r.error().message.find(c.fragment) != std::string::npos);
    }
    problem_builder empty;
    auto r = empty.finish();
    REQUIRE_FALSE(r);
    CHECK(r.error().statement == 1);
    CHECK(r.error().what() == "statement 1: error: " + r.error().message);
}

// ----------------------------------------------------------- robustness -----

namespace {

/// Loads `text`: it either loads (and then round-trips) or fails with a sane
/// error; with `threads`, also the same on two threads in runs of a line or
/// two (`same_on_threads`; not for every input: a loaded machine slows
/// thread hand-offs by orders of magnitude, and these loops load thousands).
void load_cleanly(const std::string& text, bool threads = true) {
    if (threads) same_on_threads(text, 2, 48);
    auto r = load_problem(text, "m.ifds");
    if (r) {
        const std::string printed = print_problem(*r);
        auto again = load_problem(printed);
        if (!again) FAIL("printed problem does not load: " << again.error().what() << "\n" << printed);
        if (!(*again == *r)) FAIL("round trip differs for:\n" << text);
        return;
    }
    const load_error& e = r.error();
    const std::uint32_t last = last_line_of(text);
    if (e.line < 1 || e.line > last || e.message.empty() || e.token.size() > 67)
        FAIL("bad error " << e.what() << " (last line " << last << ") for:\n" << text);
}

} // namespace

TEST_CASE("ifds format: every truncation loads or fails cleanly", "[ifds][format][robust]") {
    for (const char* f : data_files) {
        const std::string text = read_data(f);
        for (std::size_t n = 0; n <= text.size(); ++n) load_cleanly(text.substr(0, n), n % 16 == 0);
    }
}

TEST_CASE("ifds format: mutated and random inputs load or fail cleanly", "[ifds][format][robust]") {
    const auto t0 = std::chrono::steady_clock::now();
    std::mt19937 rng(12345);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    std::vector<std::string> bases;
    for (const char* f : data_files) bases.push_back(read_data(f));
    static const char alpha[] = "ab0xyz_.$@:,>#- \t\r\n\xEF\xBB\xBF\x01\xff";
    const std::string alphabet = std::string(alpha, sizeof alpha - 1) + std::string(1, '\0');
    const char* const words[] = {"ifds", "1", "facts", "proc", "node", "flow", "call", "callflow", "retflow",
                                 "ctrflow", "seed", "id", "kill:x", "gen:y", "x>y", "0>x", "x>0", "0",
                                 "main", "main.s", "main.e", "a", "x", "kill:", "#", "\n", "\r\n"};
    int loaded = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        std::string t;
        if (iter % 5 == 4) {
            // a soup of statement words
            t = pick(4) ? "ifds 1\n" : "";
            for (std::size_t k = pick(60); k-- > 0;) {
                t += words[pick(std::size(words))];
                t += pick(4) ? " " : "\n";
            }
        } else {
            t = bases[pick(bases.size())];
            for (std::size_t m = 1 + pick(4); m-- > 0 && !t.empty();) {
                const std::size_t at = pick(t.size());
                switch (pick(6)) {
                case 0: t[at] = alphabet[pick(alphabet.size())]; break;
                case 1: t.insert(at, 1, alphabet[pick(alphabet.size())]); break;
                case 2: t.erase(at, pick(12)); break;
                case 3: {  // duplicate a line elsewhere
                    const std::size_t b = t.rfind('\n', at), e = t.find('\n', at);
                    const std::size_t lb = b == std::string::npos ? 0 : b + 1;
                    const std::string line = t.substr(lb, (e == std::string::npos ? t.size() : e + 1) - lb);
                    t.insert(pick(t.size() + 1), line);
                    break;
                }
                case 4: t.insert(at, std::string(" ") + words[pick(std::size(words))] + " "); break;
                default: t[at] = static_cast<char>(pick(256)); break;
                }
            }
        }
        load_cleanly(t, iter % 8 == 0);
        loaded += load_problem(t) ? 1 : 0;
    }
    CHECK(loaded > 0);  // some mutations stay valid (comments, spacing)
    // pathological shapes
    load_cleanly("ifds 1\n" + std::string(200000, 'a'));
    load_cleanly("ifds 1\n" + std::string(100000, '\n'));
    load_cleanly("ifds 1\nfacts " + std::string(100000, ',') + "\n");
    load_cleanly("ifds 1\nproc m s e\nflow s e " + std::string(50000, '>') + "\nseed s 0\n");
    load_cleanly(std::string(1000, '\0'));
    load_cleanly("ifds 1\nproc m s e\nseed s 0\n" + std::string(5000, '\r'));
    std::string many_kills = "ifds 1\nfacts x\nproc m s e\nflow s e id kill:x";
    for (int i = 0; i < 20000; ++i) many_kills += ",x";
    load_cleanly(many_kills + "\nseed s 0\n");
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(secs < 5.0);
}
