#pragma once
/// \file weir/ifds/ops/shared_worklist.hpp
/// Work sharing between the threads of one in-op worklist (`ifds_rows_solve`
/// on `cpu`): every thread works on its own stack and, when another thread is
/// waiting, moves the older half of it to a shared pool. A thread whose stack
/// runs dry takes from the pool, or waits; the work is done when every thread
/// waits and the pool is empty (checked under the pool's lock, so no thread
/// can still be adding to it).

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace weir::ops::detail {

/// The pool and the termination state of `threads` cooperating threads whose
/// work items are `Item`s.
template <class Item>
class shared_worklist {
public:
    explicit shared_worklist(unsigned threads) : threads_(threads) {}

    /// Called by a thread whose stack is empty: moves work from the pool into
    /// `local` and returns true, or returns false when all work is done (or
    /// `stop` was called).
    bool refill(std::vector<Item>& local) {
        std::unique_lock lk(mu_);
        ++idle_;
        waiting_.fetch_add(1, std::memory_order_relaxed);
        cv_.wait(lk, [&] { return !pool_.empty() || idle_ == threads_ || done_; });
        waiting_.fetch_sub(1, std::memory_order_relaxed);
        if (pool_.empty()) {  // every thread idle with nothing left, or stopped
            done_ = true;
            lk.unlock();
            cv_.notify_all();
            return false;
        }
        // Take half of the pool (at least one item), newest first.
        const std::size_t take = std::max<std::size_t>(1, pool_.size() / 2);
        local.insert(local.end(), pool_.end() - static_cast<std::ptrdiff_t>(take), pool_.end());
        pool_.resize(pool_.size() - take);
        --idle_;
        return true;
    }

    /// Called now and then by a working thread: when another thread waits and
    /// `local` holds enough, moves its older half to the pool.
    void share(std::vector<Item>& local) {
        if (waiting_.load(std::memory_order_relaxed) == 0 || local.size() < 8) return;
        {
            std::lock_guard lk(mu_);
            const std::size_t half = local.size() / 2;
            pool_.insert(pool_.end(), local.begin(), local.begin() + static_cast<std::ptrdiff_t>(half));
            local.erase(local.begin(), local.begin() + static_cast<std::ptrdiff_t>(half));
        }
        cv_.notify_all();
    }

    /// Ends the work early (an error): every waiting thread returns false.
    void stop() {
        {
            std::lock_guard lk(mu_);
            done_ = true;
            pool_.clear();
        }
        cv_.notify_all();
    }

private:
    const unsigned threads_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<Item> pool_;
    unsigned idle_ = 0;
    bool done_ = false;
    std::atomic<unsigned> waiting_{0};
};

} // namespace weir::ops::detail
