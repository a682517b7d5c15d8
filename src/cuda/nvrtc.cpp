// NVRTC glue of the cuda backend (see vyre/backend/cuda/nvrtc.hpp).
#include <vyre/backend/cuda/nvrtc.hpp>

#include <cstdlib>
#include <memory>

#include <nvrtc.h>

#include <vyre/backend/cuda/lowering.hpp>

#ifndef VYRE_CUDA_INCLUDE_DIR
#define VYRE_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace vyre::cuda_nvrtc {

std::string include_dir() {
    if (const char* e = std::getenv("VYRE_CUDA_INCLUDE"); e && *e) return e;
    return VYRE_CUDA_INCLUDE_DIR;
}

std::string version() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
    return std::to_string(major) + "." + std::to_string(minor);
}

result<image> compile(const std::string& source, const std::string& name, std::uint32_t arch) {
    nvrtcProgram prog = nullptr;
    if (auto r = nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
        r != NVRTC_SUCCESS)
        return fail(error_code::compile_failed, "NVRTC could not create program '" + name + "': " + nvrtcGetErrorString(r),
                    "check that the CUDA toolkit's libnvrtc matches its headers");
    std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
    std::vector<std::string> opts = cuda_lowering::nvrtc_options();
    opts.push_back("--gpu-architecture=sm_" + std::to_string(arch));
    opts.push_back("-I" + include_dir());
    std::vector<const char*> argv;
    for (const auto& o : opts) argv.push_back(o.c_str());
    const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    image out;
    std::size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        out.log.resize(log_size);
        nvrtcGetProgramLog(prog, out.log.data());
        out.log.resize(log_size - 1);
    }
    if (r != NVRTC_SUCCESS)
        return fail(error_code::compile_failed,
                    "NVRTC failed on program '" + name + "' for sm_" + std::to_string(arch) + " (" +
                        nvrtcGetErrorString(r) + "):\n" + out.log,
                    "this is a bug in the cuda lowering (the program was valid); please report it with the program");
    std::size_t n = 0;
    if (nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        return fail(error_code::compile_failed, "NVRTC produced no cubin for program '" + name + "'",
                    "compile for a real architecture (sm_XX), not a virtual one");
    out.cubin.resize(n);
    nvrtcGetCUBIN(prog, out.cubin.data());
    return out;
}

} // namespace vyre::cuda_nvrtc
