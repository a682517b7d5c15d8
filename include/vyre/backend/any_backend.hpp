#pragma once
/// \file vyre/backend/any_backend.hpp
/// `vyre::any_backend`: the one type-erased backend, for choosing a backend
/// by id at run time (the CLIs' `--backend`). It erases dispatch, lifecycle
/// and queries; resident memory stays with the concrete, templated types so
/// generic code never pays for erasure.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/hana/tuple.hpp>

#include <vyre/backend/concepts.hpp>
#include <vyre/backend/provided.hpp>

namespace vyre {

/// A dispatch backend chosen at run time. Models `dispatch_backend`.
class any_backend {
public:
    /// No static capabilities: ask `capability_names()` at run time.
    static constexpr auto capabilities = boost::hana::tuple_t<>;

    /// Wraps a concrete backend (moved in).
    template <dispatch_backend B>
    explicit any_backend(std::unique_ptr<B> b) : impl_(std::make_unique<model<B>>(std::move(b))) {}

    std::string_view id() const { return impl_->id(); }
    std::string_view version() const { return impl_->version(); }
    device_limits limits() const { return impl_->limits(); }
    /// Runs `p` (see `dispatch_backend`).
    result<std::vector<bytes>> dispatch(const ir::program& p, std::span<const bytes_view> in,
                                        const dispatch_config& c = {}) {
        return impl_->dispatch(p, in, c);
    }
    /// Compiles ahead of time.
    result<void> prepare(const ir::program& p) { return impl_->prepare(p); }
    /// Device profile of the wrapped backend.
    vyre::device_profile device_profile() const { return impl_->profile(); }
    /// Capabilities of the wrapped backend.
    std::vector<std::string> capability_names() const { return impl_->profile().capabilities; }
    /// Catalogue ops the wrapped backend runs natively.
    std::vector<std::string> supported_ops() const { return impl_->supported_ops(); }
    /// Counters of the wrapped backend.
    metric_snapshot backend_metric_snapshot() const { return impl_->metrics(); }
    /// Cache counters of the wrapped backend.
    pipeline_cache_stats pipeline_cache_snapshot() const { return impl_->cache(); }

private:
    struct concept_t {
        virtual ~concept_t() = default;
        virtual std::string_view id() const = 0;
        virtual std::string_view version() const = 0;
        virtual device_limits limits() const = 0;
        virtual result<std::vector<bytes>> dispatch(const ir::program&, std::span<const bytes_view>,
                                                    const dispatch_config&) = 0;
        virtual result<void> prepare(const ir::program&) = 0;
        virtual vyre::device_profile profile() const = 0;
        virtual std::vector<std::string> supported_ops() const = 0;
        virtual metric_snapshot metrics() const = 0;
        virtual pipeline_cache_stats cache() const = 0;
    };
    template <class B>
    struct model final : concept_t {
        explicit model(std::unique_ptr<B> b) : b_(std::move(b)) {}
        std::string_view id() const override { return b_->id(); }
        std::string_view version() const override { return b_->version(); }
        device_limits limits() const override { return b_->limits(); }
        result<std::vector<bytes>> dispatch(const ir::program& p, std::span<const bytes_view> in,
                                            const dispatch_config& c) override {
            return b_->dispatch(p, in, c);
        }
        result<void> prepare(const ir::program& p) override { return vyre::prepare(*b_, p); }
        vyre::device_profile profile() const override { return get_device_profile(*b_); }
        std::vector<std::string> supported_ops() const override { return vyre::supported_ops(*b_); }
        metric_snapshot metrics() const override { return vyre::backend_metric_snapshot(*b_); }
        pipeline_cache_stats cache() const override { return vyre::pipeline_cache_snapshot(*b_); }
        std::unique_ptr<B> b_;
    };
    std::unique_ptr<concept_t> impl_;
};

static_assert(check_dispatch_backend<any_backend>());

} // namespace vyre
