#pragma once
/// \file weir/ifds/detail/node_parts.hpp
/// Building a table over nodes on several threads: [0, n) cut into
/// contiguous parts of about equal cost, each part built on its own, the
/// parts then joined in node order (`edge_table.hpp`), so that the table is
/// the same, word for word, on any number of threads.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <vyre/backend/parallel.hpp>

namespace weir::ifds::detail {

/// Fewer nodes than this are built on one thread (a part's start and its
/// join cost more than the work).
inline constexpr std::uint32_t default_min_parallel_nodes = 4096;

/// `threads`, or one per hardware thread for 0.
inline unsigned threads_or_hardware(unsigned threads) {
    return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

/// The cuts of [0, n) into `parts` contiguous ranges of about equal cost:
/// `prefix(i)` is the cost of nodes [0, i) (non-decreasing in i, i ≤ n);
/// range k is [cuts[k], cuts[k+1]) (some may be empty).
template <class Prefix>
std::vector<std::uint32_t> cut_by_cost(std::uint32_t n, unsigned parts, Prefix&& prefix) {
    std::vector<std::uint32_t> cuts(parts + 1, n);
    cuts[0] = 0;
    const std::uint64_t total = prefix(n);
    for (unsigned k = 1; k < parts; ++k) {
        const std::uint64_t goal = total * k / parts;
        std::uint32_t lo = cuts[k - 1], hi = n;  // the first i with prefix(i) >= goal
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            if (prefix(mid) < goal) lo = mid + 1;
            else hi = mid;
        }
        cuts[k] = lo;
    }
    return cuts;
}

/// Parts per thread that a build over nodes cuts its work into: the parts
/// are handed out one at a time, so a thread whose parts cost more than
/// their share does not hold the others up.
inline constexpr unsigned parts_per_thread = 8;

/// Calls `f(k, t)` for every part k in [0, parts), on up to `threads`
/// threads (t: the thread's index, below `threads`), one part at a time to
/// whichever thread is free; the first exception a part throws is rethrown
/// here once all have ended.
template <class F>
void for_each_part(unsigned parts, unsigned threads, F&& f) {
    std::exception_ptr failure;
    std::mutex lock;
    std::atomic<unsigned> next{0};
    vyre::parallel_region(std::min(parts, std::max(threads, 1u)), [&](unsigned t, unsigned) {
        for (unsigned k; (k = next.fetch_add(1, std::memory_order_relaxed)) < parts;) {
            try {
                f(k, t);
            } catch (...) {
                const std::lock_guard<std::mutex> g(lock);
                if (!failure) failure = std::current_exception();
            }
        }
    });
    if (failure) std::rethrow_exception(failure);
}

} // namespace weir::ifds::detail
