#pragma once
// Bare CUDA measurements the cuda benchmark compares vyre against (baseline.cu, nvcc).
#include <cstdint>

namespace vyre_bench {
/// Host nanoseconds per launch of an empty kernel, `n` launches on one stream then one synchronisation.
double empty_launch_ns(int n);
/// Device-to-device `cudaMemcpyAsync` of `bytes`, best of `reps`, in GB/s counting bytes read and written.
double memcpy_gbs(std::uint64_t bytes, int reps);
} // namespace vyre_bench
