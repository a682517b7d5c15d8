#pragma once
/// \file weir/ifds/detail/node_parts.hpp
/// Building a table over nodes on several threads: [0, n) cut into
/// contiguous parts of about equal cost, each part built on its own, the
/// parts then joined in node order (`edge_table.hpp`), so that the table is
/// the same, word for word, on any number of threads.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
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

/// The threads a build over `n` nodes runs on: `threads` (0: one per
/// hardware thread) from `min_parallel_nodes` nodes on, else one.
inline unsigned threads_for(std::uint64_t n, unsigned threads, std::uint32_t min_parallel_nodes) {
    return n >= min_parallel_nodes ? threads_or_hardware(threads) : 1;
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

/// Builds a table of `n` items in parts, on `threads` threads: item i's
/// offsets fill the slice [begin(i), begin(i+1)) of `off` (sized already),
/// as positions in the columns `cols` (arrays appended in step, empty at
/// first). `fill(i0, i1, out)` appends items [i0, i1) to the columns `out`
/// and writes their slices with positions in `out`; part 0 fills `cols`
/// themselves, the others their own columns, which are then appended and
/// their slices shifted. The table is the same on any number of threads.
template <std::size_t C, class Begin, class Fill>
void fill_sliced(std::uint32_t n, unsigned threads, Begin&& begin, std::vector<std::uint32_t>& off,
                 std::array<std::vector<std::uint32_t>*, C> cols, Fill&& fill) {
    if (threads <= 1 || n < 2) {
        fill(std::uint32_t{0}, n, cols);
        return;
    }
    const unsigned parts = threads * parts_per_thread;
    const auto cuts = cut_by_cost(n, parts, [&](std::uint32_t i) { return std::uint64_t{begin(i)} + i; });
    std::vector<std::array<std::vector<std::uint32_t>, C>> rest(parts - 1);
    for_each_part(parts, threads, [&](unsigned k, unsigned) {
        std::array<std::vector<std::uint32_t>*, C> out = cols;
        if (k > 0)
            for (std::size_t c = 0; c < C; ++c) out[c] = &rest[k - 1][c];
        fill(cuts[k], cuts[k + 1], out);
    });
    std::size_t total = cols[0]->size();
    for (const auto& r : rest) total += r[0].size();
    if (total > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("weir::ifds::make_layout: a call table exceeds 2^32-1 entries");
    for (std::size_t c = 0; c < C; ++c) cols[c]->reserve(total);
    for (unsigned k = 1; k < parts; ++k) {
        const auto shift = static_cast<std::uint32_t>(cols[0]->size());
        for (std::uint64_t j = begin(cuts[k]); j < std::uint64_t{begin(cuts[k + 1])}; ++j) off[j] += shift;
        for (std::size_t c = 0; c < C; ++c) {
            cols[c]->insert(cols[c]->end(), rest[k - 1][c].begin(), rest[k - 1][c].end());
            std::vector<std::uint32_t>().swap(rest[k - 1][c]);
        }
    }
}

} // namespace weir::ifds::detail
