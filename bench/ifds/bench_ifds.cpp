// The IFDS benchmark: generated taint problems of growing size (gen_taint.hpp),
// solved by the host tabulation solver and by the resident solver on every
// enabled vyre backend; the `.ifds` printer and loader are timed on the same
// problems. Each run happens in a forked child so that its peak RSS growth
// (wait4's ru_maxrss minus the child's RSS at fork) is its own. Every
// resident result is compared bit for bit with tabulation's.
//
//   bench_ifds [--sizes 100,500,...] [--max-resident-edges N] [--threads N]
//              [--seed S] [--repeat N] [--rounds N] [--csv PATH] [--quick] [--heap default|huge]
//              [--load-only]
// The loader runs twice per size: `load` on --threads threads (load_options), `load-1t` on one.
// --load-only: only the printer and the loader, no solvers.
// --heap huge: the heap in huge pages, as `weir solve` runs (vyre::use_huge_page_heap: where
// huge pages pay, as vyre/core/huge_pages.hpp measures; VYRE_HUGE_PAGES=on forces them).
// Each child runs its phases --repeat times (default 3, --quick 1) and reports
// the best time of each phase. With --rounds N (default 1) tabulation and the
// backends run in turn N times per size, and each keeps its best over all
// rounds: on a machine whose speed drifts, both sides of a ratio then sample
// the same stretches of time.
// Run from the repository root (the default CSV is bench/out/ifds.csv).
//   bench_ifds --write FILE --procs N [--seed S]     (only writes a .ifds file)

#include <malloc.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/hana/for_each.hpp>

#include <vyre/backends.hpp>
#include <vyre/core/huge_page_heap.hpp>
#include <weir/weir.hpp>

#include "gen_taint.hpp"

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

/// The vyre backends the benchmark runs the resident solver on. Every enabled
/// backend by default; to add one that is not enabled in this build, append it
/// here (e.g. `boost::hana::tuple_t<vyre::cpu_ref, vyre::cpu>`).
inline constexpr auto bench_backends = vyre::enabled_backends;

/// How the resident solver runs its rounds (`--mode`; default: automatic,
/// i.e. the best op the backend runs natively).
weir::ifds::kernel_mode resident_mode = weir::ifds::kernel_mode::automatic;

/// Runs that interpret the IR one invocation at a time (`--mode ir` on the
/// reference interpreter) are skipped above `--max-resident-edges` path edges.
bool is_slow_backend(std::string_view id) {
    return id == "cpu-ref" && resident_mode == weir::ifds::kernel_mode::ir_kernels;
}

/// Command-line options.
struct options {
    std::vector<std::uint32_t> sizes{100, 500, 1000, 2000, 5000};
    std::uint64_t max_resident_edges = 1500000;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::uint64_t seed = 1;
    unsigned repeat = 3;  ///< runs per child; the best time of each phase is reported
    unsigned rounds = 1;  ///< children per solver and size, taken in turn (tabulation, each backend, again)
    std::string csv;  ///< default: bench/out/ifds.csv (--quick: bench/out/ifds-quick.csv)
    bool quick = false;
    bool huge_heap = false;  ///< --heap huge: restart with vyre::use_huge_page_heap, as `weir solve` does
    bool load_only = false;  ///< --load-only: the printer and the loader, no solvers
    std::string write_path;  ///< --write: only write a .ifds file
    std::uint32_t write_procs = 1000;
};

[[noreturn]] void usage(int code) {
    std::fprintf(code ? stderr : stdout,
                 "usage: bench_ifds [--sizes N,N,...] [--max-resident-edges N] [--threads N] [--seed S]\n"
                 "                  [--repeat N] [--rounds N] [--csv PATH] [--mode automatic|ir|solve] [--quick]\n"
                 "                  [--heap default|huge] [--load-only]\n"
                 "       bench_ifds --write FILE --procs N [--seed S]\n");
    std::exit(code);
}

std::uint64_t parse_u64(const char* opt, const std::string& s) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || *end || errno || s[0] == '-') {
        std::fprintf(stderr, "bench_ifds: %s expects a non-negative integer, got '%s'\n", opt, s.c_str());
        std::exit(2);
    }
    return v;
}

/// The value of option `name`, a count in 1..`most` (else exits with a message).
unsigned count_in(const std::string& name, const std::string& text, unsigned most) {
    const auto v = parse_u64(name.c_str(), text);
    if (v == 0 || v > most) {
        std::fprintf(stderr, "bench_ifds: %s must be in 1..%u\n", name.c_str(), most);
        std::exit(2);
    }
    return static_cast<unsigned>(v);
}

options parse(int argc, char** argv) {
    options o;
    bool sizes_given = false, repeat_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_ifds: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") {
            o.sizes.clear();
            std::stringstream ss(value());
            for (std::string t; std::getline(ss, t, ',');) {
                const auto v = parse_u64("--sizes", t);
                if (v == 0 || v > 10000000) {
                    std::fprintf(stderr, "bench_ifds: --sizes entries must be in 1..10000000\n");
                    std::exit(2);
                }
                o.sizes.push_back(static_cast<std::uint32_t>(v));
            }
            sizes_given = true;
        } else if (a == "--mode") {
            const std::string m = value();
            using weir::ifds::kernel_mode;
            if (m == "automatic") resident_mode = kernel_mode::automatic;
            else if (m == "ir") resident_mode = kernel_mode::ir_kernels;
            else if (m == "solve") resident_mode = kernel_mode::row_solve;
            else {
                std::fprintf(stderr, "bench_ifds: --mode is automatic, ir or solve\n");
                std::exit(2);
            }
        } else if (a == "--max-resident-edges") {
            o.max_resident_edges = parse_u64(a.c_str(), value());
        } else if (a == "--threads") {
            o.threads = static_cast<unsigned>(parse_u64(a.c_str(), value()));
        } else if (a == "--repeat") {
            o.repeat = count_in(a, value(), 1000);
            repeat_given = true;
        } else if (a == "--rounds") {
            o.rounds = count_in(a, value(), 100);
        } else if (a == "--seed") {
            o.seed = parse_u64(a.c_str(), value());
        } else if (a == "--csv") {
            o.csv = value();
        } else if (a == "--quick") {
            o.quick = true;
        } else if (a == "--load-only") {
            o.load_only = true;
        } else if (a == "--heap") {
            const std::string h = value();
            if (h != "default" && h != "huge") {
                std::fprintf(stderr, "bench_ifds: --heap is default or huge\n");
                std::exit(2);
            }
            o.huge_heap = h == "huge";
        } else if (a == "--write") {
            o.write_path = value();
        } else if (a == "--procs") {
            const auto v = parse_u64(a.c_str(), value());
            if (v == 0 || v > 10000000) usage(2);
            o.write_procs = static_cast<std::uint32_t>(v);
        } else if (a == "--help" || a == "-h") {
            usage(0);
        } else {
            std::fprintf(stderr, "bench_ifds: unknown option '%s'\n", a.c_str());
            usage(2);
        }
    }
    if (o.quick && !sizes_given) o.sizes = {10, 40};
    if (o.quick && !repeat_given) o.repeat = 1;
    if (o.csv.empty()) o.csv = o.quick ? "bench/out/ifds-quick.csv" : "bench/out/ifds.csv";
    if (o.sizes.empty()) usage(2);
    return o;
}

// ---- one run in a forked child ----------------------------------------------

/// The times of one phase over the repeats: the first (cold: fresh pages,
/// empty caches) and the best.
struct phase {
    double first = NAN, best = NAN;
    /// Records one repeat's time.
    void add(double v) {
        if (std::isnan(first)) first = v;
        if (std::isnan(best) || v < best) best = v;
    }
};

/// What a child sends back first (then `pe_words` u32 words when `has_bits`).
struct child_report {
    int ok = 0;  ///< 1: ran; 0: failed (see msg)
    int has_bits = 0;
    phase layout, upload, solve, io;
    std::uint64_t path_edges = 0, rounds = 0, pe_words = 0, io_bytes = 0;
    long rss_start_kib = 0;  ///< the child's peak RSS at its start (inherited pages)
    char msg[240] = {};
};

/// A finished child run.
struct run_result {
    child_report rep;
    std::vector<std::uint32_t> bits;
    double peak_growth_mib = NAN;  ///< child's ru_maxrss minus its RSS at start
    long minor_faults = -1;        ///< child's ru_minflt (page faults served without I/O)
    std::string failure;           ///< empty when the child ran and reported ok
};

bool write_all(int fd, const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n) {
        const ssize_t w = ::write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

bool read_all(int fd, void* p, std::size_t n) {
    char* c = static_cast<char*>(p);
    while (n) {
        const ssize_t r = ::read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        c += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

void set_msg(child_report& r, const std::string& s) { std::snprintf(r.msg, sizeof r.msg, "%s", s.c_str()); }

/// Runs `body(report, bits)` in a forked child and collects what it reports,
/// its exit status and its peak RSS. `body` may throw; the child never returns.
template <class Body>
run_result in_child(Body&& body) {
    std::fflush(nullptr);
    malloc_trim(0);  // free heap pages the parent no longer uses, so the child must fault its own in
    int fds[2];
    if (pipe(fds) != 0) {
        std::perror("bench_ifds: pipe");
        std::exit(1);
    }
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("bench_ifds: fork");
        std::exit(1);
    }
    if (pid == 0) {
        close(fds[0]);
        child_report rep;
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        rep.rss_start_kib = ru.ru_maxrss;
        std::vector<std::uint32_t> bits;
        try {
            body(rep, bits);
        } catch (const std::exception& e) {
            rep.ok = 0;
            set_msg(rep, std::string("exception: ") + e.what());
        }
        rep.has_bits = rep.ok && !bits.empty();
        rep.pe_words = bits.size();
        const bool sent = write_all(fds[1], &rep, sizeof rep) &&
                          (!rep.has_bits || write_all(fds[1], bits.data(), bits.size() * sizeof(std::uint32_t)));
        close(fds[1]);
        _exit(sent ? 0 : 3);  // no atexit handlers, no stdio flush of the parent's buffers
    }
    close(fds[1]);
    run_result out;
    bool got = read_all(fds[0], &out.rep, sizeof out.rep);
    if (got && out.rep.has_bits) {
        out.bits.resize(out.rep.pe_words);
        got = read_all(fds[0], out.bits.data(), out.bits.size() * sizeof(std::uint32_t));
    }
    close(fds[0]);
    int status = 0;
    rusage ru{};
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status))
        out.failure = "child killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    else if (!got || WEXITSTATUS(status) != 0)
        out.failure = "child exited with status " + std::to_string(WEXITSTATUS(status)) + " without a full report";
    else if (!out.rep.ok)
        out.failure = out.rep.msg;
    if (got) out.peak_growth_mib = static_cast<double>(ru.ru_maxrss - out.rep.rss_start_kib) / 1024.0;
    out.minor_faults = ru.ru_minflt;
    return out;
}

/// Folds a later round's child run into `acc` (the first round's, when
/// `first_round`): each phase keeps the first round's cold time and the best
/// time over all rounds; memory keeps the largest peak and fault count; the
/// first failure stays; the result (bits, path edges) stays the first round's
/// (each round's own is compared with tabulation's as it comes).
void merge_round(run_result& acc, run_result&& r, bool first_round) {
    if (first_round) {
        acc = std::move(r);
        return;
    }
    for (auto [a, b] : {std::pair{&acc.rep.layout, &r.rep.layout}, std::pair{&acc.rep.upload, &r.rep.upload},
                        std::pair{&acc.rep.solve, &r.rep.solve}, std::pair{&acc.rep.io, &r.rep.io}})
        if (!std::isnan(b->best) && (std::isnan(a->best) || b->best < a->best)) a->best = b->best;
    if (!std::isnan(r.peak_growth_mib) && !(r.peak_growth_mib <= acc.peak_growth_mib)) acc.peak_growth_mib = r.peak_growth_mib;
    acc.minor_faults = std::max(acc.minor_faults, r.minor_faults);
    if (acc.failure.empty() && !r.failure.empty()) acc.failure = std::move(r.failure);
}

// ---- rows ---------------------------------------------------------------------

/// One line of the table and of the CSV.
struct row {
    std::uint32_t procs = 0;
    std::uint64_t nodes = 0, facts = 0;
    std::string run;
    phase layout, upload, solve, io;
    std::uint64_t path_edges = 0;
    bool has_edges = false;
    std::uint64_t rounds = 0;
    double io_mb = NAN;
    double peak_mib = NAN;
    long minor_faults = -1;
    std::string status;

    double edges_per_s() const { return has_edges && solve.best > 0 ? double(path_edges) / solve.best : NAN; }
    double mb_per_s() const { return io.best > 0 ? io_mb / io.best : NAN; }
    /// The first repeat's total: what a one-shot run pays.
    double cold_s() const {
        double t = 0;
        bool any = false;
        for (const phase* p : {&layout, &upload, &solve, &io})
            if (!std::isnan(p->first)) t += p->first, any = true;
        return any ? t : NAN;
    }
};

std::string fmt(double v, const char* f) {
    if (std::isnan(v)) return "-";
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

/// 1234567 → "1.23M"; small values as they are.
std::string si(double v) {
    if (std::isnan(v)) return "-";
    char b[64];
    if (v >= 1e9)
        std::snprintf(b, sizeof b, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        std::snprintf(b, sizeof b, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
    else
        std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

void print_header() {
    std::printf("%6s %7s %6s  %-10s %8s %8s %8s %10s %8s %7s %6s %6s %7s %8s %7s  %s\n", "procs", "nodes", "facts",
                "run", "layout_s", "upload_s", "solve_s", "path_edges", "edges/s", "io_s", "MB", "MB/s", "cold_s",
                "peak_MiB", "faults", "status");
}

void print_row(const row& r) {
    std::printf("%6u %7llu %6llu  %-10s %8s %8s %8s %10s %8s %7s %6s %6s %7s %8s %7s  %s\n", r.procs,
                static_cast<unsigned long long>(r.nodes), static_cast<unsigned long long>(r.facts), r.run.c_str(),
                fmt(r.layout.best, "%.4f").c_str(), fmt(r.upload.best, "%.4f").c_str(), fmt(r.solve.best, "%.4f").c_str(),
                r.has_edges ? std::to_string(r.path_edges).c_str() : "-", si(r.edges_per_s()).c_str(),
                fmt(r.io.best, "%.4f").c_str(), fmt(r.io_mb, "%.2f").c_str(), fmt(r.mb_per_s(), "%.0f").c_str(),
                fmt(r.cold_s(), "%.3f").c_str(), fmt(r.peak_mib, "%.1f").c_str(),
                r.minor_faults < 0 ? "-" : si(double(r.minor_faults)).c_str(), r.status.c_str());
    std::fflush(stdout);
}

std::string csv_num(double v) { return std::isnan(v) ? "" : fmt(v, "%.6g"); }

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
}

bool write_csv(const std::string& path, const std::vector<row>& rows, const options& o) {
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    std::ofstream f(path);
    f << "procs,nodes,facts,run,threads,seed,repeat,layout_s,upload_s,solve_s,path_edges,edges_per_s,rounds,io_s,io_mb,"
         "io_mb_per_s,layout_first_s,upload_first_s,solve_first_s,io_first_s,cold_s,peak_rss_growth_mib,minor_faults,"
         "status,heap\n";
    const char* heap = vyre::huge_page_heap_active() ? "huge" : "default";
    for (const row& r : rows)
        f << r.procs << ',' << r.nodes << ',' << r.facts << ',' << csv_field(r.run) << ',' << o.threads << ',' << o.seed
          << ',' << o.repeat << ',' << csv_num(r.layout.best) << ',' << csv_num(r.upload.best) << ','
          << csv_num(r.solve.best) << ','
          << (r.has_edges ? std::to_string(r.path_edges) : "") << ',' << csv_num(r.edges_per_s()) << ','
          << (r.rounds ? std::to_string(r.rounds) : "") << ',' << csv_num(r.io.best) << ',' << csv_num(r.io_mb) << ','
          << csv_num(r.mb_per_s()) << ',' << csv_num(r.layout.first) << ',' << csv_num(r.upload.first) << ','
          << csv_num(r.solve.first) << ',' << csv_num(r.io.first) << ',' << csv_num(r.cold_s()) << ','
          << csv_num(r.peak_mib) << ',' << (r.minor_faults < 0 ? "" : std::to_string(r.minor_faults)) << ','
          << csv_field(r.status) << ',' << heap << '\n';
    f.close();
    return static_cast<bool>(f);
}

// ---- the runs -------------------------------------------------------------------

/// Tabulation: layout and solve in a child, `repeat` times (best times kept);
/// returns the path-edge bitset of the last repeat.
run_result run_tabulation(const weir::ifds::problem& pb, unsigned repeat) {
    return in_child([&](child_report& rep, std::vector<std::uint32_t>& bits) {
        for (unsigned i = 0; i < repeat; ++i) {
            bits = {};  // the previous repeat's result must not add to this one's peak
            auto t0 = steady::now();
            const auto L = weir::ifds::make_layout(pb);
            rep.layout.add(seconds_since(t0));
            auto t1 = steady::now();
            auto out = weir::ifds::tabulation_solver(L).solve().value();
            rep.solve.add(seconds_since(t1));
            rep.path_edges = out.stats.path_edges;
            bits = std::move(out.path_edges);
        }
        rep.ok = 1;
    });
}

/// The resident solver on backend B: layout, upload (`create`) and solve in a
/// child, `repeat` times from scratch (best times kept).
template <class B>
run_result run_resident(const weir::ifds::problem& pb, unsigned repeat) {
    return in_child([&](child_report& rep, std::vector<std::uint32_t>& bits) {
        using device_t = weir::vyre_resident_ifds<B>;
        for (unsigned i = 0; i < repeat; ++i) {
            bits = {};  // the previous repeat's result must not add to this one's peak
            auto t0 = steady::now();
            const auto L = weir::ifds::make_layout(pb);
            rep.layout.add(seconds_since(t0));
            B backend;
            device_t device(backend);
            auto t1 = steady::now();
            weir::ifds::resident_options ropt;
            ropt.mode = resident_mode;
            auto solver = weir::ifds::resident_solver<device_t>::create(device, L, ropt);
            rep.upload.add(seconds_since(t1));
            if (!solver) {
                set_msg(rep, std::string("create: ") + solver.error().what());
                return;
            }
            auto t2 = steady::now();
            auto out = solver->solve();
            rep.solve.add(seconds_since(t2));
            if (!out) {
                set_msg(rep, std::string("solve: ") + out.error().what());
                return;
            }
            rep.path_edges = out->stats.path_edges;
            rep.rounds = out->stats.rounds;
            bits = std::move(out->path_edges);
        }
        rep.ok = 1;
    });
}

/// `print_problem` in a child, `repeat` times; writes the text to `path`.
run_result run_print(const weir::ifds::problem& pb, const std::string& path, unsigned repeat) {
    return in_child([&](child_report& rep, std::vector<std::uint32_t>&) {
        std::string text;
        for (unsigned i = 0; i < repeat; ++i) {
            text = std::string();
            auto t0 = steady::now();
            text = weir::ifds::print_problem(pb);
            rep.io.add(seconds_since(t0));
        }
        rep.io_bytes = text.size();
        std::ofstream f(path, std::ios::binary);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        f.close();
        if (!f) {
            set_msg(rep, "cannot write " + path);
            return;
        }
        rep.ok = 1;
    });
}

/// Reads `path` and times `load_problem` on it (statements read on
/// `threads` threads) in a child, `repeat` times; checks that the loaded
/// problem equals `pb`.
run_result run_load(const weir::ifds::problem& pb, const std::string& path, unsigned repeat, unsigned threads) {
    return in_child([&](child_report& rep, std::vector<std::uint32_t>&) {
        std::ifstream f(path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        rep.io_bytes = text.size();
        for (unsigned i = 0; i < repeat; ++i) {
            auto t0 = steady::now();
            auto loaded = weir::ifds::load_problem(text, path, weir::ifds::load_options{threads});
            rep.io.add(seconds_since(t0));
            if (!loaded) {
                set_msg(rep, "load: " + loaded.error().what());
                return;
            }
            if (i + 1 == repeat && !(*loaded == pb)) {
                set_msg(rep, "the loaded problem differs from the printed one");
                return;
            }
        }
        rep.ok = 1;
    });
}

/// Fills a row from a run; `status` is "ok" or the failure.
row make_row(std::uint32_t procs, const weir::ifds::problem& pb, std::string run, const run_result& r) {
    row x;
    x.procs = procs;
    x.nodes = pb.nodes.size();
    x.facts = pb.facts.size();
    x.run = std::move(run);
    x.layout = r.rep.layout;
    x.upload = r.rep.upload;
    x.solve = r.rep.solve;
    x.io = r.rep.io;
    if (r.rep.io_bytes) x.io_mb = double(r.rep.io_bytes) / 1e6;
    x.path_edges = r.rep.path_edges;
    x.has_edges = r.failure.empty() && !std::isnan(r.rep.solve.best);
    x.rounds = r.rep.rounds;
    x.peak_mib = r.peak_growth_mib;
    x.minor_faults = r.minor_faults;
    x.status = r.failure.empty() ? "ok" : "FAILED: " + r.failure;
    return x;
}

int write_mode(const options& o) {
    weir_bench::taint_params tp;
    tp.procs = o.write_procs;
    tp.seed = o.seed;
    auto t0 = steady::now();
    const std::uint64_t n = weir_bench::write_taint_file(o.write_path, tp);
    std::fprintf(stderr, "bench_ifds: wrote %s: %u procedures, %.2f MB in %.2f s\n", o.write_path.c_str(), tp.procs,
                 double(n) / 1e6, seconds_since(t0));
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const options o = parse(argc, argv);
    if (o.huge_heap) vyre::use_huge_page_heap(argv);  // restarts the program once, before any output
    if (!o.write_path.empty()) {
        try {
            return write_mode(o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_ifds: %s\n", e.what());
            return 1;
        }
    }

    std::string backends;
    boost::hana::for_each(bench_backends, [&](auto t) {
        using B = typename decltype(t)::type;
        backends += (backends.empty() ? "" : ", ") + std::string(B{}.id());
    });
    const bool huge_heap = vyre::huge_page_heap_active();
    std::printf("IFDS benchmark: taint problems, seed %llu; backends: %s; loader threads: %u;\n"
                "heap: %s; best of %u per phase in each of %u round(s);\n"
                "resident runs on interpreting backends skipped above %llu path edges\n\n",
                static_cast<unsigned long long>(o.seed), backends.c_str(), o.threads,
                huge_heap ? "huge pages (glibc.malloc.hugetlb)" : "the C library's default", o.repeat, o.rounds,
                static_cast<unsigned long long>(o.max_resident_edges));

    char tmpl[] = "/tmp/bench_ifds_XXXXXX";
    const int tfd = mkstemp(tmpl);
    if (tfd < 0) {
        std::perror("bench_ifds: mkstemp");
        return 1;
    }
    close(tfd);
    const std::string tmp = tmpl;

    std::vector<row> rows;
    int failures = 0;
    print_header();
    for (const std::uint32_t procs : o.sizes) {
        weir_bench::taint_params tp;
        tp.procs = procs;
        tp.seed = o.seed;
        weir::ifds::problem pb;
        try {
            pb = weir_bench::make_taint_problem(tp);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_ifds: %s\n", e.what());
            std::remove(tmp.c_str());
            return 1;
        }
        auto add = [&](row r) {
            if (r.status != "ok" && r.status.rfind("skipped", 0) != 0) ++failures;
            print_row(r);
            rows.push_back(std::move(r));
        };

        add(make_row(procs, pb, "print", run_print(pb, tmp, o.repeat)));
        add(make_row(procs, pb, "load", run_load(pb, tmp, o.repeat, o.threads)));
        add(make_row(procs, pb, "load-1t", run_load(pb, tmp, o.repeat, 1)));
        if (o.load_only) continue;

        // Tabulation and every backend in turn, `rounds` times, so that each
        // solver's best time comes from the same stretch of this (noisy) machine.
        run_result tab;
        std::map<std::string, run_result> res_of;
        std::map<std::string, std::string> mismatch_of;  // the first round whose bits differ from tabulation's
        auto too_slow = [&](const std::string& id) {
            return is_slow_backend(id) && (!tab.failure.empty() || tab.rep.path_edges > o.max_resident_edges);
        };
        auto mismatch = [&](const run_result& res) -> std::string {
            if (!res.failure.empty() || !tab.failure.empty() ||
                (res.bits == tab.bits && res.rep.path_edges == tab.rep.path_edges))
                return {};
            std::size_t diff = 0;
            for (std::size_t i = 0; i < std::min(res.bits.size(), tab.bits.size()); ++i)
                diff += static_cast<std::size_t>(__builtin_popcount(res.bits[i] ^ tab.bits[i]));
            return "MISMATCH vs tabulation: " + std::to_string(diff) + " bits differ, " +
                   std::to_string(res.rep.path_edges) + " vs " + std::to_string(tab.rep.path_edges) + " path edges";
        };
        for (unsigned round = 0; round < o.rounds; ++round) {
            merge_round(tab, run_tabulation(pb, o.repeat), round == 0);
            boost::hana::for_each(bench_backends, [&](auto t) {
                using B = typename decltype(t)::type;
                if constexpr (vyre::resident_backend<B>) {
                    const std::string id(B{}.id());
                    if (too_slow(id)) return;
                    run_result res = run_resident<B>(pb, o.repeat);
                    if (std::string m = mismatch(res); !m.empty() && !mismatch_of.count(id)) mismatch_of[id] = m;
                    merge_round(res_of[id], std::move(res), round == 0);
                }
            });
        }
        add(make_row(procs, pb, "tabulation", tab));
        const bool have_ref = tab.failure.empty();

        boost::hana::for_each(bench_backends, [&](auto t) {
            using B = typename decltype(t)::type;
            if constexpr (vyre::resident_backend<B>) {
                const std::string id(B{}.id());
                if (too_slow(id)) {
                    row r;
                    r.procs = procs;
                    r.nodes = pb.nodes.size();
                    r.facts = pb.facts.size();
                    r.run = id;
                    r.status = have_ref ? "skipped (too slow)" : "skipped (no tabulation result to bound it)";
                    add(std::move(r));
                    return;
                }
                row r = make_row(procs, pb, id, res_of[id]);
                if (auto m = mismatch_of.find(id); m != mismatch_of.end()) {
                    r.status = m->second;
                    std::fprintf(stderr, "bench_ifds: %s on %u procedures: %s\n", id.c_str(), procs, r.status.c_str());
                }
                add(std::move(r));
            }
        });
    }
    std::remove(tmp.c_str());

    if (!write_csv(o.csv, rows, o)) {
        std::fprintf(stderr, "bench_ifds: cannot write %s\n", o.csv.c_str());
        return 1;
    }
    std::printf("\nCSV: %s\n", o.csv.c_str());
    if (failures) {
        std::fprintf(stderr, "bench_ifds: %d run(s) FAILED or MISMATCHED (see status column)\n", failures);
        return 1;
    }
    return 0;
}
