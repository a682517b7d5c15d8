#pragma once
/// \file vyre/backend/capabilities.hpp
/// Capabilities as tag types (a backend lists the ones it has in
/// `static constexpr auto capabilities = boost::hana::tuple_t<...>`), device
/// limits, and the device profile.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/hana/contains.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

namespace vyre {

/// Capability tags. Each has a stable `name`.
namespace cap {
#define VYRE_CAPABILITY(tag) \
    struct tag { static constexpr std::string_view name = #tag; };
VYRE_CAPABILITY(subgroup_ops)
VYRE_CAPABILITY(f16)
VYRE_CAPABILITY(bf16)
VYRE_CAPABILITY(tensor_cores)
VYRE_CAPABILITY(async_compute)
VYRE_CAPABILITY(indirect_dispatch)
VYRE_CAPABILITY(speculation)
VYRE_CAPABILITY(persistent_threads)
VYRE_CAPABILITY(grid_sync)
VYRE_CAPABILITY(resident_dispatch)
VYRE_CAPABILITY(host_visible_memory)
VYRE_CAPABILITY(distributed)
VYRE_CAPABILITY(collectives)
#undef VYRE_CAPABILITY

/// Every capability tag, for enumeration.
inline constexpr auto all = boost::hana::tuple_t<subgroup_ops, f16, bf16, tensor_cores, async_compute,
                                                 indirect_dispatch, speculation, persistent_threads,
                                                 grid_sync, resident_dispatch, host_visible_memory, distributed,
                                                 collectives>;
} // namespace cap

/// True when backend type B declares capability C (compile time).
template <class B, class C>
inline constexpr bool has_capability_v =
    decltype(boost::hana::contains(B::capabilities, boost::hana::type_c<C>))::value;

/// Names of the capabilities B declares, in `cap::all` order.
template <class B>
std::vector<std::string> capability_names() {
    std::vector<std::string> out;
    boost::hana::for_each(cap::all, [&](auto t) {
        using C = typename decltype(t)::type;
        if constexpr (has_capability_v<B, C>) out.emplace_back(C::name);
    });
    return out;
}

/// Hardware or implementation limits of a backend instance.
struct device_limits {
    std::array<std::uint32_t, 3> max_workgroup_size{1024, 1024, 64};
    std::array<std::uint32_t, 3> max_workgroups{0xffffffffu, 65535, 65535};
    std::uint32_t max_invocations_per_workgroup = 1024;
    std::uint32_t subgroup_size = 1;
    std::uint64_t max_storage_buffer_bytes = 1ull << 32;
    std::uint64_t max_workgroup_bytes = 48 * 1024;
};

/// A description of the device behind a backend instance.
struct device_profile {
    std::string backend;              ///< backend id
    std::string device;               ///< device name
    std::vector<std::string> capabilities;
    device_limits limits;

    /// Multi-line human-readable form.
    std::string to_string() const {
        std::string s = "backend: " + backend + "\ndevice: " + device + "\ncapabilities:";
        for (const auto& c : capabilities) s += " " + c;
        if (capabilities.empty()) s += " (none)";
        auto arr = [](const std::array<std::uint32_t, 3>& a) {
            return std::to_string(a[0]) + "x" + std::to_string(a[1]) + "x" + std::to_string(a[2]);
        };
        s += "\nmax workgroup size: " + arr(limits.max_workgroup_size);
        s += "\nmax workgroups: " + arr(limits.max_workgroups);
        s += "\nmax invocations per workgroup: " + std::to_string(limits.max_invocations_per_workgroup);
        s += "\nsubgroup size: " + std::to_string(limits.subgroup_size);
        s += "\nmax storage buffer bytes: " + std::to_string(limits.max_storage_buffer_bytes);
        s += "\n";
        return s;
    }
};

} // namespace vyre
