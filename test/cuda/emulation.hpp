#pragma once
// Runs lowered kernels on the host (see emulation_shim.hpp): every recorded
// dispatch's program is lowered, all of them are compiled into one shared
// object by the host compiler, and each dispatch is replayed with one thread
// per invocation and compared byte for byte with what the reference produced.

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <vyre/backend/cuda/lowering.hpp>
#include <vyre/backend/detail/host_memory.hpp>

#include "emulation_state.hpp"
#include "recording_backend.hpp"

namespace vyre::test::emulation {

/// The outcome of replaying the recorded dispatches.
struct report {
    std::size_t replayed = 0, matched = 0, skipped = 0;
    std::vector<std::string> failures;
};

namespace detail {

using entry_fn = void (*)(void**);
using self_fn = vyre_emu::thread_state* (*)();

inline std::string replace_all(std::string s, const std::string& a, const std::string& b) {
    for (std::size_t k = 0; (k = s.find(a, k)) != std::string::npos; k += b.size()) s.replace(k, a.size(), b);
    return s;
}

/// The translation unit of case `n`: the lowered source in a namespace of its own and a uniform entry point.
inline std::string case_source(std::size_t n, const ir::program& p, const cuda_lowering::lowered_program& low) {
    const std::string N = std::to_string(n);
    std::string src = "namespace p" + N + " {\n" + replace_all(low.source, "void vyre_main(", "void vyre_main_" + N + "(");
    src += "extern \"C\" void vyre_entry_" + N + "(void** a) {\n  vyre_main_" + N + "(";
    std::size_t k = 0;
    for (std::size_t i : low.param_buffers) {
        src += "(" + std::string(cuda_lowering::detail::storage_type(p.buffers[i].type)) + "*)a[" + std::to_string(k) +
               "], *(const u64*)a[" + std::to_string(k + 1) + "], ";
        k += 2;
    }
    src += "(u32*)a[" + std::to_string(k) + "], *(const u64*)a[" + std::to_string(k + 1) + "]);\n}\n}\n";
    return src;
}

/// Runs one kernel over a grid, one thread per invocation when it has barriers.
inline void launch(entry_fn f, self_fn self, std::vector<void*>& args, std::array<std::uint32_t, 3> wg, std::array<std::uint32_t, 3> grid,
                   std::uint64_t shared_bytes, bool threads, const std::uint32_t* status) {
    const std::uint32_t inv = wg[0] * wg[1] * wg[2];
    for (std::uint32_t bz = 0; bz < grid[2]; ++bz)
        for (std::uint32_t by = 0; by < grid[1]; ++by)
            for (std::uint32_t bx = 0; bx < grid[0]; ++bx) {
                std::vector<unsigned char> smem(shared_bytes + 16);
                std::barrier<> bar(static_cast<std::ptrdiff_t>(inv));
                auto one = [&](std::uint32_t t) {
                    auto& s = *self();
                    s.thread = {t % wg[0], (t / wg[0]) % wg[1], t / (wg[0] * wg[1])};
                    s.block = {bx, by, bz};
                    s.block_dim = {wg[0], wg[1], wg[2]};
                    s.grid_dim = {grid[0], grid[1], grid[2]};
                    s.smem = smem.data();
                    s.bar = threads ? &bar : nullptr;
                    f(args.data());
                };
                if (threads) {
                    std::vector<std::thread> ts;
                    for (std::uint32_t t = 0; t < inv; ++t) ts.emplace_back(one, t);
                    for (auto& t : ts) t.join();
                } else {
                    for (std::uint32_t t = 0; t < inv; ++t) one(t);
                }
                if (status[0] != 0) return;  // a failed workgroup ends the dispatch, as in the reference
            }
}

} // namespace detail

/// Lowers, compiles (with `cxx` and `flags`) and replays `ds`; `workdir` keeps the generated file.
inline report replay(const std::vector<recorded_dispatch>& ds, const std::string& cxx, const std::string& flags,
                     const std::filesystem::path& workdir) {
    report rep;
    struct kase {
        const recorded_dispatch* d;
        cuda_lowering::lowered_program low;
    };
    std::vector<kase> cases;
    for (const auto& d : ds) {
        const auto& p = d.program;
        const bool op = p.body.size() == 1 && p.body[0].kind == ir::stmt_kind::op;
        if (op || !ir::validate(p).empty()) continue;
        auto low = cuda_lowering::lower(p, {d.config.step_budget != 0});
        if (!low) {
            rep.failures.push_back("lowering '" + p.name + "': " + low.error().what());
            continue;
        }
        cases.push_back({&d, *low});
    }
    std::filesystem::create_directories(workdir);
    const auto cpp = workdir / "kernels.cpp", so = workdir / "kernels.so";
    {
        std::ofstream f(cpp);
        f << "#include \"cuda/emulation_shim.hpp\"\n";
        for (std::size_t n = 0; n < cases.size(); ++n) f << detail::case_source(n, cases[n].d->program, cases[n].low);
    }
    const std::string cmd = cxx + " " + flags + " -shared -fPIC -o " + so.string() + " " + cpp.string() + " 2>" +
                            (workdir / "compile.log").string();
    if (std::system(cmd.c_str()) != 0) {
        rep.failures.push_back("the host compiler rejected the lowered kernels: " + cmd + " (see " +
                               (workdir / "compile.log").string() + ")");
        return rep;
    }
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        rep.failures.push_back(std::string("dlopen: ") + dlerror());
        return rep;
    }
    auto self = reinterpret_cast<detail::self_fn>(dlsym(lib, "vyre_emu_self"));
    if (!self) {
        rep.failures.push_back("the kernels' library has no vyre_emu_self");
        return rep;
    }
    for (std::size_t n = 0; n < cases.size(); ++n) {
        const auto& d = *cases[n].d;
        const auto& p = d.program;
        auto f = reinterpret_cast<detail::entry_fn>(dlsym(lib, ("vyre_entry_" + std::to_string(n)).c_str()));
        std::vector<bytes> storage;
        std::vector<bytes_view> views(d.inputs.begin(), d.inputs.end());
        auto bound = vyre::detail::bind_host_inputs(p, views, storage);
        if (!f || !bound) {
            ++rep.skipped;  // inputs the reference refused: not the lowering's business
            continue;
        }
        auto shape = vyre::detail::launch_shape(p, *bound, d.config, vyre::device_limits{});
        if (!shape) {
            ++rep.skipped;
            continue;
        }
        const auto [wg, grid] = *shape;
        const std::uint64_t inv = std::uint64_t(wg[0]) * wg[1] * wg[2];
        const std::uint64_t total = inv * grid[0] * grid[1] * grid[2];
        const bool threads = cases[n].low.barriers > 0;
        if (inv > 1024 || (threads && total > (1u << 14)) || total > (1u << 22)) {
            ++rep.skipped;  // too large to replay with threads here
            continue;
        }
        std::vector<std::uint64_t> counts, status64(cuda_lowering::status_words / 2, 0);
        counts.reserve(p.buffers.size());
        std::vector<void*> args;
        static std::uint64_t dummy[2];
        for (std::size_t i : cases[n].low.param_buffers) {
            counts.push_back((*bound)[i].count);
            args.push_back(storage[i].empty() ? static_cast<void*>(dummy) : storage[i].data());
            args.push_back(&counts.back());
        }
        auto* status = reinterpret_cast<std::uint32_t*>(status64.data());
        const std::uint64_t budget = d.config.step_budget;
        args.push_back(status);
        args.push_back(const_cast<std::uint64_t*>(&budget));
        ++rep.replayed;
        detail::launch(f, self, args, wg, grid, cases[n].low.shared_bytes, threads, status);
        std::string why;
        if (d.ok) {
            if (status[0] != 0) why = "the kernel reported status " + std::to_string(status[0]) + " where the reference succeeded";
            std::size_t k = 0;
            for (std::size_t i = 0; i < p.buffers.size() && why.empty(); ++i) {
                if (!ir::is_output(p.buffers[i].acc)) continue;
                if (storage[i] != d.outputs[k]) why = "output '" + p.buffers[i].name + "' differs from the reference";
                ++k;
            }
        } else {
            const bool divergent = d.error.find("divergent barrier") != std::string::npos;
            const bool budget_spent = d.error.find("step budget") != std::string::npos;
            const std::uint32_t want = divergent ? cuda_lowering::status_divergent_barrier
                                       : budget_spent ? cuda_lowering::status_step_budget : 0;
            if (want == 0) {
                --rep.replayed;
                ++rep.skipped;
                continue;
            }
            if (status[0] != want)
                why = "the reference failed (" + d.error + ") but the kernel's status is " + std::to_string(status[0]);
        }
        if (why.empty()) ++rep.matched;
        else rep.failures.push_back("program '" + p.name + "': " + why);
    }
    // (the library stays loaded: thread-local state of its threads is gone, nothing else refers to it)
    return rep;
}

} // namespace vyre::test::emulation
