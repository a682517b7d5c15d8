#pragma once
/// \file vyre/backend/provided.hpp
/// Provided operations: free function templates that call the backend's own
/// member when it has one, and otherwise a correct fallback composed from the
/// required operations. Generic code calls these, never the members directly.

#include <chrono>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <vyre/backend/concepts.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/catalogue.hpp>

namespace vyre {

namespace detail {
inline std::uint64_t now_ns() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}
inline std::vector<bytes_view> views_of(const std::vector<bytes>& in) {
    return std::vector<bytes_view>(in.begin(), in.end());
}
} // namespace detail

// ---- dispatch forms ---------------------------------------------------------

/// Dispatch with owned inputs.
template <dispatch_backend B>
result<std::vector<bytes>> dispatch(B& b, const ir::program& p, const std::vector<bytes>& inputs,
                                    const dispatch_config& c = {}) {
    auto v = detail::views_of(inputs);
    return b.dispatch(p, std::span<const bytes_view>(v), c);
}

/// Dispatch writing each output into caller storage (`outputs[i]` must have
/// exactly the size of output i).
template <dispatch_backend B>
result<void> dispatch_into(B& b, const ir::program& p, std::span<const bytes_view> inputs,
                           std::span<const mutable_bytes_view> outputs, const dispatch_config& c = {}) {
    if constexpr (requires { b.dispatch_into(p, inputs, outputs, c); }) {
        return b.dispatch_into(p, inputs, outputs, c);
    } else {
        auto r = b.dispatch(p, inputs, c);
        if (!r) return make_unexpected(r.error());
        if (r->size() != outputs.size())
            return fail(error_code::invalid_argument,
                        "dispatch_into: program '" + p.name + "' has " + std::to_string(r->size()) +
                            " outputs but " + std::to_string(outputs.size()) + " output spans were given",
                        "pass one span per read_write/output buffer, in declaration order");
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            if ((*r)[i].size() != outputs[i].size())
                return fail(error_code::invalid_argument,
                            "dispatch_into: output " + std::to_string(i) + " of program '" + p.name + "' is " +
                                std::to_string((*r)[i].size()) + " bytes but its span holds " +
                                std::to_string(outputs[i].size()),
                            "size each output span to the output buffer's byte length");
        }
        for (std::size_t i = 0; i < outputs.size(); ++i)
            std::copy((*r)[i].begin(), (*r)[i].end(), outputs[i].begin());
        return {};
    }
}

/// Dispatch and report how long it took.
template <dispatch_backend B>
result<timed<std::vector<bytes>>> dispatch_timed(B& b, const ir::program& p, std::span<const bytes_view> inputs,
                                                 const dispatch_config& c = {}) {
    if constexpr (requires { b.dispatch_timed(p, inputs, c); }) {
        return b.dispatch_timed(p, inputs, c);
    } else {
        auto t0 = detail::now_ns();
        auto r = b.dispatch(p, inputs, c);
        auto t1 = detail::now_ns();
        if (!r) return make_unexpected(r.error());
        timings t{t1 - t0, t1 - t0, 0, t1 - t0};
        return timed<std::vector<bytes>>{std::move(*r), t};
    }
}

/// A dispatch in flight. `wait()` blocks and yields the result once.
template <class T>
class pending {
public:
    explicit pending(std::future<result<T>> f) : f_(std::move(f)) {}
    /// True when `wait()` would not block.
    bool ready() const { return f_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
    /// Blocks until done; may be called once.
    result<T> wait() { return f_.get(); }

private:
    std::future<result<T>> f_;
};

/// Starts a dispatch and returns at once. The backend must outlive the
/// pending handle; the inputs are copied.
template <dispatch_backend B>
pending<std::vector<bytes>> dispatch_async(B& b, ir::program p, std::vector<bytes> inputs,
                                           dispatch_config c = {}) {
    if constexpr (requires { b.dispatch_async(p, inputs, c); }) {
        return b.dispatch_async(std::move(p), std::move(inputs), std::move(c));
    } else {
        return pending<std::vector<bytes>>(std::async(
            std::launch::async, [&b, p = std::move(p), in = std::move(inputs), c = std::move(c)]() {
                return vyre::dispatch(b, p, in, c);
            }));
    }
}

// ---- resident provided operations -------------------------------------------

/// Ranged uploads of many resources.
template <resident_backend B>
result<void> upload_at_many(B& b, std::span<const write_range<typename B::resource>> writes) {
    if constexpr (requires { b.upload_at_many(writes); }) {
        return b.upload_at_many(writes);
    } else {
        for (const auto& w : writes) VYRE_TRY(b.upload_at(w.resource, w.offset, w.data));
        return {};
    }
}

/// Ranged downloads of many resources into caller storage (`outputs[i]` holds
/// exactly `ranges[i].length` bytes).
template <resident_backend B>
result<void> download_ranges_into(B& b, std::span<const read_range<typename B::resource>> ranges,
                                  std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires { b.download_ranges_into(ranges, outputs); }) {
        return b.download_ranges_into(ranges, outputs);
    } else {
        if (ranges.size() != outputs.size())
            return fail(error_code::invalid_argument,
                        "download_ranges_into: " + std::to_string(ranges.size()) + " ranges but " +
                            std::to_string(outputs.size()) + " output spans",
                        "pass one output span per range");
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            if (outputs[i].size() != ranges[i].length)
                return fail(error_code::invalid_argument,
                            "download_ranges_into: range " + std::to_string(i) + " is " +
                                std::to_string(ranges[i].length) + " bytes but its output span holds " +
                                std::to_string(outputs[i].size()),
                            "size each output span to its range's length");
            VYRE_TRY(b.download_range_into(ranges[i].resource, ranges[i].offset, outputs[i]));
        }
        return {};
    }
}

namespace detail {
template <resident_backend B>
result<void> run_steps(B& b, std::span<const resident_step<typename B::resource>> steps) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& s = steps[i];
        if (!s.program)
            return fail(error_code::invalid_argument, "resident sequence step " + std::to_string(i) + " has no program",
                        "set resident_step::program");
        auto r = b.dispatch_resident(*s.program,
                                     std::span<const typename B::resource>(s.resources.data(), s.resources.size()),
                                     s.config);
        if (!r)
            return fail(r.error().code(), "resident sequence step " + std::to_string(i) + ": " + r.error().message(),
                        r.error().fix());
    }
    return {};
}
} // namespace detail

/// Runs `steps` in order, then reads `read_ranges` into `outputs`, all behind
/// one fence (the backend's member when it has one).
template <resident_backend B>
result<void> dispatch_resident_sequence_read_ranges_into(
    B& b, std::span<const resident_step<typename B::resource>> steps,
    std::span<const read_range<typename B::resource>> read_ranges, std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires { b.dispatch_resident_sequence_read_ranges_into(steps, read_ranges, outputs); }) {
        return b.dispatch_resident_sequence_read_ranges_into(steps, read_ranges, outputs);
    } else {
        VYRE_TRY(detail::run_steps(b, steps));
        return download_ranges_into(b, read_ranges, outputs);
    }
}

/// Runs `prefix` once, then `repeated` `repeat_count` times, then reads the
/// ranges: exactly what the same dispatches give one by one.
template <resident_backend B>
result<void> dispatch_resident_repeated_sequence_read_ranges_into(
    B& b, std::span<const resident_step<typename B::resource>> prefix,
    std::span<const resident_step<typename B::resource>> repeated, std::uint64_t repeat_count,
    std::span<const read_range<typename B::resource>> read_ranges, std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires {
                      b.dispatch_resident_repeated_sequence_read_ranges_into(prefix, repeated, repeat_count,
                                                                             read_ranges, outputs);
                  }) {
        return b.dispatch_resident_repeated_sequence_read_ranges_into(prefix, repeated, repeat_count, read_ranges,
                                                                      outputs);
    } else {
        VYRE_TRY(detail::run_steps(b, prefix));
        for (std::uint64_t k = 0; k < repeat_count; ++k) VYRE_TRY(detail::run_steps(b, repeated));
        return download_ranges_into(b, read_ranges, outputs);
    }
}

/// Timed form of `dispatch_resident_sequence_read_ranges_into`.
template <resident_backend B>
result<timings> dispatch_resident_sequence_read_ranges_into_timed(
    B& b, std::span<const resident_step<typename B::resource>> steps,
    std::span<const read_range<typename B::resource>> read_ranges, std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires { b.dispatch_resident_sequence_read_ranges_into_timed(steps, read_ranges, outputs); }) {
        return b.dispatch_resident_sequence_read_ranges_into_timed(steps, read_ranges, outputs);
    } else {
        auto t0 = detail::now_ns();
        VYRE_TRY(dispatch_resident_sequence_read_ranges_into(b, steps, read_ranges, outputs));
        auto t1 = detail::now_ns();
        return timings{t1 - t0, t1 - t0, t1 - t0, 0};
    }
}

/// Timed form of `dispatch_resident_repeated_sequence_read_ranges_into`.
template <resident_backend B>
result<timings> dispatch_resident_repeated_sequence_read_ranges_into_timed(
    B& b, std::span<const resident_step<typename B::resource>> prefix,
    std::span<const resident_step<typename B::resource>> repeated, std::uint64_t repeat_count,
    std::span<const read_range<typename B::resource>> read_ranges, std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires {
                      b.dispatch_resident_repeated_sequence_read_ranges_into_timed(prefix, repeated, repeat_count,
                                                                                   read_ranges, outputs);
                  }) {
        return b.dispatch_resident_repeated_sequence_read_ranges_into_timed(prefix, repeated, repeat_count,
                                                                            read_ranges, outputs);
    } else {
        auto t0 = detail::now_ns();
        VYRE_TRY(dispatch_resident_repeated_sequence_read_ranges_into(b, prefix, repeated, repeat_count, read_ranges,
                                                                      outputs));
        auto t1 = detail::now_ns();
        return timings{t1 - t0, t1 - t0, t1 - t0, 0};
    }
}

// ---- lifecycle and queries ----------------------------------------------------

/// Compiles/validates ahead of time (default: validation only).
template <dispatch_backend B>
result<void> prepare(B& b, const ir::program& p) {
    if constexpr (requires { b.prepare(p); }) {
        return b.prepare(p);
    } else {
        auto d = ir::validate(p);
        if (!d.empty())
            return fail(error_code::invalid_program, "program '" + p.name + "' is invalid:\n" + ir::format_diagnostics(d),
                        "fix the listed problems");
        return {};
    }
}
/// Waits for all outstanding work (default: nothing to wait for).
template <dispatch_backend B>
result<void> flush(B& b) {
    if constexpr (requires { b.flush(); }) return b.flush();
    else return {};
}
/// Releases everything the backend holds (default: nothing).
template <dispatch_backend B>
result<void> shutdown(B& b) {
    if constexpr (requires { b.shutdown(); }) return b.shutdown();
    else return {};
}
/// True when the device was lost and needs `try_recover` (default: false).
template <dispatch_backend B>
bool device_lost(const B& b) {
    if constexpr (requires { b.device_lost(); }) return b.device_lost();
    else return false;
}
/// Tries to bring a lost device back (default: succeeds when not lost).
template <dispatch_backend B>
result<void> try_recover(B& b) {
    if constexpr (requires { b.try_recover(); }) return b.try_recover();
    else return {};
}
/// Compiled-program cache counters (default: zeros).
template <dispatch_backend B>
pipeline_cache_stats pipeline_cache_snapshot(const B& b) {
    if constexpr (requires { b.pipeline_cache_snapshot(); }) return b.pipeline_cache_snapshot();
    else return {};
}
/// Named counters (default: empty).
template <dispatch_backend B>
metric_snapshot backend_metric_snapshot(const B& b) {
    if constexpr (requires { b.backend_metric_snapshot(); }) return b.backend_metric_snapshot();
    else return {};
}
/// Catalogue ops the backend runs natively (default: none).
template <dispatch_backend B>
std::vector<std::string> supported_ops(const B& b) {
    if constexpr (requires { b.supported_ops(); }) return b.supported_ops();
    else return {};
}
/// The device profile (default: id, capabilities and limits).
template <dispatch_backend B>
device_profile get_device_profile(const B& b) {
    if constexpr (requires { b.device_profile(); }) {
        return b.device_profile();
    } else {
        return device_profile{std::string(b.id()), std::string(b.id()), capability_names<B>(), b.limits()};
    }
}
/// True when backend B declares capability C.
template <class C, dispatch_backend B>
constexpr bool supports(const B&) {
    return has_capability_v<B, C>;
}
/// True when a grid-synchronising dispatch of `grid` workgroups of
/// `invocations_per_workgroup` can run co-resident in one launch (default:
/// only with `cap::grid_sync`, within the per-dimension limit).
template <dispatch_backend B>
bool cooperative_grid_sync_fits(const B& b, std::uint64_t workgroups, std::uint32_t invocations_per_workgroup) {
    if constexpr (requires { b.cooperative_grid_sync_fits(workgroups, invocations_per_workgroup); }) {
        return b.cooperative_grid_sync_fits(workgroups, invocations_per_workgroup);
    } else {
        return has_capability_v<B, cap::grid_sync> && workgroups <= b.limits().max_workgroups[0] &&
               invocations_per_workgroup <= b.limits().max_invocations_per_workgroup;
    }
}
/// True when the backend runs a grid-synchronising program as several
/// host-synchronised dispatches (default: when it lacks `cap::grid_sync`).
template <dispatch_backend B>
bool host_grid_sync_split(const B& b) {
    if constexpr (requires { b.host_grid_sync_split(); }) return b.host_grid_sync_split();
    else return !has_capability_v<B, cap::grid_sync>;
}

// ---- device buffers ---------------------------------------------------------------

/// An owning handle to one resident allocation: freed when destroyed.
template <resident_backend B>
class device_buffer {
public:
    using resource = typename B::resource;
    device_buffer(B& b, resource r, std::uint64_t size) : b_(&b), r_(std::move(r)), size_(size) {}
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    device_buffer(device_buffer&& o) noexcept : b_(o.b_), r_(o.r_), size_(o.size_) { o.b_ = nullptr; }
    device_buffer& operator=(device_buffer&& o) noexcept {
        if (this != &o) {
            release();
            b_ = o.b_;
            r_ = o.r_;
            size_ = o.size_;
            o.b_ = nullptr;
        }
        return *this;
    }
    ~device_buffer() { release(); }

    /// The underlying resource handle.
    const resource& get() const { return r_; }
    /// Byte length.
    std::uint64_t size() const { return size_; }
    /// Uploads the whole buffer.
    result<void> upload(bytes_view d) { return b_->upload(r_, d); }
    /// Downloads the whole buffer.
    result<bytes> download() { return b_->download(r_); }
    /// Frees now (also done by the destructor).
    result<void> free() {
        if (!b_) return fail(error_code::invalid_resource, "device_buffer already freed", "do not free a buffer twice");
        auto r = b_->free(r_);
        b_ = nullptr;
        return r;
    }

private:
    void release() {
        if (b_) (void)b_->free(r_);
        b_ = nullptr;
    }
    B* b_;
    resource r_;
    std::uint64_t size_;
};

/// Allocates a device buffer of exactly `size` bytes.
template <resident_backend B>
result<device_buffer<B>> allocate_device_buffer(B& b, std::uint64_t size) {
    auto r = b.allocate(size);
    if (!r) return make_unexpected(r.error());
    return device_buffer<B>(b, *r, size);
}

/// Dispatches over device buffers (one per non-workgroup buffer, in declaration order).
template <resident_backend B>
result<void> dispatch_with_device_buffers(B& b, const ir::program& p, std::span<device_buffer<B>* const> buffers,
                                          const dispatch_config& c = {}) {
    std::vector<typename B::resource> rs;
    rs.reserve(buffers.size());
    for (auto* d : buffers) rs.push_back(d->get());
    return b.dispatch_resident(p, std::span<const typename B::resource>(rs), c);
}

} // namespace vyre
