#pragma once
/// \file vyre/backends.hpp
/// The backends this build enables, as a compile-time list (tests are
/// instantiated over it) and by id at run time (`make_backend`).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <vyre/backend/any_backend.hpp>
#include <vyre/backend/cpu.hpp>
#include <vyre/backend/cpu_ref.hpp>
#ifdef VYRE_WITH_CUDA
#include <vyre/backend/cuda.hpp>
#endif

namespace vyre {

/// Every backend type enabled in this build, the reference first. `cuda` is
/// among them where the program is built with the vyre-cuda library
/// (`VYRE_WITH_CUDA`).
#ifdef VYRE_WITH_CUDA
inline constexpr auto enabled_backends = boost::hana::tuple_t<cpu_ref, cpu, cuda>;
#else
inline constexpr auto enabled_backends = boost::hana::tuple_t<cpu_ref, cpu>;
#endif

/// Ids of the enabled backends, in `enabled_backends` order.
inline std::vector<std::string> backend_ids() {
    std::vector<std::string> ids;
    boost::hana::for_each(enabled_backends, [&](auto t) {
        using B = typename decltype(t)::type;
        ids.emplace_back(B{}.id());
    });
    return ids;
}

/// A new instance of the backend called `id`, type-erased.
inline result<any_backend> make_backend(std::string_view id) {
    std::optional<any_backend> out;
    boost::hana::for_each(enabled_backends, [&](auto t) {
        using B = typename decltype(t)::type;
        auto b = std::make_unique<B>();
        if (!out && b->id() == id) out.emplace(std::move(b));
    });
    if (!out) {
        std::string known;
        for (const auto& k : backend_ids()) known += (known.empty() ? "" : ", ") + k;
        return fail(error_code::unsupported, "no backend called '" + std::string(id) + "' in this build",
                    "use one of: " + known);
    }
    return std::move(*out);
}

} // namespace vyre
