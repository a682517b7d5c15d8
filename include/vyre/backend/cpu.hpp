#pragma once
/// \file vyre/backend/cpu.hpp
/// `vyre::cpu`: the fast host backend. The same compact program form and the
/// same resident handles as `cpu_ref` (byte-for-byte the same results), with
/// workgroups spread over threads and ops run by native parallel loops
/// (vyre's catalogue ops here, extension ops by the libraries that define them).
///
/// Threads come from OpenMP when the code is compiled with `-fopenmp` (the
/// build and `vyre.pc` add it): its persistent thread pool makes a dispatch
/// cost microseconds, not a thread start each time, and it needs no package
/// beyond the compiler. Without OpenMP the same code runs on std::threads.
/// Thread count: `dispatch_config::threads`, else the `VYRE_CPU_THREADS`
/// environment variable, else every core.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <boost/hana/tuple.hpp>

#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/concepts.hpp>
#include <vyre/backend/detail/host_backend.hpp>
#include <vyre/backend/detail/native_ops.hpp>
#include <vyre/backend/parallel.hpp>

namespace vyre {

/// The multithreaded host backend (id `cpu`). Thread-safe like `cpu_ref`.
class cpu : public detail::host_backend<cpu> {
public:
    /// Capabilities: resident dispatch.
    static constexpr auto capabilities = boost::hana::tuple_t<cap::resident_dispatch, cap::host_visible_memory>;

    /// A backend using `threads` worker threads by default (0: environment or every core).
    explicit cpu(unsigned threads = 0) : default_threads_(threads) {}

    /// Backend id.
    std::string_view id() const { return "cpu"; }
    /// Implementation version (part of cache keys).
    std::string_view version() const { return "1.0.0"; }
    /// Device profile.
    vyre::device_profile device_profile() const {
        return {"cpu", "host, " + std::to_string(threads({})) + " threads", capability_names<cpu>(), limits()};
    }
    /// Worker threads a dispatch with config `c` uses.
    unsigned threads(const dispatch_config& c) const {
        if (c.threads) return c.threads;
        if (default_threads_) return default_threads_;
        if (const char* e = std::getenv("VYRE_CPU_THREADS")) {
            int n = std::atoi(e);
            if (n > 0) return static_cast<unsigned>(n);
        }
        // Read once: hardware_concurrency() reads /sys on Linux (microseconds per dispatch otherwise).
        static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        return cores;
    }

    /// A native op implementation on `cpu`: the bound arguments and the
    /// thread count (specialise `vyre::ops::native_op<vyre::cpu, Op>` with a
    /// static `run` of this type, vyre/ops/extension.hpp).
    using native_op_fn = detail::native_op_fn;

    /// The native implementation of `op`: a registered one for an extension
    /// op, the built-in parallel loop for a catalogue op, or nullptr (then
    /// the reference runs). Called once per compiled program.
    static native_op_fn find_native(const ops::op_info& op) {
        if (auto f = ops::native_for<cpu>(op)) return f;
        return detail::find_native_op(op.name);
    }

    /// Runs a compiled program: workgroups in chunks over the threads; an op
    /// by its native parallel loop when there is one.
    result<void> execute(const detail::compiled_program& cp, std::span<const detail::bound_buffer> bound,
                         const dispatch_config& c) {
        const unsigned nt = threads(c);
        if (cp.op) {
            auto args = detail::bind_op_args(cp, bound);
            // A catalogue op given one buffer twice, written and read: its
            // reference's order defines the result, not the parallel loop.
            const bool aliased = ops::writes_overlap(*cp.op, args) && !ops::native_for<cpu>(*cp.op);
            if (cp.native && !aliased) return reinterpret_cast<native_op_fn>(cp.native)(args, nt);
            return cp.op->reference(args);
        }
        auto shape = detail::launch_shape(cp.source, bound, c, limits());
        if (!shape) return make_unexpected(shape.error());
        // (named copies, not a structured binding: clang 14 cannot capture those)
        const auto wg = shape->first;
        const auto grid = shape->second;
        const std::uint64_t n = std::uint64_t(grid[0]) * grid[1] * grid[2];
        if (nt <= 1 || n <= 1) {
            detail::executor ex(cp, bound, wg, grid, c.step_budget);
            return ex.run_workgroups(0, n);
        }
        std::atomic<std::uint64_t> next{0}, steps{0};
        std::atomic<bool> failed{false};
        std::mutex mu;
        std::optional<backend_error> err;
        const std::uint64_t chunk = std::max<std::uint64_t>(1, n / (std::uint64_t(nt) * 8));
        parallel_region(static_cast<unsigned>(std::min<std::uint64_t>(nt, n)), [&](unsigned, unsigned) {
            detail::executor ex(cp, bound, wg, grid, c.step_budget, true, &steps);
            for (;;) {
                const std::uint64_t b = next.fetch_add(chunk);
                // (the thread's last steps count too: see executor::settle_budget)
                const bool last = b >= n || failed.load(std::memory_order_relaxed);
                auto r = last ? ex.settle_budget() : ex.run_workgroups(b, std::min(n, b + chunk));
                if (!r) {
                    std::lock_guard lk(mu);
                    if (!err) err = r.error();
                    failed = true;
                    return;
                }
                if (last) return;
            }
        });
        if (err) return make_unexpected(*err);
        return {};
    }

private:
    unsigned default_threads_ = 0;
};

static_assert(check_host_visible_backend<cpu>());
static_assert(has_reclaim<cpu>, "cpu gives adopted memory back (reclaim)");

} // namespace vyre
