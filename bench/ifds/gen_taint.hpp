#pragma once
/// \file bench/ifds/gen_taint.hpp
/// A deterministic generator of taint-like IFDS problems of any size, built
/// through `weir::ifds::problem_builder` (benchmarks only).
///
/// The shape of a generated program:
/// - P procedures `p<i>`, each with 1–4 parameters `p<i>.a<j>`, 8–16 locals
///   `p<i>.l<j>` and a return value `p<i>.ret`; 8 shared globals `g<j>`.
/// - A body of about 20–40 nodes: statements in sequence, if/else and
///   if-without-else diamonds, and loops (a back edge to a loop head),
///   ending in `ret = v` before the exit node.
/// - Statements as flow functions on a node's outgoing edges: `a = b`
///   (`id kill:a b>a`), `a = b op c` (`id kill:a b>a c>a`), `a = const` and
///   sanitizers (`id kill:a`), sources `a = secret()` (`id gen:a`), and
///   reads/writes of globals.
/// - Call sites `x = f(args)`: callflow maps each actual to the callee's
///   parameter and every global to itself (explicit pairs, never `id`, so no
///   caller local leaks into a callee); retflow maps the callee's `ret` to the
///   assigned local and every global back; ctrflow is `id kill:x,g0,...`
///   (globals flow through the callee instead).
/// - The call graph: a binary tree over procedure ids (every procedure is
///   reachable from `p0`), extra forward calls, back calls that close
///   recursion (self, mutual with the caller's parent, short cycles), and
///   indirect call sites with 2–3 targets.
/// - Seeds: the zero fact at the start of the entry procedure(s).
///
/// The same parameters give the same problem on every platform (splitmix64,
/// no `<random>` distributions).

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/builder.hpp>
#include <weir/ifds/format.hpp>
#include <weir/ifds/problem.hpp>

namespace weir_bench {

/// splitmix64: a small PRNG with the same sequence everywhere.
class rng {
public:
    explicit rng(std::uint64_t seed) : s_(seed) {}
    /// The next 64 random bits.
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n) (n > 0; multiply-shift, bias negligible here).
    std::uint32_t below(std::uint32_t n) {
        return static_cast<std::uint32_t>(((next() >> 32) * std::uint64_t{n}) >> 32);
    }
    /// Uniform in [lo, hi].
    std::uint32_t range(std::uint32_t lo, std::uint32_t hi) { return lo + below(hi - lo + 1); }
    /// True with probability `p`.
    bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }

private:
    std::uint64_t s_;
};

/// Parameters of a generated problem.
struct taint_params {
    std::uint32_t procs = 100;        ///< number of procedures (≥ 1)
    std::uint64_t seed = 1;           ///< PRNG seed
    std::uint32_t globals = 8;        ///< shared globals
    std::uint32_t min_params = 1, max_params = 4;
    std::uint32_t min_locals = 8, max_locals = 16;
    std::uint32_t min_nodes = 20, max_nodes = 40;  ///< body size target (approximate)
    std::uint32_t entries = 1;        ///< procedures seeded with `0` (p0 and entries-1 more)
    double p_extra_forward = 0.6;     ///< per procedure: chance of each of two extra forward calls
    double p_back_call = 0.25;        ///< per procedure: a call back to a nearby lower id (recursion)
    double p_parent_call = 0.10;      ///< per procedure: a call to its tree parent (mutual recursion)
    double p_indirect = 0.15;         ///< per procedure: an indirect call site with 2–3 targets
};

namespace detail {

/// Per-procedure facts and call plans, decided before any body is written.
struct proc_plan {
    std::vector<weir::ifds::fact_id> params, locals;  ///< fact ids
    weir::ifds::fact_id ret = 0;
    std::vector<std::vector<std::uint32_t>> calls;    ///< per call site: its targets (indirect: several)
    std::uint32_t target_nodes = 0;
};

/// An edge waiting for its target node: from `from`, with flow function `ff`.
struct pending {
    weir::ifds::node_id from;
    weir::ifds::flow_function ff;
};

/// Writes one procedure body (everything between its start and exit).
class body_writer {
public:
    body_writer(weir::ifds::problem_builder& b, rng& r, const std::vector<proc_plan>& plans,
                const std::vector<weir::ifds::fact_id>& globals, std::uint32_t p)
        : b_(b), r_(r), plans_(plans), globals_(globals), p_(p), me_(plans[p]) {}

    void write() {
        using namespace weir::ifds;
        const std::string name = "p" + std::to_string(p_);
        // Tokens: one per call site, the rest plain statements, shuffled.
        const auto ncalls = static_cast<std::uint32_t>(me_.calls.size());
        const std::uint32_t budget = me_.target_nodes > 2 * ncalls + 4 ? me_.target_nodes - 2 * ncalls - 4 : 0;
        const std::uint32_t nstmts = std::max<std::uint32_t>(4, budget * 4 / 5);  // leave room for branch/loop heads
        std::vector<std::int32_t> tokens;  // -1: statement, k ≥ 0: call site k
        for (std::uint32_t i = 0; i < nstmts; ++i) tokens.push_back(-1);
        for (std::uint32_t k = 0; k < ncalls; ++k) tokens.push_back(static_cast<std::int32_t>(k));
        for (std::size_t i = tokens.size(); i > 1; --i) std::swap(tokens[i - 1], tokens[r_.below(static_cast<std::uint32_t>(i))]);

        std::vector<pending> open{{b_.start_of(p_), ff::id()}};
        emit(tokens, 0, tokens.size(), 0, open);
        // return v: the flow into the exit node assigns the return value
        const node_id rn = new_node();
        connect(open, rn);
        const fact_id v = pick_var();
        b_.flow(rn, b_.exit_of(p_), ff::id().kill({me_.ret}).pair(v, me_.ret));
    }

private:
    using tokens_t = std::vector<std::int32_t>;

    weir::ifds::node_id new_node() { return b_.node("p" + std::to_string(p_) + ".n" + std::to_string(nodes_++), p_); }

    void connect(std::vector<pending>& open, weir::ifds::node_id to) {
        for (auto& e : open) b_.flow(e.from, to, std::move(e.ff));
        open.clear();
    }

    /// A parameter or local of this procedure; sometimes a global when `globals_ok`.
    weir::ifds::fact_id pick_var(bool globals_ok = false) {
        if (globals_ok && !globals_.empty() && r_.chance(0.08)) return globals_[r_.below(static_cast<std::uint32_t>(globals_.size()))];
        const auto n = static_cast<std::uint32_t>(me_.params.size() + me_.locals.size());
        const std::uint32_t k = r_.below(n);
        return k < me_.params.size() ? me_.params[k] : me_.locals[k - me_.params.size()];
    }

    /// Emits tokens [lo, hi) after the edges in `open`, wrapping some runs in
    /// branches and loops (nesting depth < 3).
    void emit(const tokens_t& t, std::size_t lo, std::size_t hi, int depth, std::vector<pending>& open) {
        using namespace weir::ifds;
        std::size_t i = lo;
        while (i < hi) {
            const std::size_t left = hi - i;
            if (depth < 3 && left >= 2 && r_.chance(0.14)) {  // if / if-else
                const node_id c = new_node();
                connect(open, c);
                const std::size_t a = 1 + r_.below(static_cast<std::uint32_t>(std::min<std::size_t>(4, left - 1)));
                const std::size_t bsz = r_.below(static_cast<std::uint32_t>(std::min<std::size_t>(4, left - a) + 1));
                std::vector<pending> arm1{{c, ff::id()}};
                emit(t, i, i + a, depth + 1, arm1);
                std::vector<pending> arm2{{c, ff::id()}};
                if (bsz) emit(t, i + a, i + a + bsz, depth + 1, arm2);
                for (auto& e : arm1) open.push_back(std::move(e));
                for (auto& e : arm2) open.push_back(std::move(e));
                i += a + bsz;
            } else if (depth < 3 && left >= 1 && r_.chance(0.06)) {  // loop
                const node_id h = new_node();
                connect(open, h);
                const std::size_t a = 1 + r_.below(static_cast<std::uint32_t>(std::min<std::size_t>(4, left)));
                std::vector<pending> body{{h, ff::id()}};
                emit(t, i, i + a, depth + 1, body);
                connect(body, h);
                open.push_back({h, ff::id()});
                i += a;
            } else {
                if (t[i] < 0)
                    statement(open);
                else
                    call(static_cast<std::uint32_t>(t[i]), open);
                ++i;
            }
        }
    }

    /// A plain statement: a node whose outgoing edge carries its effect.
    void statement(std::vector<pending>& open) {
        using namespace weir::ifds;
        const node_id n = new_node();
        connect(open, n);
        const std::uint32_t k = r_.below(100);
        flow_function f;
        if (k < 45) {  // a = b
            const fact_id a = pick_var(true), src = pick_var(true);
            f = ff::id().kill({a}).pair(src, a);
        } else if (k < 60) {  // a = b op c
            const fact_id a = pick_var(true), x = pick_var(true), y = pick_var();
            f = ff::id().kill({a}).pair(x, a).pair(y, a);
        } else if (k < 72) {  // a = const
            f = ff::id().kill({pick_var(true)});
        } else if (k < 80) {  // a = sanitize(a)
            f = ff::id().kill({pick_var()});
        } else if (k < 86) {  // a = secret()
            f = ff::id().gen({pick_var(true)});
        } else {  // no effect on taint (a test, a print, ...)
            f = ff::id();
        }
        open.push_back({n, std::move(f)});
    }

    /// A call site `x = f(args)` (or `f(args)`), direct or indirect.
    void call(std::uint32_t k, std::vector<pending>& open) {
        using namespace weir::ifds;
        const auto& targets = me_.calls[k];
        const node_id site = new_node();
        connect(open, site);
        const node_id ret = new_node();
        std::size_t nargs = 0;
        for (std::uint32_t q : targets) nargs = std::max(nargs, plans_[q].params.size());
        std::vector<fact_id> actuals(nargs);
        for (auto& a : actuals) a = pick_var(true);
        const bool assigns = r_.chance(0.8);
        const fact_id x = assigns ? pick_var() : zero_fact;
        for (std::uint32_t q : targets) {
            b_.call(site, q, ret);
            ff cf = ff::none(), rf = ff::none();
            for (std::size_t j = 0; j < plans_[q].params.size(); ++j) cf = cf.pair(actuals[j], plans_[q].params[j]);
            for (fact_id g : globals_) {
                cf = cf.pair(g, g);
                rf = rf.pair(g, g);
            }
            if (assigns) rf = rf.pair(plans_[q].ret, x);
            b_.callflow(site, q, std::move(cf));
            b_.retflow(site, q, std::move(rf));
        }
        ff ctr = ff::id().kill(globals_);
        if (assigns) ctr = ctr.kill({x});
        b_.ctrflow(site, std::move(ctr));
        open.push_back({ret, ff::id()});
    }

    weir::ifds::problem_builder& b_;
    rng& r_;
    const std::vector<proc_plan>& plans_;
    const std::vector<weir::ifds::fact_id>& globals_;
    std::uint32_t p_;
    const proc_plan& me_;
    std::uint32_t nodes_ = 0;
};

} // namespace detail

/// Generates the problem for `tp`. Throws `std::runtime_error` if the builder
/// rejects it (a generator bug).
inline weir::ifds::problem make_taint_problem(const taint_params& tp) {
    using namespace weir::ifds;
    if (tp.procs == 0) throw std::invalid_argument("make_taint_problem: procs must be at least 1");
    rng r(tp.seed * 0x2545F4914F6CDD1Dull + tp.procs);
    problem_builder b;
    const std::uint32_t P = tp.procs;

    // Facts: globals, then each procedure's parameters, locals and return value.
    std::vector<fact_id> globals;
    for (std::uint32_t j = 0; j < tp.globals; ++j) globals.push_back(b.fact("g" + std::to_string(j)));
    std::vector<detail::proc_plan> plans(P);
    for (std::uint32_t i = 0; i < P; ++i) {
        const std::string pre = "p" + std::to_string(i) + ".";
        auto& pl = plans[i];
        const std::uint32_t np = r.range(tp.min_params, tp.max_params), nl = r.range(tp.min_locals, tp.max_locals);
        for (std::uint32_t j = 0; j < np; ++j) pl.params.push_back(b.fact(pre + "a" + std::to_string(j)));
        for (std::uint32_t j = 0; j < nl; ++j) pl.locals.push_back(b.fact(pre + "l" + std::to_string(j)));
        pl.ret = b.fact(pre + "ret");
        pl.target_nodes = r.range(tp.min_nodes, tp.max_nodes);
    }

    // Call plans.
    for (std::uint32_t i = 0; i < P; ++i) {
        auto& calls = plans[i].calls;
        for (std::uint32_t c : {2 * i + 1, 2 * i + 2})
            if (c < P) calls.push_back({c});  // the tree: everything reachable from p0
        for (int k = 0; k < 2; ++k)
            if (i + 1 < P && r.chance(tp.p_extra_forward)) calls.push_back({i + 1 + r.below(P - i - 1)});
        if (r.chance(tp.p_back_call)) calls.push_back({i - r.below(std::min<std::uint32_t>(i, 16) + 1)});  // self included
        if (i > 0 && r.chance(tp.p_parent_call)) calls.push_back({(i - 1) / 2});
        if (P >= 2 && r.chance(tp.p_indirect)) {
            std::vector<std::uint32_t> ts;
            const std::uint32_t want = std::min<std::uint32_t>(r.range(2, 3), P);
            while (ts.size() < want) {
                const std::uint32_t q = r.below(P);
                if (std::find(ts.begin(), ts.end(), q) == ts.end()) ts.push_back(q);
            }
            calls.push_back(std::move(ts));
        }
    }

    for (std::uint32_t i = 0; i < P; ++i) {
        const std::string n = "p" + std::to_string(i);
        b.proc(n, n + ".start", n + ".exit");  // proc id i
    }
    for (std::uint32_t i = 0; i < P; ++i) detail::body_writer(b, r, plans, globals, i).write();

    b.seed(b.start_of(0), zero_fact);
    const std::uint64_t E = std::clamp<std::uint32_t>(tp.entries, 1, P);
    for (std::uint64_t e = 1; e < E; ++e) b.seed(b.start_of(static_cast<proc_id>(e * P / E)), zero_fact);

    auto pb = std::move(b).finish();
    if (!pb) throw std::runtime_error("make_taint_problem: builder rejected the problem: " + pb.error().what());
    return std::move(*pb);
}

/// Generates the problem for `tp` and writes it as a `.ifds` file; returns the
/// number of bytes written. Throws `std::runtime_error` on an I/O error.
inline std::uint64_t write_taint_file(const std::string& path, const taint_params& tp) {
    const std::string text = weir::ifds::print_problem(make_taint_problem(tp));
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) throw std::runtime_error("write_taint_file: cannot write " + path);
    return text.size();
}

} // namespace weir_bench
