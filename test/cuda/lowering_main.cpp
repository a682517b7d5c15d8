// The lowering test (runs on every machine with the CUDA toolkit, GPU or not):
// runs the conformance suite on the reference while recording every program
// it dispatches, adds the IFDS solver's kernels, then lowers each valid,
// distinct program to CUDA C++, checks the generated source for the spec's
// guards, and compiles it with NVRTC for the configured architecture.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <vyre/backend/cuda/lowering.hpp>
#include <vyre/backend/provided.hpp>
#include <vyre/backend/cuda/nvrtc.hpp>
#include <vyre/ir/hash.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ir/validate.hpp>
#include <weir/ide/kernels.hpp>
#include <weir/ide/linear_ir.hpp>
#include <weir/ifds/kernels.hpp>

#include "emulation.hpp"
#include "recording_backend.hpp"

#ifndef VYRE_GPU_ARCH
#define VYRE_GPU_ARCH 90
#endif

namespace {

using namespace vyre;

/// What a program uses, to know which guards its source must contain.
struct uses {
    bool load = false, store = false, float_store = false, atomic = false, barrier = false, f16 = false;
};

void scan(const ir::program& p, const ir::expr& e, uses& u) {
    if (e.kind == ir::expr_kind::load) u.load = true;
    if (e.kind == ir::expr_kind::atomic) u.atomic = true;
    for (const auto& a : e.args) scan(p, a, u);
}
void scan(const ir::program& p, const std::vector<ir::stmt>& body, uses& u) {
    for (const auto& s : body) {
        if (s.kind == ir::stmt_kind::barrier) u.barrier = true;
        if (s.kind == ir::stmt_kind::store) {
            u.store = true;
            if (const auto* b = p.find_buffer(s.name)) {
                if (b->type == ir::scalar_type::f32 || b->type == ir::scalar_type::f64) u.float_store = true;
                if (b->type == ir::scalar_type::f16 || b->type == ir::scalar_type::bf16) u.f16 = true;
            }
        }
        for (const auto& a : s.args) scan(p, a, u);
        scan(p, s.body, u);
        scan(p, s.else_body, u);
    }
}

/// The guards the source of `p` must contain; empty when all are there.
std::string missing_guards(const ir::program& p, const std::string& src) {
    uses u;
    scan(p, p.body, u);
    std::string miss;
    auto need = [&](bool cond, const char* what, const char* pattern) {
        if (cond && src.find(pattern) == std::string::npos) miss += std::string(" ") + what;
    };
    // (integer div/mod guards live in the prelude's vy_div/vy_mod; whether a div is an integer one
    // needs types, so the replay below checks them by running the code)
    need(u.load, "bounds-checked load", ") ? ");
    need(u.store, "bounds-checked store", "if ((u64)");
    need(u.float_store, "canonical NaN on store", "= vy_canon(");
    need(u.f16, "f16/bf16 conversion", "vy_st_");
    need(u.atomic, "fenced atomic", "__threadfence(); ");
    need(u.barrier, "barrier phase", "vy_phase(vy_bs");
    need(true, "cuda_fp16.h", "#include <cuda_fp16.h>");
    return miss;
}

} // namespace

// The IR fuzz corpus too (every kind of statement, storage type and atomic),
// with generated inputs: raw random bits, so floats include NaNs, infinities
// and subnormals. A step budget bounds the endless ones.
TEST_CASE("NVRTC finds the toolkit's headers by itself, and names a bad override", "[cuda][nvrtc]") {
    // Found without any hint: beside the loaded libnvrtc, or at the build-time path.
    ::unsetenv("VYRE_CUDA_INCLUDE");
    auto dir = cuda_nvrtc::include_dir();
    REQUIRE(dir.has_value());
    CHECK(std::filesystem::is_regular_file(std::filesystem::path(*dir) / "cuda_fp16.h"));

    // An override without the headers is refused by name, not silently replaced.
    const auto empty = std::filesystem::temp_directory_path() / ("vyre-no-cuda-headers-" + std::to_string(::getpid()));
    std::filesystem::create_directories(empty);
    ::setenv("VYRE_CUDA_INCLUDE", empty.c_str(), 1);
    auto bad = cuda_nvrtc::compile("extern \"C\" __global__ void k() {}", "k", VYRE_GPU_ARCH);
    ::unsetenv("VYRE_CUDA_INCLUDE");
    std::filesystem::remove_all(empty);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code() == error_code::compile_failed);
    CHECK_THAT(bad.error().what(), Catch::Contains("VYRE_CUDA_INCLUDE") && Catch::Contains(empty.string()));

    // An override that has them is used.
    ::setenv("VYRE_CUDA_INCLUDE", dir->c_str(), 1);
    auto good = cuda_nvrtc::compile("#include <cuda_fp16.h>\nextern \"C\" __global__ void k() {}", "k", VYRE_GPU_ARCH);
    ::unsetenv("VYRE_CUDA_INCLUDE");
    CHECK(good.has_value());
}

TEST_CASE("corpus programs on generated inputs, recorded for the lowering checks", "[cuda][lowering]") {
    std::size_t ran = 0;
    for (const auto& entry : std::filesystem::directory_iterator(VYRE_IR_CORPUS_DIR)) {
        std::ifstream f(entry.path());
        std::stringstream ss;
        ss << f.rdbuf();
        auto p = ir::parse(ss.str());
        if (!p || !ir::validate(*p).empty()) continue;  // (the corpus holds invalid programs on purpose)
        std::uint64_t seed = 0x9e3779b97f4a7c15ull ^ ir::structural_hash(*p);
        std::vector<bytes> in;
        for (const auto& d : p->buffers) {
            if (!ir::is_input(d.acc)) continue;
            bytes b((d.count ? d.count : 96) * ir::size_of(d.type));
            for (auto& x : b) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                x = static_cast<std::uint8_t>(seed >> 56);
            }
            in.push_back(std::move(b));
        }
        dispatch_config c;
        c.step_budget = 2'000'000;
        test::recording_ref b;
        (void)vyre::dispatch(b, *p, in, c);  // success or failure, both are recorded
        ++ran;
    }
    CHECK(ran >= 10);
}

int main(int argc, char** argv) {
    const int failed_tests = Catch::Session().run(argc, argv);

    std::vector<ir::program> programs = test::recording_ref::recorded();
    for (bool seed : {true, false}) programs.push_back(seed ? weir::ifds::seed_kernel() : weir::ifds::expand_kernel());
    programs.push_back(weir::ifds::copy_kernel());
    programs.push_back(weir::ifds::clear_kernel());
    using ide_kernels = weir::ide::kernels<weir::ide::linear>;
    for (auto make : {&ide_kernels::jf_expand, &ide_kernels::entry_expand, &ide_kernels::keys, &ide_kernels::jf_apply,
                      &ide_kernels::entry_apply, &ide_kernels::values, &ide_kernels::count_bits})
        programs.push_back(make());

    std::map<std::uint64_t, const ir::program*> distinct;
    std::size_t invalid = 0, ops = 0;
    for (const auto& p : programs) {
        if (!ir::validate(p).empty()) {
            ++invalid;
            continue;
        }
        if (p.body.size() == 1 && p.body[0].kind == ir::stmt_kind::op) {
            ++ops;
            continue;
        }
        distinct.emplace(ir::structural_hash(p), &p);
    }
    std::size_t compiled = 0, bad = 0;
    std::string first_nvrtc_error;
    // Each program twice: as dispatched normally, and counting steps (a dispatch with a step budget).
    for (bool count : {false, true})
    for (const auto& [h, p] : distinct) {
        auto low = cuda_lowering::lower(*p, {count});
        if (!low) {
            std::printf("LOWERING FAILED for '%s': %s\n", p->name.c_str(), low.error().what());
            ++bad;
            continue;
        }
        if (count && low->source.find("u64 vy_steps = 1ull;") == std::string::npos) {
            std::printf("STEP COUNTING MISSING in '%s'\n", p->name.c_str());
            ++bad;
        }
        if (auto miss = missing_guards(*p, low->source); !miss.empty()) {
            std::printf("GUARDS MISSING in '%s':%s\n%s\n", p->name.c_str(), miss.c_str(), ir::print(*p).c_str());
            ++bad;
        }
        auto img = cuda_nvrtc::compile(low->source, p->name, VYRE_GPU_ARCH);
        if (!img) {
            // The program and source of the first failure only; the error of each.
            if (first_nvrtc_error.empty())
                std::printf("--- program '%s' ---\n%s--- its lowered source ---\n%s\n", p->name.c_str(),
                            ir::print(*p).c_str(), low->source.c_str());
            std::printf("NVRTC FAILED for '%s': %s\n", p->name.c_str(), img.error().what());
            if (first_nvrtc_error.empty()) first_nvrtc_error = img.error().what();
            ++bad;
            continue;
        }
        ++compiled;
    }
    const auto headers = cuda_nvrtc::include_dir();
    std::printf("cuda lowering: %zu distinct conformance programs, each lowered plain and step-counting: %zu "
                "compiled by NVRTC %s for sm_%d with the headers in %s, %zu failed (%zu recorded dispatches, %zu "
                "invalid on purpose, %zu catalogue-op programs run as kernels)\n",
                distinct.size(), compiled, cuda_nvrtc::version().c_str(), VYRE_GPU_ARCH,
                headers ? headers->c_str() : headers.error().what(), bad, programs.size(), invalid, ops);
    if (!first_nvrtc_error.empty()) std::printf("cuda lowering: the first NVRTC failure: %s\n", first_nvrtc_error.c_str());
    if (compiled == 0) {
        std::printf("cuda lowering: no program was compiled%s\n",
                    bad == 0 ? "; the recording did not work" : "");
        return 1;
    }

    // The lowered code itself, run on the host against the reference's recorded results.
    const auto dispatches = test::recording_ref::recorded_dispatches();
    const auto work = std::filesystem::temp_directory_path() / ("vyre-cuda-emulation-" + std::to_string(::getpid()));
    auto rep = test::emulation::replay(dispatches, VYRE_EMU_CXX, VYRE_EMU_FLAGS, work);
    for (const auto& f : rep.failures) std::printf("EMULATION MISMATCH: %s\n", f.c_str());
    std::printf("cuda lowering, emulated on host threads: %zu of %zu replayed dispatches equal the reference "
                "(%zu skipped: catalogue ops, refused inputs or too large), %zu failures\n",
                rep.matched, rep.replayed, rep.skipped, rep.failures.size());
    if (rep.failures.empty()) std::filesystem::remove_all(work);
    if (rep.matched == 0) {
        std::printf("cuda lowering: no dispatch was replayed; the emulation did not work\n");
        return 1;
    }
    return (failed_tests != 0 || bad != 0 || !rep.failures.empty()) ? 1 : 0;
}
