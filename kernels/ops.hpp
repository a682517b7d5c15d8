#pragma once
// Precompiled kernels of the catalogue ops for the cuda backend (kernels/ops.cu,
// built by nvcc). Internal to the vyre-cuda library: plain types only, so
// that g++ translation units can call them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::cuda_kernels {

/// One bound op argument: a device buffer (pointer, byte length) or a u32 literal.
struct op_arg {
    void* ptr = nullptr;
    std::uint64_t bytes = 0;
    std::uint32_t literal = 0;
};

/// The catalogue ops that have a kernel here.
const std::vector<std::string>& names();

/// Enqueues op `name` over `args` (in the op's signature order) on `stream`
/// (a cudaStream_t). Returns a cudaError_t value (0: success), or -1 when
/// there is no kernel for `name`. Scratch memory comes from the stream's pool
/// and is freed in stream order, so this is legal inside graph capture.
int enqueue(std::string_view name, const op_arg* args, std::size_t n, void* stream);

} // namespace vyre::cuda_kernels
