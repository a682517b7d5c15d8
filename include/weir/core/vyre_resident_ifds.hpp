#pragma once
/// \file weir/core/vyre_resident_ifds.hpp
/// `weir::vyre_resident_ifds<B>`: adapts any `vyre::resident_backend` to
/// `weir::ifds_resident_dispatch`. Every call forwards inline to the backend
/// (no virtual calls, no copies); sequences use vyre's provided operations,
/// so a backend's native sequence support (one fence, graph replay) is used.

#include <vector>

#include <vyre/backend/concepts.hpp>
#include <vyre/backend/provided.hpp>
#include <weir/core/resident_dispatch.hpp>

namespace weir {

/// A vyre resident backend seen as an IFDS resident dispatcher. Holds a
/// reference: the backend must outlive the adapter.
template <vyre::resident_backend B>
class vyre_resident_ifds {
public:
    using resource = typename B::resource;

    explicit vyre_resident_ifds(B& b) : b_(&b) {}

    /// The wrapped backend.
    B& backend() const { return *b_; }

    std::string_view backend_id() const { return b_->id(); }
    std::string_view backend_version() const { return b_->version(); }
    /// Threads for the solver's host work: the backend's own thread count,
    /// where it has one (`cpu`); otherwise `weir::host_threads` falls back
    /// to every core.
    unsigned host_threads() const
        requires requires(const B& b) { b.threads(vyre::dispatch_config{}); }
    {
        return b_->threads(vyre::dispatch_config{});
    }
    /// Catalogue ops the backend runs natively (lets the solver pick the op path).
    std::vector<std::string> supported_ops() const { return vyre::supported_ops(*b_); }
    /// Validates and compiles `p` ahead of its first dispatch (`vyre::prepare`).
    result<void> prepare(const vyre::ir::program& p) { return vyre::prepare(*b_, p); }
    result<resource> allocate(std::uint64_t n) { return b_->allocate(n); }
    result<void> free(const resource& r) { return b_->free(r); }
    /// Host-visible resident memory, where the backend has it
    /// (`vyre::cap::host_visible_memory`): `v` becomes resident without a copy.
    template <class T>
    result<resource> adopt(std::vector<T>&& v)
        requires vyre::has_host_visible_memory<B>
    {
        return b_->adopt(std::move(v));
    }
    /// Host-visible resident memory: the caller's data as a read-only resource, no copy.
    template <class T>
    result<resource> borrow(std::span<const T> v)
        requires vyre::has_host_visible_memory<B>
    {
        return b_->borrow(v);
    }
    /// Host-visible resident memory, given back: the vector that `adopt`
    /// took over for `r`, without a copy, and `r` freed (`vyre::has_reclaim`).
    template <class T>
    result<std::vector<T>> reclaim(const resource& r)
        requires vyre::has_reclaim<B>
    {
        return b_->template reclaim<T>(r);
    }
    /// Host-visible resident memory: the bytes of `r`, in place.
    result<std::span<std::uint8_t>> map(const resource& r)
        requires vyre::has_host_visible_memory<B>
    {
        return b_->map(r);
    }
    result<void> upload(const resource& r, bytes_view d) { return b_->upload(r, d); }
    result<void> upload_at(const resource& r, std::uint64_t off, bytes_view d) { return b_->upload_at(r, off, d); }
    result<void> upload_many(std::span<const vyre::upload_op<resource>> ops) { return b_->upload_many(ops); }
    result<bytes> download(const resource& r) { return b_->download(r); }
    result<void> download_into(const resource& r, mutable_bytes_view o) { return b_->download_into(r, o); }
    result<bytes> download_range(const resource& r, std::uint64_t off, std::uint64_t n) {
        return b_->download_range(r, off, n);
    }
    result<void> download_range_into(const resource& r, std::uint64_t off, mutable_bytes_view o) {
        return b_->download_range_into(r, off, o);
    }
    result<void> dispatch_resident(const vyre::ir::program& p, std::span<const resource> rs, grid_override g) {
        vyre::dispatch_config c;
        c.grid = g;
        return b_->dispatch_resident(p, rs, c);
    }
    result<void> upload_at_many(std::span<const vyre::write_range<resource>> w) { return vyre::upload_at_many(*b_, w); }
    result<void> download_ranges_into(std::span<const vyre::read_range<resource>> r,
                                      std::span<const mutable_bytes_view> o) {
        return vyre::download_ranges_into(*b_, r, o);
    }
    result<void> dispatch_resident_sequence_read_ranges_into(std::span<const dispatch_step<resource>> steps,
                                                             std::span<const vyre::read_range<resource>> r,
                                                             std::span<const mutable_bytes_view> o) {
        auto vs = to_vyre(steps);
        return vyre::dispatch_resident_sequence_read_ranges_into(
            *b_, std::span<const vyre::resident_step<resource>>(vs), r, o);
    }
    result<void> dispatch_resident_repeated_sequence_read_ranges_into(std::span<const dispatch_step<resource>> prefix,
                                                                      std::span<const dispatch_step<resource>> rep,
                                                                      std::uint64_t count,
                                                                      std::span<const vyre::read_range<resource>> r,
                                                                      std::span<const mutable_bytes_view> o) {
        auto vp = to_vyre(prefix), vr = to_vyre(rep);
        return vyre::dispatch_resident_repeated_sequence_read_ranges_into(
            *b_, std::span<const vyre::resident_step<resource>>(vp), std::span<const vyre::resident_step<resource>>(vr),
            count, r, o);
    }

private:
    static std::vector<vyre::resident_step<resource>> to_vyre(std::span<const dispatch_step<resource>> steps) {
        std::vector<vyre::resident_step<resource>> out;
        out.reserve(steps.size());
        for (const auto& s : steps) {
            vyre::dispatch_config c;
            c.grid = s.grid;
            out.push_back({s.program, s.resources, c});
        }
        return out;
    }
    B* b_;
};

} // namespace weir
