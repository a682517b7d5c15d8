// The main demo: a small C program turned into an IFDS taint problem through
// the builder API, solved exactly on the default backend's resident solver,
// and every source → sink leak printed with its witness path in source terms.
//
//    1  int secret(void);
//    2  void sink(int s);
//    3  int sanitize(int x) { return 0; }
//    4  int pass(int x) { return x; }
//    5  int fact(int n, int t) {
//    6    if (n == 0) return t;
//    7    return fact(n - 1, t);
//    8  }
//    9  void log_it(int v) { sink(v); }
//   10  int main(void) {
//   11    int a = secret();
//   12    int b = sanitize(a);
//   13    int c = fact(3, a);
//   14    int p = pass(c);
//   15    int q = pass(b);
//   16    sink(q);
//   17    log_it(p);
//   18    return 0;
//   19  }
//
// Exact (realizable-path) analysis finds one leak, at line 9 through line 17.
// `pass` is called twice; a context-insensitive analysis would mix its two
// calls and also report `sink(q)` at line 16. Recursion (`fact`) carries the
// taint, the sanitizer stops it.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <vyre/backend/cpu_ref.hpp>
#include <weir/weir.hpp>

using namespace weir::ifds;

namespace {

struct source_map {
    std::map<node_id, std::pair<int, std::string>> where;  // node → (line, text)
};

struct sink_call {
    node_id site;
    fact_id argument;
    int line;
    std::string text;
};

} // namespace

int main() {
    problem_builder b;
    source_map src;
    std::vector<sink_call> sinks;
    auto at = [&](node_id n, int line, std::string text) {
        src.where[n] = {line, std::move(text)};
        return n;
    };

    // facts: one per variable that can hold taint
    fact_id a = b.fact("main.a"), bb = b.fact("main.b"), c = b.fact("main.c"), p = b.fact("main.p"),
            q = b.fact("main.q"), sx = b.fact("sanitize.x"), sret = b.fact("sanitize.ret"), px = b.fact("pass.x"),
            pret = b.fact("pass.ret"), ft = b.fact("fact.t"), fret = b.fact("fact.ret"), lv = b.fact("log_it.v"),
            ks = b.fact("sink.s");

    proc_id sink = b.proc("sink", "sink.start", "sink.exit");
    b.flow(b.start_of(sink), b.exit_of(sink), ff::id());
    at(b.start_of(sink), 2, "void sink(int s)");

    proc_id sanitize = b.proc("sanitize", "sanitize.start", "sanitize.exit");
    b.flow(b.start_of(sanitize), b.exit_of(sanitize), ff::none());  // returns a constant: x is dropped
    at(b.start_of(sanitize), 3, "int sanitize(int x)");
    at(b.exit_of(sanitize), 3, "return 0;");

    proc_id pass = b.proc("pass", "pass.start", "pass.exit");
    b.flow(b.start_of(pass), b.exit_of(pass), ff::id().pair(px, pret));
    at(b.start_of(pass), 4, "int pass(int x)");
    at(b.exit_of(pass), 4, "return x;");

    proc_id fact = b.proc("fact", "fact.start", "fact.exit");
    node_id f_test = b.node("fact.test", fact), f_base = b.node("fact.base", fact), f_rec = b.node("fact.rec", fact),
            f_recr = b.node("fact.rec.ret", fact);
    at(b.start_of(fact), 5, "int fact(int n, int t)");
    at(f_test, 6, "if (n == 0)");
    at(f_base, 6, "return t;");
    at(f_rec, 7, "fact(n - 1, t)");
    at(f_recr, 7, "return fact(...);");
    at(b.exit_of(fact), 8, "}");
    b.flow(b.start_of(fact), f_test, ff::id());
    b.flow(f_test, f_base, ff::id());
    b.flow(f_test, f_rec, ff::id());
    b.flow(f_base, b.exit_of(fact), ff::id().pair(ft, fret));
    b.call(f_rec, fact, f_recr);
    b.callflow(f_rec, fact, ff::none().pair(ft, ft));
    b.retflow(f_rec, fact, ff::none().pair(fret, fret));
    b.ctrflow(f_rec, ff::id().kill({fret}));
    b.flow(f_recr, b.exit_of(fact), ff::id());

    proc_id log_it = b.proc("log_it", "log_it.start", "log_it.exit");
    node_id l_call = b.node("log_it.call", log_it), l_ret = b.node("log_it.ret", log_it);
    at(b.start_of(log_it), 9, "void log_it(int v)");
    at(l_call, 9, "sink(v);");
    at(l_ret, 9, "}");
    b.flow(b.start_of(log_it), l_call, ff::id());
    b.call(l_call, sink, l_ret);
    b.callflow(l_call, sink, ff::none().pair(lv, ks));
    b.flow(l_ret, b.exit_of(log_it), ff::id());
    sinks.push_back({l_call, lv, 9, "sink(v)"});

    proc_id mainp = b.proc("main", "main.start", "main.exit");
    at(b.start_of(mainp), 10, "int main(void)");
    at(b.exit_of(mainp), 18, "return 0;");
    // a straight line of statements; calls get a return node each
    node_id prev = b.start_of(mainp);
    auto stmt = [&](const std::string& name, int line, std::string text) {
        node_id n = at(b.node(name, mainp), line, std::move(text));
        return n;
    };
    auto call = [&](const std::string& name, int line, const std::string& text, proc_id callee,
                    flow_function cf, flow_function rf, flow_function ctr) {
        node_id site = stmt(name, line, text);
        node_id ret = stmt(name + ".ret", line, text + " returns");
        b.call(site, callee, ret);
        b.callflow(site, callee, std::move(cf));
        b.retflow(site, callee, std::move(rf));
        b.ctrflow(site, std::move(ctr));
        return std::pair{site, ret};
    };
    node_id m11 = stmt("main.11", 11, "int a = secret();");
    b.flow(prev, m11, ff::id());
    auto [m12, m12r] = call("main.12", 12, "int b = sanitize(a);", sanitize, ff::none().pair(a, sx),
                            ff::none().pair(sret, bb), ff::id().kill({bb}));
    b.flow(m11, m12, ff::id().gen({a}));  // secret() is the source
    auto [m13, m13r] = call("main.13", 13, "int c = fact(3, a);", fact, ff::none().pair(a, ft),
                            ff::none().pair(fret, c), ff::id().kill({c}));
    b.flow(m12r, m13, ff::id());
    auto [m14, m14r] = call("main.14", 14, "int p = pass(c);", pass, ff::none().pair(c, px),
                            ff::none().pair(pret, p), ff::id().kill({p}));
    b.flow(m13r, m14, ff::id());
    auto [m15, m15r] = call("main.15", 15, "int q = pass(b);", pass, ff::none().pair(bb, px),
                            ff::none().pair(pret, q), ff::id().kill({q}));
    b.flow(m14r, m15, ff::id());
    auto [m16, m16r] = call("main.16", 16, "sink(q);", sink, ff::none().pair(q, ks), ff::none(), ff::id());
    b.flow(m15r, m16, ff::id());
    sinks.push_back({m16, q, 16, "sink(q)"});
    auto [m17, m17r] = call("main.17", 17, "log_it(p);", log_it, ff::none().pair(p, lv), ff::none(), ff::id());
    b.flow(m16r, m17, ff::id());
    b.flow(m17r, b.exit_of(mainp), ff::id());
    b.seed(b.start_of(mainp), zero_fact);

    auto pb = b.finish();
    if (!pb) {
        std::fprintf(stderr, "taint: %s\n", pb.error().what().c_str());
        return 1;
    }

    // Solve on the default backend's resident solver.
    auto L = make_layout(*pb);
    vyre::cpu_ref backend;
    weir::vyre_resident_ifds<vyre::cpu_ref> device(backend);
    auto solver = resident_solver<weir::vyre_resident_ifds<vyre::cpu_ref>>::create(device, L);
    if (!solver) {
        std::fprintf(stderr, "taint: %s\n", solver.error().what());
        return 1;
    }
    auto out = solver->solve();
    if (!out) {
        std::fprintf(stderr, "taint: %s\n", out.error().what());
        return 1;
    }
    auto sol = extract_solution(L, out->path_edges);
    std::printf("solved on %s: %llu path edges in %llu rounds, %llu contexts\n\n", std::string(backend.id()).c_str(),
                static_cast<unsigned long long>(out->stats.path_edges),
                static_cast<unsigned long long>(out->stats.rounds),
                static_cast<unsigned long long>(out->stats.contexts));

    witness_builder wb(L);
    int leaks = 0;
    bool q_clean = false;
    for (const auto& s : sinks) {
        if (!sol.holds(s.site, s.argument)) {
            std::printf("line %d: %s is clean\n\n", s.line, s.text.c_str());
            if (s.line == 16) q_clean = true;
            continue;
        }
        ++leaks;
        std::printf("LEAK: secret() at line 11 reaches %s at line %d\n", s.text.c_str(), s.line);
        auto path = wb.witness(s.site, s.argument);
        if (!path) {
            std::fprintf(stderr, "taint: no witness for a fact that holds\n");
            return 1;
        }
        int last_line = -1;
        for (auto [n, f] : *path) {
            auto it = src.where.find(n);
            int line = it == src.where.end() ? 0 : it->second.first;
            if (line == last_line) continue;
            last_line = line;
            std::printf("  line %2d  %-24s tainted: %s\n", line, it == src.where.end() ? "" : it->second.second.c_str(),
                        pb->fact_name(f).c_str());
        }
        std::printf("\n");
    }
    std::printf("%d leak(s)\n", leaks);
    return (leaks == 1 && q_clean) ? 0 : 1;
}
