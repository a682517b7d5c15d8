// `weir`: solve IFDS problems written in the `.ifds` format (spec: ifds-format.md),
// and analyze C/C++ programs through LLVM IR (`weir analyze`, weir_analyze.cpp;
// spec: analyze.md). This file is the part that `weir` and `weir-full` share:
// `weir` links neither LLVM nor CUDA and hands `analyze` and `--backend cuda`
// to `weir-full` (weir_cli.hpp, weir_handover.cpp).
//
//   weir solve FILE [--backend tabulation|cpu-ref|cpu|cuda] [--witness NODE:FACT]...
//                   [--format text|json] [--stats] [--memory-budget SIZE]
//   (default backend: cpu, the multithreaded resident solver; every backend prints the same.
//   A file whose header is `ide 1 linear` is an IDE problem (spec: ide-format.md), solved
//   on every backend; on cuda both stages run as IR kernels, not yet run on a GPU.)
//
// stdout: the result (or the witness paths), exactly as the spec says; nothing else.
// stderr: errors, --stats, and a progress line for long solves when it is a terminal.
// Environment: VYRE_DEFAULT_HEAP=1 keeps the C library's default heap (otherwise an
// input of 1 MiB or more restarts the program once with its heap in huge pages,
// where the kernel's transparent huge pages are in madvise mode and huge pages are
// the cheaper here; the restarted program's OpenMP threads also sleep between
// parallel regions, OMP_WAIT_POLICY=passive, unless OMP_WAIT_POLICY is set);
// VYRE_HUGE_PAGES=on|off|auto chooses the huge-page hints (auto, the default:
// measured once; vyre/core/huge_pages.hpp).
// Exit status: 0 success, 1 a requested witness does not hold, 2 bad input or usage,
// 3 the solve needs more memory than --memory-budget (or the machine) allows,
// 4 the backend's device is missing or lost (--backend cuda on a machine without a GPU).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

#include <vyre/backends.hpp>
#include <vyre/core/version.hpp>
#include <vyre/core/huge_page_heap.hpp>
#include <weir/ide/format.hpp>
#include <weir/weir.hpp>

#include "stdout_status.hpp"
#include "weir_cli.hpp"
#include "weir_resident.hpp"

namespace {

using namespace weir::ifds;

constexpr int exit_no_path = 1;
using weir_cli::exit_invalid;
using weir_cli::exit_memory;
using weir_cli::exit_no_device;
/// Input files from this size on are solved with the heap in huge pages (`vyre::use_huge_page_heap`).
constexpr std::uintmax_t huge_heap_min_bytes = std::uintmax_t{1} << 20;

constexpr const char* usage_text =
    "usage: weir solve FILE [--backend tabulation|cpu-ref|cpu|cuda] [--witness NODE:FACT]...\n"
    "                  [--format text|json] [--stats] [--memory-budget SIZE]\n"
    "       weir analyze [--analysis taint|uninit|lca] [--config FILE|libc] [--entry NAME]... [-p DIR]\n"
    "                    [--backend B] [--format text|json|sarif] [--witness] [--stats]\n"
    "                    [--fail-on-findings] [--points-to inclusion|unification|auto]\n"
    "                    [--emit-ifds FILE] [--witness-budget SIZE]\n"
    "                    INPUT... [-- CLANG_FLAGS...]\n"
    "       weir --help | weir solve --help | weir analyze --help | weir --version\n"
    "  default backend: cpu (all backends print the same result)\n"
    "  FILE: an IFDS problem (`ifds 1`), or an IDE problem (`ide 1 linear`, on every backend)\n"
    "  SIZE: bytes, or with a K, M, G or T suffix (powers of 1024); 0 means no limit\n";

} // namespace

/// A usage error: what is wrong and the usage, on stderr.
int weir_cli::usage(const std::string& why) {
    if (!why.empty()) std::cerr << "weir: " << why << "\n";
    std::cerr << usage_text;
    return exit_invalid;
}

/// `--help`: the usage on stdout, success.
int weir_cli::help() {
    std::cout << usage_text;
    return 0;
}

namespace {
using weir_cli::usage;
using weir_cli::help;
using weir_cli::parse_size;

struct options {
    std::string file;
    std::string backend = "cpu";  ///< the fastest exact solver on the host (bench/README.md)
    std::vector<std::string> witnesses;
    std::string format = "text";
    bool stats = false;
    std::uint64_t memory_budget = 0;  ///< bytes for the solver (0: no limit)
};

/// The huge-page hints' state for --stats: `on`, `off`, or `unmeasured` (no
/// allocation was large enough to ask; vyre/core/huge_pages.hpp).
const char* huge_pages_word() {
    const int choice = vyre::detail::huge_pages_choice().load();
    return choice < 0 ? "unmeasured" : choice == 1 ? "on" : "off";
}

} // namespace

/// Prints a solver error; out of memory and a missing device get their own exit statuses.
int weir_cli::solver_failed(const vyre::backend_error& e) {
    std::cerr << "weir: " << e.what() << "\n";
    if (e.code() == vyre::error_code::out_of_memory) return exit_memory;
    if (e.code() == vyre::error_code::device_lost) return exit_no_device;
    return exit_invalid;
}

/// True when the resident solver on backend `B` runs the row-wise solve.
template <class B>
static bool runs_rows() {
    B backend;
    weir::vyre_resident_ifds<B> d(backend);
    return runs_row_solve(d);
}

std::optional<std::uint64_t> weir_cli::parse_size(const std::string& s) {
    std::size_t i = 0;
    std::uint64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        const auto digit = static_cast<std::uint64_t>(s[i++] - '0');
        if (v > (~std::uint64_t{0} - digit) / 10) return std::nullopt;  // (up to 2^64 - 1 exactly)
        v = v * 10 + digit;
    }
    if (i == 0) return std::nullopt;
    unsigned shift = 0;
    if (i < s.size()) {
        const std::string unit = s.substr(i);
        if (unit == "K" || unit == "k") shift = 10;
        else if (unit == "M" || unit == "m") shift = 20;
        else if (unit == "G" || unit == "g") shift = 30;
        else if (unit == "T" || unit == "t") shift = 40;
        else return std::nullopt;
    }
    if (shift && v > (~std::uint64_t{0} >> shift)) return std::nullopt;
    return v << shift;
}

weir::ifds::intra_form weir_cli::intra_form_for(const std::string& backend) {
    const bool rows = backend == "cpu" ? runs_rows<vyre::cpu>() : backend == "cpu-ref" && runs_rows<vyre::cpu_ref>();
    return rows ? weir::ifds::intra_form::per_edge : weir::ifds::intra_form::per_row;
}

vyre::result<std::vector<std::uint32_t>> weir_cli::solve_layout(const layout& L, const std::string& backend,
                                                                std::uint64_t memory_budget, solve_stats& st) {
    if (backend == "tabulation") {
        auto out = tabulation_solver(L, {.memory_budget = memory_budget}).solve();
        if (!out) return vyre::make_unexpected(out.error());
        st = out->stats;
        return std::move(out->path_edges);
    }
    if (backend == "cpu") return detail::solve_resident<vyre::cpu>(L, memory_budget, st);
    if (backend == "cuda") return solve_layout_cuda(L, memory_budget, st);
    return detail::solve_resident<vyre::cpu_ref>(L, memory_budget, st);
}

vyre::result<weir::ide::solution<weir::ide::linear>> weir_cli::solve_ide(const weir::ide::problem<weir::ide::linear>& pb,
                                                                        const std::string& backend, std::string& stats,
                                                                        std::uint64_t memory_budget) {
    const auto t0 = std::chrono::steady_clock::now();
    if (backend == "tabulation") {
        auto s = weir::ide::tabulation_solver<weir::ide::linear>(pb, {.memory_budget = memory_budget}).solve();
        stats += " t_solve=" + std::to_string(seconds_since(t0));
        return s;
    }
    const auto L = weir::ide::make_layout(pb);
    stats += " t_layout=" + std::to_string(seconds_since(t0));
    if (backend == "cuda") return solve_ide_cuda(L, stats, memory_budget);
    return backend == "cpu" ? detail::solve_ide_resident<vyre::cpu>(L, stats, memory_budget)
                            : detail::solve_ide_resident<vyre::cpu_ref>(L, stats, memory_budget);
}

std::optional<int> weir_cli::check_backend(const std::string& backend) {
    if (backend != "tabulation" && backend != "cpu-ref" && backend != "cpu" && backend != "cuda")
        return usage("unknown backend '" + backend + "' (tabulation, cpu-ref, cpu, cuda)");
    if (backend == "cuda" && !cuda_in_build()) {
        std::cerr << "weir: backend 'cuda' is not available in this build (it needs nvcc at build time; available: "
                     "tabulation, cpu-ref, cpu)\n";
        return exit_invalid;
    }
    return std::nullopt;
}

namespace {

/// The (node, fact) pairs of `--witness NODE:FACT` in `pb`, or the exit status of a bad one.
std::variant<std::vector<std::pair<node_id, fact_id>>, int> witness_requests(const problem& pb, const options& o) {
    std::vector<std::pair<node_id, fact_id>> wanted;
    for (const auto& w : o.witnesses) {
        auto colon = w.rfind(':');
        if (colon == std::string::npos) return usage("--witness expects NODE:FACT, got '" + w + "'");
        std::string nn = w.substr(0, colon), fn = w.substr(colon + 1);
        std::optional<node_id> n;
        for (node_id i = 0; i < pb.nodes.size(); ++i)
            if (pb.nodes[i].name == nn) n = i;
        std::optional<fact_id> f;
        if (fn == "0") f = zero_fact;
        for (fact_id i = 0; i < pb.facts.size(); ++i)
            if (pb.facts[i] == fn) f = i + 1;
        if (!n) {
            std::cerr << "weir: --witness " << w << ": no node called '" << nn << "' in " << o.file << "\n";
            return exit_invalid;
        }
        if (!f) {
            std::cerr << "weir: --witness " << w << ": no fact called '" << fn << "' in " << o.file << "\n";
            return exit_invalid;
        }
        wanted.emplace_back(*n, *f);
    }
    return wanted;
}

/// Prints a realizable path to each wanted (node, fact) of `pb`, from the
/// host's recording tabulation whatever the backend; `no path` (status 1)
/// where the fact does not hold.
int print_witnesses(const problem& pb, const layout& L, const std::vector<std::pair<node_id, fact_id>>& wanted,
                    const options& o) {
    auto built = witness_builder::create(L, {.memory_budget = o.memory_budget});
    if (!built) return weir_cli::solver_failed(built.error());
    const witness_builder& wb = *built;
    if (o.stats) std::cerr << "weir: witnesses from the recording tabulation: " << wb.stats().to_string() << "\n";
    int status = 0;
    bool first = true;
    for (auto [n, f] : wanted) {
        if (!first) std::cout << "\n";
        first = false;
        auto path = wb.witness(n, f);
        if (!path) {
            std::cout << "no path\n";
            status = exit_no_path;
        } else {
            std::cout << format_witness(pb, *path);
        }
    }
    return status;
}

/// The OpenMP wait policy this process started with, as `--stats` prints
/// it: `OMP_WAIT_POLICY`'s value (which the OpenMP runtime reads when the
/// program starts), or `default`.
const char* omp_wait_word() {
    const char* v = std::getenv("OMP_WAIT_POLICY");
    return v != nullptr && *v != '\0' ? v : "default";
}

/// `weir solve` on an `ide 1 linear` file: the resident IDE solver on `cpu`
/// and `cpu-ref`, on `cuda` with its second stage as the portable IR kernels,
/// the host one on `tabulation`.
int cmd_solve_ide(const options& o, weir::ifds::file_text text, std::chrono::steady_clock::time_point t0) {
    auto pb = weir::ide::load_problem<weir::ide::linear>(text.view(), o.file);
    text.bytes = {};  // (the text's memory back before the solve)
    if (!pb) {
        std::cerr << pb.error().what() << "\n";
        return exit_invalid;
    }
    const double load_s = weir_cli::seconds_since(t0);
    auto wanted = witness_requests(pb->graph, o);
    if (const int* status = std::get_if<int>(&wanted)) return *status;
    const auto& w = std::get<0>(wanted);
    if (!w.empty()) return print_witnesses(pb->graph, make_layout(pb->graph), w, o);
    std::string stats;
    auto solved = weir_cli::solve_ide(*pb, o.backend, stats, o.memory_budget);
    if (!solved) return weir_cli::solver_failed(solved.error());
    const auto& s = *solved;
    auto t2 = std::chrono::steady_clock::now();
    std::cout << (o.format == "json" ? weir::ide::format_solution_json(pb->graph, s)
                                     : weir::ide::format_solution(pb->graph, s));
    std::cout.flush();
    if (o.stats)
        std::cerr << "weir: backend=" << o.backend << " problem=ide family=linear jump_functions=" << s.stats.jump_functions
                  << " contexts=" << s.stats.contexts << " heap=" << (vyre::huge_page_heap_active() ? "huge_pages" : "default")
                  << " huge_pages=" << huge_pages_word() << " omp_wait=" << omp_wait_word() << " t_load=" << load_s << stats
                  << " t_output=" << weir_cli::seconds_since(t2) << "\n";
    return 0;
}

/// True when the first statement of `text` is an `ide` header, after however
/// many blank and comment lines (and a byte-order mark).
bool is_ide_text(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!weir::ifds::detail::line_cursor{line.data(), line.data() + line.size()}.next().empty())
            return weir::ide::header_of(line).ide;
    }
    return false;
}

int cmd_solve(const options& o) {
    if (auto bad = weir_cli::check_backend(o.backend)) return *bad;
    if (!o.witnesses.empty() && o.format == "json")
        return usage("--format json is not available with --witness (witness paths are text, one vertex a line)");
    // The file is read once (a pipe or FIFO has no second reading), its
    // header decides between IFDS and IDE, and its text goes once loaded.
    auto t0 = std::chrono::steady_clock::now();
    auto text = weir::ifds::read_file_text(o.file);
    if (!text) {
        std::cerr << text.error().what() << "\n";
        return exit_invalid;
    }
    if (is_ide_text(text->view())) return cmd_solve_ide(o, std::move(*text), t0);
    auto pb = load_problem(text->view(), o.file);
    text->bytes = {};
    if (!pb) {
        std::cerr << pb.error().what() << "\n";
        return exit_invalid;
    }
    const double load_s = weir_cli::seconds_since(t0);

    // Witness requests are checked before any solving.
    auto requests = witness_requests(*pb, o);
    if (const int* status = std::get_if<int>(&requests)) return *status;
    const auto& wanted = std::get<0>(requests);

    auto t1 = std::chrono::steady_clock::now();
    if (!wanted.empty()) return print_witnesses(*pb, make_layout(*pb), wanted, o);
    // From here on the problem serves only the names the output prints: its
    // flow functions (the larger part of it) go back to the heap as the layout
    // reads them, for the layout's later tables and the solve to reuse. The
    // row-wise solve reads the intraprocedural edges per edge only.
    auto L = make_layout_releasing(*pb, weir_cli::intra_form_for(o.backend));
    const double layout_s = weir_cli::seconds_since(t1);
    solve_stats st;
    auto solved = weir_cli::solve_layout(L, o.backend, o.memory_budget, st);
    if (!solved) return weir_cli::solver_failed(solved.error());
    std::vector<std::uint32_t> bits = std::move(*solved);
    st.seconds_layout = layout_s;
    auto t2 = std::chrono::steady_clock::now();
    write_solution(std::cout, *pb, L, bits, o.format == "json");  // straight from the bits, in 1 MiB blocks
    std::cout.flush();
    const double output_s = weir_cli::seconds_since(t2);
    if (o.stats)
        std::cerr << "weir: backend=" << o.backend << " heap=" << (vyre::huge_page_heap_active() ? "huge_pages" : "default")
                  << " huge_pages=" << huge_pages_word() << " omp_wait=" << omp_wait_word() << " t_load=" << load_s
                  << " " << st.to_string()
                  << " t_output=" << output_s << "\n";
    return 0;
}

/// The command (`main` checks that its output reached stdout).
int run(int argc, char** argv) {
    if (argc < 2) return usage("");
    std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return help();
    if (cmd == "--version") {
        std::cout << "weir " << vyre::version << "\n";
        return 0;
    }
    if (cmd == "analyze") return weir_cli::cmd_analyze(argc, argv);
    if (cmd != "solve") return usage("unknown command '" + cmd + "'");
    options o;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::optional<std::string> {
            if (i + 1 >= argc) return std::nullopt;
            return std::string(argv[++i]);
        };
        if (a == "--help" || a == "-h") return help();
        if (a == "--backend") {
            auto v = value();
            if (!v) return usage("--backend needs a name");
            o.backend = *v;
        } else if (a == "--witness") {
            auto v = value();
            if (!v) return usage("--witness needs NODE:FACT");
            o.witnesses.push_back(*v);
        } else if (a == "--format") {
            auto v = value();
            if (!v || (*v != "text" && *v != "json")) return usage("--format is text or json");
            o.format = *v;
        } else if (a == "--stats") {
            o.stats = true;
        } else if (a == "--memory-budget") {
            auto v = value();
            auto n = v ? parse_size(*v) : std::nullopt;
            if (!n) return usage("--memory-budget needs a size such as 1048576, 512M or 2G");
            o.memory_budget = *n;
        } else if (a.rfind("--", 0) == 0) {
            return usage("unknown option '" + a + "'");
        } else if (o.file.empty()) {
            o.file = a;
        } else {
            return usage("more than one file given");
        }
    }
    if (o.file.empty()) return usage("no file given");
    // cuda runs in weir-full (this binary does not load the CUDA runtime: weir_cli.hpp)
    if (o.backend == "cuda" && weir_cli::cuda_in_build())
        if (const std::optional<int> status = weir_cli::hand_over(argv)) return *status;
    // The heap in huge pages for files of a megabyte and more: loading and
    // solving them make many small allocations, each fresh 4 KiB page a fault
    // (restarts the program once, which costs a few ms; VYRE_DEFAULT_HEAP=1 opts out).
    // The restart also has OpenMP's threads sleep between parallel regions
    // (OMP_WAIT_POLICY=passive, unless the user chose a policy): spinning, the
    // idle one took the second core from the loader's own helper and slowed
    // the loader's one-thread stretches (bench/README.md, 2026-12-07).
    std::error_code size_error;
    const std::uintmax_t size = std::filesystem::file_size(o.file, size_error);
    if (!size_error && size >= huge_heap_min_bytes) {
        // (set for the restart only: without one, this process's OpenMP has read its policy already)
        const bool own_policy = std::getenv("OMP_WAIT_POLICY") != nullptr;
        if (!own_policy) (void)::setenv("OMP_WAIT_POLICY", "passive", 1);
        vyre::use_huge_page_heap(argv);  // returns only where it did not restart
        if (!own_policy) (void)::unsetenv("OMP_WAIT_POLICY");
    }
    try {
        return cmd_solve(o);
    } catch (const std::bad_alloc&) {
        std::cerr << "weir: out of memory (loading or laying out " << o.file << ")\n";
        return exit_memory;
    } catch (const std::exception& e) {
        std::cerr << "weir: " << e.what() << "\n";
        return exit_invalid;
    }
}

} // namespace

int main(int argc, char** argv) { return cli_detail::stdout_status("weir", run(argc, argv)); }
