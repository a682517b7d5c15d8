#pragma once
/// \file weir/llvm/result.hpp
/// `ifds_result`: which facts hold before each ICFG node, read from a weir
/// solve's path-edge bits, as an analysis asks when it reports findings.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <vyre/core/popcount.hpp>
#include <weir/ifds/layout.hpp>

namespace weir::llvm {

/// The solution of a compiled analysis: fact f holds at node n when some
/// realizable path from a seed reaches (n, f).
class ifds_result {
public:
    /// Wraps a layout and the path-edge bits a solver returned for it.
    ifds_result(const weir::ifds::layout& L, std::vector<std::uint32_t> bits) : L_(&L), bits_(std::move(bits)) {}

    /// True when global fact `f` holds at node `n` (before its instruction).
    bool holds(std::uint32_t n, weir::ifds::fact_id f) const {
        const weir::ifds::layout& L = *L_;
        if (n >= L.num_nodes) return false;
        const std::uint32_t d = weir::ifds::detail::local_fact(L, L.node_proc[n], f);
        if (d == weir::ifds::detail::no_index) return false;
        for (std::uint32_t c = 0; c < L.node_fact_count[n]; ++c) {
            const std::uint64_t bit = weir::ifds::detail::row_start(L, n, c) + d;
            if (bits_[bit / 32] >> (bit % 32) & 1u) return true;
        }
        return false;
    }
    /// True when node `n` is reached at all (the zero fact holds there).
    bool reached(std::uint32_t n) const { return holds(n, weir::ifds::zero_fact); }
    /// The number of path edges (set bits).
    std::uint64_t path_edges() const {
        return vyre::popcount(std::span<const std::uint32_t>(bits_));
    }
    /// The layout.
    const weir::ifds::layout& layout() const { return *L_; }
    /// The path-edge bits (the layout's encoding).
    std::span<const std::uint32_t> bits() const { return bits_; }

private:
    const weir::ifds::layout* L_;
    std::vector<std::uint32_t> bits_;
};

} // namespace weir::llvm
