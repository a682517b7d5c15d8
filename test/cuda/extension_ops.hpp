#pragma once
// Two extension ops for the cuda tests (vyre/ops/extension.hpp): one with a
// native `cuda` implementation (a device-to-device copy enqueued on the
// dispatch's stream) and one without (refused on cuda).
#include <algorithm>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include <vyre/backend/cuda.hpp>
#include <vyre/ops/extension.hpp>

namespace vyre::test {

/// dst = src (the first min(len) bytes); native on cuda.
struct cuda_copy_op {
    static constexpr std::string_view name = "test_cuda_copy";
    static constexpr std::string_view summary = "dst[i] = src[i] (a test extension op with a cuda implementation)";
    static std::vector<ops::param> signature() {
        return {{ops::param_kind::buffer, "src", false, ir::scalar_type::u32},
                {ops::param_kind::buffer, "dst", true, ir::scalar_type::u32}};
    }
    static result<void> reference(std::span<ops::op_arg> a) {
        const std::size_t n = std::min(a[0].bytes.size(), a[1].bytes.size());
        if (n) std::memmove(a[1].bytes.data(), a[0].bytes.data(), n);
        return {};
    }
};

/// The same meaning, with no cuda implementation.
struct host_only_op : cuda_copy_op {
    static constexpr std::string_view name = "test_host_only";
};

} // namespace vyre::test

template <>
struct vyre::ops::native_op<vyre::cuda, vyre::test::cuda_copy_op> {
    static int run(const vyre::cuda_op_arg* a, std::size_t, void* stream) {
        const std::size_t n = std::min(a[0].bytes, a[1].bytes);
        if (n == 0) return 0;
        return static_cast<int>(
            cudaMemcpyAsync(a[1].ptr, a[0].ptr, n, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
    }
};

namespace vyre::test {
/// Registers both test ops (idempotent).
inline void register_cuda_test_ops() {
    REQUIRE(ops::register_op<cuda_copy_op, vyre::cuda>().has_value());
    REQUIRE(ops::register_op<host_only_op>().has_value());
}
} // namespace vyre::test
