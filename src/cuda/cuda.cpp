// The cuda backend (see vyre/backend/cuda.hpp): CUDA runtime for memory,
// streams, events and graphs; the driver API (through the runtime's entry
// points, so nothing links libcuda and a machine without a driver still runs
// the program) for loading NVRTC's cubins and launching them.
#include <vyre/backend/cuda.hpp>

#include <algorithm>
#include <chrono>
#include <typeindex>
#include <typeinfo>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <cuda.h>
#include <cuda_runtime.h>

#include <vyre/backend/cuda/lowering.hpp>
#include <vyre/backend/cuda/nvrtc.hpp>
#include <vyre/backend/detail/host_memory.hpp>
#include <vyre/ir/hash.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/registry.hpp>

#include "../../kernels/ops.hpp"

namespace vyre {
namespace detail {

/// A compiled program: a loaded module and its kernel, or an op (a
/// catalogue op's kernel, or an extension op's native implementation).
struct cuda_module {
    ir::program program;
    bool counts_steps = false;  ///< lowered with step counting (dispatches with a step budget)
    const ops::op_info* op = nullptr;  ///< set for an op-bodied program
    cuda::native_op_fn native = nullptr;  ///< an extension op's registered implementation
    CUmodule module = nullptr;
    CUfunction kernel = nullptr;
    std::uint64_t shared_bytes = 0;
    std::vector<std::size_t> param_buffers;
};

/// What `cuda::supported_ops` lists: the catalogue ops with a kernel in
/// kernels/ops.cu, then the extension ops with a registered native `cuda`
/// implementation.
std::vector<std::string> supported_op_names() {
    std::vector<std::string> v = cuda_kernels::names();
    for (auto& n : ops::registry::instance().native_names(std::type_index(typeid(cuda)))) v.push_back(std::move(n));
    return v;
}

namespace {

using clock = std::chrono::steady_clock;
std::uint64_t ns_since(clock::time_point t0) {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count());
}

bool is_sticky(cudaError_t e) {
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorDevicesUnavailable:
        return true;
    default:
        return false;
    }
}

std::string cuda_words(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

using fn_module_load = CUresult (*)(CUmodule*, const void*);
using fn_module_unload = CUresult (*)(CUmodule);
using fn_module_get_function = CUresult (*)(CUfunction*, CUmodule, const char*);
using fn_launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void**, void**);
using fn_func_set_attribute = CUresult (*)(CUfunction, CUfunction_attribute, int);
using fn_error_string = CUresult (*)(CUresult, const char**);

struct allocation {
    void* ptr = nullptr;
    std::uint64_t size = 0;
};

/// What a launch's status words are checked against.
struct launch_info {
    std::string program;
    std::uint64_t budget = 0;
};

/// Two timing events, destroyed with the pair.
struct event_pair {
    cudaEvent_t start = nullptr, stop = nullptr;
    event_pair() = default;
    event_pair(const event_pair&) = delete;
    event_pair& operator=(const event_pair&) = delete;
    ~event_pair() {
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
    }
};

/// `n` rounded up to a multiple of 16 (staging offsets stay aligned).
constexpr std::uint64_t align16(std::uint64_t n) { return (n + 15) & ~std::uint64_t(15); }

/// One bound buffer on the device.
struct device_buffer {
    void* ptr = nullptr;
    std::uint64_t count = 0;
    ir::scalar_type type{};
};

} // namespace

struct cuda_state {
    int device = 0;
    std::uint64_t instance = next_instance_id();
    mutable std::mutex mu;

    bool initialised = false;
    std::optional<backend_error> init_error;
    bool lost = false;
    std::string lost_reason;
    std::uint32_t context = 1;

    cudaDeviceProp prop{};
    std::uint32_t arch = 0;
    cudaStream_t stream = nullptr;
    std::uint32_t* status = nullptr;  ///< status words, `status_slots` launches' worth
    std::uint32_t status_slots = 0;
    void* pinned = nullptr;
    std::uint64_t pinned_size = 0;

    fn_module_load module_load = nullptr;
    fn_module_unload module_unload = nullptr;
    fn_module_get_function get_function = nullptr;
    fn_launch launch = nullptr;
    fn_func_set_attribute set_attribute = nullptr;
    fn_error_string error_string = nullptr;

    std::unordered_map<std::uint64_t, allocation> allocs;
    std::uint64_t next_id = 1;
    std::unordered_map<std::uint64_t, std::shared_ptr<cuda_module>> modules;
    std::uint64_t hits = 0, misses = 0;
    std::map<std::string, std::uint64_t> metrics;

    // ---- errors ---------------------------------------------------------------

    unexpected<backend_error> cuda_fail(cudaError_t e, const std::string& what) {
        if (is_sticky(e)) {
            lost = true;
            lost_reason = what + ": " + cuda_words(e);
            return fail(error_code::device_lost, "cuda: " + lost_reason + "; the device context is unusable",
                        "call try_recover() (it resets the device; every resource of this backend becomes invalid)");
        }
        if (e == cudaErrorMemoryAllocation)
            return fail(error_code::out_of_memory, "cuda: " + what + ": " + cuda_words(e),
                        "free resident resources or use smaller buffers");
        return fail(error_code::dispatch_failed, "cuda: " + what + ": " + cuda_words(e),
                    "check the arguments; the error names the CUDA call");
    }
    result<void> check(cudaError_t e, const std::string& what) {
        if (e == cudaSuccess) return {};
        return cuda_fail(e, what);
    }
    result<void> check(CUresult r, const std::string& what) {
        if (r == CUDA_SUCCESS) return {};
        const char* s = nullptr;
        if (error_string) error_string(r, &s);
        // Driver and runtime error numbers agree for the sticky errors.
        if (is_sticky(static_cast<cudaError_t>(r))) return cuda_fail(static_cast<cudaError_t>(r), what);
        return fail(error_code::dispatch_failed,
                    "cuda: " + what + ": CUresult " + std::to_string(static_cast<int>(r)) + (s ? std::string(" (") + s + ")" : ""),
                    "check the arguments; the error names the driver call");
    }

    // ---- set-up ---------------------------------------------------------------

    /// Initialises on first use; the error of a machine without a device, or of a lost device.
    result<void> ready() {
        if (!initialised) init();
        if (init_error) return make_unexpected(*init_error);
        if (lost)
            return fail(error_code::device_lost, "cuda: the device was lost earlier (" + lost_reason + ")",
                        "call try_recover()");
        if (cudaSetDevice(device) != cudaSuccess)
            return fail(error_code::device_lost, "cuda: cannot make device " + std::to_string(device) + " current",
                        "call try_recover()");
        return {};
    }

    void init() {
        initialised = true;
        init_error.reset();
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess || n == 0) {
            init_error = backend_error(error_code::device_lost,
                                       "cuda: no CUDA device: " + (e != cudaSuccess ? cuda_words(e) : std::string("0 devices")),
                                       "run on a machine with an NVIDIA GPU and its driver, or use the cpu backend");
            return;
        }
        if (device < 0 || device >= n) {
            init_error = backend_error(error_code::invalid_argument,
                                       "cuda: device " + std::to_string(device) + " does not exist (" + std::to_string(n) +
                                           " devices)",
                                       "use a device ordinal below " + std::to_string(n));
            return;
        }
        auto r = setup();
        if (!r) init_error = r.error();
    }

    result<void> setup() {
        VYRE_TRY(check(cudaSetDevice(device), "cudaSetDevice"));
        VYRE_TRY(check(cudaFree(nullptr), "creating the primary context"));
        VYRE_TRY(check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties"));
        arch = static_cast<std::uint32_t>(prop.major * 10 + prop.minor);
        VYRE_TRY(check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"));
        cudaMemPool_t pool = nullptr;
        VYRE_TRY(check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool"));
        std::uint64_t keep = ~0ull;  // keep freed memory in the pool: allocation stays cheap
        VYRE_TRY(check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute"));
        auto entry = [&](const char* name, auto& fn) -> result<void> {
            void* p = nullptr;
            cudaDriverEntryPointQueryResult q{};
            cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
            if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p)
                return fail(error_code::unsupported, std::string("cuda: the driver has no entry point ") + name,
                            "update the NVIDIA driver to one for CUDA 12 or newer");
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
            return {};
        };
        VYRE_TRY(entry("cuModuleLoadData", module_load));
        VYRE_TRY(entry("cuModuleUnload", module_unload));
        VYRE_TRY(entry("cuModuleGetFunction", get_function));
        VYRE_TRY(entry("cuLaunchKernel", launch));
        VYRE_TRY(entry("cuFuncSetAttribute", set_attribute));
        VYRE_TRY(entry("cuGetErrorString", error_string));
        return status_capacity(64);
    }

    result<void> make_events(event_pair& e) {
        VYRE_TRY(check(cudaEventCreate(&e.start), "cudaEventCreate"));
        return check(cudaEventCreate(&e.stop), "cudaEventCreate");
    }

    result<void> status_capacity(std::uint32_t slots) {
        if (slots <= status_slots) return {};
        if (status) cudaFree(status);
        status = nullptr;
        status_slots = 0;
        VYRE_TRY(check(cudaMalloc(reinterpret_cast<void**>(&status), std::size_t(slots) * cuda_lowering::status_words * 4),
                       "allocating the status buffer"));
        status_slots = slots;
        return {};
    }

    result<std::uint8_t*> staging(std::uint64_t n) {
        if (n > pinned_size) {
            if (pinned) cudaFreeHost(pinned);
            pinned = nullptr;
            pinned_size = 0;
            std::uint64_t want = std::max<std::uint64_t>(n, 1 << 20);
            VYRE_TRY(check(cudaMallocHost(&pinned, want), "allocating " + std::to_string(want) + " bytes of pinned staging memory"));
            pinned_size = want;
        }
        return static_cast<std::uint8_t*>(pinned);
    }

    device_limits limits() const {
        device_limits l;
        l.subgroup_size = 32;
        if (!initialised || init_error) {
            l.max_storage_buffer_bytes = 0;
            return l;
        }
        l.max_workgroup_size = {std::uint32_t(prop.maxThreadsDim[0]), std::uint32_t(prop.maxThreadsDim[1]),
                                std::uint32_t(prop.maxThreadsDim[2])};
        l.max_workgroups = {std::uint32_t(prop.maxGridSize[0]), std::uint32_t(prop.maxGridSize[1]),
                            std::uint32_t(prop.maxGridSize[2])};
        l.max_invocations_per_workgroup = std::uint32_t(prop.maxThreadsPerBlock);
        l.subgroup_size = std::uint32_t(prop.warpSize);
        l.max_storage_buffer_bytes = prop.totalGlobalMem;
        l.max_workgroup_bytes = prop.sharedMemPerBlockOptin > 64 ? prop.sharedMemPerBlockOptin - 64 : 0;
        return l;
    }

    // ---- resources --------------------------------------------------------------

    result<allocation*> get(const cuda_resource& r, const char* what) {
        if (r.owner != instance) return make_unexpected(foreign_resource_error(what));
        if (r.context != context)
            return fail(error_code::invalid_resource,
                        std::string(what) + ": resource " + std::to_string(r.id) +
                            " was invalidated by a device reset (try_recover) or shutdown",
                        "allocate and upload it again");
        auto it = allocs.find(r.id);
        if (it == allocs.end()) return make_unexpected(freed_resource_error(what));
        return &it->second;
    }
    result<allocation*> get_range(const cuda_resource& r, std::uint64_t off, std::uint64_t len, const char* what) {
        auto a = get(r, what);
        if (!a) return a;
        VYRE_TRY(check_range(off, len, (*a)->size, what));
        return a;
    }

    // ---- compiled programs -----------------------------------------------------------

    result<std::shared_ptr<const cuda_module>> module_for(const ir::program& p, bool count_steps = false) {
        const bool op_body = p.body.size() == 1 && p.body[0].kind == ir::stmt_kind::op;
        count_steps = count_steps && !op_body;
        // Key: structural hash, architecture, lowering version, step counting.
        const std::uint64_t h = ir::structural_hash(p) ^ (std::uint64_t(arch) << 48) ^
                                (std::uint64_t(cuda_lowering::version) << 40) ^ (count_steps ? 0x9e3779b97f4a7c15ull : 0);
        if (auto it = modules.find(h); it != modules.end() && it->second->program == p && it->second->counts_steps == count_steps) {
            ++hits;
            return std::shared_ptr<const cuda_module>(it->second);
        }
        auto diags = ir::validate(p);
        if (!diags.empty())
            return fail(error_code::invalid_program, "program '" + p.name + "' is invalid:\n" + ir::format_diagnostics(diags),
                        "fix the listed problems (see vyre::ir::validate)");
        VYRE_TRY(check_declared_sizes(p, limits()));
        auto m = std::make_shared<cuda_module>();
        m->program = p;
        m->counts_steps = count_steps;
        if (op_body) {
            m->op = ops::find_op(p.body[0].name);
            m->native = ops::native_for<cuda>(*m->op);
            const auto& names = cuda_kernels::names();
            if (!m->native && std::find(names.begin(), names.end(), p.body[0].name) == names.end()) {
                std::string list;
                for (const auto& n : supported_op_names()) list += (list.empty() ? "" : ", ") + n;
                return fail(error_code::unsupported,
                            "unsupported op '" + p.body[0].name + "' on cuda: it has no CUDA kernel (program '" + p.name + "')",
                            "run it on cpu or cpu-ref, or register a native cuda implementation "
                            "(vyre::ops::native_op<vyre::cuda, Op>); cuda runs: " + list);
            }
        } else {
            auto low = cuda_lowering::lower(p, {count_steps});
            if (!low) return make_unexpected(low.error());
            auto img = cuda_nvrtc::compile(low->source, p.name, arch);
            if (!img) return make_unexpected(img.error());
            VYRE_TRY(check(module_load(&m->module, img->cubin.data()), "loading the module of program '" + p.name + "'"));
            VYRE_TRY(check(get_function(&m->kernel, m->module, cuda_lowering::kernel_name),
                           "finding the kernel of program '" + p.name + "'"));
            m->shared_bytes = low->shared_bytes;
            m->param_buffers = low->param_buffers;
            if (m->shared_bytes > 48 * 1024)
                VYRE_TRY(check(set_attribute(m->kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(m->shared_bytes)),
                               "raising the shared memory limit of program '" + p.name + "'"));
        }
        ++misses;
        modules[h] = m;
        return std::shared_ptr<const cuda_module>(m);
    }

    // ---- launching -------------------------------------------------------------

    /// Enqueues one program on `s` over bound buffers (one per declared buffer;
    /// workgroup entries ignored); its kernel reports errors into `status_out`.
    result<void> enqueue(const cuda_module& m, std::span<const device_buffer> bufs, const dispatch_config& c,
                         cudaStream_t s, std::uint32_t* status_out) {
        const ir::program& p = m.program;
        if (m.op) {
            std::vector<cuda_op_arg> args;
            for (const auto& a : p.body[0].args) {
                cuda_op_arg x;
                if (a.kind == ir::expr_kind::var) {
                    for (std::size_t i = 0; i < p.buffers.size(); ++i)
                        if (p.buffers[i].name == a.name) x = {bufs[i].ptr, bufs[i].count * ir::size_of(bufs[i].type), 0};
                } else {
                    x.literal = static_cast<std::uint32_t>(a.bits);
                }
                args.push_back(x);
            }
            int e = 0;
            if (m.native) {
                e = m.native(args.data(), args.size(), s);
            } else {
                // A catalogue op given one buffer twice, written and read: only
                // its reference's in-order loop defines the result, which the
                // parallel kernels do not follow (ops::writes_overlap).
                std::vector<ops::op_arg> ranges;
                for (const auto& x : args) ranges.push_back({{static_cast<std::uint8_t*>(x.ptr), x.bytes}, x.literal});
                if (ops::writes_overlap(*m.op, ranges))
                    return fail(error_code::unsupported,
                                "op '" + p.body[0].name + "' of program '" + p.name +
                                    "' is given one buffer twice, written and read: the cuda backend runs it in "
                                    "parallel and cannot give the reference's in-order result",
                                "pass distinct buffers (copy the input first), or run it on cpu or cpu-ref");
                std::vector<cuda_kernels::op_arg> kargs;
                for (const auto& x : args) kargs.push_back({x.ptr, x.bytes, x.literal});
                e = cuda_kernels::enqueue(p.body[0].name, kargs.data(), kargs.size(), s);
            }
            if (e != 0) return cuda_fail(static_cast<cudaError_t>(e), "op '" + p.body[0].name + "' of program '" + p.name + "'");
            return {};
        }
        std::vector<bound_buffer> shape_bufs(bufs.size());
        for (std::size_t i = 0; i < bufs.size(); ++i) shape_bufs[i] = {nullptr, bufs[i].count, bufs[i].type};
        const device_limits l = limits();
        auto shape = launch_shape(p, shape_bufs, c, l);  // (refuses a grid beyond l.max_workgroups)
        if (!shape) return make_unexpected(shape.error());
        const auto [wg, grid] = *shape;
        const std::uint64_t inv = std::uint64_t(wg[0]) * wg[1] * wg[2];
        for (int a = 0; a < 3; ++a)
            if (wg[a] > l.max_workgroup_size[a])
                return fail(error_code::unsupported,
                            "program '" + p.name + "': workgroup " + std::to_string(wg[0]) + "x" + std::to_string(wg[1]) + "x" +
                                std::to_string(wg[2]) + " is beyond the device's limits (workgroup " +
                                std::to_string(l.max_workgroup_size[0]) + "x" + std::to_string(l.max_workgroup_size[1]) + "x" +
                                std::to_string(l.max_workgroup_size[2]) + ")",
                            "use a smaller workgroup (see limits())");
        if (inv > l.max_invocations_per_workgroup)
            return fail(error_code::unsupported,
                        "program '" + p.name + "': " + std::to_string(inv) + " invocations per workgroup; the device runs at most " +
                            std::to_string(l.max_invocations_per_workgroup),
                        "use a smaller workgroup");
        if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return {};  // no invocation: nothing to run
        // The kernel's parameters in order (b_i, n_i for each buffer, the status words, the step budget); the
        // pointers to them are taken once every value is in place, so no reallocation can leave them dangling.
        std::vector<std::uint64_t> values;
        values.reserve(2 * m.param_buffers.size() + 2);
        for (std::size_t i : m.param_buffers) {
            values.push_back(reinterpret_cast<std::uint64_t>(bufs[i].ptr));
            values.push_back(bufs[i].count);
        }
        values.push_back(reinterpret_cast<std::uint64_t>(status_out));
        values.push_back(c.step_budget);
        std::vector<void*> params(values.size());
        for (std::size_t k = 0; k < values.size(); ++k) params[k] = &values[k];
        return check(launch(m.kernel, grid[0], grid[1], grid[2], wg[0], wg[1], wg[2], unsigned(m.shared_bytes),
                            reinterpret_cast<CUstream>(s), params.data(), nullptr),
                     "launching program '" + p.name + "'");
    }

    /// The error of the first failed launch among `n` status slots (already copied to the host).
    result<void> status_error(const std::uint32_t* words, std::uint32_t n, const std::vector<launch_info>& launches) {
        for (std::uint32_t k = 0; k < n; ++k) {
            const std::uint32_t* w = words + std::size_t(k) * cuda_lowering::status_words;
            const std::string name = k < launches.size() ? launches[k].program : std::string("?");
            if (w[0] == cuda_lowering::status_step_budget)
                return fail(error_code::dispatch_failed,
                            "program '" + name + "' exceeded its step budget of " +
                                std::to_string(k < launches.size() ? launches[k].budget : 0) +
                                " steps (statements and invocation starts)",
                            "raise dispatch_config::step_budget or check the program for an endless loop");
            if (w[0] == cuda_lowering::status_divergent_barrier)
                return fail(error_code::dispatch_failed,
                            "divergent barrier in program '" + name +
                                "', workgroup (" + std::to_string(w[1]) + "," + std::to_string(w[2]) + "," +
                                std::to_string(w[3]) + "): invocations wait at barrier #" + std::to_string(w[4]) +
                                (w[5] == cuda_lowering::end_site
                                     ? std::string(" while others reached the end of the program without `(return)`")
                                     : " and at barrier #" + std::to_string(w[5])),
                            "make every invocation of a workgroup reach the same barriers in the same order, or end "
                            "the ones that skip a barrier with (return)");
        }
        return {};
    }

    /// Device buffers of a resident dispatch of `p` over `rs`.
    result<std::vector<device_buffer>> bind(const ir::program& p, std::span<const cuda_resource> rs, const char* what) {
        VYRE_TRY(check_resource_count(p, rs.size(), what));
        std::vector<device_buffer> out(p.buffers.size());
        std::size_t k = 0;
        for (std::size_t i = 0; i < p.buffers.size(); ++i) {
            const auto& d = p.buffers[i];
            if (d.acc == ir::access::workgroup) {
                out[i] = {nullptr, d.count, d.type};
                continue;
            }
            auto a = get(rs[k], what);
            if (!a)
                return fail(a.error().code(), a.error().message() + " (resource " + std::to_string(k) + ", buffer '" + d.name + "')",
                            a.error().fix());
            ++k;
            auto count = bound_elements(p, d, (*a)->size, what);
            if (!count) return make_unexpected(count.error());
            out[i] = {(*a)->ptr, *count, d.type};
        }
        return out;
    }

    /// Enqueues the steps of a sequence from status slot `first_slot` on.
    result<void> enqueue_steps(std::span<const resident_step<cuda_resource>> steps, std::uint32_t first_slot,
                               std::vector<launch_info>& names) {
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const auto& st = steps[i];
            if (!st.program)
                return fail(error_code::invalid_argument, "resident sequence step " + std::to_string(i) + " has no program",
                            "set resident_step::program");
            auto m = module_for(*st.program, st.config.step_budget != 0);
            if (!m) return fail(m.error().code(), "resident sequence step " + std::to_string(i) + ": " + m.error().message(), m.error().fix());
            auto b = bind(*st.program, st.resources, "dispatch_resident");
            if (!b) return fail(b.error().code(), "resident sequence step " + std::to_string(i) + ": " + b.error().message(), b.error().fix());
            auto r = enqueue(**m, *b, st.config, stream, status + std::size_t(first_slot + i) * cuda_lowering::status_words);
            if (!r) return fail(r.error().code(), "resident sequence step " + std::to_string(i) + ": " + r.error().message(), r.error().fix());
            names.push_back({st.program->name, st.config.step_budget});
            metrics["resident_dispatches"]++;
        }
        return {};
    }

    /// Enqueues the ranged readbacks into the staging buffer; returns the staging offsets.
    result<std::vector<std::uint64_t>> enqueue_reads(std::span<const read_range<cuda_resource>> ranges,
                                                     std::span<const mutable_bytes_view> outputs, std::uint64_t status_bytes,
                                                     std::uint8_t*& host) {
        if (ranges.size() != outputs.size())
            return fail(error_code::invalid_argument,
                        "read ranges: " + std::to_string(ranges.size()) + " ranges but " + std::to_string(outputs.size()) +
                            " output spans",
                        "pass one output span per range");
        std::vector<std::uint64_t> offs;
        std::uint64_t total = status_bytes;
        std::vector<allocation*> src;
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            if (outputs[i].size() != ranges[i].length)
                return fail(error_code::invalid_argument,
                            "read range " + std::to_string(i) + " is " + std::to_string(ranges[i].length) +
                                " bytes but its output span holds " + std::to_string(outputs[i].size()),
                            "size each output span to its range's length");
            auto a = get_range(ranges[i].resource, ranges[i].offset, ranges[i].length, "read range");
            if (!a) return make_unexpected(a.error());
            src.push_back(*a);
            offs.push_back(total);
            total += align16(ranges[i].length);
        }
        auto st = staging(total);
        if (!st) return make_unexpected(st.error());
        host = *st;
        for (std::size_t i = 0; i < ranges.size(); ++i)
            if (ranges[i].length)
                VYRE_TRY(check(cudaMemcpyAsync(host + offs[i], static_cast<std::uint8_t*>(src[i]->ptr) + ranges[i].offset,
                                               ranges[i].length, cudaMemcpyDeviceToHost, stream),
                               "reading range " + std::to_string(i)));
        return offs;
    }

    /// One compiled module over resources, waited for.
    result<void> run_module(const cuda_module& m, std::span<const cuda_resource> rs, const dispatch_config& c) {
        VYRE_TRY(ready());
        VYRE_TRY(status_capacity(1));
        auto b = bind(m.program, rs, "dispatch_resident");
        if (!b) return make_unexpected(b.error());
        const std::uint64_t status_bytes = cuda_lowering::status_words * 4;
        auto host = staging(status_bytes);
        if (!host) return make_unexpected(host.error());
        VYRE_TRY(check(cudaMemsetAsync(status, 0, status_bytes, stream), "clearing the status words"));
        VYRE_TRY(enqueue(m, *b, c, stream, status));
        VYRE_TRY(check(cudaMemcpyAsync(*host, status, status_bytes, cudaMemcpyDeviceToHost, stream), "reading the status words"));
        VYRE_TRY(check(cudaStreamSynchronize(stream), "running program '" + m.program.name + "'"));
        metrics["resident_dispatches"]++;
        return status_error(reinterpret_cast<const std::uint32_t*>(*host), 1, {{m.program.name, c.step_budget}});
    }

    /// The whole sequence: prefix, `repeat` replays of `repeated` (a graph), readbacks; one synchronisation.
    result<timings> run_sequence(std::span<const resident_step<cuda_resource>> prefix,
                                 std::span<const resident_step<cuda_resource>> repeated, std::uint64_t repeat,
                                 std::span<const read_range<cuda_resource>> ranges, std::span<const mutable_bytes_view> outputs) {
        VYRE_TRY(ready());
        const auto t0 = clock::now();
        const std::uint32_t slots = std::uint32_t(prefix.size() + repeated.size());
        VYRE_TRY(status_capacity(std::max<std::uint32_t>(slots, 1)));
        const std::uint64_t status_bytes = std::uint64_t(slots) * cuda_lowering::status_words * 4;
        event_pair ev;
        VYRE_TRY(make_events(ev));
        VYRE_TRY(check(cudaEventRecord(ev.start, stream), "cudaEventRecord"));
        if (status_bytes) VYRE_TRY(check(cudaMemsetAsync(status, 0, status_bytes, stream), "clearing the status words"));
        std::vector<launch_info> names;
        VYRE_TRY(enqueue_steps(prefix, 0, names));
        if (repeat > 0 && !repeated.empty()) {
            // Compile and load first: module loading is not allowed while a stream captures.
            for (std::size_t i = 0; i < repeated.size(); ++i)
                if (repeated[i].program) {
                    auto m = module_for(*repeated[i].program, repeated[i].config.step_budget != 0);
                    if (!m)
                        return fail(m.error().code(), "resident sequence step " + std::to_string(i) + ": " + m.error().message(),
                                    m.error().fix());
                }
            VYRE_TRY(check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture"));
            auto r = enqueue_steps(repeated, std::uint32_t(prefix.size()), names);
            cudaGraph_t graph = nullptr;
            cudaError_t e = cudaStreamEndCapture(stream, &graph);
            if (!r) {
                if (graph) cudaGraphDestroy(graph);
                return make_unexpected(r.error());
            }
            VYRE_TRY(check(e, "cudaStreamEndCapture"));
            cudaGraphExec_t exec = nullptr;
            e = cudaGraphInstantiate(&exec, graph, 0);
            cudaGraphDestroy(graph);
            VYRE_TRY(check(e, "cudaGraphInstantiate"));
            metrics["graph_captures"]++;
            for (std::uint64_t k = 0; k < repeat; ++k) {
                e = cudaGraphLaunch(exec, stream);
                if (e != cudaSuccess) {
                    cudaGraphExecDestroy(exec);
                    return cuda_fail(e, "cudaGraphLaunch (replay " + std::to_string(k) + ")");
                }
            }
            metrics["graph_replays"] += repeat;
            metrics["resident_dispatches"] += (repeat - 1) * repeated.size();
            cudaGraphExecDestroy(exec);  // (released once the enqueued replays finish)
        }
        std::uint8_t* host = nullptr;
        auto offs = enqueue_reads(ranges, outputs, status_bytes, host);
        if (!offs) return make_unexpected(offs.error());
        if (status_bytes)
            VYRE_TRY(check(cudaMemcpyAsync(host, status, status_bytes, cudaMemcpyDeviceToHost, stream), "reading the status words"));
        VYRE_TRY(check(cudaEventRecord(ev.stop, stream), "cudaEventRecord"));
        const std::uint64_t enqueue_ns = ns_since(t0);
        const auto t1 = clock::now();
        VYRE_TRY(check(cudaStreamSynchronize(stream), "waiting for the sequence"));
        const std::uint64_t wait_ns = ns_since(t1);
        float ms = 0;
        cudaEventElapsedTime(&ms, ev.start, ev.stop);
        std::vector<std::uint32_t> words(status_bytes / 4);
        if (status_bytes) std::memcpy(words.data(), host, status_bytes);
        // the names of the repeated steps repeat: slot k is prefix step k, then repeated step k - prefix
        VYRE_TRY(status_error(words.data(), slots, names));
        std::uint64_t down = 0;
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            if (ranges[i].length) std::memcpy(outputs[i].data(), host + (*offs)[i], ranges[i].length);
            down += ranges[i].length;
        }
        metrics["bytes_downloaded"] += down;
        if (!ranges.empty()) metrics["download_calls"]++;
        return timings{ns_since(t0), static_cast<std::uint64_t>(double(ms) * 1e6), enqueue_ns, wait_ns};
    }

    /// A dispatch over host bytes on stream `s` (the instance's or an async one).
    struct host_run {
        std::vector<bytes> storage;
        std::vector<device_buffer> bufs;
        std::vector<void*> temps;
        std::shared_ptr<const cuda_module> module;
        std::uint64_t budget = 0;
        std::uint8_t* out_area = nullptr;   ///< pinned memory behind the staged inputs: status words, then outputs
        std::vector<std::uint64_t> offs;    ///< where each output lands in `out_area`
    };

    /// Stages the inputs through `pinned_in`, allocates and fills the device
    /// buffers, and enqueues the program. On failure the buffers are freed again.
    result<void> enqueue_host(host_run& h, const ir::program& p, std::span<const bytes_view> inputs, const dispatch_config& c,
                              cudaStream_t s, std::uint8_t* pinned_in, std::uint32_t* status_out) {
        auto r = enqueue_host_buffers(h, p, inputs, c, s, pinned_in, status_out);
        if (!r) {
            for (void* t : h.temps) cudaFreeAsync(t, s);
            h.temps.clear();
        }
        return r;
    }

    result<void> enqueue_host_buffers(host_run& h, const ir::program& p, std::span<const bytes_view> inputs,
                                      const dispatch_config& c, cudaStream_t s, std::uint8_t* pinned_in,
                                      std::uint32_t* status_out) {
        auto m = module_for(p, c.step_budget != 0);
        if (!m) return make_unexpected(m.error());
        h.module = *m;
        h.budget = c.step_budget;
        auto bound = bind_host_inputs(p, inputs, h.storage);
        if (!bound) return make_unexpected(bound.error());
        h.bufs.assign(p.buffers.size(), {});
        std::uint64_t off = 0;
        for (std::size_t i = 0; i < p.buffers.size(); ++i) {
            const auto& d = p.buffers[i];
            h.bufs[i] = {nullptr, (*bound)[i].count, d.type};
            if (d.acc == ir::access::workgroup) continue;
            const std::uint64_t n = h.storage[i].size();
            void* ptr = nullptr;
            VYRE_TRY(check(cudaMallocAsync(&ptr, std::max<std::uint64_t>(n, 1), s),
                           "allocating " + std::to_string(n) + " bytes for buffer '" + d.name + "'"));
            h.temps.push_back(ptr);
            h.bufs[i].ptr = ptr;
            if (n == 0) continue;
            if (ir::is_input(d.acc)) {
                std::memcpy(pinned_in + off, h.storage[i].data(), n);
                VYRE_TRY(check(cudaMemcpyAsync(ptr, pinned_in + off, n, cudaMemcpyHostToDevice, s),
                               "uploading buffer '" + d.name + "'"));
                off += align16(n);
                metrics["bytes_uploaded"] += n;
            } else {
                VYRE_TRY(check(cudaMemsetAsync(ptr, 0, n, s), "zeroing buffer '" + d.name + "'"));
            }
        }
        h.out_area = pinned_in + off;
        VYRE_TRY(check(cudaMemsetAsync(status_out, 0, cuda_lowering::status_words * 4, s), "clearing the status words"));
        return enqueue(**m, h.bufs, c, s, status_out);
    }

    /// Bytes of pinned memory a host dispatch needs: inputs, outputs, status.
    static std::uint64_t host_bytes(const ir::program& p, std::span<const bytes_view> inputs) {
        std::uint64_t n = cuda_lowering::status_words * 4 + 16;
        std::size_t k = 0;
        for (const auto& d : p.buffers) {
            if (ir::is_input(d.acc) && k < inputs.size()) n += align16(inputs[k++].size()) * 2;
            if (d.acc == ir::access::output) n += align16(d.count * ir::size_of(d.type));
        }
        return n;
    }

    /// Enqueues the downloads of the status words and the outputs into `h.out_area`, then frees the device buffers.
    result<void> enqueue_outputs(host_run& h, const ir::program& p, cudaStream_t s, std::uint32_t* status_in) {
        auto r = enqueue_output_copies(h, p, s, status_in);
        for (void* t : h.temps) cudaFreeAsync(t, s);
        h.temps.clear();
        return r;
    }

    result<void> enqueue_output_copies(host_run& h, const ir::program& p, cudaStream_t s, std::uint32_t* status_in) {
        std::uint64_t off = cuda_lowering::status_words * 4 + 16;
        VYRE_TRY(check(cudaMemcpyAsync(h.out_area, status_in, cuda_lowering::status_words * 4, cudaMemcpyDeviceToHost, s),
                       "reading the status words"));
        for (std::size_t i = 0; i < p.buffers.size(); ++i) {
            if (!ir::is_output(p.buffers[i].acc)) continue;
            const std::uint64_t n = h.storage[i].size();
            h.offs.push_back(off);
            if (n) VYRE_TRY(check(cudaMemcpyAsync(h.out_area + off, h.bufs[i].ptr, n, cudaMemcpyDeviceToHost, s),
                                  "downloading buffer '" + p.buffers[i].name + "'"));
            off += align16(n);
        }
        return {};
    }

    /// The outputs of a finished host dispatch.
    result<std::vector<bytes>> collect(host_run& h, const ir::program& p) {
        VYRE_TRY(status_error(reinterpret_cast<const std::uint32_t*>(h.out_area), 1, {{p.name, h.budget}}));
        std::vector<bytes> out;
        std::size_t k = 0;
        for (std::size_t i = 0; i < p.buffers.size(); ++i) {
            if (!ir::is_output(p.buffers[i].acc)) continue;
            bytes b = std::move(h.storage[i]);
            if (!b.empty()) std::memcpy(b.data(), h.out_area + h.offs[k], b.size());
            metrics["bytes_downloaded"] += b.size();
            out.push_back(std::move(b));
            ++k;
        }
        metrics["dispatches"]++;
        return out;
    }

    result<timed<std::vector<bytes>>> dispatch(const ir::program& p, std::span<const bytes_view> inputs, const dispatch_config& c) {
        if (auto r = ready(); !r) {
            // Inputs that fit no device (a wrong size) are the caller's error first.
            std::vector<bytes> scratch;
            if (auto b = bind_host_inputs(p, inputs, scratch); !b) return make_unexpected(b.error());
            return make_unexpected(r.error());
        }
        const auto t0 = clock::now();
        auto st = staging(host_bytes(p, inputs));
        if (!st) return make_unexpected(st.error());
        event_pair ev;
        VYRE_TRY(make_events(ev));
        host_run h;
        VYRE_TRY(check(cudaEventRecord(ev.start, stream), "cudaEventRecord"));
        auto r = enqueue_host(h, p, inputs, c, stream, *st, status);
        if (r) r = enqueue_outputs(h, p, stream, status);
        if (!r) {
            cudaStreamSynchronize(stream);  // (the staging buffer may still be read)
            return make_unexpected(r.error());
        }
        VYRE_TRY(check(cudaEventRecord(ev.stop, stream), "cudaEventRecord"));
        const std::uint64_t enqueue_ns = ns_since(t0);
        const auto t1 = clock::now();
        VYRE_TRY(check(cudaStreamSynchronize(stream), "running program '" + p.name + "'"));
        const std::uint64_t wait_ns = ns_since(t1);
        float ms = 0;
        cudaEventElapsedTime(&ms, ev.start, ev.stop);
        auto out = collect(h, p);
        if (!out) return make_unexpected(out.error());
        return timed<std::vector<bytes>>{std::move(*out),
                                         timings{ns_since(t0), static_cast<std::uint64_t>(double(ms) * 1e6), enqueue_ns, wait_ns}};
    }

    void release_all() {
        if (stream) cudaStreamSynchronize(stream);
        for (auto& [id, a] : allocs) cudaFree(a.ptr);
        allocs.clear();
        for (auto& [h, m] : modules)
            if (m->module && module_unload) module_unload(m->module);
        modules.clear();
        metrics["live_bytes"] = 0;
    }
};

} // namespace detail

// ---- cuda_pipeline ------------------------------------------------------------------

const ir::program& cuda_pipeline::program() const {
    static const ir::program empty;
    return module_ ? module_->program : empty;
}

// ---- cuda ------------------------------------------------------------------------------

cuda::cuda(int device) : s_(std::make_unique<detail::cuda_state>()) { s_->device = device; }
cuda::~cuda() {
    if (!s_) return;
    std::lock_guard lk(s_->mu);
    if (s_->initialised && !s_->init_error && !s_->lost) {
        cudaSetDevice(s_->device);
        s_->release_all();
        if (s_->status) cudaFree(s_->status);
        if (s_->pinned) cudaFreeHost(s_->pinned);
        if (s_->stream) cudaStreamDestroy(s_->stream);
    }
}
cuda::cuda(cuda&&) noexcept = default;
cuda& cuda::operator=(cuda&&) noexcept = default;

int cuda::device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
}

std::string cuda::no_device_reason() {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) return detail::cuda_words(e);
    return n == 0 ? "no CUDA device" : "";
}

device_limits cuda::limits() const {
    std::lock_guard lk(s_->mu);
    if (!s_->initialised) s_->init();
    return s_->limits();
}

std::uint32_t cuda::architecture() const {
    std::lock_guard lk(s_->mu);
    if (!s_->initialised) s_->init();
    return s_->init_error ? 0 : s_->arch;
}

vyre::device_profile cuda::device_profile() const {
    std::lock_guard lk(s_->mu);
    if (!s_->initialised) s_->init();
    vyre::device_profile d;
    d.backend = "cuda";
    d.limits = s_->limits();
    if (s_->init_error) {
        d.device = "none (" + s_->init_error->message() + ")";
        return d;
    }
    const auto& p = s_->prop;
    d.device = std::string(p.name) + ", sm_" + std::to_string(s_->arch) + ", " + std::to_string(p.multiProcessorCount) +
               " SMs, " + std::to_string(p.totalGlobalMem >> 20) + " MiB";
    const std::uint32_t a = s_->arch;
    d.capabilities.push_back("subgroup_ops");
    if (a >= 53) d.capabilities.push_back("f16");
    if (a >= 80) d.capabilities.push_back("bf16");
    if (a >= 70) d.capabilities.push_back("tensor_cores");
    if (p.asyncEngineCount > 0) d.capabilities.push_back("async_compute");
    if (p.cooperativeLaunch) d.capabilities.push_back("grid_sync");
    d.capabilities.push_back("resident_dispatch");
    return d;
}

std::vector<std::string> cuda::supported_ops() const { return detail::supported_op_names(); }

result<std::vector<bytes>> cuda::dispatch(const ir::program& p, std::span<const bytes_view> inputs, const dispatch_config& c) {
    std::lock_guard lk(s_->mu);
    auto r = s_->dispatch(p, inputs, c);
    if (!r) return make_unexpected(r.error());
    return std::move(r->value);
}

result<timed<std::vector<bytes>>> cuda::dispatch_timed(const ir::program& p, std::span<const bytes_view> inputs,
                                                       const dispatch_config& c) {
    std::lock_guard lk(s_->mu);
    return s_->dispatch(p, inputs, c);
}

pending<std::vector<bytes>> cuda::dispatch_async(ir::program p, std::vector<bytes> inputs, dispatch_config c) {
    using out_t = result<std::vector<bytes>>;
    // What the pending handle owns: its stream, its completion event, its pinned memory.
    struct in_flight {
        cudaStream_t stream = nullptr;
        cudaEvent_t done = nullptr;
        void* pinned = nullptr;
        std::uint32_t* status = nullptr;  // its own status words
        detail::cuda_state::host_run h;
        ~in_flight() {
            if (stream) cudaStreamSynchronize(stream);
            if (done) cudaEventDestroy(done);
            if (pinned) cudaFreeHost(pinned);
            if (status) cudaFree(status);
            if (stream) cudaStreamDestroy(stream);
        }
    };
    auto f = std::make_shared<in_flight>();
    auto start = [&]() -> result<void> {
        std::lock_guard lk(s_->mu);
        auto& s = *s_;
        VYRE_TRY(s.ready());
        VYRE_TRY(s.check(cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking), "cudaStreamCreate (async dispatch)"));
        VYRE_TRY(s.check(cudaEventCreateWithFlags(&f->done, cudaEventDisableTiming), "cudaEventCreate (async dispatch)"));
        std::vector<bytes_view> views(inputs.begin(), inputs.end());
        const std::uint64_t need = detail::cuda_state::host_bytes(p, views);
        VYRE_TRY(s.check(cudaMallocHost(&f->pinned, need), "allocating pinned memory (async dispatch)"));
        VYRE_TRY(s.check(cudaMalloc(reinterpret_cast<void**>(&f->status), cuda_lowering::status_words * 4),
                         "allocating status words (async dispatch)"));
        VYRE_TRY(s.enqueue_host(f->h, p, views, c, f->stream, static_cast<std::uint8_t*>(f->pinned), f->status));
        VYRE_TRY(s.enqueue_outputs(f->h, p, f->stream, f->status));
        return s.check(cudaEventRecord(f->done, f->stream), "cudaEventRecord (async dispatch)");
    };
    auto started = start();
    if (!started) {
        std::promise<out_t> pr;
        pr.set_value(make_unexpected(started.error()));
        return pending<std::vector<bytes>>(pr.get_future());
    }
    return pending<std::vector<bytes>>(std::async(std::launch::async, [this, f, p = std::move(p)]() -> out_t {
        cudaError_t e = cudaEventSynchronize(f->done);
        std::lock_guard lk(s_->mu);
        if (e != cudaSuccess) return s_->cuda_fail(e, "async dispatch of program '" + p.name + "'");
        return s_->collect(f->h, p);
    }));
}

result<void> cuda::prepare(const ir::program& p) {
    std::lock_guard lk(s_->mu);
    VYRE_TRY(s_->ready());
    auto m = s_->module_for(p);
    if (!m) return make_unexpected(m.error());
    return {};
}

result<cuda_pipeline> cuda::compile_native(const ir::program& p) {
    std::lock_guard lk(s_->mu);
    VYRE_TRY(s_->ready());
    auto m = s_->module_for(p);
    if (!m) return make_unexpected(m.error());
    cuda_pipeline pl;
    pl.module_ = *m;
    pl.owner_ = s_->instance;
    pl.context_ = s_->context;
    return pl;
}

pipeline_cache_stats cuda::pipeline_cache_snapshot() const {
    std::lock_guard lk(s_->mu);
    return {s_->hits, s_->misses, s_->modules.size()};
}

result<cuda::resource> cuda::allocate(std::uint64_t n) {
    std::lock_guard lk(s_->mu);
    auto& s = *s_;
    VYRE_TRY(s.ready());
    void* p = nullptr;
    VYRE_TRY(s.check(cudaMallocAsync(&p, std::max<std::uint64_t>(n, 1), s.stream), "allocate(" + std::to_string(n) + " bytes)"));
    auto r = s.check(cudaMemsetAsync(p, 0, std::max<std::uint64_t>(n, 1), s.stream), "zeroing a new allocation");
    if (r) r = s.check(cudaStreamSynchronize(s.stream), "allocate");
    if (!r) {
        cudaFreeAsync(p, s.stream);
        return make_unexpected(r.error());
    }
    const std::uint64_t id = s.next_id++;
    s.allocs[id] = {p, n};
    s.metrics["allocations"]++;
    s.metrics["live_bytes"] += n;
    return cuda_resource{id, s.instance, s.device, s.context};
}

result<void> cuda::free(const resource& r) {
    std::lock_guard lk(s_->mu);
    auto& s = *s_;
    VYRE_TRY(s.ready());
    auto a = s.get(r, "free");
    if (!a) return make_unexpected(a.error());
    VYRE_TRY(s.check(cudaFreeAsync((*a)->ptr, s.stream), "free"));
    s.metrics["live_bytes"] -= (*a)->size;
    s.allocs.erase(r.id);
    return {};
}

result<void> cuda::upload(const resource& r, bytes_view d) {
    {
        std::lock_guard lk(s_->mu);
        VYRE_TRY(s_->ready());
        auto a = s_->get(r, "upload");
        if (!a) return make_unexpected(a.error());
        VYRE_TRY(detail::check_upload_size(d.size(), (*a)->size));
    }
    return upload_at(r, 0, d);
}

result<void> cuda::upload_at(const resource& r, std::uint64_t offset, bytes_view d) {
    std::lock_guard lk(s_->mu);
    auto& s = *s_;
    VYRE_TRY(s.ready());
    auto a = s.get_range(r, offset, d.size(), "upload_at");
    if (!a) return make_unexpected(a.error());
    if (d.empty()) return {};
    auto st = s.staging(d.size());
    if (!st) return make_unexpected(st.error());
    std::memcpy(*st, d.data(), d.size());
    VYRE_TRY(s.check(cudaMemcpyAsync(static_cast<std::uint8_t*>((*a)->ptr) + offset, *st, d.size(), cudaMemcpyHostToDevice, s.stream),
                     "upload_at"));
    VYRE_TRY(s.check(cudaStreamSynchronize(s.stream), "upload_at"));
    s.metrics["bytes_uploaded"] += d.size();
    s.metrics["upload_calls"]++;
    return {};
}

result<void> cuda::upload_many(std::span<const upload_op<resource>> ops) {
    std::lock_guard lk(s_->mu);
    auto& s = *s_;
    VYRE_TRY(s.ready());
    std::vector<detail::allocation*> dst;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        auto a = s.get(ops[i].resource, "upload_many");
        if (!a) return fail(a.error().code(), "upload " + std::to_string(i) + " of " + a.error().message(), a.error().fix());
        VYRE_TRY(detail::check_upload_size(ops[i].data.size(), (*a)->size, static_cast<long>(i)));
        dst.push_back(*a);
        total += detail::align16(ops[i].data.size());
    }
    auto st = s.staging(total);
    if (!st) return make_unexpected(st.error());
    std::uint64_t off = 0, bytes_moved = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const auto n = ops[i].data.size();
        if (n == 0) continue;
        std::memcpy(*st + off, ops[i].data.data(), n);
        VYRE_TRY(s.check(cudaMemcpyAsync(dst[i]->ptr, *st + off, n, cudaMemcpyHostToDevice, s.stream), "upload_many"));
        off += detail::align16(n);
        bytes_moved += n;
    }
    VYRE_TRY(s.check(cudaStreamSynchronize(s.stream), "upload_many"));
    s.metrics["bytes_uploaded"] += bytes_moved;
    s.metrics["upload_calls"]++;
    return {};
}

result<bytes> cuda::download(const resource& r) {
    std::uint64_t n = 0;
    {
        std::lock_guard lk(s_->mu);
        VYRE_TRY(s_->ready());
        auto a = s_->get(r, "download");
        if (!a) return make_unexpected(a.error());
        n = (*a)->size;
    }
    return download_range(r, 0, n);
}

result<void> cuda::download_into(const resource& r, mutable_bytes_view out) {
    {
        std::lock_guard lk(s_->mu);
        VYRE_TRY(s_->ready());
        auto a = s_->get(r, "download_into");
        if (!a) return make_unexpected(a.error());
        VYRE_TRY(detail::check_download_size(out.size(), (*a)->size));
    }
    return download_range_into(r, 0, out);
}

result<bytes> cuda::download_range(const resource& r, std::uint64_t offset, std::uint64_t len) {
    {
        std::lock_guard lk(s_->mu);
        VYRE_TRY(s_->ready());
        auto a = s_->get_range(r, offset, len, "download_range");
        if (!a) return make_unexpected(a.error());
    }
    bytes out(len);
    VYRE_TRY(download_range_into(r, offset, out));
    return out;
}

result<void> cuda::download_range_into(const resource& r, std::uint64_t offset, mutable_bytes_view out) {
    std::lock_guard lk(s_->mu);
    auto& s = *s_;
    VYRE_TRY(s.ready());
    auto a = s.get_range(r, offset, out.size(), "download_range_into");
    if (!a) return make_unexpected(a.error());
    if (!out.empty()) {
        auto st = s.staging(out.size());
        if (!st) return make_unexpected(st.error());
        VYRE_TRY(s.check(cudaMemcpyAsync(*st, static_cast<std::uint8_t*>((*a)->ptr) + offset, out.size(), cudaMemcpyDeviceToHost,
                                         s.stream),
                         "download_range_into"));
        VYRE_TRY(s.check(cudaStreamSynchronize(s.stream), "download_range_into"));
        std::memcpy(out.data(), *st, out.size());
    }
    s.metrics["bytes_downloaded"] += out.size();
    s.metrics["download_calls"]++;
    return {};
}

result<void> cuda::dispatch_resident(const ir::program& p, std::span<const resource> rs, const dispatch_config& c) {
    resident_step<resource> step{&p, std::vector<resource>(rs.begin(), rs.end()), c};
    std::lock_guard lk(s_->mu);
    auto t = s_->run_sequence(std::span(&step, 1), {}, 0, {}, {});
    if (!t) {
        // One step: drop the "resident sequence step 0: " prefix the sequence adds.
        std::string m = t.error().message();
        const std::string pre = "resident sequence step 0: ";
        if (m.rfind(pre, 0) == 0) m = m.substr(pre.size());
        return fail(t.error().code(), m, t.error().fix());
    }
    return {};
}

result<void> cuda::dispatch_resident(const cuda_pipeline& pl, std::span<const resource> rs, const dispatch_config& c) {
    {
        std::lock_guard lk(s_->mu);
        auto& s = *s_;
        if (!pl || pl.owner_ != s.instance || pl.context_ != s.context)
            return fail(error_code::invalid_resource,
                        "dispatch_resident: the pipeline is empty, from another backend instance, or older than a device reset",
                        "compile it again with compile_native on this instance");
        // The pipeline's own module, no cache lookup (a step budget needs the step-counting variant: below).
        if (c.step_budget == 0 || pl.module_->counts_steps) return s.run_module(*pl.module_, rs, c);
    }
    return dispatch_resident(pl.program(), rs, c);
}

result<void> cuda::dispatch_resident_sequence_read_ranges_into(std::span<const resident_step<resource>> steps,
                                                               std::span<const read_range<resource>> read_ranges,
                                                               std::span<const mutable_bytes_view> outputs) {
    std::lock_guard lk(s_->mu);
    auto t = s_->run_sequence(steps, {}, 0, read_ranges, outputs);
    if (!t) return make_unexpected(t.error());
    return {};
}

result<void> cuda::dispatch_resident_repeated_sequence_read_ranges_into(
    std::span<const resident_step<resource>> prefix, std::span<const resident_step<resource>> repeated,
    std::uint64_t repeat_count, std::span<const read_range<resource>> read_ranges, std::span<const mutable_bytes_view> outputs) {
    std::lock_guard lk(s_->mu);
    auto t = s_->run_sequence(prefix, repeated, repeat_count, read_ranges, outputs);
    if (!t) return make_unexpected(t.error());
    return {};
}

result<timings> cuda::dispatch_resident_sequence_read_ranges_into_timed(std::span<const resident_step<resource>> steps,
                                                                        std::span<const read_range<resource>> read_ranges,
                                                                        std::span<const mutable_bytes_view> outputs) {
    std::lock_guard lk(s_->mu);
    return s_->run_sequence(steps, {}, 0, read_ranges, outputs);
}

result<timings> cuda::dispatch_resident_repeated_sequence_read_ranges_into_timed(
    std::span<const resident_step<resource>> prefix, std::span<const resident_step<resource>> repeated,
    std::uint64_t repeat_count, std::span<const read_range<resource>> read_ranges, std::span<const mutable_bytes_view> outputs) {
    std::lock_guard lk(s_->mu);
    return s_->run_sequence(prefix, repeated, repeat_count, read_ranges, outputs);
}

metric_snapshot cuda::backend_metric_snapshot() const {
    std::lock_guard lk(s_->mu);
    metric_snapshot m(s_->metrics.begin(), s_->metrics.end());
    for (const char* k : {"dispatches", "resident_dispatches", "bytes_uploaded", "bytes_downloaded", "upload_calls",
                          "download_calls", "allocations", "live_bytes", "graph_captures", "graph_replays"})
        m.emplace(k, 0);
    return m;
}

result<void> cuda::flush() {
    std::lock_guard lk(s_->mu);
    VYRE_TRY(s_->ready());
    return s_->check(cudaStreamSynchronize(s_->stream), "flush");
}

result<void> cuda::shutdown() {
    std::lock_guard lk(s_->mu);
    if (!s_->initialised || s_->init_error || s_->lost) return {};
    cudaSetDevice(s_->device);
    s_->release_all();
    s_->context++;  // every handle of before is invalid now
    return {};
}

bool cuda::device_lost() const {
    std::lock_guard lk(s_->mu);
    return s_->lost;
}

result<void> cuda::try_recover() {
    std::lock_guard lk(s_->mu);
    auto& s = *s_;
    if (!s.initialised) s.init();
    if (s.init_error && s.init_error->code() == error_code::device_lost && !s.lost) {
        // No device at all: try again from the start (a driver may have appeared).
        s.initialised = false;
        s.init();
        if (s.init_error) return make_unexpected(*s.init_error);
        return {};
    }
    if (s.init_error) return make_unexpected(*s.init_error);  // e.g. a device ordinal that does not exist
    if (!s.lost) return {};
    cudaSetDevice(s.device);
    // The context and everything in it go away with the reset: forget, do not free.
    s.allocs.clear();
    s.modules.clear();
    s.stream = nullptr;
    s.status = nullptr;
    s.status_slots = 0;
    s.pinned = nullptr;
    s.pinned_size = 0;
    s.metrics["live_bytes"] = 0;
    s.context++;
    cudaError_t e = cudaDeviceReset();
    if (e != cudaSuccess)
        return fail(error_code::device_lost, "cuda: try_recover: cudaDeviceReset failed: " + detail::cuda_words(e),
                    "the device needs a process restart or a driver reset");
    s.lost = false;
    s.lost_reason.clear();
    auto r = s.setup();
    if (!r) {
        s.lost = true;
        s.lost_reason = "recreating the context after a reset: " + r.error().message();
        return fail(error_code::device_lost, "cuda: try_recover: " + r.error().message(), r.error().fix());
    }
    s.metrics["recoveries"]++;
    return {};
}

} // namespace vyre
