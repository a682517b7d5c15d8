#pragma once
/// \file vyre/backend/detail/host_backend.hpp
/// What the host backends (`cpu_ref`, `cpu`) share: the dispatch ABI, the
/// checked resident memory on host vectors, the compiled-program cache and the
/// counters. A host backend derives from `host_backend<Self>` and supplies
/// `execute(compiled_program, bound buffers, config)`: how a program runs.

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/config.hpp>
#include <vyre/backend/detail/host_memory.hpp>
#include <vyre/backend/detail/interpreter.hpp>
#include <vyre/core/result.hpp>

namespace vyre::detail {

/// The shared body of the host backends (CRTP: `Self::execute` runs a program).
template <class Self>
class host_backend {
public:
    /// Resident handle: checked against the owning instance on every use.
    using resource = host_resource;

    /// Limits of the host interpreter.
    device_limits limits() const {
        device_limits l;
        l.max_workgroup_size = {1024, 1024, 1024};
        l.max_invocations_per_workgroup = 1 << 20;
        l.subgroup_size = 1;
        l.max_storage_buffer_bytes = host_physical_bytes();
        l.max_workgroup_bytes = 16ull << 20;
        return l;
    }

    /// The ops this backend runs: every op of the catalogue and every
    /// registered extension op (by its native implementation where `Self`
    /// has one, else by its reference).
    std::vector<std::string> supported_ops() const { return ops::registry::instance().names(); }

    // ---- dispatch -------------------------------------------------------------

    /// Runs `p` over borrowed inputs; returns the read_write and output buffers.
    result<std::vector<bytes>> dispatch(const ir::program& p, std::span<const bytes_view> inputs,
                                        const dispatch_config& c = {}) {
        auto cp = prepared(p, "dispatch");
        if (!cp) return make_unexpected(cp.error());
        std::vector<bytes> storage;
        auto bound = detail::bind_host_inputs(p, inputs, storage);
        if (!bound) return make_unexpected(bound.error());
        VYRE_TRY(run(**cp, *bound, c));
        mem_.metrics.dispatches++;
        std::vector<bytes> out;
        for (std::size_t i = 0; i < p.buffers.size(); ++i)
            if (ir::is_output(p.buffers[i].acc)) out.push_back(std::move(storage[i]));
        return out;
    }

    /// Validates and compiles ahead of time.
    result<void> prepare(const ir::program& p) {
        auto cp = prepared(p, nullptr);
        if (!cp) return make_unexpected(cp.error());
        return {};
    }

    // ---- resident memory -----------------------------------------------------

    /// Allocates exactly `n` zeroed bytes.
    result<resource> allocate(std::uint64_t n) { return mem_.allocate(n); }
    /// Frees a resource of this instance.
    result<void> free(const resource& r) { return mem_.free(r); }

    /// Host-visible resident memory (capability `cap::host_visible_memory`):
    /// takes over the storage of `v` as a resident allocation of exactly its
    /// bytes, without a copy (`v` is left empty). Budget, injected faults and
    /// `allocations`/`live_bytes` as for `allocate`; the bytes count as
    /// `bytes_adopted`, not `bytes_uploaded`. On an error nothing changes
    /// (`v` keeps its elements).
    template <class T>
        requires std::is_trivially_copyable_v<T>
    result<resource> adopt(std::vector<T>&& v) {
        return mem_.adopt(std::move(v));
    }
    /// Host-visible resident memory: the bytes of `r`, to read or write in
    /// place (writes are what the next dispatch sees; no upload needed). The
    /// view is valid until `r` is freed; a foreign or freed handle is an
    /// error, and so is a borrowed one (read-only). Counted in `maps`.
    result<std::span<std::uint8_t>> map(const resource& r) {
        auto m = writable(r, "map");
        if (!m) return make_unexpected(m.error());
        mem_.metrics.maps++;
        return std::span<std::uint8_t>((*m)->data(), (*m)->size());
    }
    /// Host-visible resident memory, given back: the vector that `adopt`
    /// took over for `r`, returned without a copy with what dispatches wrote
    /// into it, and `r` freed (`has_reclaim`). Refused, changing nothing, for
    /// a foreign or freed handle, memory that was allocated, borrowed or
    /// adopted from another vector type, or memory in use on another thread.
    /// The bytes count as `bytes_reclaimed`, not `bytes_downloaded`.
    template <class T>
        requires std::is_trivially_copyable_v<T>
    result<std::vector<T>> reclaim(const resource& r) {
        return mem_.template reclaim<T>(r);
    }
    /// Host-visible resident memory, read-only: the caller's elements `v`
    /// become a resource without a copy, valid while the caller keeps them
    /// alive and unchanged (until the resource is freed). Dispatches may bind
    /// it to `read` and `uniform` buffers only; uploads and maps are refused.
    /// Its bytes count as `bytes_borrowed` (not in `live_bytes` or the
    /// budget: the backend holds no memory for them). What `cudaHostRegister`
    /// does for a GPU, for data a builder already made.
    template <class T>
        requires std::is_trivially_copyable_v<T>
    result<resource> borrow(std::span<const T> v) {
        return mem_.borrow(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(v.data()), v.size_bytes()));
    }

    /// Caps the bytes held in resident allocations (0, the default: no cap).
    /// An allocation past it fails with `out_of_memory` and changes nothing.
    void set_resident_budget(std::uint64_t bytes) { mem_.set_budget(bytes); }
    /// The resident byte budget (0: none).
    std::uint64_t resident_budget() const { return mem_.budget(); }
    /// Bytes held in live resident allocations.
    std::uint64_t resident_bytes() const { return mem_.metrics.live_bytes.load(); }

    /// Test-only fault injection (see `vyre::testing::faults`).
    testing::fault_injector& fault_injection() { return mem_.faults; }

    /// Uploads the whole resource (`d` must be exactly its size).
    result<void> upload(const resource& r, bytes_view d) {
        VYRE_TRY(upload_fault("upload"));
        auto m = writable(r, "upload");
        if (!m) return make_unexpected(m.error());
        VYRE_TRY(check_upload_size(d.size(), (*m)->size()));
        std::copy(d.begin(), d.end(), (*m)->begin());
        mem_.metrics.bytes_uploaded += d.size();
        mem_.metrics.upload_calls++;
        return {};
    }
    /// Uploads `d` at byte `offset`.
    result<void> upload_at(const resource& r, std::uint64_t offset, bytes_view d) {
        VYRE_TRY(upload_fault("upload_at"));
        auto m = mem_.get_range(r, offset, d.size(), "upload_at");
        if (!m) return make_unexpected(m.error());
        VYRE_TRY(check_writable(**m, "upload_at"));
        std::copy(d.begin(), d.end(), (*m)->begin() + static_cast<std::ptrdiff_t>(offset));
        mem_.metrics.bytes_uploaded += d.size();
        mem_.metrics.upload_calls++;
        return {};
    }
    /// Uploads many resources as one staging operation: all are checked first,
    /// and nothing is written unless every upload is valid.
    result<void> upload_many(std::span<const upload_op<resource>> ops) {
        VYRE_TRY(upload_fault("upload_many"));
        std::vector<std::shared_ptr<host_block>> dst;
        dst.reserve(ops.size());
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            auto m = writable(ops[i].resource, "upload_many");
            if (!m) return fail(m.error().code(), "upload " + std::to_string(i) + " of " + m.error().message(), m.error().fix());
            VYRE_TRY(check_upload_size(ops[i].data.size(), (*m)->size(), static_cast<long>(i)));
            dst.push_back(*m);
            total += ops[i].data.size();
        }
        for (std::size_t i = 0; i < ops.size(); ++i) std::copy(ops[i].data.begin(), ops[i].data.end(), dst[i]->begin());
        mem_.metrics.bytes_uploaded += total;
        mem_.metrics.upload_calls++;
        return {};
    }
    /// Downloads the whole resource.
    result<bytes> download(const resource& r) {
        auto m = mem_.get(r, "download");
        if (!m) return make_unexpected(m.error());
        mem_.metrics.bytes_downloaded += (*m)->size();
        mem_.metrics.download_calls++;
        return bytes((*m)->begin(), (*m)->end());
    }
    /// Downloads the whole resource into `out` (exactly its size).
    result<void> download_into(const resource& r, mutable_bytes_view out) {
        auto m = mem_.get(r, "download_into");
        if (!m) return make_unexpected(m.error());
        VYRE_TRY(check_download_size(out.size(), (*m)->size()));
        std::copy((*m)->begin(), (*m)->end(), out.begin());
        mem_.metrics.bytes_downloaded += out.size();
        mem_.metrics.download_calls++;
        return {};
    }
    /// Downloads `len` bytes from `offset` (only that range moves).
    result<bytes> download_range(const resource& r, std::uint64_t offset, std::uint64_t len) {
        auto m = mem_.get_range(r, offset, len, "download_range");
        if (!m) return make_unexpected(m.error());
        auto b = (*m)->begin() + static_cast<std::ptrdiff_t>(offset);
        mem_.metrics.bytes_downloaded += len;
        mem_.metrics.download_calls++;
        return bytes(b, b + static_cast<std::ptrdiff_t>(len));
    }
    /// Downloads `out.size()` bytes from `offset` into `out`.
    result<void> download_range_into(const resource& r, std::uint64_t offset, mutable_bytes_view out) {
        auto m = mem_.get_range(r, offset, out.size(), "download_range_into");
        if (!m) return make_unexpected(m.error());
        auto b = (*m)->begin() + static_cast<std::ptrdiff_t>(offset);
        std::copy(b, b + static_cast<std::ptrdiff_t>(out.size()), out.begin());
        mem_.metrics.bytes_downloaded += out.size();
        mem_.metrics.download_calls++;
        return {};
    }

    /// Runs `p` over resident resources: one per non-workgroup buffer, in
    /// declaration order. Nothing is zeroed: each buffer is the resource's memory.
    result<void> dispatch_resident(const ir::program& p, std::span<const resource> rs, const dispatch_config& c = {}) {
        auto cp = prepared(p, "dispatch_resident");
        if (!cp) return make_unexpected(cp.error());
        std::vector<std::shared_ptr<host_block>> keep;
        std::vector<detail::bound_buffer> bound(p.buffers.size());
        VYRE_TRY(check_resource_count(p, rs.size(), "dispatch_resident"));
        std::size_t k = 0;
        for (std::size_t i = 0; i < p.buffers.size(); ++i) {
            const auto& d = p.buffers[i];
            if (d.acc == ir::access::workgroup) {
                bound[i] = {nullptr, d.count, d.type};
                continue;
            }
            auto m = mem_.get(rs[k], "dispatch_resident");
            if (!m)
                return fail(m.error().code(), m.error().message() + " (resource " + std::to_string(k) + ", buffer '" + d.name + "')",
                            m.error().fix());
            ++k;
            if ((*m)->read_only() && d.acc != ir::access::read && d.acc != ir::access::uniform)
                return fail(error_code::invalid_argument,
                            "dispatch_resident: resource " + std::to_string(k - 1) + " is borrowed read-only host memory, "
                            "bound to buffer '" + d.name + "' of program '" + p.name + "', which may be written",
                            "bind borrowed resources to read or uniform buffers only, or allocate and upload instead");
            auto count = bound_elements(p, d, (*m)->size(), "dispatch_resident");
            if (!count) return make_unexpected(count.error());
            bound[i] = {(*m)->data(), *count, d.type};
            keep.push_back(*m);
        }
        VYRE_TRY(run(**cp, bound, c));
        mem_.metrics.resident_dispatches++;
        return {};
    }

    // ---- lifecycle -----------------------------------------------------------

    /// Compiled-program cache counters.
    pipeline_cache_stats pipeline_cache_snapshot() const { return cache_.stats(); }
    /// Named counters: dispatches, resident_dispatches, bytes_uploaded, bytes_downloaded, ...
    metric_snapshot backend_metric_snapshot() const { return mem_.metrics.snapshot(); }
    /// Drops the compiled-program cache.
    result<void> shutdown() {
        cache_.clear();
        return {};
    }

protected:
    Self& self() { return static_cast<Self&>(*this); }

    /// `Self`'s native implementation of `op` (`Self::find_native`), or nullptr.
    static ops::erased_native_fn native_of(const ops::op_info& op) {
        if constexpr (requires { Self::find_native(op); })
            return reinterpret_cast<ops::erased_native_fn>(Self::find_native(op));
        else
            return nullptr;
    }

    /// The validated, compiled program, checked against the limits; with
    /// `what` (a dispatch) also the injected dispatch fault.
    result<std::shared_ptr<const compiled_program>> prepared(const ir::program& p, const char* what) {
        if (what && mem_.faults.strike(testing::fault_site::dispatch))
            return make_unexpected(testing::fault_injector::error(testing::fault_site::dispatch, what));
        auto cp = cache_.get(p, &native_of);
        if (!cp) return cp;
        VYRE_TRY(check_declared_sizes(p, limits()));
        return cp;
    }

    /// Fails when `b` is borrowed (read-only) memory; `what` names the operation.
    static result<void> check_writable(const host_block& b, const char* what) {
        if (!b.read_only()) return {};
        return fail(error_code::invalid_argument,
                    std::string(what) + ": the resource is borrowed read-only host memory (borrow)",
                    "allocate a resource to write, or change the borrowed data itself before borrowing it");
    }
    /// The bytes of a live resource that may be written.
    result<std::shared_ptr<host_block>> writable(const resource& r, const char* what) {
        auto m = mem_.get(r, what);
        if (!m) return m;
        VYRE_TRY(check_writable(**m, what));
        return m;
    }

    /// The injected upload fault, if one strikes now.
    result<void> upload_fault(const char* what) {
        if (mem_.faults.strike(testing::fault_site::upload))
            return make_unexpected(testing::fault_injector::error(testing::fault_site::upload, what));
        return {};
    }

    /// Runs a compiled program; running out of host memory midway is an error, not an exception.
    result<void> run(const compiled_program& cp, std::span<const bound_buffer> bound, const dispatch_config& c) {
        try {
            return self().execute(cp, bound, c);
        } catch (const std::bad_alloc&) {
            return fail(error_code::out_of_memory, "program '" + cp.source.name + "': host memory ran out while it ran",
                        "dispatch a smaller grid or free memory");
        }
    }

    host_memory mem_;
    program_cache cache_;
};

} // namespace vyre::detail
