#pragma once
/// \file vyre/testing/fault_injector.hpp
/// Test-only fault injection for backends: make the N-th allocation, upload
/// or dispatch fail, to check that every public operation above it returns
/// the error, frees what it took and leaves the backend usable.
///
/// The host backends (`cpu_ref`, `cpu`) carry one injector each, reachable
/// with `vyre::testing::faults(backend)`. Disarmed (the default), a backend
/// pays one relaxed atomic load per call site.

#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <string>

#include <vyre/core/error.hpp>

namespace vyre::testing {

/// Where an injected fault strikes.
enum class fault_site : unsigned {
    allocate,  ///< `allocate` fails with `out_of_memory`
    upload,    ///< `upload`, `upload_at`, `upload_many` fail with `out_of_memory` before writing
    dispatch,  ///< `dispatch`, `dispatch_resident` fail with `dispatch_failed` before running
};

/// Stable name of a fault site.
constexpr const char* to_string(fault_site s) noexcept {
    switch (s) {
    case fault_site::allocate: return "allocate";
    case fault_site::upload: return "upload";
    case fault_site::dispatch: return "dispatch";
    }
    return "unknown";
}

/// Counts calls per site and makes the armed one fail. Thread-safe.
class fault_injector {
public:
    /// The `n`-th call at `s` from now on fails (1: the next one); later calls
    /// succeed again. `n == 0` disarms `s`.
    void fail_nth(fault_site s, std::uint64_t n) noexcept { countdown_[index(s)].store(n, std::memory_order_relaxed); }
    /// Disarms every site.
    void disarm() noexcept {
        for (auto& c : countdown_) c.store(0, std::memory_order_relaxed);
    }
    /// True while a fault at `s` is still to come.
    bool armed(fault_site s) const noexcept { return countdown_[index(s)].load(std::memory_order_relaxed) != 0; }
    /// Faults injected so far, all sites together.
    std::uint64_t injected() const noexcept { return injected_.load(std::memory_order_relaxed); }

    /// Called by a backend at site `s`: true when this call must fail.
    bool strike(fault_site s) noexcept {
        auto& c = countdown_[index(s)];
        std::uint64_t v = c.load(std::memory_order_relaxed);
        while (v != 0) {
            if (c.compare_exchange_weak(v, v - 1, std::memory_order_relaxed)) {
                if (v != 1) return false;
                injected_.fetch_add(1, std::memory_order_relaxed);
                return true;
            }
        }
        return false;
    }

    /// The error a struck call at `s` returns; `what` names the operation.
    static backend_error error(fault_site s, const std::string& what) {
        return backend_error(s == fault_site::dispatch ? error_code::dispatch_failed : error_code::out_of_memory,
                             what + ": injected fault at site '" + to_string(s) + "'",
                             "disarm vyre::testing::faults(backend) (test-only fault injection)");
    }

private:
    static constexpr std::size_t index(fault_site s) noexcept { return static_cast<std::size_t>(s); }
    std::array<std::atomic<std::uint64_t>, 3> countdown_{};
    std::atomic<std::uint64_t> injected_{0};
};

/// The fault injector of a backend that has one (`cpu_ref`, `cpu`).
template <class B>
    requires requires(B& b) {
        { b.fault_injection() } -> std::same_as<fault_injector&>;
    }
fault_injector& faults(B& b) {
    return b.fault_injection();
}

} // namespace vyre::testing
