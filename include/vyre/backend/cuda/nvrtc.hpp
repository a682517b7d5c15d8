#pragma once
/// \file vyre/backend/cuda/nvrtc.hpp
/// Run-time compilation of CUDA C++ with NVRTC (from the toolkit, linked by
/// the `vyre-cuda` library). NVRTC needs no GPU, so this works on any machine
/// with the toolkit: the lowering tests compile every conformance program
/// here for `sm_90`.

#include <cstdint>
#include <string>
#include <vector>

#include <vyre/core/result.hpp>

namespace vyre::cuda_nvrtc {

/// A compiled device image.
struct image {
    std::vector<char> cubin;  ///< machine code for the requested architecture
    std::string log;          ///< NVRTC's log (warnings), possibly empty
};

/// Compiles `source` (named `name` in diagnostics) for `sm_<arch>` with the
/// lowering's options (`cuda_lowering::nvrtc_options()`) and the toolkit's
/// include directory. Errors are `compile_failed` with NVRTC's log.
result<image> compile(const std::string& source, const std::string& name, std::uint32_t arch);

/// NVRTC's version as "major.minor".
std::string version();

/// The include directory handed to NVRTC (it needs `cuda_fp16.h` and
/// `cuda_bf16.h`): `$VYRE_CUDA_INCLUDE` when set; else the first directory
/// holding both headers among the one beside the loaded libnvrtc (the headers
/// that match its version), the one found at build time, `$CUDA_HOME/include`,
/// `$CUDA_PATH/include` and `/usr/local/cuda/include`. The error lists what
/// was tried.
result<std::string> include_dir();

} // namespace vyre::cuda_nvrtc
