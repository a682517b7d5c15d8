// The cuda benchmark (needs a GPU; run by test/gpu/check). Three figures, each
// against a baseline measured in the same run:
//  1. dispatch overhead per step inside a resident sequence (and inside a
//     replayed graph) against a bare CUDA launch of an empty kernel (target ≤ 5 µs);
//  2. a memory-bound copy written in the IR, as a fraction of the device's own
//     device-to-device copy bandwidth (target ≥ 80%);
//  3. IFDS path-edge throughput of resident_solver<cuda> against
//     resident_solver<cpu> (all cores) on the bench/ifds taint problems, results
//     compared bit for bit (target ≥ 20× on the largest).
//
//   bench_cuda [--quick] [--sizes N,N,...] [--csv PATH]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <vyre/backend/cpu.hpp>
#include <vyre/backend/cuda.hpp>
#include <vyre/ir/text.hpp>
#include <weir/weir.hpp>

#include "../ifds/gen_taint.hpp"
#include "baseline.hpp"

namespace {

using steady = std::chrono::steady_clock;
double seconds_since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "bench_cuda: %s\n", what.c_str());
    std::exit(1);
}

vyre::ir::program parse(const char* text) {
    auto p = vyre::ir::parse(text);
    if (!p) die(p.error().what());
    return *p;
}

struct row {
    std::string name;
    double value = 0, baseline = 0;
    std::string unit, target;
};

/// 1. ns per step of a sequence of `n` one-workgroup steps (plain and replayed as a graph).
std::pair<double, double> step_overhead_ns(vyre::cuda& b, int n) {
    auto p = parse("(program nop (workgroup 64 1 1)\n  (buffer x 0 read_write u32 1)\n"
                   "  (if (eq (gid x) 0) ((store x 0 (add (load x 0) 1)))))\n");
    auto x = b.allocate(4);
    if (!x) die(x.error().what());
    std::vector<vyre::resident_step<vyre::cuda::resource>> steps(n, {&p, {*x}, {}}), none, one{{&p, {*x}, {}}};
    std::uint32_t v = 0;
    std::vector<vyre::read_range<vyre::cuda::resource>> rr{{*x, 0, 4}};
    std::vector<vyre::mutable_bytes_view> out{vyre::mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&v), 4)};
    // warm: compile, first launch
    if (auto w = b.dispatch_resident_sequence_read_ranges_into(one, rr, out); !w) die(w.error().what());
    double best_seq = 1e30, best_graph = 1e30;
    for (int r = 0; r < 3; ++r) {
        auto t = b.dispatch_resident_sequence_read_ranges_into_timed(steps, rr, out);
        if (!t) die(t.error().what());
        best_seq = std::min(best_seq, double(t->wall_ns) / n);
        auto g = b.dispatch_resident_repeated_sequence_read_ranges_into_timed(none, one, std::uint64_t(n), rr, out);
        if (!g) die(g.error().what());
        best_graph = std::min(best_graph, double(g->wall_ns) / n);
    }
    const std::uint32_t expect = 1 + 3u * std::uint32_t(n) * 2u;
    if (v != expect) die("step benchmark counted " + std::to_string(v) + ", expected " + std::to_string(expect));
    (void)b.free(*x);
    return {best_seq, best_graph};
}

/// 2. GB/s of an IR copy over `bytes` (device time, best of 5), counting bytes read and written.
double ir_copy_gbs(vyre::cuda& b, std::uint64_t bytes) {
    auto p = parse("(program copy (workgroup 256 1 1)\n  (buffer src 0 read u32 0)\n  (buffer dst 1 read_write u32 0)\n"
                   "  (let i (gid x))\n  (if (lt i (len dst)) ((store dst i (load src i)))))\n");
    auto s = b.allocate(bytes);
    auto d = b.allocate(bytes);
    if (!s || !d) die("allocating the copy buffers failed");
    std::vector<vyre::resident_step<vyre::cuda::resource>> steps{{&p, {*s, *d}, {}}};
    double best = 1e30;
    for (int r = 0; r < 6; ++r) {
        auto t = b.dispatch_resident_sequence_read_ranges_into_timed(steps, {}, {});
        if (!t) die(t.error().what());
        if (r > 0) best = std::min(best, double(t->device_ns));
    }
    (void)b.free(*s);
    (void)b.free(*d);
    return 2.0 * double(bytes) / best;
}

/// 3. path edges per second of the resident solver on backend B (best of `reps` solves), and its bits.
template <class B>
std::pair<double, std::vector<std::uint32_t>> ifds_rate(const weir::ifds::layout& L, int reps, std::uint64_t& edges) {
    B backend;
    weir::vyre_resident_ifds<B> dev(backend);
    auto solver = weir::ifds::resident_solver<weir::vyre_resident_ifds<B>>::create(dev, L, weir::ifds::resident_options{});
    if (!solver) die(std::string("create: ") + solver.error().what());
    double best = 1e30;
    std::vector<std::uint32_t> bits;
    for (int r = 0; r < reps; ++r) {
        auto t0 = steady::now();
        auto out = solver->solve();
        const double s = seconds_since(t0);
        if (!out) die(std::string(backend.id()) + " solve: " + out.error().what());
        best = std::min(best, s);
        if (r == reps - 1) std::printf("%s solve: %s\n", std::string(backend.id()).c_str(), out->stats.to_string().c_str());
        edges = out->stats.path_edges;
        bits = std::move(out->path_edges);
    }
    return {double(edges) / best, std::move(bits)};
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string csv;
    std::vector<std::uint32_t> sizes = {2000, 10000, 27500};
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick") {
            quick = true;
            sizes = {200, 1000};
        } else if (a == "--csv" && i + 1 < argc) {
            csv = argv[++i];
        } else if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            std::stringstream ss(argv[++i]);
            for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::uint32_t(std::stoul(t)));
        } else {
            std::fprintf(stderr, "usage: bench_cuda [--quick] [--sizes N,N,...] [--csv PATH]\n");
            return 2;
        }
    }
    if (vyre::cuda::device_count() == 0) {
        std::printf("bench_cuda: no CUDA device (%s): nothing measured\n", vyre::cuda::no_device_reason().c_str());
        return 77;
    }
    vyre::cuda b;
    std::printf("device: %s\ncpu threads: %u\n", b.device_profile().device.c_str(), std::thread::hardware_concurrency());
    std::vector<row> rows;

    const int n = quick ? 200 : 2000;
    const double bare = vyre_bench::empty_launch_ns(n);
    auto [seq, graph] = step_overhead_ns(b, n);
    rows.push_back({"step in a resident sequence", seq / 1000, bare / 1000, "us/step", "<= 5 us"});
    rows.push_back({"step in a replayed graph", graph / 1000, bare / 1000, "us/step", "<= 5 us"});

    const std::uint64_t bytes = quick ? (64ull << 20) : (2ull << 30);
    const double dev_gbs = vyre_bench::memcpy_gbs(bytes, 5);
    const double ir_gbs = ir_copy_gbs(b, bytes);
    rows.push_back({"IR copy of " + std::to_string(bytes >> 20) + " MiB", ir_gbs, dev_gbs, "GB/s", ">= 80% of memcpy"});

    for (std::uint32_t procs : sizes) {
        weir_bench::taint_params tp;
        tp.procs = procs;
        const auto pb = weir_bench::make_taint_problem(tp);
        const auto L = weir::ifds::make_layout(pb);
        std::uint64_t e_gpu = 0, e_cpu = 0;
        auto gpu = ifds_rate<vyre::cuda>(L, 3, e_gpu);
        auto cpu = ifds_rate<vyre::cpu>(L, 2, e_cpu);
        if (gpu.second != cpu.second || e_gpu != e_cpu)
            die("IFDS results differ between cuda and cpu at " + std::to_string(procs) + " procedures");
        rows.push_back({"IFDS " + std::to_string(procs) + " procs, " + std::to_string(e_gpu) + " path edges", gpu.first / 1e6,
                        cpu.first / 1e6, "M edges/s", procs == sizes.back() ? ">= 20x cpu" : ""});
    }

    std::printf("\n%-44s %12s %12s %8s  %-10s %s\n", "benchmark", "cuda", "baseline", "ratio", "unit", "target");
    for (const auto& r : rows)
        std::printf("%-44s %12.3f %12.3f %8.2f  %-10s %s\n", r.name.c_str(), r.value, r.baseline,
                    r.baseline > 0 ? r.value / r.baseline : 0.0, r.unit.c_str(), r.target.c_str());
    std::printf("(baselines: a bare empty-kernel launch; cudaMemcpyAsync device to device; resident_solver<cpu> on all cores)\n");
    if (!csv.empty()) {
        std::ofstream f(csv);
        f << "benchmark,cuda,baseline,ratio,unit,target\n";
        for (const auto& r : rows)
            f << '"' << r.name << "\"," << r.value << ',' << r.baseline << ',' << (r.baseline > 0 ? r.value / r.baseline : 0)
              << ',' << r.unit << ',' << r.target << '\n';
    }
    return 0;
}
