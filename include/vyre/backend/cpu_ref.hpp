#pragma once
/// \file vyre/backend/cpu_ref.hpp
/// `vyre::cpu_ref`: the reference backend. An exact, single-threaded
/// interpreter of the spec, and the whole resident contract on host memory.
/// It is the oracle every other backend is tested against.

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/hana/tuple.hpp>

#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/concepts.hpp>
#include <vyre/backend/config.hpp>
#include <vyre/backend/detail/host_backend.hpp>
#include <vyre/backend/detail/interpreter.hpp>
#include <vyre/core/result.hpp>

namespace vyre {

/// The reference backend (id `cpu-ref`). Thread-safe: one instance may be
/// used from several threads; resources belong to the instance that made them.
class cpu_ref : public detail::host_backend<cpu_ref> {
public:

    /// Capabilities: resident dispatch only (f16/bf16 are storage types everywhere).
    static constexpr auto capabilities = boost::hana::tuple_t<cap::resident_dispatch, cap::host_visible_memory>;

    /// Backend id.
    std::string_view id() const { return "cpu-ref"; }
    /// Implementation version (part of cache keys).
    std::string_view version() const { return "1.0.0"; }
    /// Device profile.
    vyre::device_profile device_profile() const {
        return {"cpu-ref", "host reference interpreter", capability_names<cpu_ref>(), limits()};
    }

    /// Runs a compiled program: every workgroup in order on this thread.
    result<void> execute(const detail::compiled_program& cp, std::span<const detail::bound_buffer> bound,
                         const dispatch_config& c) {
        auto shape = detail::launch_shape(cp.source, bound, c, limits());
        if (!shape) return make_unexpected(shape.error());
        detail::executor ex(cp, bound, shape->first, shape->second, c.step_budget);
        return ex.run();
    }
};

static_assert(check_host_visible_backend<cpu_ref>());
static_assert(has_reclaim<cpu_ref>, "cpu-ref gives adopted memory back (reclaim)");

} // namespace vyre
