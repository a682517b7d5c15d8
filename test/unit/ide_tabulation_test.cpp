// ide::tabulation_solver<linear> against the spec's equations
// (ide-format.md, "Meaning"): an independent, literal Kleene iteration of
// the jump-function and value equations on hundreds of random problems
// (recursion, indirect calls, overflow), reachability equal to the IFDS
// solver's on the problem without edge functions, and hand-made cases:
// constants through calls in two contexts, recursion, the summary's
// parentheses under overflow, seed values.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include <weir/ide/linear.hpp>
#include <weir/ide/tabulation_solver.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#include "support/ide_gen.hpp"

using namespace weir;
using L = ide::linear;
using EF = L::function;
using V = L::value;

namespace {

/// The spec's equations, iterated literally until nothing changes: every
/// procedure and start fact, every exploded edge, every call and return.
ide::solution<L> spec_fixpoint(const ide::problem<L>& pb) {
    const auto& g = pb.graph;
    const std::uint32_t F = g.fact_count();
    std::map<std::tuple<ifds::fact_id, ifds::node_id, ifds::fact_id>, EF> jf;
    auto get = [&](ifds::fact_id d0, ifds::node_id n, ifds::fact_id d) {
        auto it = jf.find({d0, n, d});
        return it == jf.end() ? L::top() : it->second;
    };
    bool changed = true;
    auto raise = [&](ifds::fact_id d0, ifds::node_id n, ifds::fact_id d, const EF& f) {
        const EF j = L::join(get(d0, n, d), f);
        if (j == get(d0, n, d)) return;
        jf[{d0, n, d}] = j;
        changed = true;
    };
    auto ctr_terms = [&](ifds::node_id site) -> const ide::edge_terms<L>* {
        auto it = pb.ctr_functions.find(site);
        return it == pb.ctr_functions.end() ? nullptr : &it->second;
    };
    while (changed) {
        changed = false;
        for (const auto& p : g.procs)
            for (ifds::fact_id d0 = 0; d0 < F; ++d0) raise(d0, p.start, d0, L::identity());
        for (std::size_t e = 0; e < g.flows.size(); ++e)
            for (ifds::fact_id d0 = 0; d0 < F; ++d0)
                for (ifds::fact_id d = 0; d < F; ++d) {
                    const EF j = get(d0, g.flows[e].from, d);
                    if (j == L::top()) continue;
                    ifds::for_each_target(g.flows[e].ff, d, [&](ifds::fact_id t) {
                        raise(d0, g.flows[e].to, t, L::compose(ide::function_of<L>(pb.flow_functions[e], d, t), j));
                    });
                }
        for (std::size_t ce = 0; ce < g.calls.size(); ++ce) {
            const auto& c = g.calls[ce];
            const auto& q = g.procs[c.callee];
            for (ifds::fact_id d0 = 0; d0 < F; ++d0)
                for (ifds::fact_id d = 0; d < F; ++d) {
                    const EF j = get(d0, c.site, d);
                    if (j == L::top()) continue;
                    ifds::for_each_target(c.callflow, d, [&](ifds::fact_id d3) {
                        const EF f_call = ide::function_of<L>(pb.call_functions[ce], d, d3);
                        for (ifds::fact_id d4 = 0; d4 < F; ++d4) {
                            const EF callee = get(d3, q.exit, d4);
                            if (callee == L::top()) continue;
                            ifds::for_each_target(c.retflow, d4, [&](ifds::fact_id t) {
                                const EF f_ret = ide::function_of<L>(pb.return_functions[ce], d4, t);
                                raise(d0, c.retsite, t, L::compose(L::compose(f_ret, L::compose(callee, f_call)), j));
                            });
                        }
                    });
                }
        }
        std::map<ifds::node_id, ifds::node_id> retsite;
        for (const auto& c : g.calls) retsite[c.site] = c.retsite;
        for (const auto& site_ret : retsite) {
            const ifds::node_id site = site_ret.first, r = site_ret.second;
            auto ctf = g.ctrflows.find(site);
            const ifds::flow_function ff = ctf == g.ctrflows.end() ? ifds::flow_function::id() : ctf->second;
            const auto* terms = ctr_terms(site);
            for (ifds::fact_id d0 = 0; d0 < F; ++d0)
                for (ifds::fact_id d = 0; d < F; ++d) {
                    const EF j = get(d0, site, d);
                    if (j == L::top()) continue;
                    ifds::for_each_target(ff, d, [&](ifds::fact_id t) {
                        raise(d0, r, t, L::compose(terms ? ide::function_of<L>(*terms, d, t) : L::identity(), j));
                    });
                }
        }
    }
    // values
    std::map<std::pair<ifds::proc_id, ifds::fact_id>, V> entry;
    auto val = [&](ifds::node_id n, ifds::fact_id d) {
        const ifds::proc_id p = g.nodes[n].proc;
        V v = L::top_value();
        for (ifds::fact_id d0 = 0; d0 < F; ++d0) {
            auto e = entry.find({p, d0});
            if (e != entry.end()) v = L::join_values(v, L::apply(get(d0, n, d), e->second));
        }
        return v;
    };
    for (std::size_t i = 0; i < g.seeds.size(); ++i) {
        const auto k = std::pair(g.nodes[g.seeds[i].node].proc, g.seeds[i].fact);
        const V x = g.seeds[i].fact == 0 ? L::bottom_value() : pb.seed_values[i];
        entry[k] = entry.count(k) ? L::join_values(entry[k], x) : x;
    }
    for (changed = true; changed;) {
        changed = false;
        for (std::size_t ce = 0; ce < g.calls.size(); ++ce) {
            const auto& c = g.calls[ce];
            for (ifds::fact_id d = 0; d < F; ++d) {
                const V v = val(c.site, d);
                if (v == L::top_value()) continue;
                ifds::for_each_target(c.callflow, d, [&](ifds::fact_id d3) {
                    const V x = L::apply(ide::function_of<L>(pb.call_functions[ce], d, d3), v);
                    const auto k = std::pair(c.callee, d3);
                    const V old = entry.count(k) ? entry[k] : L::top_value();
                    const V j = L::join_values(old, d3 == 0 ? L::bottom_value() : x);
                    if (!(j == old)) entry[k] = j, changed = true;
                });
            }
        }
    }
    ide::solution<L> s;
    s.at.resize(g.nodes.size());
    for (ifds::node_id n = 0; n < g.nodes.size(); ++n)
        for (ifds::fact_id d = 0; d < F; ++d)
            if (V v = val(n, d); !(v == L::top_value())) s.at[n].push_back({d, v});
    return s;
}

/// A tiny builder for the hand-made cases: facts, procedures, nodes by name.
struct hand {
    ide::problem<L> p;
    ifds::fact_id fact(const std::string& n) {
        p.graph.facts.push_back(n);
        return static_cast<ifds::fact_id>(p.graph.facts.size());
    }
    ifds::proc_id proc(const std::string& n) {
        const auto s = node_raw(n + "_s", static_cast<ifds::proc_id>(p.graph.procs.size()));
        const auto e = node_raw(n + "_e", static_cast<ifds::proc_id>(p.graph.procs.size()));
        p.graph.procs.push_back({n, s, e});
        return static_cast<ifds::proc_id>(p.graph.procs.size() - 1);
    }
    ifds::node_id node_raw(const std::string& n, ifds::proc_id q) {
        p.graph.nodes.push_back({n, q});
        return static_cast<ifds::node_id>(p.graph.nodes.size() - 1);
    }
    ifds::node_id node(const std::string& n, ifds::proc_id q) { return node_raw(n, q); }
    void flow(ifds::node_id a, ifds::node_id b, ifds::flow_function ff, ide::edge_terms<L> t = {}) {
        p.graph.flows.push_back({a, b, std::move(ff)});
        ide::canonicalize<L>(t);
        p.flow_functions.push_back(std::move(t));
    }
    void call(ifds::node_id site, ifds::proc_id q, ifds::node_id r, ide::edge_terms<L> in = {}, ide::edge_terms<L> out = {}) {
        p.graph.calls.push_back({site, q, r, ifds::flow_function::id(), ifds::flow_function::id()});
        ide::canonicalize<L>(in);
        ide::canonicalize<L>(out);
        p.call_functions.push_back(std::move(in));
        p.return_functions.push_back(std::move(out));
    }
    void seed(ifds::node_id n, ifds::fact_id f, V v) {
        p.graph.seeds.push_back({n, f});
        p.seed_values.push_back(v);
    }
    V value_at(const ide::solution<L>& s, ifds::node_id n, ifds::fact_id f) const {
        for (const auto& [g, v] : s.at[n])
            if (g == f) return v;
        return L::top_value();
    }
};

ifds::flow_function gen_id(std::initializer_list<ifds::fact_id> gen) {
    ifds::flow_function f = ifds::flow_function::id();
    f.gen = gen;
    return f;
}

} // namespace

TEST_CASE("ide tabulation: equals the spec's equations on random problems", "[ide][tabulation]") {
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
        INFO("seed " << seed);
        const auto pb = test::small_ide_problem(seed);
        const auto got = ide::tabulation_solver<L>(pb).solve().value();
        const auto want = spec_fixpoint(pb);
        if (!(got == want)) {
            FAIL_CHECK("got\n" << ide::format_solution(pb.graph, got) << "want\n" << ide::format_solution(pb.graph, want));
        }
        // reachability is the IFDS problem's without the edge functions
        const auto Lay = ifds::make_layout(pb.graph);
        const auto ifds_sol = ifds::extract_solution(Lay, ifds::tabulation_solver(Lay).solve().value().path_edges);
        for (ifds::node_id n = 0; n < pb.graph.nodes.size(); ++n) {
            std::vector<ifds::fact_id> facts;
            for (const auto& [f, v] : got.at[n]) facts.push_back(f);
            CHECK(facts == ifds_sol.facts[n]);
        }
    }
}

TEST_CASE("ide tabulation: a constant through a call in two contexts stays context-sensitive", "[ide][tabulation]") {
    // main: x = 1; call inc; (x = 2 at a second site); inc adds 10.
    hand h;
    const auto x = h.fact("x");
    const auto m = h.proc("main"), inc = h.proc("inc");
    const auto& M = h.p.graph.procs[m];
    const auto ms = M.start, me = M.exit;
    const auto c1 = h.node("c1", m), r1 = h.node("r1", m), c2 = h.node("c2", m), r2 = h.node("r2", m);
    const auto is = h.p.graph.procs[inc].start, ie = h.p.graph.procs[inc].exit;
    h.flow(ms, c1, gen_id({x}), {{0, x, L::constant(1)}});
    h.call(c1, inc, r1);
    h.flow(r1, c2, ifds::flow_function::id(), {{x, x, L::constant(2)}});
    h.call(c2, inc, r2);
    h.flow(r2, me, ifds::flow_function::id());
    h.flow(is, ie, ifds::flow_function::id(), {{x, x, L::affine(1, 10)}});
    // the call-to-return edge kills x (it lives in the callee)
    ifds::flow_function kill_x = ifds::flow_function::id();
    kill_x.kill = {x};
    h.p.graph.ctrflows[c1] = kill_x;
    h.p.graph.ctrflows[c2] = kill_x;
    h.seed(ms, 0, L::bottom_value());
    const auto s = ide::tabulation_solver<L>(h.p).solve().value();
    CHECK(h.value_at(s, c1, x) == L::constant_value(1));
    CHECK(h.value_at(s, r1, x) == L::constant_value(11));
    CHECK(h.value_at(s, r2, x) == L::constant_value(12));  // not 11 ⊔ 12: the return matches its call
    CHECK(h.value_at(s, is, x) == L::bottom_value());      // 1 ⊔ 2 at the callee's start
    CHECK(h.value_at(s, ie, x) == L::bottom_value());
    CHECK(s == spec_fixpoint(h.p));
    CHECK(ide::format_solution(h.p.graph, s).find("r2: 0 x=12\n") != std::string::npos);
}

TEST_CASE("ide tabulation: recursion reaches a fixed point, seed values flow in", "[ide][tabulation]") {
    // f(x): if (..) return x; else { x = x * 1; f(x) }: the value at f's exit is the seed's.
    hand h;
    const auto x = h.fact("x");
    const auto f = h.proc("f");
    const auto fs = h.p.graph.procs[f].start, fe = h.p.graph.procs[f].exit;
    const auto c = h.node("c", f), r = h.node("r", f);
    h.flow(fs, fe, ifds::flow_function::id());
    h.flow(fs, c, ifds::flow_function::id());
    h.call(c, f, r);
    ifds::flow_function kill_x = ifds::flow_function::id();
    kill_x.kill = {x};
    h.p.graph.ctrflows[c] = kill_x;
    h.flow(r, fe, ifds::flow_function::id(), {{x, x, L::affine(-1, 0)}});  // negate on the way back
    h.seed(fs, x, L::constant_value(5));
    const auto s = ide::tabulation_solver<L>(h.p).solve().value();
    CHECK(h.value_at(s, fs, x) == L::constant_value(5));
    CHECK(h.value_at(s, fe, x) == L::bottom_value());  // 5 and -5 both reach the exit
    CHECK(s == spec_fixpoint(h.p));
}

TEST_CASE("ide tabulation: the summary is formed before it is composed with the caller's function", "[ide][tabulation]") {
    // f_call = 2^62*x, callee = 4*x (its composition overflows: bottom), f_ret = x,
    // caller = the constant 0. (f_ret ∘ (callee ∘ f_call)) ∘ 0 = bottom ∘ 0 = bottom,
    // whereas composing the constant first would give 0.
    hand h;
    const auto x = h.fact("x");
    const auto m = h.proc("main"), g = h.proc("g");
    const auto ms = h.p.graph.procs[m].start, me = h.p.graph.procs[m].exit;
    const auto c = h.node("c", m);
    const auto gs = h.p.graph.procs[g].start, ge = h.p.graph.procs[g].exit;
    h.flow(ms, c, gen_id({x}), {{0, x, L::constant(0)}});
    h.call(c, g, me, {{x, x, L::affine(std::int64_t{1} << 62, 0)}});
    ifds::flow_function kill_x = ifds::flow_function::id();
    kill_x.kill = {x};
    h.p.graph.ctrflows[c] = kill_x;
    h.flow(gs, ge, ifds::flow_function::id(), {{x, x, L::affine(4, 0)}});
    h.seed(ms, 0, L::bottom_value());
    const auto s = ide::tabulation_solver<L>(h.p).solve().value();
    CHECK(h.value_at(s, gs, x) == L::constant_value(0));
    CHECK(h.value_at(s, ge, x) == L::constant_value(0));
    CHECK(h.value_at(s, me, x) == L::bottom_value());
    CHECK(s == spec_fixpoint(h.p));
}

TEST_CASE("ide tabulation: the memory budget", "[ide][tabulation][budget]") {
    const auto pb = test::small_ide_problem(7);
    const auto free_run = ide::tabulation_solver<L>(pb).solve().value();
    auto tiny = ide::tabulation_solver<L>(pb, {.memory_budget = 64}).solve();
    REQUIRE_FALSE(tiny.has_value());
    CHECK(tiny.error().code() == vyre::error_code::out_of_memory);
    CHECK_THAT(tiny.error().message(), Catch::Contains("memory budget of 64"));
    auto enough = ide::tabulation_solver<L>(pb, {.memory_budget = 64ull << 20}).solve();
    REQUIRE(enough.has_value());
    CHECK(*enough == free_run);
}
