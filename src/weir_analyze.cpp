// `weir analyze`: taint and uninitialized-variable analyses of C/C++ programs
// through LLVM IR (spec: analyze.md). Built with the LLVM frontend
// (libweir-llvm); without it the command says so and exits 2.
//
//   weir analyze [--analysis taint|uninit|lca] [--config FILE|libc] [--entry NAME]... [-p DIR]
//                [--backend tabulation|cpu-ref|cpu|cuda] [--format text|json|sarif]
//                [--witness] [--stats] [--fail-on-findings] [--emit-ifds FILE] [--witness-budget SIZE]
//                INPUT... [-- CLANG_FLAGS...]
//
// stdout: the findings; stderr: errors, --stats, notes, a progress line on a terminal.
// Exit status: 0 success (whatever was found), 1 findings with --fail-on-findings,
// 2 bad input or usage, 3 out of memory, 4 the backend's device is missing.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weir_cli.hpp"

#ifdef WEIR_WITH_LLVM
#include <llvm/IR/LLVMContext.h>

#include <weir/ide/format.hpp>
#include <weir/ifds/format.hpp>
#include <weir/llvm/analyze.hpp>
#include <weir/llvm/compile.hpp>
#include <weir/llvm/lca.hpp>
#include <weir/llvm/program.hpp>
#include <weir/llvm/module_loader.hpp>
#include <weir/llvm/taint_config.hpp>
#endif

namespace weir_cli {

#ifndef WEIR_WITH_LLVM
int cmd_analyze(int argc, char** argv) {
    for (int i = 2; i < argc; ++i)
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            help();
            std::cout << "(this build has no LLVM 14: 'analyze' is not available in it)\n";
            return 0;
        }
    std::cerr << "weir: 'analyze' is not available in this build (it needs LLVM 14 at build time: "
                 "install llvm-14-dev and reconfigure with -Dllvm=enabled)\n";
    return exit_invalid;
}
#else

namespace {

/// A progress line on stderr when it is a terminal.
class progress {
public:
    progress() : tty_(isatty(2)) {}
    void phase(const char* what) {
        if (tty_) std::fprintf(stderr, "\rweir: %-40s", what);
    }
    void done() {
        if (tty_) std::fprintf(stderr, "\r%50s\r", "");
    }

private:
    bool tty_;
};

/// Writes `text` (a problem for --emit-ifds) to `path`; false (and says so) when it cannot.
bool write_problem(progress& bar, const std::string& path, const std::string& text) {
    bar.phase("writing the problem");
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (out) return true;
    bar.done();
    std::cerr << "weir: cannot write the problem to '" << path << "'\n";
    return false;
}

/// `weir analyze --analysis lca`: the IDE problem of `lca_analysis`, solved
/// on `backend`, its constant values by source line.
int run_lca(progress& bar, const weir::llvm::load_options& load, const weir::llvm::analyze_options& opt,
            const std::string& backend, bool json, bool stats, const std::string& emit) {
    // lca reads no taint configuration, but a malformed one given is bad
    // input here as for taint and uninit (reported before any work)
    if (!opt.config.empty()) (void)weir::llvm::load_taint_config(opt.config);
    auto t = std::chrono::steady_clock::now();
    bar.phase("loading IR");
    ::llvm::LLVMContext ctx;
    auto module = weir::llvm::load_module(load, ctx);
    const double load_s = seconds_since(t);
    bar.phase("points-to");
    t = std::chrono::steady_clock::now();
    weir::llvm::program prog(*module, opt.entries, opt.points_to);
    const double pts_s = seconds_since(t);
    weir::llvm::lca_analysis a(prog);
    // Compiled and solved again while sign extensions settle (lca.hpp; a
    // second round only where a wrapped value is widened).
    double build_s = 0, solve_s = 0;
    std::string solve_stats;
    std::size_t rounds = 0;
    weir::llvm::compiled_ide_problem<weir::llvm::lca_analysis::family> compiled;
    std::optional<weir::ide::solution<weir::llvm::lca_analysis::family>> s;
    for (;;) {
        ++rounds;
        bar.phase("building the problem");
        t = std::chrono::steady_clock::now();
        compiled = weir::llvm::compile_ide_problem(prog, a);
        build_s += seconds_since(t);
        // written before each solve (as taint and uninit write theirs): the last is the one solved last
        if (!emit.empty() && !write_problem(bar, emit, weir::ide::print_problem(compiled.problem))) return exit_invalid;
        bar.phase("solving");
        t = std::chrono::steady_clock::now();
        solve_stats.clear();
        auto solved = solve_ide(compiled.problem, backend, solve_stats);
        bar.done();
        if (!solved) return solver_failed(solved.error());
        s = std::move(*solved);
        solve_s += seconds_since(t);
        weir::llvm::analysis_context settle(prog, compiled.facts);
        if (a.settle_extensions(settle, *s) == 0) break;
    }
    t = std::chrono::steady_clock::now();
    weir::llvm::analysis_context cx(prog, compiled.facts);
    const auto values = a.values(cx, *s);
    const double report_s = seconds_since(t);
    if (json) weir::llvm::write_lca_json(std::cout, values);
    else weir::llvm::write_lca_text(std::cout, values);
    std::cout.flush();
    if (stats)
        std::cerr << "weir: analysis=lca backend=" << backend << " points_to=" << prog.pointers().engine_name()
                  << " nodes=" << compiled.problem.graph.nodes.size() << " facts=" << compiled.facts.size()
                  << " jump_functions=" << s->stats.jump_functions << " values=" << values.size() << " rounds=" << rounds
                  << " t_load=" << load_s
                  << " t_points_to=" << pts_s << " t_construction=" << build_s << " t_solve=" << solve_s << solve_stats
                  << " t_report=" << report_s << "\n";
    return 0;
}

} // namespace

int cmd_analyze(int argc, char** argv) {
    weir::llvm::load_options load;
    weir::llvm::analyze_options opt;
    std::string backend = "cpu", format = "text", emit_ifds;
    bool stats = false, fail_on_findings = false;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::optional<std::string> {
            if (i + 1 >= argc) return std::nullopt;
            return std::string(argv[++i]);
        };
        if (a == "--") {
            for (++i; i < argc; ++i) load.clang_flags.emplace_back(argv[i]);
            break;
        }
        if (a == "--help" || a == "-h") return help();
        if (a == "--analysis") {
            auto v = value();
            if (!v) return usage("--analysis needs a name (taint, uninit, lca)");
            if (*v != "taint" && *v != "uninit" && *v != "lca")
                return usage("unknown analysis '" + *v + "' (taint, uninit, lca)");
            opt.analysis = *v;
        } else if (a == "--config") {
            auto v = value();
            if (!v || v->empty()) return usage("--config needs a file (or libc)");
            opt.config = *v;
        } else if (a == "--entry") {
            auto v = value();
            if (!v) return usage("--entry needs a function name");
            opt.entries.push_back(*v);
        } else if (a == "-p") {
            auto v = value();
            if (!v) return usage("-p needs a directory holding compile_commands.json");
            load.compile_commands_dir = *v;
        } else if (a == "--backend") {
            auto v = value();
            if (!v) return usage("--backend needs a name");
            backend = *v;
        } else if (a == "--format") {
            auto v = value();
            if (!v || (*v != "text" && *v != "json" && *v != "sarif")) return usage("--format is text, json or sarif");
            format = *v;
        } else if (a == "--points-to") {
            auto v = value();
            if (v && *v == "inclusion") opt.points_to.engine = weir::llvm::points_to_engine::inclusion;
            else if (v && *v == "unification") opt.points_to.engine = weir::llvm::points_to_engine::unification;
            else if (v && *v == "auto") opt.points_to.engine = weir::llvm::points_to_engine::automatic;
            else return usage("--points-to is inclusion, unification or auto");
        } else if (a == "--witness") {
            opt.witness = true;
        } else if (a == "--witness-budget") {
            auto v = value();
            auto n = v ? parse_size(*v) : std::nullopt;
            if (!n) return usage("--witness-budget needs a size such as 268435456, 512M or 4G");
            opt.witness_budget = *n ? *n : weir::llvm::no_witness_limit;  // so never 0 (the default) once given
        } else if (a == "--stats") {
            stats = true;
        } else if (a == "--fail-on-findings") {
            fail_on_findings = true;
        } else if (a == "--emit-ifds") {
            auto v = value();
            if (!v || v->empty()) return usage("--emit-ifds needs a file");
            emit_ifds = *v;
        } else if (a.size() > 1 && a[0] == '-') {
            return usage("unknown option '" + a + "'");
        } else {
            load.inputs.push_back(a);
        }
    }
    if (load.inputs.empty() && load.compile_commands_dir.empty()) return usage("no input given");
    if (auto bad = check_backend(backend)) return *bad;
    if (opt.analysis == "lca") {
        if (format == "sarif") return usage("--format sarif is for findings; lca prints values (text or json)");
        // --witness, --witness-budget and --fail-on-findings concern findings: lca has none (exit 0).
    }

    weir::llvm::stop_on_llvm_fatal_errors("weir");
    progress bar;
    std::vector<weir::llvm::finding> findings;
    std::string analysis;
    weir::llvm::analysis_stats sizes;
    try {
        if (opt.analysis == "lca") return run_lca(bar, load, opt, backend, format == "json", stats, emit_ifds);
        auto t = std::chrono::steady_clock::now();
        bar.phase("loading IR");
        ::llvm::LLVMContext ctx;
        auto module = weir::llvm::load_module(load, ctx);
        const double load_s = seconds_since(t);
        bar.phase("points-to, building the problem");
        opt.layout_form = intra_form_for(backend);  // per edge where the row-wise solve runs
        weir::llvm::analysis_session session(*module, opt);
        if (!emit_ifds.empty() && !write_problem(bar, emit_ifds, weir::ifds::print_problem(session.problem())))
            return exit_invalid;
        bar.phase("solving");
        t = std::chrono::steady_clock::now();
        weir::ifds::solve_stats st;
        auto bits = solve_layout(session.layout(), backend, 0, st);
        bar.done();
        if (!bits) return solver_failed(bits.error());
        const double solve_s = seconds_since(t);
        bar.phase("reporting");
        findings = session.findings(std::move(*bits), st.path_edges);
        bar.done();
        for (const std::string& note : session.notes()) std::cerr << "weir: note: " << note << "\n";
        analysis = session.analysis();
        sizes = session.stats();
        if (stats) {
            const auto& tm = session.times();
            const auto& L = session.layout();
            std::cerr << "weir: analysis=" << analysis << " backend=" << backend
                      << " points_to=" << session.points_to_engine() << " functions=" << sizes.functions
                      << " instructions=" << sizes.instructions << " nodes=" << L.num_nodes << " facts=" << sizes.facts
                      << " rows=" << L.num_rows << " path_edges=" << sizes.path_edges << " findings=" << findings.size()
                      << " witness_edges=" << sizes.witness_edges << " witness_passes=" << sizes.witness_passes
                      << " t_load=" << load_s << " t_points_to=" << tm.points_to << " t_construction=" << tm.construction
                      << " t_layout=" << tm.layout << " t_solve=" << solve_s << " t_upload=" << st.seconds_upload
                      << " t_fixpoint=" << st.seconds_solve << " t_extract=" << st.seconds_extract
                      << " t_report=" << tm.report << "\n";
        }
    } catch (const weir::llvm::nothing_to_analyze& e) {
        // Not bad input: no findings (no values), said on stderr, exit 0.
        bar.done();
        std::string where = load.compile_commands_dir.empty() ? "" : "-p " + load.compile_commands_dir;
        for (const std::string& in : load.inputs) where += (where.empty() ? "" : ", ") + in;
        std::cerr << "weir: note: " << where << ": " << e.message() << "\n";
        if (opt.analysis == "lca") {
            if (format == "json") weir::llvm::write_lca_json(std::cout, {});
            else weir::llvm::write_lca_text(std::cout, {});
            return 0;
        }
        analysis = opt.analysis;
    } catch (const weir::llvm::input_error& e) {
        bar.done();
        std::cerr << "weir: " << e.what() << "\n";
        return exit_invalid;
    } catch (const std::invalid_argument& e) {
        bar.done();
        std::cerr << "weir: " << e.what() << "\n";
        return exit_invalid;
    } catch (const vyre::backend_error& e) {  // bits that are not a solve's
        bar.done();
        return solver_failed(e);
    } catch (const std::bad_alloc&) {
        bar.done();
        std::cerr << "weir: out of memory (analysis " << opt.analysis << ")\n";
        return exit_memory;
    } catch (const std::length_error& e) {  // past the layout's 32-bit tables
        bar.done();
        std::cerr << "weir: the problem is too large (analysis " << opt.analysis << "): " << e.what()
                  << "; --points-to unification gives fewer, coarser memory facts\n";
        return exit_memory;
    }
    if (format == "json") weir::llvm::write_json(std::cout, analysis, findings, sizes);
    else if (format == "sarif") weir::llvm::write_sarif(std::cout, analysis, findings);
    else weir::llvm::write_text(std::cout, findings);
    std::cout.flush();
    return fail_on_findings && !findings.empty() ? exit_findings : 0;
}

#endif

} // namespace weir_cli
