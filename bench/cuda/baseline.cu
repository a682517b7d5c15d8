// Bare CUDA baselines for bench_cuda: an empty kernel launch and the device's own copy.
#include "baseline.hpp"

#include <chrono>
#include <cuda_runtime.h>

namespace {
__global__ void empty_kernel() {}
}

namespace vyre_bench {

double empty_launch_ns(int n) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    empty_kernel<<<1, 64, 0, s>>>();
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 64, 0, s>>>();
    cudaStreamSynchronize(s);
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    cudaStreamDestroy(s);
    return ns / n;
}

double memcpy_gbs(std::uint64_t bytes, int reps) {
    void *a = nullptr, *b = nullptr;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0;
    cudaMemset(a, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(e0);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * double(bytes) / (double(best) * 1e6);
}

} // namespace vyre_bench
