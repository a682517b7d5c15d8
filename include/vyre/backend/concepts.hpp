#pragma once
/// \file vyre/backend/concepts.hpp
/// What a backend is: `dispatch_backend<B>` (run a program over host bytes)
/// and `resident_backend<B>` (own device-resident memory and dispatch over it).
/// A backend is a plain type; generic code is a template on it.
///
/// Every required operation is its own small concept, so that
/// `static_assert(vyre::check_resident_backend<B>())` fails with a sentence
/// naming the missing operation.

#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/config.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>

namespace vyre {

namespace detail {
template <class R, class T>
concept result_of = std::same_as<R, result<T>>;
} // namespace detail

// ---- dispatch_backend parts ----------------------------------------------

/// `b.id()` and `b.version()` name the backend.
template <class B>
concept has_identity = requires(const B& b) {
    { b.id() } -> std::convertible_to<std::string_view>;
    { b.version() } -> std::convertible_to<std::string_view>;
};
/// `B::capabilities` is a Hana tuple of capability tags and `b.limits()` gives the limits.
template <class B>
concept has_capabilities = requires(const B& b) {
    B::capabilities;
    { b.limits() } -> std::same_as<device_limits>;
};
/// `b.dispatch(program, inputs, config) -> result<std::vector<bytes>>` over borrowed inputs.
template <class B>
concept has_dispatch = requires(B& b, const ir::program& p, std::span<const bytes_view> in,
                                const dispatch_config& c) {
    { b.dispatch(p, in, c) } -> detail::result_of<std::vector<bytes>>;
};

/// A backend that runs programs over host bytes (spec "dispatch(program, inputs) -> outputs").
template <class B>
concept dispatch_backend = has_identity<B> && has_capabilities<B> && has_dispatch<B>;

// ---- resident_backend parts ----------------------------------------------

/// `typename B::resource`: a copyable, comparable handle to resident memory.
template <class B>
concept has_resource_type = requires { typename B::resource; } &&
                            std::regular<typename B::resource>;
/// `b.allocate(bytes) -> result<resource>` with exactly that byte length.
template <class B>
concept has_allocate = requires(B& b, std::uint64_t n) {
    { b.allocate(n) } -> detail::result_of<typename B::resource>;
};
/// `b.free(r) -> result<void>`.
template <class B>
concept has_free = requires(B& b, const typename B::resource& r) {
    { b.free(r) } -> detail::result_of<void>;
};
/// `b.upload(r, data)` (whole resource) and `b.upload_at(r, offset, data)` (a range).
template <class B>
concept has_upload = requires(B& b, const typename B::resource& r, bytes_view d, std::uint64_t off) {
    { b.upload(r, d) } -> detail::result_of<void>;
    { b.upload_at(r, off, d) } -> detail::result_of<void>;
};
/// `b.upload_many(ops)`: one logical staging operation for many uploads.
template <class B>
concept has_upload_many = requires(B& b, std::span<const upload_op<typename B::resource>> ops) {
    { b.upload_many(ops) } -> detail::result_of<void>;
};
/// `b.download(r) -> result<bytes>` and `b.download_into(r, out)`.
template <class B>
concept has_download = requires(B& b, const typename B::resource& r, mutable_bytes_view out) {
    { b.download(r) } -> detail::result_of<bytes>;
    { b.download_into(r, out) } -> detail::result_of<void>;
};
/// `b.download_range(r, off, len)` and `b.download_range_into(r, off, out)`: a real ranged transfer.
template <class B>
concept has_download_range = requires(B& b, const typename B::resource& r, std::uint64_t off,
                                      mutable_bytes_view out) {
    { b.download_range(r, off, off) } -> detail::result_of<bytes>;
    { b.download_range_into(r, off, out) } -> detail::result_of<void>;
};
/// `b.dispatch_resident(program, resources, config)`: one resource per
/// non-workgroup buffer, in declaration order.
template <class B>
concept has_dispatch_resident = requires(B& b, const ir::program& p,
                                         std::span<const typename B::resource> rs, const dispatch_config& c) {
    { b.dispatch_resident(p, rs, c) } -> detail::result_of<void>;
};
/// `b.backend_metric_snapshot()`: named counters (dispatches, bytes_uploaded, bytes_downloaded, ...).
template <class B>
concept has_metrics = requires(const B& b) {
    { b.backend_metric_snapshot() } -> std::same_as<metric_snapshot>;
};

/// A backend that owns resident memory and dispatches over it.
template <class B>
concept resident_backend = dispatch_backend<B> && has_resource_type<B> && has_allocate<B> && has_free<B> &&
                           has_upload<B> && has_upload_many<B> && has_download<B> &&
                           has_download_range<B> && has_dispatch_resident<B> && has_metrics<B>;

// ---- host-visible resident memory (capability `cap::host_visible_memory`) ----

/// `b.adopt(std::vector<T>&&) -> result<resource>`: a host vector becomes a
/// resident allocation of exactly its bytes without a copy;
/// `b.map(r) -> result<std::span<std::uint8_t>>`: the bytes of a resident
/// allocation, read and written in place (valid until `r` is freed); and
/// `b.borrow(std::span<const T>) -> result<resource>`: the caller's data as a
/// read-only resource, neither copied nor owned (the caller keeps it alive
/// and unchanged until the resource is freed). What a
/// builder makes in host memory is then resident as it is: the host backends
/// (`cpu`, `cpu-ref`) have it, the way pinned or managed memory is
/// host-visible on a GPU.
template <class B>
concept has_host_visible_memory =
    has_resource_type<B> && requires(B& b, const typename B::resource& r, std::vector<std::uint32_t>&& v,
                                     std::span<const std::uint32_t> view) {
        { b.adopt(std::move(v)) } -> detail::result_of<typename B::resource>;
        { b.map(r) } -> detail::result_of<std::span<std::uint8_t>>;
        { b.borrow(view) } -> detail::result_of<typename B::resource>;
    };

/// `b.template reclaim<T>(r) -> result<std::vector<T>>`: an optional part of
/// host-visible memory: the vector that `adopt` took over for `r`, given
/// back without a copy (with what dispatches wrote into it) and `r` freed. A
/// solver that adopts its result buffer then returns it as it is instead of
/// downloading a copy. The host backends have it.
template <class B>
concept has_reclaim = has_host_visible_memory<B> && requires(B& b, const typename B::resource& r) {
    { b.template reclaim<std::uint32_t>(r) } -> detail::result_of<std::vector<std::uint32_t>>;
};

/// A resident backend whose resident memory the host reads and writes in place.
template <class B>
concept host_visible_backend = resident_backend<B> && has_host_visible_memory<B>;

// ---- readable checks -------------------------------------------------------

/// `static_assert(check_dispatch_backend<B>())`: fails naming the missing operation.
template <class B>
consteval bool check_dispatch_backend() {
    static_assert(has_identity<B>, "not a vyre::dispatch_backend: missing `id()` / `version()` returning a string view");
    static_assert(has_capabilities<B>,
                  "not a vyre::dispatch_backend: missing `static constexpr capabilities` (a boost::hana::tuple_t of "
                  "vyre::cap tags) or `limits() -> vyre::device_limits`");
    static_assert(has_dispatch<B>, "not a vyre::dispatch_backend: missing `dispatch(const ir::program&, "
                                   "std::span<const bytes_view>, const dispatch_config&) -> result<std::vector<bytes>>`");
    return dispatch_backend<B>;
}

/// `static_assert(check_resident_backend<B>())`: fails naming the missing operation.
template <class B>
consteval bool check_resident_backend() {
    static_assert(check_dispatch_backend<B>());
    static_assert(has_resource_type<B>, "not a vyre::resident_backend: missing `typename B::resource` (copyable, ==)");
    static_assert(has_allocate<B>, "not a vyre::resident_backend: missing `allocate(std::uint64_t bytes) -> result<resource>`");
    static_assert(has_free<B>, "not a vyre::resident_backend: missing `free(const resource&) -> result<void>`");
    static_assert(has_upload<B>, "not a vyre::resident_backend: missing `upload(r, bytes_view)` or "
                                 "`upload_at(r, offset, bytes_view)` returning result<void>");
    static_assert(has_upload_many<B>, "not a vyre::resident_backend: missing `upload_many(std::span<const "
                                      "upload_op<resource>>) -> result<void>` (required: one staging operation)");
    static_assert(has_download<B>, "not a vyre::resident_backend: missing `download(r) -> result<bytes>` or "
                                   "`download_into(r, mutable_bytes_view) -> result<void>`");
    static_assert(has_download_range<B>,
                  "not a vyre::resident_backend: missing `download_range(r, offset, length) -> result<bytes>` or "
                  "`download_range_into(r, offset, mutable_bytes_view) -> result<void>` (required: a real ranged transfer)");
    static_assert(has_dispatch_resident<B>, "not a vyre::resident_backend: missing `dispatch_resident(const "
                                            "ir::program&, std::span<const resource>, const dispatch_config&) -> result<void>`");
    static_assert(has_metrics<B>, "not a vyre::resident_backend: missing `backend_metric_snapshot() -> metric_snapshot`");
    return resident_backend<B>;
}

/// `static_assert(check_host_visible_backend<B>())`: a resident backend that
/// declares `cap::host_visible_memory` and has its operations (the message
/// names what is missing).
template <class B>
consteval bool check_host_visible_backend() {
    static_assert(check_resident_backend<B>());
    static_assert(has_capability_v<B, cap::host_visible_memory>,
                  "not a vyre::host_visible_backend: `capabilities` does not list vyre::cap::host_visible_memory");
    static_assert(has_host_visible_memory<B>,
                  "not a vyre::host_visible_backend: missing `adopt(std::vector<T>&&) -> result<resource>`, "
                  "`map(const resource&) -> result<std::span<std::uint8_t>>` or "
                  "`borrow(std::span<const T>) -> result<resource>`");
    return host_visible_backend<B>;
}

} // namespace vyre
