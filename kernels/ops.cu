// Catalogue ops as CUDA kernels, each equal to its reference implementation in
// vyre/ops/catalogue.hpp (the conformance suite checks this on a GPU). CUB does
// the scans, compactions, sorts and uniques.
#include "ops.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

namespace vyre::cuda_kernels {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr unsigned block = 256;

unsigned blocks_for(u64 n) {
    u64 b = (n + block - 1) / block;
    return static_cast<unsigned>(b < 65535u * 16 ? (b ? b : 1) : 65535u * 16);
}

// Grid-stride loop over [0, n).
#define VY_FOR(i, n) for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (n); i += (u64)gridDim.x * blockDim.x)

__global__ void fill_k(u32* dst, u64 n, u32 v) { VY_FOR(i, n) dst[i] = v; }
__global__ void gather_k(const u32* src, u64 nsrc, const u32* idx, u32* dst, u64 n) {
    VY_FOR(i, n) {
        u32 j = idx[i];
        dst[i] = j < nsrc ? src[j] : 0u;
    }
}
// Scatter: the last source index writing an element wins, as in the reference's loop.
__global__ void scatter_claim_k(const u32* idx, u64 n, u64 ndst, u32* winner) {
    VY_FOR(i, n) {
        u32 j = idx[i];
        if (j < ndst) atomicMax(&winner[j], (u32)(i + 1));
    }
}
__global__ void scatter_k(const u32* src, const u32* idx, u64 n, u32* dst, u64 ndst, const u32* winner) {
    VY_FOR(i, n) {
        u32 j = idx[i];
        if (j < ndst && winner[j] == (u32)(i + 1)) dst[j] = src[i];
    }
}
template <class T>
__global__ void copy_prefix_k(const T* src, const int* count, T* dst, u64 ndst, u32* count_out, u64 total_for_zero) {
    // dst[i] = src[i] for i < min(count, ndst); with total_for_zero, dst[i] = 0 for count <= i < total.
    const u64 k = (u64)*count;
    VY_FOR(i, ndst) {
        if (i < k) dst[i] = src[i];
        else if (i < total_for_zero) dst[i] = T{};
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && count_out) *count_out = (u32)k;
}
__global__ void union_k(u32* dst, const u32* src, u64 n) { VY_FOR(i, n) dst[i] |= src[i]; }
// bitset_test_and_set over (bit, position) pairs sorted by bit: the first
// position of each bit sees the bit's old value, later ones see 1.
__global__ void test_and_set_read_k(const u32* bits, u64 nbits_words, const u32* keys, const u32* pos, u64 n, u32* was,
                                    u64 nwas) {
    VY_FOR(i, n) {
        const u32 b = keys[i];
        const u64 w = b / 32;
        u32 old = 0;
        if (w < nbits_words) old = (i > 0 && keys[i - 1] == b) ? 1u : ((bits[w] >> (b % 32)) & 1u);
        if (pos[i] < nwas) was[pos[i]] = old;
    }
}
__global__ void test_and_set_write_k(u32* bits, u64 nbits_words, const u32* idx, u64 n) {
    VY_FOR(i, n) {
        const u32 b = idx[i];
        if (b / 32 < nbits_words) atomicOr(&bits[b / 32], 1u << (b % 32));
    }
}
__global__ void iota_k(u32* p, u64 n) { VY_FOR(i, n) p[i] = (u32)i; }
// csr_expand: degrees, then (after an exclusive scan) each frontier entry writes its run.
__device__ inline void csr_run(const u32* off, u64 noff, u64 ntgt, u32 f, u32& lo, u32& cnt) {
    lo = 0;
    cnt = 0;
    if ((u64)f + 1 >= noff) return;
    const u32 a = off[f], b = off[f + 1];
    const u64 hi = b < ntgt ? (u64)b : ntgt;
    if ((u64)a < hi) {
        lo = a;
        cnt = (u32)(hi - a);
    }
}
__global__ void csr_degree_k(const u32* off, u64 noff, u64 ntgt, const u32* frontier, u64 n, u32* deg) {
    VY_FOR(i, n) {
        u32 lo, cnt;
        csr_run(off, noff, ntgt, frontier[i], lo, cnt);
        deg[i] = cnt;
    }
}
__global__ void csr_write_k(const u32* off, u64 noff, const u32* tgt, u64 ntgt, const u32* frontier, u64 n,
                            const u32* start, u32* out, u64 nout) {
    VY_FOR(i, n) {
        u32 lo, cnt;
        csr_run(off, noff, ntgt, frontier[i], lo, cnt);
        const u32 s = start[i];
        for (u32 j = 0; j < cnt; ++j) {
            const u32 k = s + j;
            if ((u64)k < nout) out[k] = tgt[lo + j];
        }
    }
}
__global__ void csr_count_k(const u32* start, const u32* deg, u64 n, u32* count) {
    *count = n ? start[n - 1] + deg[n - 1] : 0u;
}

// ---- scratch memory in stream order ----
struct scratch {
    cudaStream_t s;
    std::vector<void*> held;
    cudaError_t err = cudaSuccess;
    explicit scratch(cudaStream_t st) : s(st) {}
    template <class T>
    T* get(u64 count) {
        void* p = nullptr;
        if (err == cudaSuccess) err = cudaMallocAsync(&p, count ? count * sizeof(T) : sizeof(T), s);
        if (p) held.push_back(p);
        return static_cast<T*>(p);
    }
    ~scratch() {
        for (void* p : held) cudaFreeAsync(p, s);
    }
};

template <class T>
u64 count_of(const op_arg& a) { return a.bytes / sizeof(T); }
template <class T>
T* ptr(const op_arg& a) { return static_cast<T*>(a.ptr); }

template <class Run>
cudaError_t with_temp(scratch& sc, Run run) {
    std::size_t temp = 0;
    cudaError_t e = run(nullptr, temp);
    if (e != cudaSuccess) return e;
    void* t = sc.get<unsigned char>(temp);
    if (sc.err != cudaSuccess) return sc.err;
    return run(t, temp);
}

/// A CUB selection of up to `n` items into scratch `out`, its count into
/// scratch `cnt` (0 when n is 0); `select(temp, temp_bytes)` runs CUB.
template <class T, class Select>
cudaError_t select_into_scratch(scratch& sc, u64 n, T*& out, int*& cnt, Select select) {
    out = sc.get<T>(n);
    cnt = sc.get<int>(1);
    if (sc.err) return sc.err;
    cudaError_t e = cudaMemsetAsync(cnt, 0, sizeof(int), sc.s);
    if (e || n == 0) return e;
    return with_temp(sc, select);
}

template <class T>
cudaError_t sort_keys(const op_arg* a, cudaStream_t s) {
    const u64 n = count_of<T>(a[0]);
    if (n == 0) return cudaSuccess;
    scratch sc(s);
    T* out = sc.get<T>(n);
    if (sc.err) return sc.err;
    cudaError_t e = with_temp(sc, [&](void* t, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortKeys(t, bytes, ptr<T>(a[0]), out, static_cast<long long>(n), 0,
                                              int(sizeof(T) * 8), s);
    });
    if (e) return e;
    return cudaMemcpyAsync(a[0].ptr, out, n * sizeof(T), cudaMemcpyDeviceToDevice, s);
}

template <class T>
cudaError_t unique_keys(const op_arg* a, cudaStream_t s) {
    const u64 n = count_of<T>(a[0]);
    scratch sc(s);
    T* out = nullptr;
    int* cnt = nullptr;
    cudaError_t e = select_into_scratch<T>(sc, n, out, cnt, [&](void* t, std::size_t& bytes) {
        return cub::DeviceSelect::Unique(t, bytes, ptr<T>(a[0]), out, cnt, static_cast<long long>(n), s);
    });
    if (e) return e;
    u32* count_out = count_of<u32>(a[1]) ? ptr<u32>(a[1]) : nullptr;
    copy_prefix_k<T><<<blocks_for(n), block, 0, s>>>(out, cnt, ptr<T>(a[0]), n, count_out, n);
    return cudaGetLastError();
}

cudaError_t run(std::string_view name, const op_arg* a, cudaStream_t s) {
    if (name == "fill") {
        const u64 n = count_of<u32>(a[0]);
        if (n) fill_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), n, a[1].literal);
        return cudaGetLastError();
    }
    if (name == "copy") {
        const u64 n = a[0].bytes < a[1].bytes ? a[0].bytes : a[1].bytes;
        if (n == 0 || a[0].ptr == a[1].ptr) return cudaSuccess;
        return cudaMemcpyAsync(a[1].ptr, a[0].ptr, n, cudaMemcpyDeviceToDevice, s);
    }
    if (name == "gather") {
        const u64 ni = count_of<u32>(a[1]), nd = count_of<u32>(a[2]);
        const u64 n = ni < nd ? ni : nd;
        if (n) gather_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), count_of<u32>(a[0]), ptr<u32>(a[1]), ptr<u32>(a[2]), n);
        return cudaGetLastError();
    }
    if (name == "scatter") {
        const u64 ns = count_of<u32>(a[0]), ni = count_of<u32>(a[1]), nd = count_of<u32>(a[2]);
        const u64 n = ns < ni ? ns : ni;
        if (n == 0 || nd == 0) return cudaSuccess;
        scratch sc(s);
        u32* winner = sc.get<u32>(nd);
        if (sc.err) return sc.err;
        cudaError_t e = cudaMemsetAsync(winner, 0, nd * sizeof(u32), s);
        if (e) return e;
        scatter_claim_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[1]), n, nd, winner);
        scatter_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), ptr<u32>(a[1]), n, ptr<u32>(a[2]), nd, winner);
        return cudaGetLastError();
    }
    if (name == "exclusive_scan") {
        const u64 ns = count_of<u32>(a[0]), nd = count_of<u32>(a[1]);
        const u64 n = ns < nd ? ns : nd;
        if (n == 0) return cudaSuccess;
        scratch sc(s);
        return with_temp(sc, [&](void* t, std::size_t& bytes) {
            return cub::DeviceScan::ExclusiveSum(t, bytes, ptr<u32>(a[0]), ptr<u32>(a[1]), static_cast<long long>(n), s);
        });
    }
    if (name == "compact") {
        const u64 ns = count_of<u32>(a[0]), nf = count_of<u32>(a[1]), nd = count_of<u32>(a[2]);
        const u64 n = ns < nf ? ns : nf;
        scratch sc(s);
        u32* sel = nullptr;
        int* cnt = nullptr;
        cudaError_t e = select_into_scratch<u32>(sc, n, sel, cnt, [&](void* t, std::size_t& bytes) {
            return cub::DeviceSelect::Flagged(t, bytes, ptr<u32>(a[0]), ptr<u32>(a[1]), sel, cnt,
                                              static_cast<long long>(n), s);
        });
        if (e) return e;
        u32* count_out = count_of<u32>(a[3]) ? ptr<u32>(a[3]) : nullptr;
        copy_prefix_k<u32><<<blocks_for(nd), block, 0, s>>>(sel, cnt, ptr<u32>(a[2]), nd, count_out, 0);
        return cudaGetLastError();
    }
    if (name == "sort_u32") return sort_keys<u32>(a, s);
    if (name == "sort_u64") return sort_keys<u64>(a, s);
    if (name == "unique_u32") return unique_keys<u32>(a, s);
    if (name == "unique_u64") return unique_keys<u64>(a, s);
    if (name == "bitset_union") {
        const u64 nd = count_of<u32>(a[0]), ns = count_of<u32>(a[1]);
        const u64 n = nd < ns ? nd : ns;
        if (n) union_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), ptr<u32>(a[1]), n);
        return cudaGetLastError();
    }
    if (name == "bitset_test_and_set") {
        const u64 nw = count_of<u32>(a[0]), n = count_of<u32>(a[1]), nwas = count_of<u32>(a[2]);
        if (n == 0) return cudaSuccess;
        scratch sc(s);
        u32* pos = sc.get<u32>(n);
        u32* keys = sc.get<u32>(n);
        u32* pos_sorted = sc.get<u32>(n);
        if (sc.err) return sc.err;
        iota_k<<<blocks_for(n), block, 0, s>>>(pos, n);
        // A stable sort by bit keeps the positions of one bit in order.
        cudaError_t e = with_temp(sc, [&](void* t, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(t, bytes, ptr<u32>(a[1]), keys, pos, pos_sorted,
                                                   static_cast<long long>(n), 0, 32, s);
        });
        if (e) return e;
        test_and_set_read_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), nw, keys, pos_sorted, n, ptr<u32>(a[2]), nwas);
        test_and_set_write_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), nw, ptr<u32>(a[1]), n);
        return cudaGetLastError();
    }
    if (name == "csr_expand") {
        const u64 noff = count_of<u32>(a[0]), ntgt = count_of<u32>(a[1]), n = count_of<u32>(a[2]);
        const u64 nout = count_of<u32>(a[3]), ncount = count_of<u32>(a[4]);
        scratch sc(s);
        u32* deg = sc.get<u32>(n);
        u32* start = sc.get<u32>(n);
        if (sc.err) return sc.err;
        if (n) {
            csr_degree_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), noff, ntgt, ptr<u32>(a[2]), n, deg);
            cudaError_t e = with_temp(sc, [&](void* t, std::size_t& bytes) {
                return cub::DeviceScan::ExclusiveSum(t, bytes, deg, start, static_cast<long long>(n), s);
            });
            if (e) return e;
            csr_write_k<<<blocks_for(n), block, 0, s>>>(ptr<u32>(a[0]), noff, ptr<u32>(a[1]), ntgt, ptr<u32>(a[2]), n,
                                                        start, ptr<u32>(a[3]), nout);
        }
        if (ncount) csr_count_k<<<1, 1, 0, s>>>(start, deg, n, ptr<u32>(a[4]));
        return cudaGetLastError();
    }
    return static_cast<cudaError_t>(-1);
}

} // namespace

const std::vector<std::string>& names() {
    static const std::vector<std::string> n = {"fill", "copy", "gather", "scatter", "exclusive_scan", "compact",
                                               "sort_u32", "sort_u64", "unique_u32", "unique_u64", "bitset_union",
                                               "bitset_test_and_set", "csr_expand"};
    return n;
}

int enqueue(std::string_view name, const op_arg* args, std::size_t, void* stream) {
    return static_cast<int>(run(name, args, static_cast<cudaStream_t>(stream)));
}

} // namespace vyre::cuda_kernels
