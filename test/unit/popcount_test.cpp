/// \file test/unit/popcount_test.cpp
/// vyre::popcount (vyre/core/popcount.hpp) counts as `std::popcount` does,
/// on one word of each width and on ranges of every length and alignment.
/// On a CPU with `popcnt` (every x86-64 CPU since 2009) the instruction path
/// is what runs here; the test says which one ran.

#include <catch2/catch.hpp>

#include <vyre/core/popcount.hpp>

#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

TEST_CASE("vyre::popcount counts a word as std::popcount does", "[core][popcount]") {
#if VYRE_POPCOUNT_DISPATCH
    WARN("popcount path: " << (vyre::detail::cpu_has_popcnt() ? "the popcnt instruction (checked at run time)" : "std::popcount"));
#else
    WARN("popcount path: std::popcount (built with popcnt, or not for x86-64)");
#endif
    std::vector<std::uint64_t> words{0, 1, ~std::uint64_t{0}, std::uint64_t{1} << 63, 0x8000000000000001ull,
                                     0x5555555555555555ull, 0xffffffff00000000ull, 0x00000000ffffffffull};
    for (unsigned b = 0; b < 64; ++b) words.push_back(std::uint64_t{1} << b), words.push_back(~(std::uint64_t{1} << b));
    std::mt19937_64 rng(42);
    for (int i = 0; i < 10000; ++i) words.push_back(rng() & rng());  // sparse and dense words alike
    for (const std::uint64_t w : words) {
        CHECK(vyre::popcount(w) == std::popcount(w));
        const auto lo = static_cast<std::uint32_t>(w), hi = static_cast<std::uint32_t>(w >> 32);
        CHECK(vyre::popcount(lo) == std::popcount(lo));
        CHECK(vyre::popcount(hi) + vyre::popcount(lo) == vyre::popcount(w));
    }
}

TEST_CASE("vyre::popcount of a range is the sum over its words, at every length and offset", "[core][popcount]") {
    std::mt19937 rng(7);
    std::vector<std::uint32_t> v(200);
    for (std::uint32_t& w : v) w = static_cast<std::uint32_t>(rng());
    v[3] = ~0u, v[4] = 0;
    for (std::size_t off = 0; off < 5; ++off)
        for (std::size_t n = 0; off + n <= v.size(); ++n) {
            std::uint64_t expect = 0;
            for (std::size_t i = off; i < off + n; ++i) expect += static_cast<std::uint64_t>(std::popcount(v[i]));
            REQUIRE(vyre::popcount(std::span<const std::uint32_t>(v).subspan(off, n)) == expect);
        }
    const std::vector<std::uint32_t> ones(1 << 20, ~0u);  // a long range
    CHECK(vyre::popcount(std::span<const std::uint32_t>(ones)) == std::uint64_t{32} << 20);
}
