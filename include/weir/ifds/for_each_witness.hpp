#pragma once
/// \file weir/ifds/for_each_witness.hpp
/// `for_each_witness`: witnesses for many targets of a solved problem, first
/// all at once, then each target left out on its own.
///
/// One `targeted_witnesses` for all the targets shares their derivations,
/// but its closure grows nearest first over all of them: where some
/// targets' closures explode (a fact carried through a large unification
/// group of a real program), the budget runs out before a target with a
/// short witness that changes facts early (a source read in `main`, say)
/// is derived. Searched alone, such a target needs a few hundred path
/// edges. So the targets the joint search leaves out are retried one by
/// one, each within a slice of the budget, until half the budget is spent
/// on the retries.

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>

#include <weir/ifds/layout.hpp>
#include <weir/ifds/targeted_witnesses.hpp>

namespace weir::ifds {

/// How `for_each_witness` works.
struct witness_search_options {
    /// The joint search's budget (`targeted_witness_options::memory_budget`;
    /// 0: no limit, and then the joint search leaves nobody out).
    std::uint64_t memory_budget = 0;
    /// Each retry of one target gets `memory_budget / slices` (at least one byte).
    std::uint64_t slices = 64;
    /// The closure's size at the joint search's first restricted tabulation.
    std::size_t first_pass_edges = std::size_t{1} << 16;
    /// The most vertices of a path handed out whole (0: as many as the
    /// budget holds); a longer one comes cut (`found`'s `whole` false).
    std::uint64_t max_path_vertices = 0;
};

/// What `for_each_witness` did.
struct witness_search_stats {
    targeted_witness_stats joint;  ///< the search for all the targets at once
    std::uint64_t retried = 0;     ///< targets searched alone
    std::uint64_t retry_edges = 0; ///< closure path edges of those searches, together
    std::uint64_t retry_passes = 0;///< their restricted tabulations, together
    std::uint64_t found = 0;       ///< targets with a witness, in all
};

namespace detail {
/// The vertices of a witness path that fit `opt`'s budget (0: no limit)
/// beside `held` bytes, and its `max_path_vertices`.
constexpr std::uint64_t path_steps(const witness_search_options& opt, std::uint64_t held) {
    const std::uint64_t most = opt.max_path_vertices ? opt.max_path_vertices : ~std::uint64_t{0};
    if (opt.memory_budget == 0) return most;
    return std::min(most, opt.memory_budget > held ? (opt.memory_budget - held) / sizeof(witness_path::value_type) : 0);
}
} // namespace detail

/// Calls `found(i, path, held, whole)` with a witness
/// (`targeted_witnesses::witness`) for each target i (an index into
/// `targets`) that holds in `solution` and whose search fits the budget:
/// first those of one search for all the targets (in target order), then
/// those of the targets it left out, each searched alone within
/// `opt.memory_budget / opt.slices` until half the budget is spent on them
/// (in target order). Every target is reported at most once. `held` is what
/// the search that found it holds meanwhile
/// (`targeted_witness_stats::bytes`): a caller that keeps something of the
/// paths can budget it against the same memory. The path itself counts
/// too: expanded summaries nest, so a path can be exponentially longer than
/// its search, and one that would take more than the budget less `held`
/// comes as its beginning, within that, with `whole` false (a path's
/// beginning still names its seed and where its fact was generated); so
/// does one over `opt.max_path_vertices`.
/// Fails as `targeted_witnesses::create` does for the joint search
/// (`out_of_memory` when its fixed tables do not fit the budget, and then
/// nothing is reported); a retry that fails on memory only stays without.
template <class Found>
vyre::result<witness_search_stats> for_each_witness(const layout& L, std::span<const std::uint32_t> solution,
                                                    std::span<const std::pair<node_id, fact_id>> targets,
                                                    const witness_search_options& opt, Found&& found) {
    witness_search_stats st;
    std::vector<std::size_t> left;  // the targets the joint search left without a witness
    {
        targeted_witness_options all;
        all.memory_budget = opt.memory_budget;
        all.first_pass_edges = opt.first_pass_edges;
        auto wb = targeted_witnesses::create(L, solution, targets, all);
        if (!wb) return vyre::make_unexpected(wb.error());
        st.joint = wb->stats();
        for (std::size_t i = 0; i < targets.size(); ++i) {
            bool whole = true;
            if (auto path = wb->witness(targets[i].first, targets[i].second, detail::path_steps(opt, st.joint.bytes), &whole)) {
                ++st.found;
                found(i, *path, st.joint.bytes, whole);
            } else {
                left.push_back(i);
            }
        }
    }  // its memory goes back before the retries
    if (opt.memory_budget == 0) return st;  // the joint closure was whole: what it left out does not hold
    targeted_witness_options one;
    one.memory_budget = std::max<std::uint64_t>(opt.memory_budget / std::max<std::uint64_t>(opt.slices, 1), 1);
    std::uint64_t spent = 0;
    for (const std::size_t i : left) {
        if (spent >= opt.memory_budget / 2) break;
        ++st.retried;
        auto wb = targeted_witnesses::create(L, solution, targets.subspan(i, 1), one);
        if (!wb) {
            if (wb.error().code() != vyre::error_code::out_of_memory) return vyre::make_unexpected(wb.error());
            spent += one.memory_budget;  // the fixed tables alone do not fit the slice
            continue;
        }
        spent += std::max<std::uint64_t>(wb->stats().bytes, 1);
        st.retry_edges += wb->stats().closure_edges;
        st.retry_passes += wb->stats().passes;
        bool whole = true;
        if (auto path = wb->witness(targets[i].first, targets[i].second, detail::path_steps(opt, wb->stats().bytes), &whole)) {
            ++st.found;
            found(i, *path, wb->stats().bytes, whole);
        }
    }
    return st;
}

} // namespace weir::ifds
