#pragma once
/// \file weir/core/resident_dispatch.hpp
/// `weir::ifds_resident_dispatch<D>`: everything the resident IFDS solver
/// needs from a device, and nothing more. Any vyre resident backend models
/// it through `weir::vyre_resident_ifds<B>`; other implementations (a test
/// dispatcher, a user's own runtime) model it directly.
///
/// Required: identity, allocate/free, upload, upload_many (one staging
/// operation), download(_into), download_range(_into) (a real ranged
/// transfer) and `dispatch_resident(program, resources, grid_override)`.
/// Provided (free functions below, the member when present, else a fallback):
/// upload_at_many, download_ranges_into, the sequence forms, `prepare`
/// (readies a program before its first dispatch) and `host_threads` (how
/// many threads the solver's own host work may use).

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include <vyre/backend/config.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>

namespace weir {

using vyre::bytes;
using vyre::bytes_view;
using vyre::mutable_bytes_view;
using vyre::result;

/// A grid override: workgroups per axis, or the program's default.
using grid_override = std::optional<std::array<std::uint32_t, 3>>;

/// One dispatch of a resident sequence.
template <class Resource>
struct dispatch_step {
    const vyre::ir::program* program = nullptr;
    std::vector<Resource> resources;
    grid_override grid;
};

namespace detail {
template <class R, class T>
concept result_of = std::same_as<R, vyre::result<T>>;
} // namespace detail

/// The resident-dispatch contract of the IFDS solver.
template <class D>
concept ifds_resident_dispatch =
    requires { typename D::resource; } && std::regular<typename D::resource> &&
    requires(D& d, const typename D::resource& r, std::uint64_t n, bytes_view in, mutable_bytes_view out,
             std::span<const vyre::upload_op<typename D::resource>> ups, const vyre::ir::program& p,
             std::span<const typename D::resource> rs, grid_override g) {
        { d.backend_id() } -> std::convertible_to<std::string_view>;
        { d.backend_version() } -> std::convertible_to<std::string_view>;
        { d.allocate(n) } -> detail::result_of<typename D::resource>;
        { d.free(r) } -> detail::result_of<void>;
        { d.upload(r, in) } -> detail::result_of<void>;
        { d.upload_many(ups) } -> detail::result_of<void>;
        { d.download(r) } -> detail::result_of<bytes>;
        { d.download_into(r, out) } -> detail::result_of<void>;
        { d.download_range(r, n, n) } -> detail::result_of<bytes>;
        { d.download_range_into(r, n, out) } -> detail::result_of<void>;
        { d.dispatch_resident(p, rs, g) } -> detail::result_of<void>;
    };

/// A dispatcher with host-visible resident memory (optional; the host
/// backends through `vyre_resident_ifds`, `vyre::cap::host_visible_memory`):
/// `adopt(std::vector<T>&&)` makes a host vector resident without a copy,
/// `map(r)` gives a resource's bytes in place. The solvers then hand over
/// what they built for an upload (the row tables, IDE's bitset) instead of
/// copying it, and read results where they are.
template <class D>
concept adopts_host_memory =
    ifds_resident_dispatch<D> && requires(D& d, const typename D::resource& r, std::vector<std::uint32_t>&& v) {
        { d.adopt(std::move(v)) } -> detail::result_of<typename D::resource>;
        { d.map(r) } -> detail::result_of<std::span<std::uint8_t>>;
    };

/// A dispatcher with host-visible memory that also gives an adopted vector
/// back without a copy (`reclaim<std::uint32_t>(r)`, which frees `r`; the
/// host backends through `vyre_resident_ifds`, `vyre::has_reclaim`). The
/// IFDS solver then solves into a host vector it adopted and returns that
/// vector, instead of downloading a copy of the resident bitset.
template <class D>
concept reclaims_host_memory =
    adopts_host_memory<D> && requires(D& d, const typename D::resource& r) {
        { d.template reclaim<std::uint32_t>(r) } -> detail::result_of<std::vector<std::uint32_t>>;
    };

/// A dispatcher that can make the caller's data a read-only resource
/// without a copy (`borrow(std::span<const T>)`; the host backends through
/// `vyre_resident_ifds`). A solver whose layout must outlive it anyway then
/// borrows the layout's tables instead of uploading copies of them.
template <class D>
concept borrows_host_memory =
    ifds_resident_dispatch<D> && requires(D& d, std::span<const std::uint32_t> v) {
        { d.borrow(v) } -> detail::result_of<typename D::resource>;
    };

// ---- provided operations ------------------------------------------------------

/// Threads the solver's host work after a solve may use (completing the
/// derived rows, counting summary edges). Fallback: every core.
template <ifds_resident_dispatch D>
unsigned host_threads(const D& d) {
    if constexpr (requires { { d.host_threads() } -> std::convertible_to<unsigned>; })
        return std::max(1u, static_cast<unsigned>(d.host_threads()));
    else
        return std::max(1u, std::thread::hardware_concurrency());
}

/// Readies `p` for dispatch ahead of time (validation, compilation, a
/// backend's own preparation): the member when the dispatcher has one, else
/// nothing (the first dispatch then does it).
template <ifds_resident_dispatch D>
result<void> prepare(D& d, const vyre::ir::program& p) {
    if constexpr (requires { { d.prepare(p) } -> detail::result_of<void>; })
        return d.prepare(p);
    else
        return {};
}

/// Ranged writes. Fallback: `upload_at` when the dispatcher has it, else a
/// download-patch-upload of each resource (correct, but moves whole resources).
template <ifds_resident_dispatch D>
result<void> upload_at_many(D& d, std::span<const vyre::write_range<typename D::resource>> writes) {
    if constexpr (requires { d.upload_at_many(writes); }) {
        return d.upload_at_many(writes);
    } else {
        for (const auto& w : writes) {
            if constexpr (requires { d.upload_at(w.resource, w.offset, w.data); }) {
                VYRE_TRY(d.upload_at(w.resource, w.offset, w.data));
            } else {
                auto all = d.download(w.resource);
                if (!all) return vyre::make_unexpected(all.error());
                if (w.offset > all->size() || w.data.size() > all->size() - w.offset)
                    return vyre::fail(vyre::error_code::invalid_argument, "upload_at_many: write past the end",
                                      "keep offset + length within the resource");
                std::copy(w.data.begin(), w.data.end(), all->begin() + static_cast<std::ptrdiff_t>(w.offset));
                VYRE_TRY(d.upload(w.resource, *all));
            }
        }
        return {};
    }
}

/// Ranged reads into caller storage. Fallback: one `download_range_into` each.
template <ifds_resident_dispatch D>
result<void> download_ranges_into(D& d, std::span<const vyre::read_range<typename D::resource>> ranges,
                                  std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires { d.download_ranges_into(ranges, outputs); }) {
        return d.download_ranges_into(ranges, outputs);
    } else {
        if (ranges.size() != outputs.size())
            return vyre::fail(vyre::error_code::invalid_argument, "download_ranges_into: ranges and outputs differ in number",
                              "pass one output per range");
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            if (outputs[i].size() != ranges[i].length)
                return vyre::fail(vyre::error_code::invalid_argument,
                                  "download_ranges_into: output " + std::to_string(i) + " is not the range's length",
                                  "size each output to its range");
            VYRE_TRY(d.download_range_into(ranges[i].resource, ranges[i].offset, outputs[i]));
        }
        return {};
    }
}

/// Runs the steps in order, then the ranged reads. Fallback: one dispatch each.
template <ifds_resident_dispatch D>
result<void> dispatch_resident_sequence_read_ranges_into(
    D& d, std::span<const dispatch_step<typename D::resource>> steps,
    std::span<const vyre::read_range<typename D::resource>> ranges, std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires { d.dispatch_resident_sequence_read_ranges_into(steps, ranges, outputs); }) {
        return d.dispatch_resident_sequence_read_ranges_into(steps, ranges, outputs);
    } else {
        for (const auto& s : steps)
            VYRE_TRY(d.dispatch_resident(*s.program, std::span<const typename D::resource>(s.resources), s.grid));
        return download_ranges_into(d, ranges, outputs);
    }
}

/// Runs `prefix` once and `repeated` `count` times, then the ranged reads.
template <ifds_resident_dispatch D>
result<void> dispatch_resident_repeated_sequence_read_ranges_into(
    D& d, std::span<const dispatch_step<typename D::resource>> prefix,
    std::span<const dispatch_step<typename D::resource>> repeated, std::uint64_t count,
    std::span<const vyre::read_range<typename D::resource>> ranges, std::span<const mutable_bytes_view> outputs) {
    if constexpr (requires {
                      d.dispatch_resident_repeated_sequence_read_ranges_into(prefix, repeated, count, ranges, outputs);
                  }) {
        return d.dispatch_resident_repeated_sequence_read_ranges_into(prefix, repeated, count, ranges, outputs);
    } else {
        for (const auto& s : prefix)
            VYRE_TRY(d.dispatch_resident(*s.program, std::span<const typename D::resource>(s.resources), s.grid));
        for (std::uint64_t k = 0; k < count; ++k)
            for (const auto& s : repeated)
                VYRE_TRY(d.dispatch_resident(*s.program, std::span<const typename D::resource>(s.resources), s.grid));
        return download_ranges_into(d, ranges, outputs);
    }
}

} // namespace weir
