// NVRTC glue of the cuda backend (see vyre/backend/cuda/nvrtc.hpp).
#include <vyre/backend/cuda/nvrtc.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include <dlfcn.h>
#include <nvrtc.h>

#include <vyre/backend/cuda/lowering.hpp>

#ifndef VYRE_CUDA_INCLUDE_DIR
#define VYRE_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace vyre::cuda_nvrtc {

namespace {

namespace fs = std::filesystem;

bool has_toolkit_headers(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "cuda_fp16.h", ec) && fs::is_regular_file(dir / "cuda_bf16.h", ec);
}

// The include directories beside the libnvrtc this process loaded: the
// headers that match NVRTC's version (toolkit layout lib/ or lib64/ next to
// include/, or a distribution's /usr/lib/<triple>/ next to /usr/include).
std::vector<fs::path> beside_loaded_nvrtc() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&nvrtcVersion), &info) == 0 || info.dli_fname == nullptr) return {};
    std::error_code ec;
    fs::path lib = fs::canonical(info.dli_fname, ec);
    if (ec) lib = info.dli_fname;
    const fs::path dir = lib.parent_path();
    return {dir.parent_path() / "include", dir.parent_path().parent_path() / "include"};
}

} // namespace

result<std::string> include_dir() {
    if (const char* e = std::getenv("VYRE_CUDA_INCLUDE"); e && *e) {
        if (has_toolkit_headers(e)) return std::string(e);
        return fail(error_code::compile_failed,
                    std::string("VYRE_CUDA_INCLUDE='") + e + "' has no cuda_fp16.h and cuda_bf16.h",
                    "point VYRE_CUDA_INCLUDE at the CUDA toolkit's include directory, or unset it");
    }
    std::vector<fs::path> tried = beside_loaded_nvrtc();
    tried.emplace_back(VYRE_CUDA_INCLUDE_DIR);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* e = std::getenv(var); e && *e) tried.push_back(fs::path(e) / "include");
    tried.emplace_back("/usr/local/cuda/include");
    std::string list;
    for (const auto& d : tried) {
        if (has_toolkit_headers(d)) return d.lexically_normal().string();
        list += (list.empty() ? "" : ", ") + d.lexically_normal().string();
    }
    return fail(error_code::compile_failed, "no CUDA toolkit include directory with cuda_fp16.h found (tried " + list + ")",
                "set VYRE_CUDA_INCLUDE to the toolkit's include directory");
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
    auto headers = include_dir();
    if (!headers) return make_unexpected(headers.error());
    std::vector<std::string> opts = cuda_lowering::nvrtc_options();
    opts.push_back("--gpu-architecture=sm_" + std::to_string(arch));
    opts.push_back("-I" + *headers);
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
