#pragma once
/// \file vyre/core/popcount.hpp
/// The set bits of a word, or of a range of words, with the CPU's
/// population-count instruction wherever the CPU has one. A build for the
/// baseline x86-64 (Debian's default, and ours) may not use that
/// instruction: there `std::popcount` is a call into libgcc
/// (`__popcountdi2`), several times slower than the instruction on a
/// bitset of gigabytes. These functions read the CPU's features (found once,
/// at start-up) and use the instruction (an `asm` statement for one word, a
/// function compiled for it for a range); built with `-mpopcnt` (or a
/// `-march` that has it), and off x86-64, they are `std::popcount`.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#if defined(__x86_64__) && !defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
#define VYRE_POPCOUNT_DISPATCH 1
#else
#define VYRE_POPCOUNT_DISPATCH 0
#endif

namespace vyre {

namespace detail {
#if VYRE_POPCOUNT_DISPATCH
/// True when this CPU has `popcnt` (false before libgcc's CPU check has run,
/// in a constructor that runs before it: then the portable path counts).
inline bool cpu_has_popcnt() noexcept { return __builtin_cpu_supports("popcnt"); }

/// The range count, compiled for `popcnt`; call only where the CPU has it.
[[gnu::target("popcnt")]] inline std::uint64_t popcount_words_popcnt(const std::uint32_t* p, std::size_t n) noexcept {
    std::uint64_t a = 0, b = 0;
    std::size_t i = 0;
    for (; i + 2 <= n; i += 2) {  // two chains: popcnt's latency hides behind the other
        a += static_cast<std::uint64_t>(__builtin_popcount(p[i]));
        b += static_cast<std::uint64_t>(__builtin_popcount(p[i + 1]));
    }
    if (i < n) a += static_cast<std::uint64_t>(__builtin_popcount(p[i]));
    return a + b;
}
#endif
} // namespace detail

/// The set bits of `w` (`std::popcount`, with the CPU's instruction where it has one).
inline int popcount(std::uint32_t w) noexcept {
#if VYRE_POPCOUNT_DISPATCH
    if (detail::cpu_has_popcnt()) {
        std::uint32_t r;
        asm("popcntl %1, %0" : "=r"(r) : "r"(w) : "cc");
        return static_cast<int>(r);
    }
#endif
    return std::popcount(w);
}

/// The set bits of `w` (`std::popcount`, with the CPU's instruction where it has one).
inline int popcount(std::uint64_t w) noexcept {
#if VYRE_POPCOUNT_DISPATCH
    if (detail::cpu_has_popcnt()) {
        std::uint64_t r;
        asm("popcntq %1, %0" : "=r"(r) : "r"(w) : "cc");
        return static_cast<int>(r);
    }
#endif
    return std::popcount(w);
}

/// The set bits of all of `words`.
inline std::uint64_t popcount(std::span<const std::uint32_t> words) noexcept {
#if VYRE_POPCOUNT_DISPATCH
    if (detail::cpu_has_popcnt()) return detail::popcount_words_popcnt(words.data(), words.size());
#endif
    std::uint64_t n = 0;
    for (const std::uint32_t w : words) n += static_cast<std::uint64_t>(std::popcount(w));
    return n;
}

} // namespace vyre
