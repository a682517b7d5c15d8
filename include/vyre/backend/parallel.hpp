#pragma once
/// \file vyre/backend/parallel.hpp
/// Fork-join helpers of the `cpu` backend, for its own ops and for native
/// implementations of extension ops (vyre/ops/extension.hpp): OpenMP's
/// thread pool when compiled with `-fopenmp`, std::thread otherwise.

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace vyre {

/// Runs `f(thread_index, thread_count)` on up to `threads` threads (the
/// caller's thread is one of them; OpenMP may grant fewer, and `thread_count`
/// says how many actually run).
template <class F>
void parallel_region(unsigned threads, F&& f) {
    if (threads <= 1) {
        f(0u, 1u);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
    f(static_cast<unsigned>(omp_get_thread_num()), static_cast<unsigned>(omp_get_num_threads()));
#else
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back([&f, t, threads] { f(t, threads); });
    f(0u, threads);
    for (auto& th : pool) th.join();
#endif
}

/// Runs `f(begin, end)` over [0, n) split into one contiguous block per thread
/// (blocks below `grain` elements are not split further).
template <class F>
void parallel_blocks(std::uint64_t n, unsigned threads, std::uint64_t grain, F&& f) {
    const std::uint64_t blocks = std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, n / std::max<std::uint64_t>(grain, 1)));
    if (blocks <= 1) {
        f(std::uint64_t{0}, n);
        return;
    }
    parallel_region(static_cast<unsigned>(blocks), [&](unsigned t, unsigned nt) {
        for (std::uint64_t k = t; k < blocks; k += nt) f(n * k / blocks, n * (k + 1) / blocks);
    });
}

} // namespace vyre
