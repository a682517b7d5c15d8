// One IDE solve of a generated linear-constant problem, timed phase by phase
// (bench/ide/run.py runs it per size and solver, in its own process so that
// its peak RSS is the solver's, and compares the solvers).
//
//   bench_ide --procs N [--seed S] [--solver none|tabulation|cpu|cpu-kernels] [--threads T]
//
// The problem: bench/ifds/gen_taint.hpp's program shape (procedures with
// parameters, locals, globals, branches, loops, recursion, indirect calls),
// with linear edge functions on its flows: a source `a = secret()` becomes
// `a = C` (the zero fact to a: the constant C), and each copy `a = b` or
// `a = b op c` becomes `a = k*b + c` (the pair b>a: an affine function), so
// constants meet at joins (bottom) and flow through calls and recursion.
// Prints one line: sizes, times (s), peak-free figures, and a hash of the
// solution (equal hashes: equal facts and values).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <vyre/backend/cpu.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/resident_solver.hpp>
#include <weir/ide/tabulation_solver.hpp>

#include "../ifds/gen_taint.hpp"

namespace {

using L = weir::ide::linear;
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

/// The generated program with linear functions on its flows (see the file comment).
weir::ide::problem<L> make_problem(std::uint32_t procs, std::uint64_t seed) {
    weir_bench::taint_params tp;
    tp.procs = procs;
    tp.seed = seed;
    weir::ide::problem<L> pb;
    pb.graph = weir_bench::make_taint_problem(tp);
    pb.fill_defaults();
    weir_bench::rng r(seed * 7 + 3);
    for (std::size_t e = 0; e < pb.graph.flows.size(); ++e) {
        const auto& ff = pb.graph.flows[e].ff;
        auto& terms = pb.flow_functions[e];
        for (auto g : ff.gen) terms.push_back({0, g, L::constant(static_cast<std::int64_t>(r.next() % 5))});
        for (auto [a, b] : ff.pairs) {
            if (a == 0 || a == b) continue;
            const std::int64_t k = 1 + static_cast<std::int64_t>(r.next() % 2), c = static_cast<std::int64_t>(r.next() % 3);
            terms.push_back({a, b, L::affine(k, c)});
        }
        weir::ide::canonicalize<L>(terms);
    }
    return pb;
}

std::uint64_t hash_of(const weir::ide::solution<L>& s) {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::uint64_t x) { h = (h ^ x) * 1099511628211ull; };
    for (std::size_t n = 0; n < s.at.size(); ++n)
        for (const auto& [f, v] : s.at[n]) {
            mix(n), mix(f), mix(static_cast<std::uint64_t>(v.k)), mix(static_cast<std::uint64_t>(v.c));
        }
    return h;
}

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: bench_ide --procs N [--seed S] [--solver none|tabulation|cpu|cpu-kernels] [--threads T]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    std::uint32_t procs = 0, threads = 2;
    std::uint64_t seed = 1;
    std::string solver = "cpu";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage();
        const char* v = argv[++i];
        if (a == "--procs") procs = static_cast<std::uint32_t>(std::strtoul(v, nullptr, 10));
        else if (a == "--seed") seed = std::strtoull(v, nullptr, 10);
        else if (a == "--threads") threads = static_cast<std::uint32_t>(std::strtoul(v, nullptr, 10));
        else if (a == "--solver") solver = v;
        else usage();
    }
    if (procs == 0 || (solver != "none" && solver != "tabulation" && solver != "cpu" && solver != "cpu-kernels")) usage();
    auto t0 = clock_type::now();
    const auto pb = make_problem(procs, seed);
    const double t_build = since(t0);
    double t_layout = 0, t_create = 0, t_solve = 0, t_reach = 0, t_ide = 0;
    weir::ide::solution<L> s;
    if (solver == "tabulation") {
        auto t1 = clock_type::now();
        s = weir::ide::tabulation_solver<L>(pb).solve().value();
        t_solve = since(t1);
    } else if (solver == "cpu" || solver == "cpu-kernels") {
        auto t1 = clock_type::now();
        const auto lay = weir::ide::make_layout(pb);
        t_layout = since(t1);
        vyre::cpu backend(threads);
        weir::vyre_resident_ifds<vyre::cpu> d(backend);
        auto t2 = clock_type::now();
        // cpu-kernels: stage 2 as the portable IR kernels (what cuda runs) instead of the op
        const auto mode = solver == "cpu" ? weir::ide::stage2_mode::op : weir::ide::stage2_mode::ir_kernels;
        auto rs = weir::ide::resident_solver<L, decltype(d)>::create(d, lay, {}, mode).value();
        t_create = since(t2);
        auto t3 = clock_type::now();
        auto out = rs.solve().value();
        t_solve = since(t3);
        const auto& r = out.stats.reachability;
        t_reach = r.seconds_solve + r.seconds_extract;
        t_ide = out.stats.seconds_solve;
        s = std::move(out.result);
    }
    std::printf("procs=%u solver=%s nodes=%zu facts=%zu jump_functions=%llu contexts=%llu t_build=%.4f t_layout=%.4f "
                "t_create=%.4f t_solve=%.4f t_reach=%.4f t_ide_op=%.4f hash=%016llx\n",
                procs, solver.c_str(), pb.graph.nodes.size(), pb.graph.facts.size(),
                static_cast<unsigned long long>(s.stats.jump_functions), static_cast<unsigned long long>(s.stats.contexts),
                t_build, t_layout, t_create, t_solve, t_reach, t_ide, static_cast<unsigned long long>(hash_of(s)));
    return 0;
}
