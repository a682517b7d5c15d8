#pragma once
/// \file vyre/backend/cuda.hpp
/// `vyre::cuda`: the NVIDIA GPU backend. Generic IR is lowered to CUDA C++
/// (`vyre/backend/cuda/lowering.hpp`), compiled by NVRTC for the device's
/// architecture, cached by (structural hash, architecture, lowering version)
/// and launched with the driver API; catalogue ops run as precompiled kernels
/// from `kernels/*.cu` (CUB for scan, compaction, sort and unique).
/// Resident memory comes from the stream-ordered pool (`cudaMallocAsync`);
/// a resident sequence is enqueued on one stream behind one fence, and the
/// repeated part of a repeated sequence is captured once as a CUDA graph and
/// replayed.
///
/// Link with the `vyre-cuda` library (meson: `vyre_cuda_dep`; pkg-config:
/// `vyre-cuda`). Constructing a `cuda` never fails: without a driver or a
/// device every operation returns a `device_lost` error that says so, and
/// `cuda::device_count()` is 0. Thread-safe: calls from several threads are
/// serialised on the instance.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/hana/tuple.hpp>

#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/concepts.hpp>
#include <vyre/backend/config.hpp>
#include <vyre/backend/provided.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>

namespace vyre {

namespace detail {
struct cuda_state;
struct cuda_module;
} // namespace detail

/// A resident allocation of a `cuda` instance: its id, the owning instance,
/// the device and the context generation it was made in (a device reset
/// invalidates every older handle). Checked on every use.
struct cuda_resource {
    std::uint64_t id = 0;
    std::uint64_t owner = 0;
    std::int32_t device = -1;
    std::uint32_t context = 0;

    bool operator==(const cuda_resource&) const = default;
};

/// One bound argument of an op on `cuda`: a buffer's device memory and
/// size, or a u32 literal.
struct cuda_op_arg {
    void* ptr = nullptr;
    std::uint64_t bytes = 0;
    std::uint32_t literal = 0;
};

/// A program compiled for one `cuda` instance (`cuda::compile_native`): run it
/// with `cuda::dispatch_resident(pipeline, ...)`, which launches its module
/// directly (no hashing, no cache lookup). It stays valid until the
/// instance's `shutdown()` or `try_recover()`.
class cuda_pipeline {
public:
    cuda_pipeline() = default;
    /// The program it was compiled from.
    const ir::program& program() const;
    /// True when it holds a compiled module.
    explicit operator bool() const { return module_ != nullptr; }

private:
    friend class cuda;
    std::shared_ptr<const detail::cuda_module> module_;
    std::uint64_t owner_ = 0;
    std::uint32_t context_ = 0;
};

/// The CUDA backend (id `cuda`).
class cuda {
public:
    /// Resident handle.
    using resource = cuda_resource;

    /// What the backend can do on the devices it targets (sm_70 and newer;
    /// `device_profile()` lists what the actual device has).
    static constexpr auto capabilities = boost::hana::tuple_t<cap::subgroup_ops, cap::f16, cap::bf16, cap::tensor_cores,
                                                              cap::async_compute, cap::grid_sync, cap::resident_dispatch>;

    /// A backend on device `device` (CUDA ordinal). Nothing is touched until first use.
    explicit cuda(int device = 0);
    ~cuda();
    cuda(cuda&&) noexcept;
    cuda& operator=(cuda&&) noexcept;
    cuda(const cuda&) = delete;
    cuda& operator=(const cuda&) = delete;

    /// Number of CUDA devices (0 without a driver or a device).
    static int device_count();
    /// Why there is no usable device ("" when there is one): the runtime's own words.
    static std::string no_device_reason();

    /// Backend id.
    std::string_view id() const { return "cuda"; }
    /// Implementation version (part of the module cache key with the lowering version).
    std::string_view version() const { return "1.0.0"; }
    /// Limits read from the device's properties (zeros when there is no device).
    device_limits limits() const;
    /// The device: name, compute capability, memory, and the capabilities it has.
    vyre::device_profile device_profile() const;
    /// A native op implementation on `cuda` (specialise
    /// `vyre::ops::native_op<vyre::cuda, Op>` with a static `run` of this
    /// type, vyre/ops/extension.hpp): enqueues the op's kernels, from the
    /// defining library's own `.cu` files, on `stream` (a `cudaStream_t`)
    /// over the bound arguments, and returns 0 or a `cudaError_t` value.
    /// Ops without one are refused on `cuda` with `unsupported`.
    using native_op_fn = int (*)(const cuda_op_arg* args, std::size_t count, void* stream);

    /// The catalogue ops with a precompiled kernel (kernels/ops.cu), then the
    /// extension ops with a registered native `cuda` implementation.
    std::vector<std::string> supported_ops() const;
    /// The device's architecture as NVRTC spells it (90 for sm_90), 0 without a device.
    std::uint32_t architecture() const;

    // ---- dispatch over host bytes ---------------------------------------------
    /// Uploads the inputs, runs, downloads the outputs (one stream, one synchronisation).
    result<std::vector<bytes>> dispatch(const ir::program& p, std::span<const bytes_view> inputs,
                                        const dispatch_config& c = {});
    /// `dispatch` with device time (CUDA events) and host enqueue/wait times.
    result<timed<std::vector<bytes>>> dispatch_timed(const ir::program& p, std::span<const bytes_view> inputs,
                                                     const dispatch_config& c = {});
    /// Starts a dispatch on a stream of its own and returns at once; the
    /// pending handle owns that stream and its completion event.
    pending<std::vector<bytes>> dispatch_async(ir::program p, std::vector<bytes> inputs, dispatch_config c = {});

    // ---- compilation ------------------------------------------------------------
    /// Validates, lowers, compiles and loads `p` now (a cache entry).
    result<void> prepare(const ir::program& p);
    /// The compiled pipeline of `p` (compiled now when not cached).
    result<cuda_pipeline> compile_native(const ir::program& p);
    /// Module cache counters.
    pipeline_cache_stats pipeline_cache_snapshot() const;

    // ---- resident memory --------------------------------------------------------
    /// Allocates exactly `n` zeroed bytes from the device's stream-ordered pool.
    result<resource> allocate(std::uint64_t n);
    /// Frees a resource of this instance.
    result<void> free(const resource& r);
    /// Uploads the whole resource (`d` must be exactly its size).
    result<void> upload(const resource& r, bytes_view d);
    /// Uploads `d` at byte `offset` (only that range moves).
    result<void> upload_at(const resource& r, std::uint64_t offset, bytes_view d);
    /// Many uploads through one pinned staging buffer on one stream; all are checked before any moves.
    result<void> upload_many(std::span<const upload_op<resource>> ops);
    /// Downloads the whole resource.
    result<bytes> download(const resource& r);
    /// Downloads the whole resource into `out` (exactly its size).
    result<void> download_into(const resource& r, mutable_bytes_view out);
    /// Downloads `len` bytes from `offset` (only that range moves).
    result<bytes> download_range(const resource& r, std::uint64_t offset, std::uint64_t len);
    /// Downloads `out.size()` bytes from `offset` into `out`.
    result<void> download_range_into(const resource& r, std::uint64_t offset, mutable_bytes_view out);
    /// Runs `p` over resources (one per non-workgroup buffer, declaration order) and waits.
    result<void> dispatch_resident(const ir::program& p, std::span<const resource> rs, const dispatch_config& c = {});
    /// Runs a compiled pipeline over resources and waits.
    result<void> dispatch_resident(const cuda_pipeline& pl, std::span<const resource> rs, const dispatch_config& c = {});
    /// The steps, then the ranged readbacks, on one stream with one synchronisation.
    result<void> dispatch_resident_sequence_read_ranges_into(std::span<const resident_step<resource>> steps,
                                                             std::span<const read_range<resource>> read_ranges,
                                                             std::span<const mutable_bytes_view> outputs);
    /// `prefix` once, `repeated` `repeat_count` times (captured once as a CUDA
    /// graph and replayed), then the readbacks; one synchronisation.
    result<void> dispatch_resident_repeated_sequence_read_ranges_into(
        std::span<const resident_step<resource>> prefix, std::span<const resident_step<resource>> repeated,
        std::uint64_t repeat_count, std::span<const read_range<resource>> read_ranges,
        std::span<const mutable_bytes_view> outputs);
    /// Timed form: device ns from CUDA events, enqueue and wait ns from the host clock.
    result<timings> dispatch_resident_sequence_read_ranges_into_timed(std::span<const resident_step<resource>> steps,
                                                                      std::span<const read_range<resource>> read_ranges,
                                                                      std::span<const mutable_bytes_view> outputs);
    /// Timed form of the repeated sequence.
    result<timings> dispatch_resident_repeated_sequence_read_ranges_into_timed(
        std::span<const resident_step<resource>> prefix, std::span<const resident_step<resource>> repeated,
        std::uint64_t repeat_count, std::span<const read_range<resource>> read_ranges,
        std::span<const mutable_bytes_view> outputs);

    // ---- lifecycle ----------------------------------------------------------------
    /// Named counters: dispatches, resident_dispatches, bytes_uploaded, bytes_downloaded,
    /// graph_captures, graph_replays, live_bytes, ...
    metric_snapshot backend_metric_snapshot() const;
    /// Waits for all enqueued work.
    result<void> flush();
    /// Frees every resource and compiled module (handles become invalid).
    result<void> shutdown();
    /// True after a sticky device error (an illegal address, a launch failure, ...):
    /// everything fails until `try_recover()`.
    bool device_lost() const;
    /// Resets the device, recreates the context, stream and pool, and
    /// invalidates every resource and cached module of this instance.
    result<void> try_recover();

private:
    std::unique_ptr<detail::cuda_state> s_;
};

static_assert(check_resident_backend<cuda>());

} // namespace vyre
