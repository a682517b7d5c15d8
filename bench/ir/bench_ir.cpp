// IR microbenchmarks (Google Benchmark), run by `bench/run` before the IFDS
// table: per enabled host backend,
//   - dispatch overhead: an empty program, plain and resident (one workgroup);
//   - a memory-bound copy of 64 MiB as bytes/s: the catalogue op `copy` over
//     resident buffers, an IR copy kernel, and the machine's std::memcpy in
//     the same run (the ratio is what to read);
//   - a reduction: the sum of 16 Mi u32 by an IR kernel (atomic add of
//     per-invocation partial sums).
// Output: Google Benchmark's console table; `--benchmark_format=csv` or
// `--benchmark_out=FILE --benchmark_out_format=csv` for CSV.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <vyre/vyre.hpp>

namespace {

using namespace vyre;

ir::program parse_or_die(const char* text) {
    auto p = ir::parse(text);
    if (!p) throw std::runtime_error(p.error().what());
    return *p;
}

const char* empty_text = "(program empty (workgroup 1 1 1) (buffer x 0 read_write u32 1))";
const char* copy_op_text =
    "(program copy_op (workgroup 64 1 1) (buffer src 0 read u32 0) (buffer dst 1 read_write u32 0) (op copy src dst))";
const char* copy_ir_text =
    "(program copy_ir (workgroup 256 1 1) (buffer src 0 read u32 0) (buffer dst 1 read_write u32 0)\n"
    "  (let i (gid x)) (if (lt i (len dst)) ((store dst i (load src i)))))";
// Each invocation sums a strided slice, then one atomic add per invocation.
const char* reduce_text =
    "(program reduce (workgroup 256 1 1) (buffer in 0 read u32 0) (buffer total 1 read_write u32 1)\n"
    "  (let i (gid x)) (let acc 0)\n"
    "  (loop k 0 256 (let j (add (mul k 65536) i)) (if (lt j (len in)) ((set acc (add acc (load in j))))))\n"
    "  (let old (atomic_add total 0 acc)))";

constexpr std::uint64_t copy_bytes = 64ull << 20;
constexpr std::uint64_t reduce_elems = 16ull << 20;

template <class B>
void dispatch_empty(benchmark::State& st) {
    B b;
    auto p = parse_or_die(empty_text);
    bytes x(4, 0);
    std::vector<bytes_view> in{x};
    for (auto _ : st) {
        auto r = b.dispatch(p, in);
        if (!r) st.SkipWithError(r.error().what());
        benchmark::DoNotOptimize(r);
    }
}

template <class B>
void dispatch_resident_empty(benchmark::State& st) {
    B b;
    auto p = parse_or_die(empty_text);
    auto r = b.allocate(4).value();
    std::vector<typename B::resource> rs{r};
    for (auto _ : st)
        if (auto d = b.dispatch_resident(p, rs, {}); !d) st.SkipWithError(d.error().what());
    (void)b.free(r);
}

template <class B>
void copy_resident(benchmark::State& st, const char* text, std::uint32_t workgroup) {
    B b;
    auto p = parse_or_die(text);
    auto src = b.allocate(copy_bytes).value(), dst = b.allocate(copy_bytes).value();
    std::vector<typename B::resource> rs{src, dst};
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(copy_bytes / 4 / workgroup), 1, 1};
    for (auto _ : st)
        if (auto d = b.dispatch_resident(p, rs, c); !d) st.SkipWithError(d.error().what());
    st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * copy_bytes));
    (void)b.free(src), (void)b.free(dst);
}
template <class B>
void copy_op(benchmark::State& st) { copy_resident<B>(st, copy_op_text, 64); }
template <class B>
void copy_ir(benchmark::State& st) { copy_resident<B>(st, copy_ir_text, 256); }

void copy_memcpy(benchmark::State& st) {
    std::vector<std::uint8_t> src(copy_bytes, 1), dst(copy_bytes, 0);
    for (auto _ : st) {
        std::memcpy(dst.data(), src.data(), copy_bytes);
        benchmark::ClobberMemory();
    }
    st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * copy_bytes));
}

template <class B>
void reduce_ir(benchmark::State& st) {
    B b;
    auto p = parse_or_die(reduce_text);
    std::vector<std::uint32_t> v(reduce_elems);
    std::iota(v.begin(), v.end(), 0u);
    auto in = b.allocate(reduce_elems * 4).value(), total = b.allocate(4).value();
    (void)b.upload(in, bytes_view(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4));
    std::vector<typename B::resource> rs{in, total};
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{65536 / 256, 1, 1};
    const std::uint32_t zero = 0;
    for (auto _ : st) {
        (void)b.upload(total, bytes_view(reinterpret_cast<const std::uint8_t*>(&zero), 4));
        if (auto d = b.dispatch_resident(p, rs, c); !d) st.SkipWithError(d.error().what());
    }
    std::uint32_t got = 0;
    (void)b.download_range_into(total, 0, mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&got), 4));
    std::uint32_t want = 0;
    for (auto x : v) want += x;
    if (got != want) st.SkipWithError("reduction gave a wrong sum");
    st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * reduce_elems * 4));
    (void)b.free(in), (void)b.free(total);
}

/// Registers every benchmark for backend B under its id.
template <class B>
void register_backend() {
    const std::string id(B{}.id());
    benchmark::RegisterBenchmark((id + "/dispatch_empty").c_str(), dispatch_empty<B>)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((id + "/dispatch_resident_empty").c_str(), dispatch_resident_empty<B>)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((id + "/copy_op_64MiB").c_str(), copy_op<B>)->Unit(benchmark::kMillisecond)->UseRealTime();
    // The interpreter runs one invocation at a time: the IR copy and reduction only on `cpu` (threads).
    if constexpr (!std::is_same_v<B, cpu_ref>) {
        benchmark::RegisterBenchmark((id + "/copy_ir_64MiB").c_str(), copy_ir<B>)->Unit(benchmark::kMillisecond)->UseRealTime();
        benchmark::RegisterBenchmark((id + "/reduce_ir_16Mi_u32").c_str(), reduce_ir<B>)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

} // namespace

int main(int argc, char** argv) {
    benchmark::RegisterBenchmark("host/memcpy_64MiB", copy_memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
    boost::hana::for_each(enabled_backends, [](auto t) { register_backend<typename decltype(t)::type>(); });
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
