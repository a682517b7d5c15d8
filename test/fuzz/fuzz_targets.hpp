#pragma once
/// \file test/fuzz/fuzz_targets.hpp
/// What the fuzz targets share. Each target (`ir_fuzz.cpp`,
/// `ifds_load_fuzz.cpp`, `ifds_solve_fuzz.cpp`) defines the libFuzzer entry
/// point `LLVMFuzzerTestOneInput`, so one source builds two ways: with
/// `clang++ -fsanitize=fuzzer,...` (libFuzzer supplies `main`) for fuzzing,
/// and with any compiler plus `replay_main.cpp` as a plain program that runs
/// the corpus and the saved regressions (a meson test).
///
/// A target returns 0 for every input it accepts or rejects cleanly; a broken
/// law (a round trip that differs, two solvers that disagree) is reported on
/// stderr and ends the process with `std::abort`, which both builds count as
/// a crash.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

/// The libFuzzer entry point: runs one input; 0 means "done, keep going".
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace vyre_fuzz {

/// Reports a broken law of target `target` and aborts (a crash to libFuzzer
/// and to the replay runner alike). `detail` may be long: it is printed whole.
[[noreturn]] inline void fail(std::string_view target, std::string_view what, std::string_view detail = {}) {
    std::fprintf(stderr, "fuzz %.*s: %.*s\n", static_cast<int>(target.size()), target.data(),
                 static_cast<int>(what.size()), what.data());
    if (!detail.empty())
        std::fprintf(stderr, "%.*s\n", static_cast<int>(detail.size()), detail.data());
    std::fflush(stderr);
    std::abort();
}

/// FNV-1a hash of the input: seeds everything a target derives from it, so
/// an input always runs the same way.
inline std::uint64_t hash_bytes(const std::uint8_t* data, std::size_t size) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < size; ++i) {
        h ^= data[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/// A small deterministic generator (SplitMix64).
struct splitmix {
    /// The state; any value is a valid seed.
    std::uint64_t state = 0;

    /// The next 64 pseudo-random bits.
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// A value in [0, n) (n > 0).
    std::uint64_t below(std::uint64_t n) { return next() % n; }
};

} // namespace vyre_fuzz
